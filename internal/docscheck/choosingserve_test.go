package docscheck

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// choosingServeClaims are what docs/choosing.md says of the record's
// serve part: what a pool buys, and the p99 of ObjectBox and Turso.
func choosingServeClaims() []claim {
	hitRate := func(s *results.Serve) float64 { return 100 * float64(s.Hits) / float64(s.Requests) }
	p99 := func(s *results.Serve) float64 { return s.P99Ms }
	return []claim{
		{choosing, "a pool of 1 % of the stores (100) answers 53 % of requests without an open, 10 % (1,000) 77.8 %, and all stores (10,000) 84.8 % (the rest are first visits: the 21,000 requests with the warm-up reach 3,435 of the 10,000 agents)", func(t *testing.T, rs *records) string {
			reached := func(s *results.Serve) float64 { return float64(s.MaxOpen) }
			return fmt.Sprintf("(100) answers %s %% of requests without an open, 10 %% (1,000) %s %%, and all stores (10,000) %s %% (the rest are first visits: the 21,000 requests with the warm-up reach %s of",
				serveSpan(t, rs, serveFile, 100, hitRate, 0), serveSpan(t, rs, serveFile, 1000, hitRate, 1), serveSpan(t, rs, serveFile, 10000, hitRate, 1),
				grouped(stats.Max(serveValues(t, rs, serveFile, 10000, reached))))
		}},
		{choosing, "At a pool of 1,000 their p99 rises to 49–80 ms", func(t *testing.T, rs *records) string {
			return "their p99 rises to " + serveSpan(t, rs, serveFile, 1000, p99, 0, "obx", "obx_cached", "obx_nosync", "turso", "turso_ckpt", "turso_go") + " ms"
		}},
		{choosing, "(`turso`, `turso_go`: 138–142 ms p99)", func(t *testing.T, rs *records) string {
			return "(`turso`, `turso_go`: " + serveSpan(t, rs, serveFile, 0, p99, 0, "turso", "turso_go") + " ms p99)"
		}},
	}
}

// serveValues is pick of each ok serve step at pool (every pool when
// below 0) of the serve part in the file name under the defaults, of
// variants (a variant, or "VARIANT shared" for its shared layout; every
// variant in either layout when none).
func serveValues(t *testing.T, rs *records, name string, pool int, pick func(*results.Serve) float64, variants ...string) []float64 {
	t.Helper()
	var xs []float64
	for _, r := range rs.file(t, name) {
		if r.Phase != job.PhaseServe || r.Status != results.StatusOK || r.Setting != "default" || r.Serve == nil || (pool >= 0 && r.Serve.Pool != pool) {
			continue
		}
		column := r.Variant
		if r.Layout == job.LayoutShared {
			column += " shared"
		}
		if len(variants) == 0 || slices.Contains(variants, column) {
			xs = append(xs, pick(r.Serve))
		}
	}
	if len(xs) == 0 {
		t.Fatalf("%s: no serve step at pool %d of %v", name, pool, variants)
	}
	return xs
}

// serveSpan is the lowest and highest serveValues, as span writes them.
func serveSpan(t *testing.T, rs *records, name string, pool int, pick func(*results.Serve) float64, prec int, variants ...string) string {
	xs := serveValues(t, rs, name, pool, pick, variants...)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return span(lo, hi, prec)
}
