package minilm

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMulT checks mulT, with the kernel where the CPU has it and without,
// against a plain triple loop, on shapes whose rows and columns do not
// divide into the kernel's 4×3 tiles, with strides wider than k.
func TestMulT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	for _, s := range []struct{ m, n, k int }{{1, 1, 8}, {7, 5, 32}, {17, 100, 384}, {9, 200, 1536}, {5, 7, 13}} {
		a, w, bias := random(s.m*(s.k+3)), random(s.n*(s.k+5)), random(s.n)
		for _, fast := range []bool{false, hasKernel()} {
			c := make([]float32, s.m*(s.n+2))
			mulT(view{c, s.n + 2}, view{a, s.k + 3}, view{w, s.k + 5}, s.m, s.n, s.k, bias, fast)
			for i := range s.m {
				for j := range s.n {
					want := float64(bias[j])
					for p := range s.k {
						want += float64(a[i*(s.k+3)+p]) * float64(w[j*(s.k+5)+p])
					}
					if got := c[i*(s.n+2)+j]; math.Abs(float64(got)-want) > 1e-4*math.Sqrt(float64(s.k)) {
						t.Fatalf("%dx%dx%d fast=%v: c[%d][%d] = %v, want %v", s.m, s.n, s.k, fast, i, j, got, want)
					}
				}
			}
		}
	}
}

// TestErf32 checks the float32 error function against math.Erf.
func TestErf32(t *testing.T) {
	for x := -6.0; x <= 6; x += 1.0 / 1024 {
		if got, want := float64(erf32(float32(x))), math.Erf(x); math.Abs(got-want) > 5e-7 {
			t.Fatalf("erf32(%v) = %v, want %v", x, got, want)
		}
	}
}

// TestGeluAVX checks the eight-wide GELU against the Go one.
func TestGeluAVX(t *testing.T) {
	if !hasKernel() {
		t.Skip("no AVX2 and FMA on this CPU: gelu runs in Go alone")
	}
	var x []float32
	for v := -8.0; v <= 8; v += 1.0 / 256 {
		x = append(x, float32(v))
	}
	want := append([]float32(nil), x...)
	gelu(want, false)
	gelu(x, true)
	for i := range x {
		if math.Abs(float64(x[i]-want[i])) > 1e-6 {
			t.Fatalf("gelu(%v): %v with AVX, %v in Go", float64(i)/256-8, x[i], want[i])
		}
	}
}

// TestExpNonPositive checks the float32 exponential against math.Exp.
func TestExpNonPositive(t *testing.T) {
	for x := -90.0; x <= 0; x += 1.0 / 512 {
		got, want := float64(expNonPositive(float32(x))), math.Exp(float64(float32(x)))
		if math.Abs(got-want) > max(2e-7*want, 1e-37) { // near float32's smallest normals, absolute
			t.Fatalf("expNonPositive(%v) = %v, want %v", x, got, want)
		}
	}
}
