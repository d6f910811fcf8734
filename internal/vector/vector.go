// Package vector is what manydb knows about nearest-neighbour search over
// note embeddings: the cosine distance, the float32 blob that SQL engines
// store, an exact top-k for the adapters that scan in Go, and recall@k,
// which the worker computes for every knn answer against the exact
// answer. It uses no cgo, so every adapter and the worker can import it.
package vector

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// K is how many nearest notes the knn query asks for (recall@K).
const K = 10

// Ladder is what a hold asks an approximate search for after its memory
// snapshot, step by step: each factor times K notes, the first K kept, so
// that a study finds how many notes an application must ask for to
// recall RecallGoal of the K nearest.
func Ladder() []int { return []int{1, 2, 4, 8, 16, 32, 64} }

// RecallGoal is the mean recall@K the ladder looks for (the goal that
// vector benchmarks usually quote, 0.95).
const RecallGoal = 0.95

// Tolerance is how far past the true K-th distance a returned note may be
// and still count as one of the K nearest: engines sum float32 products in
// their own order, so notes tied at rank K may swap (ann-benchmarks counts
// recall the same way, with a looser 1e-3).
const Tolerance = 1e-5

// Distance returns the cosine distance 1 - a·b/(|a||b|) of a and b,
// summed in float64.
func Distance(a, b []float32) float64 {
	var dot, na, nb float64
	for k, x := range a {
		y := float64(b[k])
		dot += float64(x) * y
		na += float64(x) * float64(x)
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 1
	}
	return 1 - dot/(math.Sqrt(na)*math.Sqrt(nb))
}

// AppendBlob appends v to buf as little-endian float32 values: the blob
// of sqlite-vec's float[D], libSQL's F32_BLOB(D) and Turso's vector32.
func AppendBlob(buf []byte, v []float32) []byte {
	for _, x := range v {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
	}
	return buf
}

// FromBlob decodes a blob of AppendBlob into dst (resized to fit) and
// returns it.
func FromBlob(b []byte, dst []float32) ([]float32, error) {
	if len(b)%4 != 0 {
		return dst, fmt.Errorf("a vector blob of %d bytes: not float32 values", len(b))
	}
	dst = slices.Grow(dst[:0], len(b)/4)[:len(b)/4]
	for k := range dst {
		dst[k] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*k:]))
	}
	return dst, nil
}

// TopK keeps the k nearest of the candidates offered to it: the exact
// search of the adapters whose engine has none (a scan in Go). The zero
// value is not usable; make one with NewTopK and reuse it with Reset.
type TopK struct {
	k int
	h maxHeap
}

// NewTopK returns a TopK that keeps k candidates.
func NewTopK(k int) *TopK { return &TopK{k: k, h: make(maxHeap, 0, k+1)} }

// Reset forgets every candidate.
func (t *TopK) Reset() { t.h = t.h[:0] }

// Offer considers note id at distance d.
func (t *TopK) Offer(id int64, d float64) {
	if len(t.h) < t.k {
		heap.Push(&t.h, cand{id, d})
		return
	}
	if d < t.h[0].d {
		t.h[0] = cand{id, d}
		heap.Fix(&t.h, 0)
	}
}

// AppendIDs appends the ids kept, nearest first, to dst and returns it.
func (t *TopK) AppendIDs(dst []int64) []int64 {
	c := slices.Clone(t.h)
	slices.SortFunc(c, func(a, b cand) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	for _, x := range c {
		dst = append(dst, x.id)
	}
	return dst
}

type cand struct {
	id int64
	d  float64
}

// maxHeap keeps the farthest candidate on top.
type maxHeap []cand

func (h maxHeap) Len() int           { return len(h) }
func (h maxHeap) Less(i, j int) bool { return h[i].d > h[j].d }
func (h maxHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *maxHeap) Push(x any)        { *h = append(*h, x.(cand)) }
func (h *maxHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Recall returns recall@k of an answer: the share of the k ids returned
// (after the first k, duplicates and ids outside 1..len(dists) are
// counted as misses) whose distance is at most the true k-th distance plus
// Tolerance. dists[id-1] is the exact distance of note id to the query.
// Fewer than k notes in the store lower k to their number.
func Recall(k int, dists []float64, got []int64) float64 {
	k = min(k, len(dists))
	if k == 0 {
		return 1
	}
	kth := KthSmallest(dists, k)
	hits := 0
	seen := make(map[int64]bool, len(got))
	for _, id := range got[:min(k, len(got))] {
		if id < 1 || id > int64(len(dists)) || seen[id] {
			continue
		}
		seen[id] = true
		if dists[id-1] <= kth+Tolerance {
			hits++
		}
	}
	return float64(hits) / float64(k)
}

// KthSmallest returns the k-th smallest of d (1-based), leaving d as it was.
func KthSmallest(d []float64, k int) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[k-1]
}

// CheckAnswer returns an error when an answer to a knn query over n notes
// cannot be right whatever the search: more than k ids, an id twice, or
// an id that is not a note of the store; and, from an exact search, fewer
// than min(k, n) ids. (An approximate index may find fewer: its recall
// says so.)
func CheckAnswer(k, n int, got []int64, exact bool) error {
	if len(got) > k || exact && len(got) != min(k, n) {
		return fmt.Errorf("knn returned %d ids, want %d", len(got), min(k, n))
	}
	seen := make(map[int64]bool, len(got))
	for _, id := range got {
		switch {
		case id < 1 || id > int64(n):
			return fmt.Errorf("knn returned id %d, which is not a note of the store (1..%d)", id, n)
		case seen[id]:
			return fmt.Errorf("knn returned id %d twice", id)
		}
		seen[id] = true
	}
	return nil
}
