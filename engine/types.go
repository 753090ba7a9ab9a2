package engine

import (
	"fmt"
	"time"

	"github.com/ponderosa-chess/ponderosa/engine/board"
	"github.com/ponderosa-chess/ponderosa/engine/eval"
	"github.com/ponderosa-chess/ponderosa/engine/nnue"
)

// MaxPly is the deepest ply the search can reach (root is ply 0).
const MaxPly = 128

// MaxDepth is the deepest nominal iteration the search will start.
const MaxDepth = 100

// Score is a search score in centipawns from the side to move's point of
// view. Mate scores lie within MaxPly of ±MateScore and count plies to mate.
type Score int32

// Score constants.
const (
	// MateScore is the score of giving mate at the root (mate in 0 plies).
	MateScore Score = 32000
	// Infinity bounds every score the search returns.
	Infinity Score = 32001
	// NoScore marks an absent score (never returned from a search).
	NoScore Score = 32002
	// mateBound: scores with |s| >= mateBound are mate scores.
	mateBound = MateScore - MaxPly
)

// mateIn returns the score for giving mate ply plies from the root.
func mateIn(ply int) Score { return MateScore - Score(ply) }

// matedIn returns the score for being mated ply plies from the root.
func matedIn(ply int) Score { return -MateScore + Score(ply) }

// IsMate reports whether s is a forced mate score (for either side).
func (s Score) IsMate() bool { return s >= mateBound || s <= -mateBound }

// MateIn returns the number of moves (not plies) to mate: positive when the
// side to move mates, negative when it is mated, 0 when s is not a mate score.
func (s Score) MateIn() int {
	switch {
	case s >= mateBound:
		return int(MateScore-s+1) / 2
	case s <= -mateBound:
		return -int(MateScore+s) / 2
	}
	return 0
}

// String formats s the UCI way: "cp 23" or "mate -2".
func (s Score) String() string {
	if s.IsMate() {
		return fmt.Sprintf("mate %d", s.MateIn())
	}
	return fmt.Sprintf("cp %d", int32(s))
}

// Bound says how a reported score relates to the true value.
type Bound uint8

// Bound values. BoundExact is the zero value.
const (
	BoundExact Bound = iota
	BoundLower       // the true score is at least Score (fail high)
	BoundUpper       // the true score is at most Score (fail low)
)

// String returns "", "lowerbound" or "upperbound" (the UCI words).
func (b Bound) String() string {
	switch b {
	case BoundLower:
		return "lowerbound"
	case BoundUpper:
		return "upperbound"
	}
	return ""
}

// Options configures an Engine. Zero fields take defaults (DefaultHashMB,
// one thread, one PV, DefaultElo, the eval's own weights; see normalized),
// except MoveOverhead: zero is a valid overhead (none), used by callers
// that subtract their own. DefaultOptions is the one source of the
// defaults, Move Overhead included, for front-ends that announce them.
type Options struct {
	// HashMB is the transposition table size in MiB (1..65536).
	HashMB int
	// Threads is the number of Lazy SMP search threads (1..256).
	Threads int
	// MultiPV is the number of principal variations to report (1..256).
	MultiPV int
	// MoveOverhead is subtracted from the clock to cover transport latency.
	MoveOverhead time.Duration
	// LimitStrength turns on the Elo-based strength limit.
	LimitStrength bool
	// Elo is the target playing strength when LimitStrength is set.
	Elo int
	// Eval, if not nil, replaces the evaluation weights (eval.Default()).
	// It is for tuning and for testing weight sets against each other.
	Eval *eval.Params
	// Net, if not nil, evaluates positions with this NNUE instead of the
	// hand-crafted evaluation (Eval is then unused), except under
	// LimitStrength: the strength limit was calibrated with the
	// hand-crafted evaluation, so a limited engine plays with it.
	Net *nnue.Network
	// CorrectionHistory adds the pawn correction history (history.go) to
	// the static evaluation the search prunes with. Off by default: an
	// experiment under test (engine/README.md, Measured).
	CorrectionHistory bool
	// TTPV keeps in the hash table whether a node was ever on a principal
	// variation, and reduces such nodes' late moves as a PV node's: a
	// node searched with a null window now but on the PV before keeps
	// the flag (search.go, nodeTTPV). Off by default: an experiment under
	// test (engine/README.md, Measured).
	TTPV bool
}

// playingNet is the network the search evaluates with: Net, or none
// (the hand-crafted evaluation) under LimitStrength.
func (o Options) playingNet() *nnue.Network {
	if o.LimitStrength {
		return nil
	}
	return o.Net
}

// Option ranges.
const (
	MinHashMB, MaxHashMB   = 1, 65536
	MinThreads, MaxThreads = 1, 256
	MinMultiPV, MaxMultiPV = 1, 256
	MinElo, MaxElo         = 1320, 3000
	DefaultHashMB          = 16
	DefaultMoveOverhead    = 30 * time.Millisecond
	DefaultElo             = 1800
	maxMoveOverhead        = 10 * time.Second
)

// DefaultOptions returns the engine's defaults: what `ponderosa uci`,
// `ponderosa cego` and the bot announce and really use when nothing is set
// (DefaultHashMB, one thread, one PV, DefaultMoveOverhead, no strength
// limit at DefaultElo, the network built into the binary, nnue.Default).
func DefaultOptions() Options {
	o := Options{HashMB: DefaultHashMB, Threads: 1, MultiPV: 1, MoveOverhead: DefaultMoveOverhead, Elo: DefaultElo}
	if net, err := nnue.Default(); err == nil {
		o.Net = net
	}
	return o
}

// normalized returns o with defaults filled in and values clamped to range.
func (o Options) normalized() Options {
	if o.HashMB <= 0 {
		o.HashMB = DefaultHashMB
	}
	o.HashMB = clamp(o.HashMB, MinHashMB, MaxHashMB)
	if o.Threads <= 0 {
		o.Threads = 1
	}
	o.Threads = clamp(o.Threads, MinThreads, MaxThreads)
	if o.MultiPV <= 0 {
		o.MultiPV = 1
	}
	o.MultiPV = clamp(o.MultiPV, MinMultiPV, MaxMultiPV)
	if o.MoveOverhead < 0 {
		o.MoveOverhead = 0
	}
	if o.MoveOverhead > maxMoveOverhead {
		o.MoveOverhead = maxMoveOverhead
	}
	if o.Elo == 0 {
		o.Elo = DefaultElo
	}
	o.Elo = clamp(o.Elo, MinElo, MaxElo)
	return o
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Limits says when a search stops. Zero fields mean "no limit"; with no
// limit at all the search runs until Stop (like Infinite).
type Limits struct {
	// WTime and BTime are the clocks, WInc and BInc the increments. All four
	// zero means no clock. A clock that is zero or negative while another
	// field is set has run out: the search moves at once (to say that of
	// both clocks with no increment, make them negative).
	WTime, BTime, WInc, BInc time.Duration
	MovesToGo                int
	// Depth limits the nominal iteration depth in plies.
	Depth int
	// Mate stops the search once a mate in at most Mate moves is found.
	Mate int
	// Nodes limits the total nodes searched (all threads).
	Nodes uint64
	// MoveTime is an exact time for this move.
	MoveTime time.Duration
	// Infinite searches until Stop; Search never returns before Stop.
	Infinite bool
	// Ponder searches without a clock until PonderHit or Stop; Search never
	// returns before one of them.
	Ponder bool
	// SearchMoves restricts the root moves (illegal entries are ignored).
	SearchMoves []board.Move
}

// Info is one progress report of a running search.
type Info struct {
	Depth, SelDepth, MultiPV int
	Score                    Score
	Bound                    Bound
	Nodes, NPS               uint64
	Time                     time.Duration
	PV                       []board.Move
	HashFull                 int
	// CurrMove and CurrMoveNumber are set (and PV nil) for currmove reports.
	CurrMove       board.Move
	CurrMoveNumber int
}

// Result is the outcome of a search. Best is board.NoMove only when the
// position has no legal move (or SearchMoves held no legal move).
type Result struct {
	Best, Ponder board.Move
	Score        Score
	Depth        int
	Nodes        uint64
	Time         time.Duration
}
