package corpus

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
)

// KMeans gives c's items k topics, the clusters of spherical k-means over
// their unit vectors (cosine similarity): k distinct items drawn with
// seed as the first centres, then iters rounds of assigning each item to
// its nearest centre and moving each centre to its items' normalised
// mean. The topics are named "cluster 1" to "cluster k".
func KMeans(c *Corpus, k, iters int, seed uint64) error {
	n := c.Len()
	if k < 1 || k > n {
		return fmt.Errorf("k-means of %d items into %d clusters", n, k)
	}
	centres := make([]float32, k*c.Dims)
	for j, item := range rand.New(rand.NewPCG(seed, 0)).Perm(n)[:k] {
		copy(centres[j*c.Dims:], c.Vec(item))
	}
	for range iters {
		assign(c, centres, k)
		moveCentres(c, centres, k)
	}
	assign(c, centres, k)
	c.TopicNames = make([]string, k)
	for j := range k {
		c.TopicNames[j] = fmt.Sprint("cluster ", j+1)
	}
	return nil
}

// assign sets each item's topic to its nearest centre, on every core.
func assign(c *Corpus, centres []float32, k int) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < c.Len(); i += workers {
				c.Topics[i] = int32(nearest(c.Vec(i), centres, k))
			}
		})
	}
	wg.Wait()
}

// nearest returns the centre with the largest dot product with v.
func nearest(v, centres []float32, k int) int {
	best, bestDot := 0, float32(-2)
	dims := len(v)
	for j := range k {
		var d float32
		for t, x := range centres[j*dims : (j+1)*dims] {
			d += x * v[t]
		}
		if d > bestDot {
			best, bestDot = j, d
		}
	}
	return best
}

// moveCentres sets each centre to the normalised mean of its items; a
// centre without items stays where it is.
func moveCentres(c *Corpus, centres []float32, k int) {
	sums := make([]float64, k*c.Dims)
	counts := make([]int, k)
	for i := range c.Len() {
		t := int(c.Topics[i])
		counts[t]++
		for d, x := range c.Vec(i) {
			sums[t*c.Dims+d] += float64(x)
		}
	}
	for j := range k {
		if counts[j] == 0 {
			continue
		}
		row := centres[j*c.Dims : (j+1)*c.Dims]
		for d := range row {
			row[d] = float32(sums[j*c.Dims+d])
		}
		_ = Normalize(row, c.Dims) // a mean of unit vectors of one cluster is not zero
	}
}
