//go:build !amd64

package nnuetrain

// Without assembly kernels the SIMD set is the Go set (tests compare the
// two on every platform) and Train uses it.
var simdKernels, trainKernels = goKernels, goKernels
