#include "textflag.h"

// func addAVX(dst, src *float32, n int)
// dst[i] += src[i] for n a positive multiple of 16: two 8-float vectors a
// loop, each lane one IEEE single-precision addition, as the Go loop's.
TEXT ·addAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
loop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ loop
	VZEROUPPER
	RET
