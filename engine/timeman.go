package engine

import (
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// timeBudget is what the time manager allows for one move. A zero hard limit
// means the search is not timed (depth, nodes, mate, infinite or ponder).
type timeBudget struct {
	// soft is the optimum time: no new iteration starts after soft (scaled
	// by best-move stability and score trend, never beyond hard).
	soft time.Duration
	// hard is the abort deadline, measured from when the clock starts.
	hard time.Duration
	// exact is set for movetime: use all of it, no early stop.
	exact bool
}

func (b timeBudget) timed() bool { return b.hard > 0 }

// minThink is the smallest hard limit ever used, so a move is always found.
const minThink = time.Millisecond

// computeBudget turns UCI time limits into soft and hard limits for the side
// to move us. overhead is subtracted from the remaining clock first. ply is
// the game ply (used to guess the number of moves still to play).
func computeBudget(l Limits, us board.Color, overhead time.Duration, ply int) timeBudget {
	if l.MoveTime > 0 {
		t := l.MoveTime - overhead
		if t < minThink {
			t = minThink
		}
		return timeBudget{soft: t, hard: t, exact: true}
	}
	left, inc := l.WTime, l.WInc
	if us == board.Black {
		left, inc = l.BTime, l.BInc
	}
	if l.WTime == 0 && l.BTime == 0 && l.WInc == 0 && l.BInc == 0 {
		return timeBudget{} // no clock given
	}
	// A negative clock (a GUI's clock after an overstep) is a clock that
	// has run out: below, it moves at once, never "no clock".
	left -= overhead
	if left < minThink {
		// Out of time already (or nearly): move at once.
		return timeBudget{soft: minThink / 2, hard: minThink}
	}
	mtg := l.MovesToGo
	if mtg <= 0 {
		// No movestogo: assume a long game early, fewer moves later. An
		// increment refills the clock as the game goes on, and most games
		// are decided by move 40: then plan on about 32 moves at first and
		// never on fewer than 20.
		if inc > 0 {
			mtg = max(32-ply/10, 20)
		} else {
			mtg = max(50-ply/10, 30)
		}
	}
	if mtg > 50 {
		mtg = 50
	}
	soft := left/time.Duration(mtg) + inc*3/4
	// Never plan to use more than a fraction of what is left: all of the
	// increment is not in the bank yet.
	var hardCap time.Duration
	switch mtg {
	case 1:
		hardCap = left * 8 / 10
	case 2:
		hardCap = left * 6 / 10
	default:
		hardCap = left / 2
	}
	hard := soft * 5
	if hard > hardCap {
		hard = hardCap
	}
	if hard < minThink {
		hard = minThink
	}
	if soft > hard {
		soft = hard
	}
	if soft <= 0 {
		soft = hard / 2
	}
	return timeBudget{soft: soft, hard: hard}
}

// afterPonderHit returns the budget to use from the moment of a ponder hit,
// after pondered was already spent searching the same position. The hard
// limit is unchanged (the clock only started at the hit); the soft limit is
// lowered because the pondering already produced a deep search, but never
// below a third of the original.
func (b timeBudget) afterPonderHit(pondered time.Duration) timeBudget {
	if !b.timed() {
		return b
	}
	soft := b.soft - pondered/2
	if soft < b.soft/3 {
		soft = b.soft / 3
	}
	return timeBudget{soft: soft, hard: b.hard, exact: b.exact}
}

// stabilityScale returns the factor applied to the soft limit after an
// iteration: below 1 when the best move has been stable for stable
// iterations, above 1 when it just changed or the score dropped by drop
// centipawns since the previous iterations.
func stabilityScale(stable int, drop Score) float64 {
	f := [...]float64{1.5, 1.25, 1.1, 1.0, 0.9, 0.85, 0.8}
	if stable >= len(f) {
		stable = len(f) - 1
	}
	if stable < 0 {
		stable = 0
	}
	s := f[stable]
	if drop > 0 {
		if drop > 100 {
			drop = 100
		}
		s *= 1 + float64(drop)/100
	}
	return s
}

// maxScale bounds the product of the factors applied to the soft limit.
const maxScale = 3.2

// effortScale returns the factor applied to the soft limit for how the last
// iteration spread its nodes over the root moves: share is the fraction the
// best move took. A best move that took nearly all of them (the others were
// refuted at once) shortens the think; one that shared them with
// alternatives that needed searching lengthens it.
func effortScale(share float64) float64 {
	s := 0.6 + 1.6*(1-share)
	return min(max(s, 0.6), 2.0)
}
