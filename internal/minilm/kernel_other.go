//go:build !amd64

package minilm

// dot4x3 exists on amd64 alone; hasKernel keeps it from being called.
func dot4x3(a *float32, lda int, w *float32, ldw int, k int, out *[12]float32) {
	panic("minilm: dot4x3 without AVX2")
}

// hasKernel reports false: mulT's Go loops do all the work.
func hasKernel() bool { return false }

// geluAVX exists on amd64 alone; hasKernel keeps it from being called.
func geluAVX(x *float32, n int) {
	panic("minilm: geluAVX without AVX2")
}
