package bot

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const ms = time.Millisecond

// TestPlanSearch checks budgets worked out by hand from the rules in
// clock.go's comments: the usable clock is what is left minus the time
// already waited, this move's overhead and, when the increment does not
// cover the overhead, 25 moves' worth of the uncovered part; never below
// 5 ms. The safety net is a third of that plus half the increment (at
// least 1 ms). A first move thinks initial/100, between 50 ms and 1 s, with
// twice that as the net; correspondence thinks the configured time (a
// tenth of its clock when that is less, at least 5 ms), with half as much
// again as the net.
func TestPlanSearch(t *testing.T) {
	s := time.Second
	clock := clockState{WTime: 60 * s, BTime: 55 * s, WInc: s, BInc: s}
	for _, c := range []struct {
		name string
		in   searchClock
		want budget
	}{
		{"white, increment covers the overhead",
			searchClock{Kind: realTime, Clock: clock, Us: board.White, OurMoves: 5, Initial: time.Minute, Overhead: 80 * ms, Waited: 3 * ms},
			// 60000 - 3 - 80 = 59917 ms; net 59917/3 + 500 ms.
			budget{WTime: 59917 * ms, BTime: 55 * s, WInc: s, BInc: s, Safety: 20472333333}},
		{"black",
			searchClock{Kind: realTime, Clock: clock, Us: board.Black, OurMoves: 5, Initial: time.Minute, Overhead: 80 * ms},
			// 55000 - 80 = 54920 ms; net 54920/3 + 500 ms.
			budget{WTime: 60 * s, BTime: 54920 * ms, WInc: s, BInc: s, Safety: 18806666666}},
		{"no increment: 25 moves of overhead in reserve",
			searchClock{Kind: realTime, Clock: clockState{WTime: 10 * s, BTime: 10 * s}, Us: board.White, OurMoves: 5, Overhead: 40 * ms},
			// 10000 - 40 - 25×40 = 8960 ms; net 8960/3 ms.
			budget{WTime: 8960 * ms, BTime: 10 * s, Safety: 2986666666}},
		{"increment covers part of the overhead",
			searchClock{Kind: realTime, Clock: clockState{WTime: 10 * s, BTime: 10 * s, WInc: 30 * ms, BInc: 30 * ms}, Us: board.White, OurMoves: 5, Overhead: 40 * ms},
			// 10000 - 40 - 25×(40-30) = 9710 ms; net 9710/3 + 15 ms.
			budget{WTime: 9710 * ms, BTime: 10 * s, WInc: 30 * ms, BInc: 30 * ms, Safety: 3251666666}},
		{"clock below the reserve: instant moves",
			searchClock{Kind: realTime, Clock: clockState{WTime: 900 * ms, BTime: 9 * s}, Us: board.White, OurMoves: 50, Overhead: 40 * ms},
			budget{WTime: 5 * ms, BTime: 9 * s, Safety: 1666666}},
		{"almost flagged: still a positive clock",
			searchClock{Kind: realTime, Clock: clockState{WTime: 30 * ms, BTime: 9 * s}, Us: board.White, OurMoves: 40, Overhead: 50 * ms},
			budget{WTime: 5 * ms, BTime: 9 * s, Safety: 1666666}},
		{"first move of 3+0: capped at 1 s",
			searchClock{Kind: realTime, Clock: clockState{WTime: 180 * s, BTime: 180 * s}, Us: board.White, Initial: 3 * time.Minute, Overhead: 50 * ms},
			budget{MoveTime: s, Safety: 2 * s}},
		{"first move of 1/4+0",
			searchClock{Kind: realTime, Clock: clockState{WTime: 15 * s, BTime: 15 * s}, Us: board.Black, Initial: 15 * s, Overhead: 50 * ms},
			budget{MoveTime: 150 * ms, Safety: 300 * ms}},
		{"first move of a 2 s game: at least 50 ms",
			searchClock{Kind: realTime, Clock: clockState{WTime: 2 * s, BTime: 2 * s}, Us: board.White, Initial: 2 * s},
			budget{MoveTime: 50 * ms, Safety: 100 * ms}},
		{"correspondence",
			searchClock{Kind: correspondence, Clock: clockState{WTime: unlimitedMillis * ms, BTime: unlimitedMillis * ms}, Us: board.White, OurMoves: 3, Overhead: 50 * ms, CorrMoveTime: 7 * s},
			budget{MoveTime: 7 * s, Safety: 10500 * ms}},
		{"correspondence, a day left",
			searchClock{Kind: correspondence, Clock: clockState{WTime: 24 * time.Hour, BTime: 3 * 24 * time.Hour}, Us: board.White, OurMoves: 3, Overhead: 50 * ms, CorrMoveTime: 20 * s},
			budget{MoveTime: 20 * s, Safety: 30 * s}},
		{"correspondence, a minute left: a tenth of it",
			searchClock{Kind: correspondence, Clock: clockState{WTime: 24 * time.Hour, BTime: 60 * s}, Us: board.Black, OurMoves: 3, Overhead: 50 * ms, Waited: 950 * ms, CorrMoveTime: 20 * s},
			// (60000 - 950 - 50) / 10 = 5900 ms
			budget{MoveTime: 5900 * ms, Safety: 8850 * ms}},
		{"correspondence, nothing left: the least",
			searchClock{Kind: correspondence, Clock: clockState{WTime: 20 * ms, BTime: s}, Us: board.White, OurMoves: 3, Overhead: 50 * ms, CorrMoveTime: 20 * s},
			budget{MoveTime: 5 * ms, Safety: 7500 * time.Microsecond}},
		{"unlimited",
			searchClock{Kind: unlimited, Us: board.Black, OurMoves: 0, CorrMoveTime: 7 * s},
			budget{MoveTime: 7 * s, Safety: 10500 * ms}},
	} {
		if got := planSearch(c.in); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

// TestPlanSearchProperties checks, over a grid of real-time clocks, what
// must hold whatever the formula: the opponent's clock is passed on as it
// is; our usable clock is positive, never more than what is left after the
// wait and this move's overhead (unless that is below the 5 ms floor), and
// grows with our clock; the safety net is positive and under our usable
// clock plus the increment.
func TestPlanSearchProperties(t *testing.T) {
	for _, us := range []board.Color{board.White, board.Black} {
		for _, inc := range []time.Duration{0, 20 * ms, 100 * ms, time.Second} {
			for _, ovh := range []time.Duration{10 * ms, 50 * ms, 300 * ms} {
				for _, waited := range []time.Duration{0, 7 * ms} {
					prev := time.Duration(0)
					for _, left := range []time.Duration{1 * ms, 40 * ms, 300 * ms, 2 * time.Second, 30 * time.Second, 10 * time.Minute} {
						cs := clockState{WTime: left, BTime: left, WInc: inc, BInc: inc}
						opp := time.Duration(12345) * ms
						if us == board.White {
							cs.BTime = opp
						} else {
							cs.WTime = opp
						}
						b := planSearch(searchClock{Kind: realTime, Clock: cs, Us: us, OurMoves: 10, Initial: time.Minute, Overhead: ovh, Waited: waited})
						ours, theirs := b.WTime, b.BTime
						if us == board.Black {
							ours, theirs = b.BTime, b.WTime
						}
						where := fmt.Sprintf("%v left+%v, overhead %v, waited %v, %v", left, inc, ovh, waited, us)
						switch {
						case theirs != opp || b.WInc != inc || b.BInc != inc || b.MoveTime != 0:
							t.Errorf("%s: the opponent's clock or the increments changed: %+v", where, b)
						case ours < minClock:
							t.Errorf("%s: usable %v under the floor", where, ours)
						case ours > max(left-waited-ovh, minClock):
							t.Errorf("%s: usable %v is more than is left after this move", where, ours)
						case ours < prev:
							t.Errorf("%s: usable %v shrank from %v with more time", where, ours, prev)
						case b.Safety <= 0 || b.Safety >= ours+inc:
							t.Errorf("%s: safety %v for usable %v", where, b.Safety, ours)
						}
						prev = ours
					}
				}
			}
		}
	}
}

// TestOverheadLearner follows the documented rule: the estimate is the
// worst sample while there are fewer than 10, then the 90th percentile of
// the last 64, plus a quarter and 2 ms, never below the base.
func TestOverheadLearner(t *testing.T) {
	l := newOverheadLearner(30 * ms)
	if got := l.Overhead(); got != 30*ms {
		t.Fatalf("start %v, want the base", got)
	}
	l.Observe(2 * ms) // 2 + 0.5 + 2 = 4.5 ms: the base stays
	if got := l.Overhead(); got != 30*ms {
		t.Errorf("after 2 ms: %v, want the base 30ms", got)
	}
	l.Observe(100 * ms) // the worst of two: 100 + 25 + 2
	if got := l.Overhead(); got != 127*ms {
		t.Errorf("after a 100 ms sample: %v, want 127ms", got)
	}
	// 63 more samples: the 2 ms one drops out of the 64; sorted, index
	// 64×9/10 = 57 is 40 ms: 40 + 10 + 2. One outlier stops dominating.
	for range 63 {
		l.Observe(40 * ms)
	}
	if got := l.Overhead(); got != 52*ms {
		t.Errorf("after 63×40ms: %v, want 52ms", got)
	}
	// Latency that grows is followed: 70 + 17.5 + 2.
	for range 64 {
		l.Observe(70 * ms)
	}
	if got := l.Overhead(); got != 89500*time.Microsecond {
		t.Errorf("after 64×70ms: %v, want 89.5ms", got)
	}
}

// TestOverheadSampleCapped: one 60 s request (a 429 pause waited out)
// used to set the overhead of every game to 1m15s; a sample counts at
// most maxOverheadSample, and a negative one not at all.
func TestOverheadSampleCapped(t *testing.T) {
	l := newOverheadLearner(30 * ms)
	l.Observe(-5 * ms)
	if got := l.Overhead(); got != 30*ms {
		t.Errorf("after a negative sample: %v, want the base", got)
	}
	l.Observe(time.Minute)
	if got, limit := l.Overhead(), maxOverheadSample+maxOverheadSample/4+2*ms; got > limit {
		t.Errorf("after a 60 s sample: %v, want at most %v", got, limit)
	}
}

func TestOverheadLearnerConcurrent(t *testing.T) {
	l := newOverheadLearner(10 * ms)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for j := range 200 {
				l.Observe(time.Duration(i*j) * time.Microsecond)
				_ = l.Overhead()
			}
		})
	}
	wg.Wait()
	if l.Overhead() < 10*ms {
		t.Errorf("below base: %v", l.Overhead())
	}
}

func BenchmarkOverheadObserve(b *testing.B) {
	l := newOverheadLearner(10 * ms)
	b.ReportAllocs()
	for i := range b.N {
		l.Observe(time.Duration(i%50) * ms)
	}
}
