package uci

import (
	"strings"
	"testing"
	"time"
)

func TestParseCEGO(t *testing.T) {
	first := "30000000000 1000000000 26000000000 1000000000 rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
	m, err := ParseCEGOFirst(first)
	if err != nil {
		t.Fatal(err)
	}
	want := CEGOFirst{30 * time.Second, time.Second, 26 * time.Second, time.Second, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"}
	if m != want {
		t.Fatalf("got %+v, want %+v", m, want)
	}
	if m.String()+"\n" != first {
		t.Errorf("String() = %q", m.String())
	}
	if _, err := ParseCEGOFirst(first[:len(first)-1] + "\r\n"); err != nil {
		t.Errorf("CRLF: %v", err)
	}
	n, err := ParseCEGONext("26000000000 28000000000 e7e5\n")
	if err != nil || n != (CEGONext{26 * time.Second, 28 * time.Second, "e7e5"}) {
		t.Fatalf("got %+v, %v", n, err)
	}
	if n, err := ParseCEGONext("1 2 e7e8q"); err != nil || n.Move != "e7e8q" {
		t.Errorf("promotion: %+v %v", n, err)
	}

	badFirst := []string{
		"", "\n", "ready",
		"30000000000 1000000000 26000000000 1000000000",
		" 30000000000 1000000000 26000000000 1000000000 8/8/8/8/8/8/8/K6k w - - 0 1",
		"30000000000  1000000000 26000000000 1000000000 8/8/8/8/8/8/8/K6k w - - 0 1",
		"-3 1 2 3 8/8/8/8/8/8/8/K6k w - - 0 1",
		"3.5 1 2 3 8/8/8/8/8/8/8/K6k w - - 0 1",
		"99999999999999999999 1 2 3 8/8/8/8/8/8/8/K6k w - - 0 1",
		"1 1 2 3 8/8/8/8/8/8/8/K6k w - -  0 1",
		"1 1 2 3 8/8/8/8/8/8/8/K6k",
		"1 1 2 3 8/8/8/8/8/8/8/K6k\tw - - 0 1",
		"1 1 2 3 8/8/8/8/8/8/8/K6k w - - 0 1 ",
	}
	for _, s := range badFirst {
		if m, err := ParseCEGOFirst(s); err == nil {
			t.Errorf("ParseCEGOFirst(%q) = %+v, want error", s, m)
		}
	}
	badNext := []string{
		"", "1 2", "1 2 e2e4 x", "1  2 e2e4", "1 2 E2E4", "1 2 e2e9", "1 2 e7e8Q", "1 2 e7e8k",
		"1 2 O-O", "a 2 e2e4", "1 -2 e2e4", "1 2 e2e4\r\r\n", "forfeit", "1 2 e2é4",
	}
	for _, s := range badNext {
		if m, err := ParseCEGONext(s); err == nil {
			t.Errorf("ParseCEGONext(%q) = %+v, want error", s, m)
		}
	}
}

// FuzzParseCEGO checks that the CEGO parsers never panic and that accepted
// messages survive a round trip through String.
func FuzzParseCEGO(f *testing.F) {
	f.Add("30000000000 1000000000 30000000000 1000000000 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")
	f.Add("26000000000 28000000000 e7e5\n")
	f.Add("1 2 e7e8q\r\n")
	// Issue 13: zero clocks ("move now"), and a message far too long.
	f.Add("0 0 0 0 rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n")
	f.Add("1000000000 0 1000000000 0 " + strings.Repeat("x", 5000) + "\n")
	f.Fuzz(func(t *testing.T, line string) {
		if m, err := ParseCEGOFirst(line); err == nil {
			if m2, err := ParseCEGOFirst(m.String()); err != nil || m2 != m {
				t.Fatalf("first %q rendered as %q: %+v, %v", line, m.String(), m2, err)
			}
		}
		if m, err := ParseCEGONext(line); err == nil {
			if m2, err := ParseCEGONext(m.String()); err != nil || m2 != m {
				t.Fatalf("next %q rendered as %q: %+v, %v", line, m.String(), m2, err)
			}
		}
	})
}
