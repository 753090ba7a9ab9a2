//go:build !amd64

package nnuetrain

// Without assembly kernels there is no SIMD set (the tests that compare it
// skip) and Train uses the Go set.
var (
	simdKernels  *kernels
	trainKernels = goKernels
)
