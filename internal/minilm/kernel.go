package minilm

// view is a row-major matrix inside a slice: row i starts at i*stride.
type view struct {
	v      []float32
	stride int
}

// row returns the first k values of row i.
func (x view) row(i, k int) []float32 { return x.v[i*x.stride : i*x.stride+k] }

// wBlock is how many rows of w mulT keeps in cache while it runs through
// all the rows of a (96 rows of 1,536 values: 590 KB).
const wBlock = 96

// mulT sets c's row i, column j to bias[j] plus the dot product of a's
// row i and w's row j, for i < m, j < n, over k values: a times the
// transpose of w, the way a PyTorch Linear layer stores w (one row per
// output). bias may be nil. With fast (hasKernel) and k a multiple of 8,
// dot4x3 computes four rows by three at a time.
func mulT(c, a, w view, m, n, k int, bias []float32, fast bool) {
	for j0 := 0; j0 < n; j0 += wBlock {
		j1 := min(n, j0+wBlock)
		i := 0
		if fast && k%8 == 0 {
			for ; i+4 <= m; i += 4 {
				mulT4(c, a, w, i, j0, j1, k, bias)
			}
		}
		for ; i < m; i++ {
			for j := j0; j < j1; j++ {
				c.v[i*c.stride+j] = biasAt(bias, j) + dot(a.row(i, k), w.row(j, k))
			}
		}
	}
}

// mulT4 is mulT for rows i to i+3 of a and rows j0 to j1-1 of w.
func mulT4(c, a, w view, i, j0, j1, k int, bias []float32) {
	_ = a.row(i+3, k) // the kernel reads rows i to i+3 of a, j to j+2 of w
	var out [12]float32
	j := j0
	for ; j+3 <= j1; j += 3 {
		_ = w.row(j+2, k)
		dot4x3(&a.v[i*a.stride], a.stride, &w.v[j*w.stride], w.stride, k, &out)
		for r := range 4 {
			for s := range 3 {
				c.v[(i+r)*c.stride+j+s] = biasAt(bias, j+s) + out[3*r+s]
			}
		}
	}
	for ; j < j1; j++ {
		for r := range 4 {
			c.v[(i+r)*c.stride+j] = biasAt(bias, j) + dot(a.row(i+r, k), w.row(j, k))
		}
	}
}

func biasAt(bias []float32, j int) float32 {
	if bias == nil {
		return 0
	}
	return bias[j]
}

// dot is the dot product of x and y (as long as x) in Go, four sums at once.
func dot(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return s0 + s1 + s2 + s3
}
