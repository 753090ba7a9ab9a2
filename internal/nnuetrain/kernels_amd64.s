#include "textflag.h"

// func addAVX(dst, src *float32, n int)
// dst[i] += src[i] for n a positive multiple of 16: two 8-float vectors a
// loop, each lane one IEEE single-precision addition, as the Go loop's.
TEXT ·addAVX(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
addloop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ addloop
	VZEROUPPER
	RET

// func backAVX(acc, ow, gow, gb *float32, gy float32, n int)
// backGo for n a positive multiple of 8, 8 units a loop, the same
// operations in the same order on each (no fused multiply-add):
//   c = min(max(a, 0), 1); gow += gy·(c·c)
//   da = ((gy·ow)·2)·a; where 0 < a < 1: acc = da, gb += da; else acc = 0
// VMAXPS/VMINPS with the constant as the second operand give Go's max and
// min for every a but NaN (max(-0, 0) is +0 in both).
TEXT ·backAVX(SB), NOSPLIT, $0-48
	MOVQ acc+0(FP), DI
	MOVQ ow+8(FP), SI
	MOVQ gow+16(FP), DX
	MOVQ gb+24(FP), BX
	VBROADCASTSS gy+32(FP), Y15
	MOVQ n+40(FP), CX
	VXORPS Y14, Y14, Y14        // 0
	MOVL $0x3f800000, AX         // 1.0
	VMOVD AX, X13
	VBROADCASTSS X13, Y13
	MOVL $0x40000000, AX         // 2.0
	VMOVD AX, X12
	VBROADCASTSS X12, Y12
backloop:
	VMOVUPS (DI), Y0            // a
	VMAXPS Y14, Y0, Y1          // max(a, 0)
	VMINPS Y13, Y1, Y1          // c = min(·, 1)
	VMULPS Y1, Y1, Y1           // c·c
	VMULPS Y1, Y15, Y1          // gy·(c·c)
	VADDPS (DX), Y1, Y1         // gow + gy·(c·c)
	VMOVUPS Y1, (DX)
	VCMPPS $0x1e, Y14, Y0, Y2   // a > 0
	VCMPPS $0x11, Y13, Y0, Y3   // a < 1
	VANDPS Y3, Y2, Y2           // mask
	VMULPS (SI), Y15, Y4        // gy·ow
	VMULPS Y12, Y4, Y4          // ·2
	VMULPS Y0, Y4, Y4           // ·a = da
	VANDPS Y2, Y4, Y5           // da where the mask, else +0
	VMOVUPS Y5, (DI)
	VMOVUPS (BX), Y6            // gb
	VADDPS Y4, Y6, Y7           // gb + da
	VBLENDVPS Y2, Y7, Y6, Y6    // the mask picks gb + da, else gb
	VMOVUPS Y6, (BX)
	ADDQ $32, DI
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, BX
	SUBQ $8, CX
	JNZ backloop
	VZEROUPPER
	RET
