package minilm

import "golang.org/x/sys/cpu"

// dot4x3 sets out[3*i+j] to the dot product of a's row i and w's row j
// (rows lda and ldw float32s apart), i < 4, j < 3, over k values; k must
// be a positive multiple of 8 and every row must hold k values. It needs
// AVX2 and FMA (hasKernel). In kernel_amd64.s.
//
//go:noescape
func dot4x3(a *float32, lda int, w *float32, ldw int, k int, out *[12]float32)

// hasKernel reports whether dot4x3 can run on this CPU.
func hasKernel() bool { return cpu.X86.HasAVX2 && cpu.X86.HasFMA }

// geluAVX applies gelu's arithmetic to x[0] to x[n-1], eight values at a
// time; n must be a multiple of 8. It needs AVX2 and FMA (hasKernel).
// In kernel_amd64.s.
//
//go:noescape
func geluAVX(x *float32, n int)
