package docscheck

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"manydb/internal/results"
)

// The bbolt hold of 100,000 in six processes of docs/capacity.md.
const bboltLean = "2026-12-05-procs/bbolt-100k.jsonl.gz"

// leanFour are the SQLite and libSQL variants of capacity.md's answer.
var leanFour = []string{"sqlite", "sqlite_capi", "libsql", "libsql_capi"}

// holdSpan is the lowest and highest anonymous KB per open store of the
// holds of held of variants (setting) in the file name.
func holdSpan(t *testing.T, rs *records, name, setting string, held, prec int, variants ...string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range variants {
		kb := rs.hold(t, name, v, setting, held).AnonKB
		lo, hi = min(lo, kb), max(hi, kb)
	}
	return span(lo, hi, prec)
}

// growthSpan is the lowest and highest growth of the open per 1,000
// open of variants (setting) in the capacity study.
func growthSpan(t *testing.T, rs *records, setting string, variants ...string) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range variants {
		g := rs.growth(t, capacity, v, setting)
		lo, hi = min(lo, g), max(hi, g)
	}
	return span(lo, hi, 0)
}

// capacityAnswerClaims are the figures of docs/capacity.md's answer:
// memory per open store, the open's time and its growth.
func capacityAnswerClaims() []claim {
	const doc = "docs/capacity.md"
	return []claim{
		{doc, "Lean SQLite keeps 24–27 KB of anonymous memory per open store (`sqlite`, `sqlite_capi`, `libsql`, `libsql_capi`, 10,000 held), against 429–434 KB with the defaults", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("keeps %s KB of anonymous memory per open store (`sqlite`, `sqlite_capi`, `libsql`, `libsql_capi`, 10,000 held), against %s KB",
				holdSpan(t, rs, capacity, "lean", 10000, 0, leanFour...), holdSpan(t, rs, capacity, "default", 10000, 0, leanFour...))
		}},
		{doc, "six processes held 100,000 (24.1–26.7 KB each, 2.3–2.5 GB in all", func(t *testing.T, rs *records) string {
			h := []*results.Hold{rs.hold(t, capiLean, "sqlite_capi", "lean", 100000), rs.hold(t, libsqlLean, "libsql_capi", "lean", 100000)}
			return fmt.Sprintf("held 100,000 (%s KB each, %s GB in all", span(h[0].AnonKB, h[1].AnonKB, 1),
				span(gb(h[0].AnonKB*float64(h[0].Held)), gb(h[1].AnonKB*float64(h[1].Held)), 1))
		}},
		{doc, "open, count and close is 0.17–0.30 ms for these four variants; under lean it is 0.11–0.13 ms", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("close is %s ms for these four variants; under lean it is %s ms",
				rs.tableSpan(t, capacity, "default", "open-query-close", leanFour, same, 2), rs.tableSpan(t, capacity, "lean", "open-query-close", leanFour, same, 2))
		}},
		{doc, "0.028 → 0.046 ms for `sqlite_capi`", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.3f → %.3f ms for `sqlite_capi`",
				rs.tableFigure(t, capacity, "sqlite_capi", "default", "open"), rs.tableFigure(t, capacity, "sqlite_capi", "lean", "open"))
		}},
		{doc, "(`sqlite` 3.03 → 3.52 ms)", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("(`sqlite` %.2f → %.2f ms)",
				rs.tableFigure(t, capacity, "sqlite", "default", "create"), rs.tableFigure(t, capacity, "sqlite", "lean", "create"))
		}},
		{doc, "grow by 29–39 µs per 1,000 stores already open with the defaults (`sqlite_modernc` 63 µs), and by 21–29 µs under lean", func(t *testing.T, rs *records) string {
			family := append([]string{"libsql_go"}, leanFour...)
			return fmt.Sprintf("grow by %s µs per 1,000 stores already open with the defaults (`sqlite_modernc` %.0f µs), and by %s µs under lean",
				growthSpan(t, rs, "default", family...), rs.growth(t, capacity, "sqlite_modernc", "default"), growthSpan(t, rs, "lean", family...))
		}},
		{doc, "The last tenth of 10,000 opens takes 0.6–1.0 ms, against 0.15–0.25 ms for the first tenth", func(t *testing.T, rs *records) string {
			family := append([]string{"libsql_go", "sqlite_modernc"}, leanFour...)
			return fmt.Sprintf("takes %s ms, against %s ms for the first tenth",
				tenthSpan(t, rs, "open-held-last10", family, 1), tenthSpan(t, rs, "open-held-first10", family, 2))
		}},
		{doc, "`sqlite_ncruces`, which has its own VFS without the list walk, stays flat (−0.3 µs per 1,000)", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("stays flat (%s µs per 1,000)", minusSign(rs.growth(t, capacity, "sqlite_ncruces", "default"), 1))
		}},
	}
}

// tenthSpan is the lowest and highest figure fig (the median open of
// a tenth of a hold, in µs) of variants with the defaults in the
// capacity study's largest hold, in ms: the last of each variant's
// values, as the study holds its counts smallest first.
func tenthSpan(t *testing.T, rs *records, fig string, variants []string, prec int) string {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, f := range rs.figuresOf(t, capacity) {
		if vs := f.Values[fig]; f.Layout == "" && f.Setting == "default" && slices.Contains(variants, f.Variant) && len(vs) > 0 {
			lo, hi, n = min(lo, vs[len(vs)-1]/1000), max(hi, vs[len(vs)-1]/1000), n+1
		}
	}
	if n != len(variants) {
		t.Fatalf("%s: %s of %d of the %d variants %v", capacity, fig, n, len(variants), variants)
	}
	return span(lo, hi, prec)
}

// minusSign writes x with prec decimals and a minus sign (−) where it is
// negative, as the docs write it.
func minusSign(x float64, prec int) string {
	if x < 0 {
		return fmt.Sprintf("−%.*f", prec, -x)
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// capacityProcsClaims are the figures of docs/capacity.md's holds past
// one process: what six processes and more held, in how much memory.
func capacityProcsClaims() []claim {
	const doc = "docs/capacity.md"
	return []claim{
		{doc, "Their anonymous memory is 2.3 GB (`sqlite_capi`), 2.5 GB (`libsql_capi`) and 0.15 GB (`bbolt`, which maps its files instead), and each process costs 4.7–9.7 MB (SQLite, libSQL) or 7.5–18.2 MB (bbolt)", func(t *testing.T, rs *records) string {
			capi, lib := rs.hold(t, capiLean, "sqlite_capi", "lean", 100000), rs.hold(t, libsqlLean, "libsql_capi", "lean", 100000)
			bolt := rs.hold(t, bboltLean, "bbolt", "default", 100000)
			plo, phi := lean100kFigure(t, rs, pssMB)
			blo, bhi := pssMB(bolt)
			return fmt.Sprintf("memory is %.1f GB (`sqlite_capi`), %.1f GB (`libsql_capi`) and %.2f GB (`bbolt`, which maps its files instead), and each process costs %s MB (SQLite, libSQL) or %s MB (bbolt)",
				gb(capi.AnonKB*float64(capi.Held)), gb(lib.AnonKB*float64(lib.Held)), gb(bolt.AnonKB*float64(bolt.Held)), span(plo, phi, 1), span(blo, bhi, 1))
		}},
		{doc, "(about 15 µs per 1,000 for `sqlite_capi` and `libsql_capi`)", func(t *testing.T, rs *records) string {
			a, b := rs.growthInProcess(t, capiLean, "sqlite_capi", "lean"), rs.growthInProcess(t, libsqlLean, "libsql_capi", "lean")
			return fmt.Sprintf("about %.0f µs per 1,000", math.Round((a+b)/2))
		}},
		{doc, "so 9 processes for 8,000 stores, 15.5 GB of anonymous memory. Memory is the wall after that: the 22.6 GB available before the hold (23,713,700 KB), at 2,038 KB a store", func(t *testing.T, rs *records) string {
			h := rs.hold(t, obxProcs, "obx_cached", "default", 8000)
			return fmt.Sprintf("%.1f GB of anonymous memory. Memory is the wall after that: the %.1f GB available before the hold (%s KB), at %s KB a store",
				gb(h.AnonKB*float64(h.Held)), gb(float64(h.MemAvailableKB)), grouped(float64(h.MemAvailableKB)), grouped(h.AnonKB))
		}},
		{doc, "6,000 open stores took 14.8 GB (2.5 MB each)", func(t *testing.T, rs *records) string {
			h := rs.hold(t, tursoMemory, "turso", "default", 6000)
			return fmt.Sprintf("took %.1f GB (%.1f MB each)", gb(h.AnonKB*float64(h.Held)), mb(h.AnonKB))
		}},
	}
}
