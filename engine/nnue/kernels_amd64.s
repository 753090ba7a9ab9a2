#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func screluDotAVX2(acc, w *int16, n int) int64
// Σ clamp(acc[i], 0, 255)² · w[i] for n a multiple of 16, n <= 1024, and
// |w[i]| <= 128 (so clamp·w fits int16 and each int32 lane stays below
// 2^31: n/16 products of at most 2·255·32640).
TEXT ·screluDotAVX2(SB), NOSPLIT, $0-32
	MOVQ acc+0(FP), SI
	MOVQ w+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	MOVL $255, AX
	VMOVD AX, X2
	VPBROADCASTW X2, Y2
loop:
	VMOVDQU (SI), Y3
	VPMAXSW Y1, Y3, Y3
	VPMINSW Y2, Y3, Y3
	VMOVDQU (DI), Y4
	VPMULLW Y3, Y4, Y4
	VPMADDWD Y3, Y4, Y4
	VPADDD Y4, Y0, Y0
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $16, CX
	JNZ loop
	VPMOVSXDQ X0, Y5
	VEXTRACTI128 $1, Y0, X6
	VPMOVSXDQ X6, Y6
	VPADDQ Y5, Y6, Y5
	VEXTRACTI128 $1, Y5, X6
	VPADDQ X6, X5, X5
	VPSHUFD $0x4e, X5, X6
	VPADDQ X6, X5, X5
	VMOVQ X5, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func addSubAVX2(dst, src, a, s *int16, n int)
// dst[i] = src[i] + a[i] - s[i] for n a multiple of 16.
TEXT ·addSubAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ s+24(FP), BX
	MOVQ n+32(FP), CX
loop:
	VMOVDQU (SI), Y0
	VPADDW (AX), Y0, Y0
	VPSUBW (BX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, DI
	SUBQ $16, CX
	JNZ loop
	VZEROUPPER
	RET

// func addSubSubAVX2(dst, src, a, s1, s2 *int16, n int)
// dst[i] = src[i] + a[i] - s1[i] - s2[i] for n a multiple of 16.
TEXT ·addSubSubAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ a+16(FP), AX
	MOVQ s1+24(FP), BX
	MOVQ s2+32(FP), DX
	MOVQ n+40(FP), CX
loop:
	VMOVDQU (SI), Y0
	VPADDW (AX), Y0, Y0
	VPSUBW (BX), Y0, Y0
	VPSUBW (DX), Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, AX
	ADDQ $32, BX
	ADDQ $32, DX
	ADDQ $32, DI
	SUBQ $16, CX
	JNZ loop
	VZEROUPPER
	RET
