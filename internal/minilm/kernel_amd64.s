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

// The constants of geluAVX, each broadcast to 8 lanes: erf32's
// coefficients (encoder.go), the clamp at ±4, 1/√2 and 0.5.
DATA geluk<>+0(SB)/4, $-2.72614225801306e-10
DATA geluk<>+4(SB)/4, $2.77068142495902e-08
DATA geluk<>+8(SB)/4, $-2.10102402082508e-06
DATA geluk<>+12(SB)/4, $-5.69250639462346e-05
DATA geluk<>+16(SB)/4, $-7.34990630326855e-04
DATA geluk<>+20(SB)/4, $-2.95459980854025e-03
DATA geluk<>+24(SB)/4, $-1.60960333262415e-02
DATA geluk<>+28(SB)/4, $-1.45660718464996e-05
DATA geluk<>+32(SB)/4, $-2.13374055278905e-04
DATA geluk<>+36(SB)/4, $-1.68282697438203e-03
DATA geluk<>+40(SB)/4, $-7.37332916720468e-03
DATA geluk<>+44(SB)/4, $-1.42647390514189e-02
DATA geluk<>+48(SB)/4, $4.0
DATA geluk<>+52(SB)/4, $-4.0
DATA geluk<>+56(SB)/4, $0.7071067811865476
DATA geluk<>+60(SB)/4, $0.5
GLOBL geluk<>(SB), RODATA|NOPTR, $64

// func geluAVX(x *float32, n int)
//
// x[i] = 0.5·x[i]·(1 + erf32(x[i]/√2)) for i < n, n a multiple of 8:
// gelu's arithmetic, eight values at a time (the same rational erf;
// FMA rounds once where Go rounds twice).
TEXT ·geluAVX(SB), NOSPLIT, $0-16
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), DX
	LEAQ geluk<>(SB), AX
	VBROADCASTSS 48(AX), Y12 // 4
	VBROADCASTSS 52(AX), Y13 // -4
	VBROADCASTSS 56(AX), Y14 // 1/√2
	VBROADCASTSS 60(AX), Y15 // 0.5
	XORQ CX, CX
	CMPQ CX, DX
	JGE  geludone

geluloop:
	VMOVUPS (SI)(CX*4), Y0       // v
	VMULPS  Y14, Y0, Y1          // t = v/√2
	VMINPS  Y12, Y1, Y1
	VMAXPS  Y13, Y1, Y1          // clamped to [-4, 4]
	VMULPS  Y1, Y1, Y2           // t²
	VBROADCASTSS 0(AX), Y3       // p = ((((((c0·t²+c1)·t²+c2)…
	VBROADCASTSS 4(AX), Y4
	VFMADD213PS Y4, Y2, Y3       // Y3 = Y3·t² + Y4
	VBROADCASTSS 8(AX), Y4
	VFMADD213PS Y4, Y2, Y3
	VBROADCASTSS 12(AX), Y4
	VFMADD213PS Y4, Y2, Y3
	VBROADCASTSS 16(AX), Y4
	VFMADD213PS Y4, Y2, Y3
	VBROADCASTSS 20(AX), Y4
	VFMADD213PS Y4, Y2, Y3
	VBROADCASTSS 24(AX), Y4
	VFMADD213PS Y4, Y2, Y3
	VBROADCASTSS 28(AX), Y5      // q
	VBROADCASTSS 32(AX), Y4
	VFMADD213PS Y4, Y2, Y5
	VBROADCASTSS 36(AX), Y4
	VFMADD213PS Y4, Y2, Y5
	VBROADCASTSS 40(AX), Y4
	VFMADD213PS Y4, Y2, Y5
	VBROADCASTSS 44(AX), Y4
	VFMADD213PS Y4, Y2, Y5
	VMULPS  Y3, Y1, Y3           // t·p
	VDIVPS  Y5, Y3, Y3           // erf = t·p/q
	VMULPS  Y15, Y0, Y0          // h = v/2
	VFMADD213PS Y0, Y0, Y3       // h·erf + h
	VMOVUPS Y3, (SI)(CX*4)
	ADDQ    $8, CX
	CMPQ    CX, DX
	JLT     geluloop

geludone:
	VZEROUPPER
	RET
