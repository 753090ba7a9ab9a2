package board

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// perftCase is one EPD row: a FEN and the node counts by depth (index 0 =
// depth 1).
type perftCase struct {
	line   int
	fen    string
	counts []uint64
}

func readPerftEPD(t testing.TB, path string) []perftCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []perftCase
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.Split(text, ";")
		c := perftCase{line: line, fen: strings.TrimSpace(parts[0])}
		for i, p := range parts[1:] {
			fs := strings.Fields(p)
			if len(fs) != 2 || fs[0] != fmt.Sprintf("D%d", i+1) {
				t.Fatalf("%s:%d: bad depth field %q", path, line, p)
			}
			n, err := strconv.ParseUint(fs[1], 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			c.counts = append(c.counts, n)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// longTests reports whether the long variants should run (PONDEROSA_LONG=1).
func longTests() bool { return os.Getenv("PONDEROSA_LONG") == "1" }

// fullPerft reports whether every listed depth of every perft row should be
// checked (PONDEROSA_PERFT_FULL=1; about 500 G nodes, most of them in the
// Chess960 file, so hours on one core).
func fullPerft() bool { return os.Getenv("PONDEROSA_PERFT_FULL") == "1" }

// perftBudget is the largest node count checked per position: the deepest
// listed depth within budget is run (depth 1 always).
func perftBudget(chess960 bool) uint64 {
	switch {
	case fullPerft():
		return 1 << 62
	case longTests() && chess960:
		return 50_000_000 // D5 of nearly every row, D6 of a few
	case longTests():
		return 1 << 62 // every depth of perft.epd: about 6.5 G nodes
	case raceEnabled || testing.Short():
		if chess960 {
			return 2_000
		}
		return 20_000
	case chess960:
		return 200_000
	}
	return 2_000_000
}

func runPerftFile(t *testing.T, path string, chess960 bool) {
	cases := readPerftEPD(t, path)
	if len(cases) == 0 {
		t.Fatalf("%s: no positions", path)
	}
	budget := perftBudget(chess960)
	for _, c := range cases {
		check := func(t *testing.T) {
			pos, err := ParseFEN(c.fen)
			if err != nil {
				t.Errorf("%s:%d: %v", path, c.line, err)
				return
			}
			if chess960 {
				pos.Chess960 = true
			}
			depth := 1
			for depth < len(c.counts) && c.counts[depth] <= budget {
				depth++
			}
			if got := pos.Perft(depth); got != c.counts[depth-1] {
				t.Errorf("%s:%d: %s: perft(%d) = %d, want %d", path, c.line, c.fen, depth, got, c.counts[depth-1])
			}
		}
		if longTests() || fullPerft() {
			// Long runs: one parallel subtest per row, to use every core.
			t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) {
				t.Parallel()
				check(t)
			})
		} else {
			check(t)
		}
	}
}

func TestPerftSuite(t *testing.T) {
	t.Parallel()
	runPerftFile(t, "testdata/perft.epd", false)
}

func TestPerft960Suite(t *testing.T) {
	t.Parallel()
	runPerftFile(t, "testdata/perft960.epd", true)
}

func TestDivideAndWriteDivide(t *testing.T) {
	p := mustFEN(t, "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
	entries := p.Divide(2)
	if len(entries) != 26 {
		t.Fatalf("Divide(2) has %d entries, want 26", len(entries))
	}
	var total uint64
	for _, e := range entries {
		total += e.Nodes
	}
	if total != 568 {
		t.Errorf("Divide(2) sums to %d, want 568", total)
	}
	var b strings.Builder
	if err := WriteDivide(&b, &p, entries); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "\ne1g1: ") || !strings.HasSuffix(out, "\n\nNodes searched: 568\n") {
		t.Errorf("WriteDivide printed:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 28 || lines[26] != "" {
		t.Errorf("WriteDivide printed %d lines, want 26 moves, a blank line and the total", len(lines))
	}
	p.Chess960 = true
	b.Reset()
	WriteDivide(&b, &p, p.Divide(1))
	if !strings.Contains(b.String(), "\ne1h1: 1\n") || !strings.HasSuffix(b.String(), "\n\nNodes searched: 26\n") {
		t.Errorf("WriteDivide in Chess960 mode printed:\n%s", b.String())
	}
}

func TestPerftStop(t *testing.T) {
	p := StartPosition()
	var stop atomic.Bool
	if n, done := p.PerftStop(5, &stop); n != 4865609 || !done {
		t.Errorf("PerftStop(5) = %d, %v; want 4865609, true", n, done)
	}
	// Depth 20 would run for ages: a stop set while it runs ends it.
	res := make(chan bool, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		_, done := p.PerftStop(20, &stop)
		res <- done
	}()
	<-started
	stop.Store(true)
	select {
	case done := <-res:
		if done {
			t.Error("a stopped perft 20 reports that it finished")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("perft 20 did not stop within 10 s of its stop flag")
	}
}
