package engine

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// epdCase is one best-move test position.
type epdCase struct {
	id     string
	fen    string
	bm, am []string // UCI moves
}

// loadEPD reads an EPD suite whose lines carry c9 "bm_uci …, am_uci …".
func loadEPD(t testing.TB, path string) []epdCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer f.Close()
	var out []epdCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			t.Fatalf("bad EPD line %q", line)
		}
		c := epdCase{fen: strings.Join(fields[:4], " ") + " 0 1"}
		if i := strings.Index(line, `id "`); i >= 0 {
			c.id = strings.SplitN(line[i+4:], `"`, 2)[0]
		}
		i := strings.Index(line, `c9 "`)
		if i < 0 {
			t.Fatalf("EPD line without c9 UCI moves: %q", line)
		}
		for _, part := range strings.Split(strings.SplitN(line[i+4:], `"`, 2)[0], ",") {
			ws := strings.Fields(part)
			if len(ws) == 0 {
				continue
			}
			switch ws[0] {
			case "bm_uci":
				c.bm = append(c.bm, ws[1:]...)
			case "am_uci":
				c.am = append(c.am, ws[1:]...)
			}
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return out
}

// solve searches c under l and reports whether the best move is a bm move
// and no am move.
func solve(t testing.TB, e *Engine, c epdCase, l Limits) (bool, string) {
	t.Helper()
	pos, err := board.ParseFEN(c.fen)
	if err != nil {
		t.Fatalf("%s: %v", c.id, err)
	}
	e.NewGame()
	res := e.Search(context.Background(), board.NewGame(pos), l, nil)
	got := "0000"
	if res.Best != board.NoMove {
		got = pos.UCI(res.Best)
	}
	ok := len(c.bm) == 0 || contains(c.bm, got)
	if contains(c.am, got) {
		ok = false
	}
	return ok, got
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestWACSubset solves the first 20 WAC positions at depth 10 with each
// evaluation: the built-in network (the default) and the hand-crafted one.
// The search is deterministic there (one thread, a fresh table per
// position), so the test pins what it does: every position is solved but
// those in wacSubsetMissed. A position newly missed fails the test; one of
// those newly solved is logged (then take it off the list).
//
// Under the race detector (ten times slower, and one thread has nothing to
// race) it skips: CI runs it in its step without -race.
func TestWACSubset(t *testing.T) {
	if raceEnabled {
		t.Skip("WAC at depth 10 runs without -race (CI's go test ./engine/... step)")
	}
	cases := loadEPD(t, "testdata/wac.epd")
	if len(cases) != 300 {
		t.Fatalf("loaded %d WAC positions, want 300", len(cases))
	}
	for _, ev := range []struct {
		name string
		net  *nnue.Network
	}{{"nnue", DefaultOptions().Net}, {"hce", nil}} {
		t.Run(ev.name, func(t *testing.T) {
			e := New(Options{HashMB: 8, Threads: 1, Net: ev.net})
			missed := wacSubsetMissed[ev.name]
			for _, c := range cases[:20] {
				ok, got := solve(t, e, c, Limits{Depth: 10})
				switch {
				case !ok && !missed[c.id]:
					t.Errorf("%s: %s at depth 10, want %v", c.id, got, c.bm)
				case ok && missed[c.id]:
					t.Logf("%s: now solved at depth 10 (%s): take it off wacSubsetMissed", c.id, got)
				}
			}
		})
	}
}

// wacSubsetMissed are, for each evaluation, the positions of WAC 1-20 the
// search misses at depth 10. The hand-crafted evaluation misses WAC.002,
// the rook sacrifice Rxb2, whose point, a queening pawn, lies beyond that
// horizon. The built-in network (network 14, nn-3e5e391626c1) misses it
// too; it finds WAC.018 (Rh8, the skewer that wins the rook if it takes the
// pawn), as networks 1, 3, 5, 7, 8, 12 and 13 did and network 2 did not.
var wacSubsetMissed = map[string]map[string]bool{
	"hce":  {"WAC.002": true},
	"nnue": {"WAC.002": true},
}

// TestWACFull runs all 300 WAC positions at 1 s each on one thread. It takes
// about 5 minutes: run with PONDEROSA_LONG=1 (PONDEROSA_WAC_MS overrides the
// time per position; PONDEROSA_WAC_IDS=WAC.002,WAC.055 runs only those).
func TestWACFull(t *testing.T) {
	if !longTests() {
		t.Skip("set PONDEROSA_LONG=1 to run the full WAC suite")
	}
	per := time.Second
	if ms := os.Getenv("PONDEROSA_WAC_MS"); ms != "" {
		var n int
		fmt.Sscan(ms, &n)
		per = time.Duration(n) * time.Millisecond
	}
	cases := loadEPD(t, "testdata/wac.epd")
	if ids := os.Getenv("PONDEROSA_WAC_IDS"); ids != "" {
		want := strings.Split(ids, ",")
		cases = slices.DeleteFunc(cases, func(c epdCase) bool { return !slices.Contains(want, c.id) })
	}
	e := New(Options{HashMB: 64, Threads: 1, MoveOverhead: 0})
	// PONDEROSA_WAC_NODES=N limits nodes instead of time (deterministic, so
	// two builds can run side by side on a loaded machine).
	lim, budget := Limits{MoveTime: per}, per.String()
	if s := os.Getenv("PONDEROSA_WAC_NODES"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil || n == 0 {
			t.Fatalf("PONDEROSA_WAC_NODES=%q: want a positive node count", s)
		}
		lim, budget = Limits{Nodes: n}, s+" nodes"
	}
	solved := 0
	var failed []string
	for _, c := range cases {
		ok, got := solve(t, e, c, lim)
		if ok {
			solved++
		} else {
			failed = append(failed, fmt.Sprintf("%s(%s, want %v)", c.id, got, c.bm))
		}
	}
	t.Logf("WAC at %s/position: %d/%d solved", budget, solved, len(cases))
	t.Logf("failed: %v", failed)
	if solved < 290 && len(cases) == 300 && lim.Nodes == 0 {
		t.Errorf("WAC: %d/300 solved, target 290", solved)
	}
}
