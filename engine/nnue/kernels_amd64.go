package nnue

// AVX2 versions of the hot kernels (kernels_amd64.s), used when the CPU
// and the operating system support AVX2. The pure-Go kernels stay the
// reference: tests run both.

//go:noescape
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv() (eax uint32)

//go:noescape
func screluDotAVX2(acc, w *int16, n int) int64

//go:noescape
func addSubAVX2(dst, src, a, s *int16, n int)

//go:noescape
func addSubSubAVX2(dst, src, a, s1, s2 *int16, n int)

// hasAVX2 is fixed at start-up: whether the CPU has AVX2 and the
// operating system saves the YMM registers.
var hasAVX2 = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 || xgetbv()&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}()

// screluDotSIMD is screluDot on AVX2, in blocks of at most 1024 elements
// (the bound of its 32-bit lanes). len(acc) is a multiple of 16 and the
// weights are within ±128 (Parse checks both).
func screluDotSIMD(acc, w []int16) int64 {
	w = w[:len(acc)]
	var sum int64
	for lo := 0; lo < len(acc); lo += 1024 {
		n := min(1024, len(acc)-lo)
		sum += screluDotAVX2(&acc[lo], &w[lo], n)
	}
	return sum
}

func addSubSIMD(dst, src, a, s []int16) {
	n := len(dst)
	_, _, _ = src[n-1], a[n-1], s[n-1]
	addSubAVX2(&dst[0], &src[0], &a[0], &s[0], n)
}

func addSubSubSIMD(dst, src, a, s1, s2 []int16) {
	n := len(dst)
	_, _, _, _ = src[n-1], a[n-1], s1[n-1], s2[n-1]
	addSubSubAVX2(&dst[0], &src[0], &a[0], &s1[0], &s2[0], n)
}
