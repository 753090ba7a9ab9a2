package nnuetrain

import "github.com/ponderosa-chess/ponderosa/engine/nnue"

// The trainer's vector kernels: the inner loops over one accumulator's N
// floats. Each works element by element, and a SIMD version does the very
// operations of the Go loop on every element, in the same order and each
// rounded alike, so it gives the same bits (tests check it): a network
// does not depend on which kernels trained it.

// kernels is a set of the trainer's kernels; a grads carries the set its
// thread uses.
type kernels struct {
	// add does dst[i] += src[i] for i < len(dst): a feature's weights into
	// an accumulator (forward), an accumulator's gradient into a
	// feature's (backward), one thread's gradients into another's (Adam's
	// sum). len(src) >= len(dst).
	add func(dst, src []float32)
	// back is the backward pass through one side's activations, given
	// gy, the loss's gradient at the output: for each unit j of the
	// accumulator acc, the output weight's gradient gow[j] gains
	// gy·SCReLU(acc[j]); where the activation is not clipped (0 < acc[j] <
	// 1) the gradient at the accumulator, da = gy·ow[j]·2·acc[j], goes into
	// the bias gradient gb[j] and replaces acc[j]; elsewhere acc[j] becomes
	// 0. ow, gow and gb are at least as long as acc.
	back func(acc, ow, gow, gb []float32, gy float32)
}

// goKernels is the pure-Go set, the reference.
var goKernels = &kernels{add: addGo, back: backGo}

func addGo(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}

func backGo(acc, ow, gow, gb []float32, gy float32) {
	ow, gow, gb = ow[:len(acc)], gow[:len(acc)], gb[:len(acc)]
	for j, a := range acc {
		gow[j] += gy * nnue.SCReLU(a)
		if a > 0 && a < 1 {
			da := gy * ow[j] * 2 * a
			acc[j] = da
			gb[j] += da
		} else {
			acc[j] = 0
		}
	}
}
