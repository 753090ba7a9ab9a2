//go:build !amd64

package nnue

const hasAVX2 = false

func screluDotSIMD(acc, w []int16) int64 { return screluDot(acc, w) }

func addSubSIMD(dst, src, a, s []int16) { addSub(dst, src, a, s) }

func addSubSubSIMD(dst, src, a, s1, s2 []int16) { addSubSub(dst, src, a, s1, s2) }
