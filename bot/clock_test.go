package bot

import (
	"sync"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const ms = time.Millisecond

func TestPlanSearch(t *testing.T) {
	cs := clockState{WTime: 60000 * ms, BTime: 55000 * ms, WInc: 1000 * ms, BInc: 1000 * ms}
	b := planSearch(searchClock{Kind: realTime, Clock: cs, Us: board.White, OurMoves: 5, Initial: time.Minute, Overhead: 80 * ms, Waited: 3 * ms, CorrMoveTime: 20 * time.Second})
	// The increment covers the overhead: no reserve.
	if b.WTime != (60000-83)*ms || b.BTime != cs.BTime || b.WInc != cs.WInc || b.BInc != cs.BInc || b.MoveTime != 0 {
		t.Errorf("white: %+v", b)
	}
	if b.Safety <= 0 || b.Safety > b.WTime {
		t.Errorf("safety %v", b.Safety)
	}
	b = planSearch(searchClock{Kind: realTime, Clock: cs, Us: board.Black, OurMoves: 5, Initial: time.Minute, Overhead: 80 * ms, CorrMoveTime: 20 * time.Second})
	if b.BTime != (55000-80)*ms || b.WTime != cs.WTime {
		t.Errorf("black: %+v", b)
	}
	// No increment: the overhead of later moves is kept in reserve.
	b = planSearch(searchClock{Kind: realTime, Clock: clockState{WTime: 10 * time.Second, BTime: 10 * time.Second}, Us: board.White, OurMoves: 5, Initial: time.Minute, Overhead: 40 * ms})
	if want := 10*time.Second - 40*ms - reserveMoves*40*ms; b.WTime != want {
		t.Errorf("no increment: %v, want %v", b.WTime, want)
	}
	if b = planSearch(searchClock{Kind: realTime, Clock: clockState{WTime: 900 * ms, BTime: 9 * time.Second}, Us: board.White, OurMoves: 50, Initial: time.Minute, Overhead: 40 * ms}); b.WTime != minClock {
		t.Errorf("clock below the reserve: %v, want instant moves", b.WTime)
	}
	// Almost flagged: the engine still gets a positive clock.
	b = planSearch(searchClock{Kind: realTime, Clock: clockState{WTime: 30 * ms, BTime: 9000 * ms}, Us: board.White, OurMoves: 40, Initial: time.Minute, Overhead: 50 * ms})
	if b.WTime != minClock || b.Safety <= 0 {
		t.Errorf("low clock: %+v", b)
	}
	// First move: a short fixed time, whatever the clock says.
	b = planSearch(searchClock{Kind: realTime, Clock: clockState{WTime: 180000 * ms, BTime: 180000 * ms}, Us: board.White, Initial: 3 * time.Minute, Overhead: 50 * ms})
	if b.MoveTime <= 0 || b.MoveTime > time.Second || b.WTime != 0 {
		t.Errorf("first move: %+v", b)
	}
	b = planSearch(searchClock{Kind: realTime, Clock: clockState{WTime: 15000 * ms, BTime: 15000 * ms}, Us: board.Black, Initial: 15 * time.Second, Overhead: 50 * ms})
	if b.MoveTime != 150*ms {
		t.Errorf("first move 1/4+0: %+v", b)
	}
	// Correspondence and unlimited: the configured time.
	for _, k := range []clockKind{correspondence, unlimited} {
		b = planSearch(searchClock{Kind: k, Clock: clockState{WTime: unlimitedMillis * ms, BTime: unlimitedMillis * ms}, Us: board.White, OurMoves: 3, Overhead: 50 * ms, CorrMoveTime: 7 * time.Second})
		if b.MoveTime != 7*time.Second || b.Safety < b.MoveTime {
			t.Errorf("kind %d: %+v", k, b)
		}
	}
}

func TestOverheadLearner(t *testing.T) {
	l := newOverheadLearner(30 * ms)
	if l.Overhead() != 30*ms {
		t.Fatalf("start %v", l.Overhead())
	}
	l.Observe(2 * ms)
	if l.Overhead() != 30*ms {
		t.Errorf("small sample lowered the floor: %v", l.Overhead())
	}
	l.Observe(100 * ms) // a slow move is taken at once
	if got := l.Overhead(); got < 100*ms {
		t.Errorf("after a 100ms sample: %v", got)
	}
	// With many samples, one outlier stops dominating: the estimate follows
	// the 90th percentile.
	for range 63 {
		l.Observe(40 * ms)
	}
	if got := l.Overhead(); got < 40*ms || got > 60*ms {
		t.Errorf("after 63×40ms: %v", got)
	}
	// Latency that grows is followed up.
	for range 64 {
		l.Observe(70 * ms)
	}
	if got := l.Overhead(); got < 70*ms {
		t.Errorf("after 64×70ms: %v", got)
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
