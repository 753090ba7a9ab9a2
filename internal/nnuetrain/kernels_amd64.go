package nnuetrain

import "golang.org/x/sys/cpu"

//go:noescape
func addAVX(dst, src *float32, n int)

// addSIMD is addGo with AVX: 16 floats a loop, the tail (len(dst) not a
// multiple of 16) in Go.
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

// addVec is the kernel Train uses: AVX where the CPU and the operating
// system support it (fixed at start-up), the pure-Go loop otherwise.
var addVec vecAdd = func() vecAdd {
	if cpu.X86.HasAVX {
		return addSIMD
	}
	return addGo
}()
