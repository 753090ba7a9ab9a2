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
	Hidden int
	Scale  int       // centipawns per logit unit
	FTW    []float32 // Inputs×Hidden, feature-major
	FTB    []float32 // Hidden
	OutW   []float32 // 2×Hidden, side to move's half first
	OutB   float32
}

// NewFloatNet returns a zero network with h hidden units.
func NewFloatNet(h int) *FloatNet {
	return &FloatNet{
		Hidden: h, Scale: DefaultScale,
		FTW: make([]float32, Inputs*h), FTB: make([]float32, h), OutW: make([]float32, 2*h),
	}
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
// move (stm) and of the other side (nstm).
func (f *FloatNet) Forward(stm, nstm []int) float32 {
	h := f.Hidden
	out := f.OutB
	for side, feats := range [2][]int{stm, nstm} {
		for j := 0; j < h; j++ {
			acc := f.FTB[j]
			for _, ft := range feats {
				acc += f.FTW[ft*h+j]
			}
			out += SCReLU(acc) * f.OutW[side*h+j]
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
	if len(f.FTW) != Inputs*h || len(f.FTB) != h || len(f.OutW) != 2*h {
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
	b := encode(h, scale, q(f.FTW, QA), q(f.FTB, QA), q(f.OutW, QB), int32(math.Round(float64(f.OutB)*QA*QB)))
	return Parse(b)
}

// Float returns the network's weights as a FloatNet (each weight divided
// by its quantisation scale): the float network that Quantize turns back
// into n, for a trainer to go on from.
func (n *Network) Float() *FloatNet {
	f := NewFloatNet(n.hidden)
	f.Scale = int(n.scale)
	deq := func(dst []float32, src []int16, scale float32) {
		for i, v := range src {
			dst[i] = float32(v) / scale
		}
	}
	deq(f.FTW, n.ftW, QA)
	deq(f.FTB, n.ftB, QA)
	deq(f.OutW, n.outW, QB)
	f.OutB = float32(float64(n.outB) / (QA * QB))
	return f
}

// NewRandomFloatNet returns a network with h hidden units and random
// weights in ranges like a trained one's (accumulators spread over the
// activation's range [0, 1]), for tests and benchmarks of the
// arithmetic; it knows no chess.
func NewRandomFloatNet(h int, seed uint64) *FloatNet {
	rng := rand.New(rand.NewPCG(seed, 2))
	f := NewFloatNet(h)
	for i := range f.FTW {
		f.FTW[i] = float32(rng.NormFloat64() * 0.08)
	}
	for i := range f.FTB {
		f.FTB[i] = float32(0.3 + rng.NormFloat64()*0.1)
	}
	for i := range f.OutW {
		f.OutW[i] = float32(rng.NormFloat64() * 0.15)
	}
	f.OutB = 0.05
	return f
}
