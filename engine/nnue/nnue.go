// Package nnue is Ponderosa's efficiently updatable neural network
// evaluation: a (768 → N)×2 → 1 network with side-to-move perspective and
// a squared clipped ReLU, evaluated in integer arithmetic from two
// accumulators (one per perspective) that the search updates incrementally
// as it makes moves. The output layer may have several buckets, one of
// which evaluates a position according to how many pieces are on the
// board (OutputBucket).
//
// Input features: for each perspective, one of 768 = 2 colours (own,
// other) × 6 piece types × 64 squares, the squares flipped vertically for
// Black's perspective. Both perspectives share one feature transformer.
// The output layer sees the side to move's accumulator first, then the
// other side's.
//
// Quantisation: feature weights and biases are int16 scaled by QA (255),
// output weights int16 scaled by QB (64), the output bias int32 scaled by
// QA·QB. The activation is clamp(x, 0, QA)²; the network's float output y
// is a logit and the evaluation in centipawns is y·Scale.
package nnue

import (
	"fmt"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// Network constants.
const (
	Inputs = 768 // features per perspective
	QA     = 255 // feature transformer quantisation
	QB     = 64  // output layer quantisation
	// MaxWeight bounds the float weights of the feature transformer and
	// the output layer (the trainer clips to it), so that quantised
	// accumulators and weights fit int16.
	MaxWeight = 1.98
	// MinHidden and MaxHidden bound N; N must be a multiple of HiddenStep.
	MinHidden, MaxHidden, HiddenStep = 16, 2048, 16
	// MaxBuckets bounds the number of output buckets.
	MaxBuckets = 16
	// DefaultScale converts the network's logit to centipawns.
	DefaultScale = 400
)

// Feature returns the input index of piece pc on square sq seen from
// perspective persp.
func Feature(persp board.Color, pc board.Piece, sq board.Square) int {
	rel := 0
	if pc.Color() != persp {
		rel = 1
	}
	if persp == board.Black {
		sq ^= 56
	}
	return (rel*6+int(pc.Type())-1)*64 + int(sq&63)
}

// OutputBucket returns which of buckets output layers evaluates a
// position with pieces pieces on the board (kings included): the range
// 2..32 cut into buckets equal slices of ceil(32/buckets) counts, the
// last one taking what is left; always 0 with one bucket.
func OutputBucket(pieces, buckets int) int {
	if buckets <= 1 {
		return 0
	}
	per := (32 + buckets - 1) / buckets
	return min(max(pieces-2, 0)/per, buckets-1)
}

// Network is a quantised network, ready to evaluate. It is immutable once
// built and safe to share between search threads.
type Network struct {
	hidden int
	scale  int32
	ftW    []int16 // Inputs×hidden, feature-major
	ftB    []int16 // hidden
	// buckets output layers: outW[b·2·hidden:] is bucket b's, the side
	// to move's half first; outB[b] its bias.
	buckets  int
	bucketOf [33]uint8 // OutputBucket by the number of pieces
	outW     []int16
	outB     []int32
	id       string
	simd     bool // use the AVX2 kernels
}

// SIMD reports whether the network evaluates with the AVX2 kernels (set
// when the CPU has them); otherwise it uses the pure-Go kernels.
func (n *Network) SIMD() bool { return n.simd }

// WithSIMD returns a copy of n (sharing its weights) that uses the AVX2
// kernels when on and the CPU has them, the pure-Go kernels otherwise.
func (n *Network) WithSIMD(on bool) *Network {
	c := *n
	c.simd = on && hasAVX2
	return &c
}

// Hidden returns N, the size of one accumulator.
func (n *Network) Hidden() int { return n.hidden }

// ID returns the network's identifier: "nn-" and the first 12 hex digits
// of the SHA-256 of its file.
func (n *Network) ID() string { return n.id }

// Buckets returns the number of output buckets (1: a single output layer).
func (n *Network) Buckets() int { return n.buckets }

// Shape describes the network's size for people: "256 hidden units", with
// ", 8 output buckets" when it has more than one.
func (n *Network) Shape() string {
	s := fmt.Sprintf("%d hidden units", n.hidden)
	if n.buckets > 1 {
		s += fmt.Sprintf(", %d output buckets", n.buckets)
	}
	return s
}

// Scale returns the centipawns per unit of the network's logit.
func (n *Network) Scale() int { return int(n.scale) }

// Accumulator holds the feature transformer's output for both
// perspectives (index by board.Color). Build one with NewAccumulator; it
// belongs to one network size.
type Accumulator struct {
	v [2][]int16
}

// NewAccumulator returns an accumulator sized for n.
func (n *Network) NewAccumulator() Accumulator {
	buf := make([]int16, 2*n.hidden)
	return Accumulator{v: [2][]int16{buf[:n.hidden:n.hidden], buf[n.hidden:]}}
}

// CopyFrom makes a equal to b (both of the same network).
func (a *Accumulator) CopyFrom(b *Accumulator) {
	copy(a.v[0], b.v[0])
	copy(a.v[1], b.v[1])
}

// Values returns the accumulator of perspective c (for tests and tools).
func (a *Accumulator) Values(c board.Color) []int16 { return a.v[c&1] }

// Refresh computes the accumulator of pos from scratch.
func (n *Network) Refresh(a *Accumulator, pos *board.Position) {
	for c := board.White; c <= board.Black; c++ {
		acc := a.v[c][:n.hidden]
		copy(acc, n.ftB)
		for b := pos.Occupied(); b != 0; {
			sq := b.PopLSB()
			f := Feature(c, pos.PieceAt(sq), sq)
			addRow(acc, n.ftW[f*n.hidden:(f+1)*n.hidden])
		}
	}
}

// Update writes into dst the accumulator of the position after the legal
// move m is made in pos, given src, the accumulator of pos. dst and src
// must be different accumulators of this network.
func (n *Network) Update(dst, src *Accumulator, pos *board.Position, m board.Move) {
	us := pos.SideToMove()
	from, to := m.From(), m.To()
	pc := pos.PieceAt(from)
	var add int
	var sub [2]int
	ns := 0
	switch {
	case m.IsCastling():
		kingTo, rookTo := board.G1, board.F1
		if to < from {
			kingTo, rookTo = board.C1, board.D1
		}
		if us == board.Black {
			kingTo, rookTo = kingTo^56, rookTo^56
		}
		rook := pos.PieceAt(to)
		for c := board.White; c <= board.Black; c++ {
			h := n.hidden
			w := n.ftW
			a1, a2 := Feature(c, pc, kingTo), Feature(c, rook, rookTo)
			s1, s2 := Feature(c, pc, from), Feature(c, rook, to)
			addSubSub2(dst.v[c][:h], src.v[c][:h], w[a1*h:(a1+1)*h], w[a2*h:(a2+1)*h], w[s1*h:(s1+1)*h], w[s2*h:(s2+1)*h])
		}
		return
	default:
		moved := pc
		if m.IsPromotion() {
			moved = board.MakePiece(us, m.Promotion())
		}
		add = int(moved) | int(to)<<8
		sub[ns], ns = int(pc)|int(from)<<8, ns+1
		if m.IsEnPassant() {
			capSq := to ^ 8
			sub[ns], ns = int(pos.PieceAt(capSq))|int(capSq)<<8, ns+1
		} else if cap := pos.PieceAt(to); cap != board.NoPiece {
			sub[ns], ns = int(cap)|int(to)<<8, ns+1
		}
	}
	h := n.hidden
	w := n.ftW
	for c := board.White; c <= board.Black; c++ {
		a := Feature(c, board.Piece(add&255), board.Square(add>>8))
		s1 := Feature(c, board.Piece(sub[0]&255), board.Square(sub[0]>>8))
		if ns == 1 {
			if n.simd {
				addSubSIMD(dst.v[c][:h], src.v[c][:h], w[a*h:(a+1)*h], w[s1*h:(s1+1)*h])
			} else {
				addSub(dst.v[c][:h], src.v[c][:h], w[a*h:(a+1)*h], w[s1*h:(s1+1)*h])
			}
			continue
		}
		s2 := Feature(c, board.Piece(sub[1]&255), board.Square(sub[1]>>8))
		if n.simd {
			addSubSubSIMD(dst.v[c][:h], src.v[c][:h], w[a*h:(a+1)*h], w[s1*h:(s1+1)*h], w[s2*h:(s2+1)*h])
		} else {
			addSubSub(dst.v[c][:h], src.v[c][:h], w[a*h:(a+1)*h], w[s1*h:(s1+1)*h], w[s2*h:(s2+1)*h])
		}
	}
}

// Evaluate returns the evaluation in centipawns from the side to move's
// point of view, given a, the accumulator of pos.
func (n *Network) Evaluate(a *Accumulator, pos *board.Position) int {
	h := n.hidden
	stm := pos.SideToMove()
	w, bias := n.outW[:2*h], n.outB[0]
	if n.buckets > 1 {
		b := int(n.bucketOf[min(pos.Occupied().Count(), 32)])
		w, bias = n.outW[b*2*h:(b+1)*2*h], n.outB[b]
	}
	var sum int64
	if n.simd {
		sum = screluDotSIMD(a.v[stm][:h], w[:h]) + screluDotSIMD(a.v[stm^1][:h], w[h:])
	} else {
		sum = screluDot(a.v[stm][:h], w[:h]) + screluDot(a.v[stm^1][:h], w[h:])
	}
	out := sum/QA + int64(bias)
	return int(out * int64(n.scale) / (QA * QB))
}

// EvaluatePosition refreshes a scratch accumulator and evaluates pos (for
// tools and tests; it allocates).
func (n *Network) EvaluatePosition(pos *board.Position) int {
	a := n.NewAccumulator()
	n.Refresh(&a, pos)
	return n.Evaluate(&a, pos)
}
