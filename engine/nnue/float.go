package nnue

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ponderosa-chess/ponderosa/engine/board"
)

// FloatNet is a network in float32, as the trainer keeps it; Quantize
// turns it into a Network. Its Forward is the reference the integer
// evaluation is tested against.
type FloatNet struct {
	Hidden  int
	Buckets int       // output buckets (OutputBucket)
	Scale   int       // centipawns per logit unit
	FTW     []float32 // Inputs×Hidden, feature-major
	FTB     []float32 // Hidden
	OutW    []float32 // Buckets×2×Hidden, bucket-major, the side to move's half first in each
	OutB    []float32 // Buckets
}

// NewFloatNet returns a zero network with h hidden units and b output
// buckets.
func NewFloatNet(h, b int) *FloatNet {
	return &FloatNet{
		Hidden: h, Buckets: b, Scale: DefaultScale,
		FTW: make([]float32, Inputs*h), FTB: make([]float32, h), OutW: make([]float32, 2*h*b), OutB: make([]float32, b),
	}
}

// OutLayer returns the output weights and bias of bucket b.
func (f *FloatNet) OutLayer(b int) (w []float32, bias *float32) {
	h := f.Hidden
	return f.OutW[b*2*h : (b+1)*2*h], &f.OutB[b]
}

// Features appends the active features of pos from perspective persp.
func Features(dst []int, pos *board.Position, persp board.Color) []int {
	for b := pos.Occupied(); b != 0; {
		sq := b.PopLSB()
		dst = append(dst, Feature(persp, pos.PieceAt(sq), sq))
	}
	return dst
}

// SCReLU is the float activation: clamp(x, 0, 1)².
func SCReLU(x float32) float32 {
	x = min(max(x, 0), 1)
	return x * x
}

// Forward returns the network's logit for the features of the side to
// move (stm) and of the other side (nstm), both lists of every piece on
// the board.
func (f *FloatNet) Forward(stm, nstm []int) float32 {
	h := f.Hidden
	ow, b := f.OutLayer(OutputBucket(len(stm), f.Buckets))
	out := *b
	for side, feats := range [2][]int{stm, nstm} {
		for j := 0; j < h; j++ {
			acc := f.FTB[j]
			for _, ft := range feats {
				acc += f.FTW[ft*h+j]
			}
			out += SCReLU(acc) * ow[side*h+j]
		}
	}
	return out
}

// EvaluatePosition returns the float evaluation of pos in centipawns from
// the side to move's point of view.
func (f *FloatNet) EvaluatePosition(pos *board.Position) float64 {
	stm := pos.SideToMove()
	return float64(f.Forward(Features(nil, pos, stm), Features(nil, pos, stm^1))) * float64(f.Scale)
}

// Quantize returns the integer network. Weights outside ±MaxWeight are
// clipped (the trainer keeps them inside).
func (f *FloatNet) Quantize() (*Network, error) {
	h := f.Hidden
	if h < MinHidden || h > MaxHidden || h%HiddenStep != 0 {
		return nil, fmt.Errorf("nnue: hidden size %d (want %d..%d, a multiple of %d)", h, MinHidden, MaxHidden, HiddenStep)
	}
	if f.Buckets < 1 || f.Buckets > MaxBuckets {
		return nil, fmt.Errorf("nnue: %d output buckets (want 1..%d)", f.Buckets, MaxBuckets)
	}
	if len(f.FTW) != Inputs*h || len(f.FTB) != h || len(f.OutW) != 2*h*f.Buckets || len(f.OutB) != f.Buckets {
		return nil, fmt.Errorf("nnue: float network has inconsistent sizes")
	}
	q := func(src []float32, scale float64) []int16 {
		out := make([]int16, len(src))
		lim := math.Round(MaxWeight * scale)
		for i, v := range src {
			out[i] = int16(min(max(math.Round(float64(v)*scale), -lim), lim))
		}
		return out
	}
	scale := f.Scale
	if scale <= 0 {
		scale = DefaultScale
	}
	outB := make([]int32, f.Buckets)
	for i, v := range f.OutB {
		outB[i] = int32(math.Round(float64(v) * QA * QB))
	}
	return Parse(encode(h, scale, q(f.FTW, QA), q(f.FTB, QA), q(f.OutW, QB), outB))
}

// Float returns the network's weights as a FloatNet (each weight divided
// by its quantisation scale): the float network that Quantize turns back
// into n, for a trainer to go on from.
func (n *Network) Float() *FloatNet {
	f := NewFloatNet(n.hidden, n.buckets)
	f.Scale = int(n.scale)
	deq := func(dst []float32, src []int16, scale float32) {
		for i, v := range src {
			dst[i] = float32(v) / scale
		}
	}
	deq(f.FTW, n.ftW, QA)
	deq(f.FTB, n.ftB, QA)
	deq(f.OutW, n.outW, QB)
	for i, v := range n.outB {
		f.OutB[i] = float32(float64(v) / (QA * QB))
	}
	return f
}

// NewRandomFloatNet returns a network with h hidden units, b output
// buckets and random weights in ranges like a trained one's (accumulators
// spread over the activation's range [0, 1]), for tests and benchmarks of
// the arithmetic; it knows no chess.
func NewRandomFloatNet(h, b int, seed uint64) *FloatNet {
	rng := rand.New(rand.NewPCG(seed, 2))
	f := NewFloatNet(h, b)
	for i := range f.FTW {
		f.FTW[i] = float32(rng.NormFloat64() * 0.08)
	}
	for i := range f.FTB {
		f.FTB[i] = float32(0.3 + rng.NormFloat64()*0.1)
	}
	for i := range f.OutW {
		f.OutW[i] = float32(rng.NormFloat64() * 0.15)
	}
	for i := range f.OutB {
		f.OutB[i] = 0.05 * float32(i+1)
	}
	return f
}
