package bot

import (
	"slices"
	"sync"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// unlimitedMillis is the clock value Lichess sends in games without a clock.
const unlimitedMillis = 2147483647

// clockKind is how a game is timed.
type clockKind int

const (
	realTime clockKind = iota
	correspondence
	unlimited
)

// clockState is the clock part of a gameState, converted to durations.
type clockState struct {
	WTime, BTime, WInc, BInc time.Duration
}

// budget is the time information handed to one search, in the engine's
// terms. MoveTime, when set, replaces the clock.
type budget struct {
	WTime, BTime, WInc, BInc time.Duration
	MoveTime                 time.Duration
	// Safety is a hard deadline for the search measured from its start: a
	// net under the engine's own time management, never reached when that
	// works.
	Safety time.Duration
}

// minClock is the smallest remaining time passed to the engine: a zero
// clock could read as "no clock".
const minClock = 5 * time.Millisecond

// firstMoveTime is the think time for a side's first move, when the clock
// is not running yet but Lichess aborts the game if the move takes too long.
func firstMoveTime(initial time.Duration) time.Duration {
	return min(max(initial/100, 50*time.Millisecond), time.Second)
}

// searchClock is what planSearch needs to know about our turn.
type searchClock struct {
	Kind     clockKind
	Clock    clockState
	Us       board.Color
	OurMoves int           // moves we have made in the game (0 = our first move)
	Initial  time.Duration // the clock's initial time
	Overhead time.Duration // time lost per move outside the search (network, posting)
	Waited   time.Duration // time already spent since the gameState arrived
	// CorrMoveTime is the think time in correspondence and unlimited games.
	CorrMoveTime time.Duration
}

// planSearch turns the clock into the search budget for our move.
func planSearch(in searchClock) budget {
	switch in.Kind {
	case correspondence:
		// The configured think time, unless the game's clock is short (the
		// bot was away, or the days are nearly gone): then a tenth of it.
		mt := in.CorrMoveTime
		ours := in.Clock.WTime
		if in.Us == board.Black {
			ours = in.Clock.BTime
		}
		if left := ours - in.Waited - in.Overhead; ours > 0 && left/10 < mt {
			mt = max(left/10, minClock)
		}
		return budget{MoveTime: mt, Safety: mt + mt/2}
	case unlimited:
		return budget{MoveTime: in.CorrMoveTime, Safety: in.CorrMoveTime + in.CorrMoveTime/2}
	}
	if in.OurMoves == 0 {
		mt := firstMoveTime(in.Initial)
		return budget{MoveTime: mt, Safety: 2 * mt}
	}
	cs := in.Clock
	b := budget{WTime: cs.WTime, BTime: cs.BTime, WInc: cs.WInc, BInc: cs.BInc}
	ours, inc := &b.WTime, b.WInc
	if in.Us == board.Black {
		ours, inc = &b.BTime, b.BInc
	}
	*ours = usableClock(*ours-in.Waited, inc, in.Overhead)
	// Never let a search run past a third of what is left (plus half the
	// increment we get back): the engine stops before that when its time
	// manager works, but it checks the clock every so many nodes, which
	// can be late on a starved CPU.
	b.Safety = max(*ours/3+inc/2, time.Millisecond)
	return b
}

// reserveMoves is how many future moves' overhead is kept in the bank: the
// engine divides the clock among the moves to come, but each of them also
// costs the overhead, which the increment may not cover (Stockfish keeps a
// reserve the same way). Without it a long game without increment ends
// with a clock smaller than one move's overhead: a flag.
const reserveMoves = 25

// usableClock is the part of our remaining time the engine may plan with:
// this move's overhead and the reserve for later moves taken off.
func usableClock(ours, inc, overhead time.Duration) time.Duration {
	reserve := max(overhead-inc, 0) * reserveMoves
	return max(ours-overhead-reserve, minClock)
}

// overheadLearner estimates the time lost per move outside the search,
// from the latency measured on each move: the time from receiving the
// gameState to starting the search, plus the time from the search's end to
// the answer of the move POST. The estimate is a high percentile of recent
// samples plus a margin, never below the configured base. It is shared by
// all games (the network is the same) and safe for concurrent use.
type overheadLearner struct {
	base time.Duration
	// onChange, if set, receives the estimate and the samples after each
	// observation (the service saves them for the next start); it is
	// called without the lock held.
	onChange func(estimate time.Duration, samples []time.Duration)

	mu      sync.Mutex
	samples [64]time.Duration
	n, next int
	cached  time.Duration
}

func newOverheadLearner(base time.Duration) *overheadLearner {
	return &overheadLearner{base: base, cached: base}
}

// maxOverheadSample caps one sample: a longer one (a stall, a pause waited
// out) says nothing about the next move. Without the cap one 60 s request
// set the overhead of every game to 1m15s. It is generous on purpose: the
// clock Lichess charges us includes game-stream reconnects, which cost
// real time on a flaky link (1 s was too little: the stream-drop test
// flagged).
const maxOverheadSample = 5 * time.Second

// Observe records one measured latency (negative ones are ignored, longer
// ones than maxOverheadSample count as that).
func (l *overheadLearner) Observe(d time.Duration) {
	if d < 0 {
		return
	}
	d = min(d, maxOverheadSample)
	l.mu.Lock()
	l.add(d)
	est, samples := l.cached, l.ordered()
	l.mu.Unlock()
	if l.onChange != nil {
		l.onChange(est, samples)
	}
}

// restore replays samples saved by an earlier run, oldest first (the
// latest len(l.samples) count).
func (l *overheadLearner) restore(samples []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, d := range samples {
		l.add(max(d, 0))
	}
}

// ordered returns the samples oldest first. Call with l.mu held.
func (l *overheadLearner) ordered() []time.Duration {
	out := make([]time.Duration, 0, l.n)
	if l.n == len(l.samples) {
		out = append(out, l.samples[l.next:]...)
		return append(out, l.samples[:l.next]...)
	}
	return append(out, l.samples[:l.n]...)
}

// add records one sample and updates the estimate. Call with l.mu held.
func (l *overheadLearner) add(d time.Duration) {
	l.samples[l.next] = d
	l.next = (l.next + 1) % len(l.samples)
	if l.n < len(l.samples) {
		l.n++
	}
	var buf [len(l.samples)]time.Duration
	s := buf[:l.n]
	copy(s, l.samples[:l.n])
	slices.Sort(s)
	p90 := s[(len(s)*9)/10]
	if len(s) < 10 {
		p90 = s[len(s)-1] // too few samples for a percentile: the worst
	}
	l.cached = max(l.base, p90+p90/4+2*time.Millisecond)
}

// Overhead returns the current estimate.
func (l *overheadLearner) Overhead() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cached
}
