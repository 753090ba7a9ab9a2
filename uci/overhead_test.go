package uci_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine"
)

// TestAnnouncedOverheadIsUsed runs `ponderosa uci` as a real process, as a
// GUI that never sends setoption would: the Move Overhead it announces is
// the one it searches with (the old bug: announced 30 ms, searched with 0).
//
// With exactly the overhead on the clock (wtime 30, one move to go) the
// engine must move at once; with no overhead it would plan 24 ms and start
// no new iteration before 12 ms. And with 100 ms on the clock the answer
// must come before the clock runs out.
//
// A loaded machine can delay any one search by scheduling (never make it
// shorter), so the test keeps the best of four searches after a warm-up
// (the first search of a process pays for page faults).
func TestAnnouncedOverheadIsUsed(t *testing.T) {
	p := start(t, "uci")
	p.send("uci")
	lines := p.untilLine(5*time.Second, "uciok")
	announced := -1
	for _, l := range lines {
		if strings.HasPrefix(l, "option name Move Overhead type spin default ") {
			announced, _ = strconv.Atoi(strings.Fields(l)[7])
		}
	}
	if want := int(engine.DefaultOptions().MoveOverhead / time.Millisecond); announced != want || want <= 0 {
		t.Fatalf("announced Move Overhead %d, want the engine default %d", announced, want)
	}
	p.send("isready", "position startpos", "go depth 1")
	p.until(5*time.Second, "bestmove", isBestmove)

	positions := []string{"position startpos", "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5",
		"position startpos moves d2d4 g8f6 c2c4 e7e6", "position startpos moves e2e4 c7c5 g1f3 d7d6 d2d4"}
	// best runs go on every position and returns the shortest search time
	// (the engine's last info "time") and wall time, and all of them.
	best := func(goCmd string) (search, wall time.Duration, all []string) {
		search, wall = time.Hour, time.Hour
		for _, pos := range positions {
			p.send(pos)
			sent := time.Now()
			p.send(goCmd)
			got := p.until(5*time.Second, "bestmove", isBestmove)
			w := time.Since(sent)
			ms := -1
			for _, l := range got {
				if v := fieldAfter(l, "time"); strings.HasPrefix(l, "info ") && v != "" {
					ms, _ = strconv.Atoi(v)
				}
			}
			if ms < 0 {
				t.Fatalf("%s, %s: no info with a time: %q", pos, goCmd, got)
			}
			search, wall = min(search, time.Duration(ms)*time.Millisecond), min(wall, w)
			all = append(all, strconv.Itoa(ms)+"ms/"+w.Round(time.Millisecond).String())
		}
		return search, wall, all
	}

	clock := strconv.Itoa(announced)
	if s, _, all := best("go wtime " + clock + " btime " + clock + " movestogo 1"); s >= 8*time.Millisecond {
		t.Errorf("with %s ms (the overhead) on the clock the engine searched at least %v: it did not keep the overhead (searched/wall: %v)", clock, s, all)
	}
	if _, w, all := best("go wtime 100 btime 100 movestogo 1"); !raceEnabled && w > 100*time.Millisecond {
		t.Errorf("bestmove came at best %v after go wtime 100: past the clock (searched/wall: %v)", w, all)
	}
	p.send("quit")
}
