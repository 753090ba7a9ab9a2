package engine

import (
	"context"
	"testing"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

const ms = time.Millisecond

func TestBudgetSuddenDeath100ms(t *testing.T) {
	// 100 ms left, no increment, 30 ms overhead: the hard limit must leave
	// the overhead and a safety margin, every move of a long game.
	for ply := 0; ply < 400; ply += 20 {
		b := computeBudget(Limits{WTime: 100 * ms, BTime: 100 * ms}, board.White, 30*ms, ply)
		if !b.timed() {
			t.Fatal("clock limits gave an untimed budget")
		}
		if b.hard > 35*ms || b.hard < minThink || b.soft > b.hard || b.soft <= 0 {
			t.Errorf("ply %d: budget %+v with 70 ms usable", ply, b)
		}
	}
	// Even when the overhead exceeds the clock, a (tiny) budget remains.
	b := computeBudget(Limits{WTime: 20 * ms, BTime: 5 * time.Second}, board.White, 30*ms, 10)
	if b.hard != minThink {
		t.Errorf("out-of-time budget %+v, want hard = %v", b, minThink)
	}
}

func TestBudgetNeverExceedsClock(t *testing.T) {
	// Simulate games at 1 s + inc per side with 30 ms Move Overhead and a
	// real lag of 2 ms per move. Each move spends what the search may spend
	// at most before it stops starting iterations (soft scaled by the
	// largest stability factor, 3.2), capped by the hard limit.
	const lag = 2 * ms
	for _, tc := range []struct {
		inc   time.Duration
		moves int
	}{{0, 50}, {10 * ms, 300}, {100 * ms, 300}} {
		left := time.Second
		for move := 0; move < tc.moves; move++ {
			b := computeBudget(Limits{WTime: left, BTime: left, WInc: tc.inc, BInc: tc.inc}, board.White, 30*ms, 2*move)
			spend := min(b.hard, time.Duration(float64(b.soft)*3.2))
			left -= spend + lag
			if left <= 0 {
				t.Fatalf("inc %v: flagged at move %d (budget %+v)", tc.inc, move, b)
			}
			left += tc.inc
		}
	}
}

func TestBudgetShapes(t *testing.T) {
	// Black's clock is used for black.
	w := computeBudget(Limits{WTime: 10 * time.Second, BTime: 60 * time.Second}, board.White, 0, 20)
	bl := computeBudget(Limits{WTime: 10 * time.Second, BTime: 60 * time.Second}, board.Black, 0, 20)
	if bl.soft <= w.soft {
		t.Errorf("black with 60 s gets %v, white with 10 s gets %v", bl.soft, w.soft)
	}
	// Increment raises the budget.
	noInc := computeBudget(Limits{WTime: 60 * time.Second}, board.White, 0, 20)
	inc := computeBudget(Limits{WTime: 60 * time.Second, WInc: 2 * time.Second}, board.White, 0, 20)
	if inc.soft <= noInc.soft {
		t.Errorf("increment does not raise the budget: %v vs %v", inc.soft, noInc.soft)
	}
	// movestogo 1 may use most, never all, of the clock.
	last := computeBudget(Limits{WTime: 10 * time.Second, MovesToGo: 1}, board.White, 100*ms, 60)
	if last.hard > 9900*ms*9/10 || last.hard < 5*time.Second {
		t.Errorf("movestogo 1 budget %+v", last)
	}
	// movetime is exact minus overhead; no clock means untimed.
	mt := computeBudget(Limits{MoveTime: time.Second}, board.White, 50*ms, 0)
	if mt.hard != 950*ms || mt.soft != 950*ms || !mt.exact {
		t.Errorf("movetime budget %+v", mt)
	}
	if b := computeBudget(Limits{Depth: 5}, board.White, 50*ms, 0); b.timed() {
		t.Errorf("depth-only limits gave a timed budget %+v", b)
	}
}

func TestPonderHitBudget(t *testing.T) {
	b := timeBudget{soft: 600 * ms, hard: 3 * time.Second}
	if got := b.afterPonderHit(0); got != b {
		t.Errorf("no pondering changed the budget: %+v", got)
	}
	got := b.afterPonderHit(400 * ms)
	if got.soft != 400*ms || got.hard != b.hard {
		t.Errorf("after 400 ms pondering: %+v", got)
	}
	if got := b.afterPonderHit(time.Minute); got.soft != 200*ms {
		t.Errorf("long pondering: soft %v, want a third of 600 ms", got.soft)
	}
}

func TestRunClock(t *testing.T) {
	start := time.Unix(1000, 0)
	r := newRun(Limits{Ponder: true}, timeBudget{soft: 100 * ms, hard: 500 * ms})
	r.start = start
	if _, _, ok := r.clock(start.Add(time.Second)); ok {
		t.Error("clock runs while pondering")
	}
	r.hitAt.Store(int64(300*ms) + 1)
	el, b, ok := r.clock(start.Add(350 * ms))
	if !ok || el != 50*ms || b.hard != 500*ms || b.soft >= 100*ms {
		t.Errorf("after ponderhit at 300 ms: elapsed %v budget %+v ok %v", el, b, ok)
	}
}

func TestStabilityScale(t *testing.T) {
	if stabilityScale(0, 0) <= 1 || stabilityScale(6, 0) >= 1 {
		t.Error("stability scale: new best move should extend, a stable one shorten")
	}
	if stabilityScale(3, 80) <= stabilityScale(3, 0) {
		t.Error("a score drop should extend the time")
	}
}

// A clock that has run out ("go wtime -1000 btime -1000" after an overstep)
// means "move now", never "no clock" (which would search forever).
func TestBudgetNegativeClockMovesAtOnce(t *testing.T) {
	for _, l := range []Limits{
		{WTime: -time.Second, BTime: -time.Second},
		{WTime: -ms, BTime: 5 * time.Second},
		{WTime: 0, BTime: 5 * time.Second},
		{WTime: -ms, BTime: -ms, WInc: 0, BInc: 0},
	} {
		b := computeBudget(l, board.White, 30*ms, 10)
		if !b.timed() || b.hard != minThink {
			t.Errorf("%+v: budget %+v, want a timed budget of %v", l, b, minThink)
		}
	}
}

func TestEffortScale(t *testing.T) {
	if got := effortScale(1); got != 0.6 {
		t.Errorf("effortScale(1) = %v, want the floor 0.6", got)
	}
	if got := effortScale(0); got != 2.0 {
		t.Errorf("effortScale(0) = %v, want the ceiling 2.0", got)
	}
	prev := effortScale(1)
	for share := 0.95; share >= 0; share -= 0.05 {
		s := effortScale(share)
		if s < prev {
			t.Errorf("effortScale(%.2f) = %v falls below %v: a less dominant best move must not get less time", share, s, prev)
		}
		prev = s
	}
	if effortScale(0.9) >= 1 || effortScale(0.4) <= 1 {
		t.Errorf("a best move with 90%% of the nodes should shorten (%v), one with 40%% lengthen (%v)", effortScale(0.9), effortScale(0.4))
	}
	// The product of the factors is bounded, so the clock test above holds.
	if stabilityScale(0, 100)*effortScale(0) <= maxScale {
		t.Error("maxScale no longer bounds anything: remove it or raise the factors")
	}
}

// The root counts the nodes below each move of the last iteration: they add
// up to (nearly) all the worker's nodes, and in a position with one good
// move the best move takes most of them.
func TestRootMoveNodes(t *testing.T) {
	e := New(Options{HashMB: 1, Threads: 1})
	// White wins the queen with Rxd8+; every other move loses material.
	g := mustGame(t, "3q2k1/5pp1/7p/8/8/8/5PPP/3R2K1 w - - 0 1")
	res := e.Search(context.Background(), g, Limits{Depth: 9}, nil)
	if uciOf(g, res.Best) != "d1d8" {
		t.Fatalf("best move %s, want d1d8", uciOf(g, res.Best))
	}
	w := e.workers[0]
	var total uint64
	for _, rm := range w.rootMoves {
		total += rm.nodes
	}
	if total == 0 || total > w.nodes {
		t.Fatalf("root move nodes add up to %d of the worker's %d", total, w.nodes)
	}
	// Every other move drops the rook or leaves the queen: refuted at once.
	if share := w.bestMoveShare(); share < 0.8 || share > 1 {
		t.Errorf("best move share %.3f of %d nodes, want most of them", share, total)
	}
	if w.rootMoves[0].move != res.Best {
		t.Fatalf("rootMoves[0] is %s, not the best move", uciOf(g, w.rootMoves[0].move))
	}
}
