package nnuetrain

import "golang.org/x/sys/cpu"

//go:noescape
func addAVX(dst, src *float32, n int)

//go:noescape
func backAVX(acc, ow, gow, gb *float32, gy float32, n int)

// simdKernels does with AVX2 what goKernels does, 16 floats a loop (8 in
// back), the tail past the last whole block in Go; nil where the CPU or
// the operating system lacks AVX2 (backAVX broadcasts from a register).
var simdKernels = func() *kernels {
	if cpu.X86.HasAVX2 {
		return &kernels{add: addSIMD, back: backSIMD}
	}
	return nil
}()

// trainKernels is the set Train uses: simdKernels where there are any
// (fixed at start-up), pure Go otherwise.
var trainKernels = func() *kernels {
	if simdKernels != nil {
		return simdKernels
	}
	return goKernels
}()

func addSIMD(dst, src []float32) {
	n := len(dst) &^ 15
	if n > 0 {
		_ = src[n-1]
		addAVX(&dst[0], &src[0], n)
	}
	if n < len(dst) {
		addGo(dst[n:], src[n:len(dst)])
	}
}

func backSIMD(acc, ow, gow, gb []float32, gy float32) {
	n := len(acc) &^ 7
	if n > 0 {
		_, _, _ = ow[n-1], gow[n-1], gb[n-1]
		backAVX(&acc[0], &ow[0], &gow[0], &gb[0], gy, n)
	}
	if n < len(acc) {
		backGo(acc[n:], ow[n:], gow[n:], gb[n:], gy)
	}
}
