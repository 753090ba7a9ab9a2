package board

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
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

// longTests reports whether the full-depth variants should run.
func longTests() bool { return os.Getenv("PONDEROSA_LONG") == "1" }

// perftBudget is the largest node count checked per position in normal
// runs; the deepest depth within budget is run (depth 1 always).
func perftBudget() uint64 {
	switch {
	case longTests():
		return 1 << 62
	case raceEnabled || testing.Short():
		return 20_000
	}
	return 2_000_000
}

func runPerftFile(t *testing.T, path string, budget uint64, chess960 bool) {
	cases := readPerftEPD(t, path)
	if len(cases) == 0 {
		t.Fatalf("%s: no positions", path)
	}
	for _, c := range cases {
		pos, err := ParseFEN(c.fen)
		if err != nil {
			t.Errorf("%s:%d: %v", path, c.line, err)
			continue
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
}

func TestPerftSuite(t *testing.T) {
	t.Parallel()
	runPerftFile(t, "testdata/perft.epd", perftBudget(), false)
}

func TestPerft960Suite(t *testing.T) {
	t.Parallel()
	budget := perftBudget() / 10
	if longTests() {
		budget = perftBudget()
	}
	runPerftFile(t, "testdata/perft960.epd", budget, true)
}
