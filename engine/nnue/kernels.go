package nnue

// The accumulator and output kernels in pure Go. Slices are re-sliced to
// the length of the first so the compiler drops the bounds checks.

func addRow(acc, w []int16) {
	w = w[:len(acc)]
	for i := range acc {
		acc[i] += w[i]
	}
}

func addSub(dst, src, a, s []int16) {
	src, a, s = src[:len(dst)], a[:len(dst)], s[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a[i] - s[i]
	}
}

func addSubSub(dst, src, a, s1, s2 []int16) {
	src, a, s1, s2 = src[:len(dst)], a[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a[i] - s1[i] - s2[i]
	}
}

func addSubSub2(dst, src, a1, a2, s1, s2 []int16) {
	src, a1, a2, s1, s2 = src[:len(dst)], a1[:len(dst)], a2[:len(dst)], s1[:len(dst)], s2[:len(dst)]
	for i := range dst {
		dst[i] = src[i] + a1[i] + a2[i] - s1[i] - s2[i]
	}
}

// screluDot returns Σ clamp(acc[i], 0, QA)² · w[i].
func screluDot(acc, w []int16) int64 {
	w = w[:len(acc)]
	var sum int64
	for i, v := range acc {
		x := int32(v)
		x = min(max(x, 0), QA)
		sum += int64(x*x) * int64(w[i])
	}
	return sum
}
