#include "textflag.h"

// func dot4x3(a *float32, lda int, w *float32, ldw int, k int, out *[12]float32)
//
// out[3*i+j] = sum over p < k of a[i*lda+p] * w[j*ldw+p], for i < 4 and
// j < 3; k is a positive multiple of 8. AVX2 and FMA: twelve 8-wide
// accumulators (Y0-Y11), the three rows of w in Y12-Y14, a row of a in Y15.
TEXT ·dot4x3(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), SI
	MOVQ lda+8(FP), AX
	MOVQ w+16(FP), DI
	MOVQ ldw+24(FP), BX
	MOVQ k+32(FP), DX
	MOVQ out+40(FP), R13
	SHLQ $2, AX
	SHLQ $2, BX
	LEAQ (SI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	LEAQ (DI)(BX*1), R11
	LEAQ (R11)(BX*1), R12
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	XORQ CX, CX

loop:
	VMOVUPS (DI)(CX*4), Y12
	VMOVUPS (R11)(CX*4), Y13
	VMOVUPS (R12)(CX*4), Y14
	VMOVUPS (SI)(CX*4), Y15
	VFMADD231PS Y12, Y15, Y0
	VFMADD231PS Y13, Y15, Y1
	VFMADD231PS Y14, Y15, Y2
	VMOVUPS (R8)(CX*4), Y15
	VFMADD231PS Y12, Y15, Y3
	VFMADD231PS Y13, Y15, Y4
	VFMADD231PS Y14, Y15, Y5
	VMOVUPS (R9)(CX*4), Y15
	VFMADD231PS Y12, Y15, Y6
	VFMADD231PS Y13, Y15, Y7
	VFMADD231PS Y14, Y15, Y8
	VMOVUPS (R10)(CX*4), Y15
	VFMADD231PS Y12, Y15, Y9
	VFMADD231PS Y13, Y15, Y10
	VFMADD231PS Y14, Y15, Y11
	ADDQ $8, CX
	CMPQ CX, DX
	JLT loop

	// Sum each accumulator's 8 lanes, four accumulators at a time:
	// two rounds of pairwise adds within each 128-bit half, then the
	// halves added, leaves their four sums in one X register.
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (R13)
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6
	VHADDPS Y6, Y4, Y4
	VEXTRACTF128 $1, Y4, X5
	VADDPS X5, X4, X4
	VMOVUPS X4, 16(R13)
	VHADDPS Y9, Y8, Y8
	VHADDPS Y11, Y10, Y10
	VHADDPS Y10, Y8, Y8
	VEXTRACTF128 $1, Y8, X9
	VADDPS X9, X8, X8
	VMOVUPS X8, 32(R13)
	VZEROUPPER
	RET
