package nnuetrain

// The trainer's one vector kernel: dst[i] += src[i], the inner loop of the
// forward pass (adding a feature's weights to an accumulator), of the
// backward pass (adding an accumulator's gradient to a feature's weight
// gradient) and of summing the threads' gradients before Adam's step.
// Element by element, so a SIMD version gives the very bits this loop
// gives: each float is one IEEE addition either way (a test checks it).

// vecAdd is the signature of the kernels; a grads carries the one its
// thread uses.
type vecAdd func(dst, src []float32)

// addGo is the pure-Go kernel, the reference. len(src) >= len(dst).
func addGo(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] += v
	}
}
