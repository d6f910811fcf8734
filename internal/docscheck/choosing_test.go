package docscheck

import (
	"fmt"
	"math"
	"testing"

	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// The records docs/choosing.md's figures below come from.
const (
	studyFile   = "2026-12-04/study.jsonl.gz"
	studyPart   = "20261204T091941Z-bc1cf0" // the reference study of the record, both settings
	serveFile   = "2026-12-04/serve.jsonl.gz"
	capiLean    = "2026-12-05-procs/lean-100k.jsonl.gz"
	libsqlLean  = "2026-12-05-procs/lean-100k-libsql.jsonl.gz"
	sqliteLean  = "2026-12-05-procs-more/sqlite-100k.jsonl.gz"
	capacity    = "2026-12-04-capacity/study.jsonl.gz"
	obxProcs    = "2026-12-05-procs-more/obx-8000.jsonl.gz"
	tursoMemory = "2026-12-05-procs-more/turso-6000.jsonl.gz"
	layouts     = "2026-12-05-layouts/layouts.jsonl.gz"
	sharedObx   = "2026-12-05-shared-serve/serve-obx.jsonl.gz"
)

// span formats lo–hi with prec decimals, or one figure when they round
// alike.
func span(lo, hi float64, prec int) string {
	a, b := fmt.Sprintf("%.*f", prec, lo), fmt.Sprintf("%.*f", prec, hi)
	if a == b {
		return a
	}
	return a + "–" + b
}

// grouped formats a whole number with a comma every three digits, as the
// docs write counts and KB.
func grouped(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// lean100k are the three lean variants held at 100,000 in six processes.
var lean100k = []struct{ file, variant string }{
	{capiLean, "sqlite_capi"}, {libsqlLean, "libsql_capi"}, {sqliteLean, "sqlite"},
}

func openMs(r *results.Record) []float64  { return r.OpenMs }
func closeMs(r *results.Record) []float64 { return r.CloseMs }

// openClose is the median open plus the median close of variant in the
// record's study under its defaults, in ms.
func openClose(t *testing.T, rs *records, variant string) float64 {
	open := stats.Median(rs.warmPooled(t, studyFile, studyPart, variant, "default", openMs))
	return open + stats.Median(rs.warmPooled(t, studyFile, studyPart, variant, "default", closeMs))
}

// deletes is how many agents the delete phase of variant (layout) in the
// file name exported and deleted.
func deletes(t *testing.T, rs *records, name, variant string) int {
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseDelete && r.Status == "ok" && r.Variant == variant {
			return len(r.DeleteMs)
		}
	}
	t.Fatalf("%s: no delete phase of %s", name, variant)
	return 0
}

// lean100kFigure applies f to the hold of 100,000 of each lean variant
// and gives the lowest and highest.
func lean100kFigure(t *testing.T, rs *records, f func(h *results.Hold) (lo, hi float64)) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range lean100k {
		a, b := f(rs.hold(t, v.file, v.variant, "lean", 100000))
		lo, hi = min(lo, a), max(hi, b)
	}
	return lo, hi
}

func anonTotal(h *results.Hold) (lo, hi float64) {
	kb := h.AnonKB * float64(h.Held)
	return kb, kb
}

func pssMB(h *results.Hold) (lo, hi float64) {
	a, b := pssRange(h)
	return mb(a), mb(b)
}

// choosing is the doc the claims below are of.
const choosing = "docs/choosing.md"

// timeClaims are the figures of creates, opens and deletes.
func timeClaims() []claim {
	const doc = choosing
	return []claim{
		{doc, "At 1,000,000 agents that is 76 GB for `pebble`, the only engine that compresses, against 328–347 GB for the SQLite family, Turso and bbolt, and 450 GB for ObjectBox", func(t *testing.T, rs *records) string {
			million := func(kb float64) float64 { return gb(kb * 1e6) }
			space := func(variants ...string) string {
				return rs.tableSpan(t, studyFile, "default", "space-per-store", variants, million, 0)
			}
			return fmt.Sprintf("that is %s GB for `pebble`, the only engine that compresses, against %s GB for the SQLite family, Turso and bbolt, and %s GB for ObjectBox",
				space("pebble"), space("sqlite", "sqlite_capi", "sqlite_modernc", "sqlite_ncruces", "libsql", "libsql_capi", "libsql_go", "turso", "turso_ckpt", "turso_go", "bbolt"),
				space("obx", "obx_cached", "obx_nosync"))
		}},
		{doc, "takes 41 min for `obx_cached` (2.44 ms per store)", func(t *testing.T, rs *records) string {
			return createFigure(t, rs, "obx_cached", 60*1000, "min") // ms per store × 1,000,000 stores, in minutes
		}},
		{doc, "about 4.1 h for `badger` (14.9 ms)", func(t *testing.T, rs *records) string {
			return createFigure(t, rs, "badger", 3600*1000, "h")
		}},
		{doc, "0.045 ms for `libsql` (0.046 ms for `bbolt`)", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.3f ms for `libsql` (%.3f ms for `bbolt`)", openClose(t, rs, "libsql"), openClose(t, rs, "bbolt"))
		}},
		{doc, "to 0.62 ms for `turso_ckpt`, and 3.4 ms for `pebble`, 7.1 ms for `badger`", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.2f ms for `turso_ckpt`, and %.1f ms for `pebble`, %.1f ms for `badger`",
				openClose(t, rs, "turso_ckpt"), openClose(t, rs, "pebble"), openClose(t, rs, "badger"))
		}},
		{doc, "1,000 agents exported and deleted, 100 for `pebble` and `badger`, 50 for `postgres_part`", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%s agents exported and deleted, %d for `pebble` and `badger`, %d for `postgres_part`",
				grouped(float64(deletes(t, rs, layouts, "sqlite_capi"))), deletes(t, rs, "2026-12-05-layouts/kv.jsonl.gz", "pebble"),
				deletes(t, rs, "2026-12-05-layouts/part.jsonl.gz", "postgres_part"))
		}},
	}
}

// memoryClaims are the figures of memory and disk, and of the opens'
// growth with the stores open.
func memoryClaims() []claim {
	const doc = choosing
	return []claim{
		{doc, "24.1 KB (`sqlite_capi`), 26.7 KB (`libsql_capi`) and 26.8 KB (`sqlite`)", func(t *testing.T, rs *records) string {
			kb := func(v int) float64 { return rs.hold(t, lean100k[v].file, lean100k[v].variant, "lean", 100000).AnonKB }
			return fmt.Sprintf("%.1f KB (`sqlite_capi`), %.1f KB (`libsql_capi`) and %.1f KB (`sqlite`)", kb(0), kb(1), kb(2))
		}},
		{doc, "2.3–2.6 GB in all, plus 4.7–9.7 MB per process", func(t *testing.T, rs *records) string {
			lo, hi := lean100kFigure(t, rs, anonTotal)
			plo, phi := lean100kFigure(t, rs, pssMB)
			return span(gb(lo), gb(hi), 1) + " GB in all, plus " + span(plo, phi, 1) + " MB per process"
		}},
		{doc, "under lean 21–29 µs more per 1,000 already open in one process of 10,000", func(t *testing.T, rs *records) string {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range []string{"sqlite", "sqlite_capi", "libsql", "libsql_capi", "libsql_go"} {
				g := rs.growth(t, capacity, v, "lean")
				lo, hi = min(lo, g), max(hi, g)
			}
			return span(lo, hi, 0) + " µs more per 1,000 already open in one process"
		}},
		{doc, "with the defaults 29–39 µs (0.6–1.0 ms per open at 10,000 open", func(t *testing.T, rs *records) string {
			family := append([]string{"libsql_go"}, leanFour...)
			return fmt.Sprintf("with the defaults %s µs (%s ms per open", growthSpan(t, rs, "default", family...),
				tenthSpan(t, rs, "open-held-last10", append(family, "sqlite_modernc"), 1))
		}},
		{doc, "13–15 µs per 1,000 of a process' own in the six processes of 100,000", func(t *testing.T, rs *records) string {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, v := range lean100k {
				g := rs.growthInProcess(t, v.file, v.variant, "lean")
				lo, hi = min(lo, g), max(hi, g)
			}
			return span(lo, hi, 0) + " µs per 1,000 of a process' own"
		}},
		{doc, "their workers peak at 2.9–4.0 GB", func(t *testing.T, rs *records) string {
			peaks := rs.servePeaks(t, serveFile, objectBoxOrTursoAt(1000), rss)
			return span(gb(stats.Min(peaks)), gb(stats.Max(peaks)), 1) + " GB"
		}},
		{doc, "2,440 MB anonymous at the peak of the pool of 1,000", func(t *testing.T, rs *records) string {
			peak := rs.servePeaks(t, serveFile, variantAt("obx_nosync", 1000), func(s *results.Serve) []int64 { return s.AnonKB })
			return grouped(mb(peak[0])) + " MB anonymous"
		}},
		{doc, "2.0 MB of anonymous memory each, plus 4.3 MB (the median Pss)", func(t *testing.T, rs *records) string {
			h := rs.hold(t, obxProcs, "obx_cached", "default", 8000)
			var pss []float64
			for _, p := range h.Procs {
				pss = append(pss, float64(p.PssBeforeKB))
			}
			return fmt.Sprintf("%.1f MB of anonymous memory each, plus %.1f MB", mb(h.AnonKB), mb(stats.Median(pss)))
		}},
		{doc, "one process held 6,000 open stores in 14.8 GB", func(t *testing.T, rs *records) string {
			h := rs.hold(t, tursoMemory, "turso", "default", 6000)
			return fmt.Sprintf("%s open stores in %.1f GB", grouped(float64(h.Held)), gb(h.AnonKB*float64(h.Held)))
		}},
		{doc, "its notes lie in a 3.5 GB file", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.1f GB file", gb(float64(sharedBytes(t, rs, layouts, "sqlite_capi"))/1024))
		}},
		{doc, "its worker maps the store's file, 4.5 GB resident at every pool", func(t *testing.T, rs *records) string {
			peaks := rs.servePeaks(t, sharedObx, func(*results.Record) bool { return true }, rss)
			return span(gb(stats.Min(peaks)), gb(stats.Max(peaks)), 1) + " GB resident"
		}},
	}
}

// createFigure is 1,000,000 creates one after another at variant's
// median create of the record's study, in unit (per is the ms in one
// unit), with the median create in ms.
func createFigure(t *testing.T, rs *records, variant string, per float64, unit string) string {
	for _, r := range rs.file(t, studyFile) {
		if r.Phase == job.PhaseCreate && r.Status == "ok" && r.Study == studyPart && r.Variant == variant && r.Setting == "default" {
			p50 := stats.Median(r.CreateMs)
			if unit == "min" {
				return fmt.Sprintf("%.0f min for `%s` (%.2f ms per store)", p50*1e6/per, variant, p50)
			}
			return fmt.Sprintf("%.1f h for `%s` (%.1f ms)", p50*1e6/per, variant, p50)
		}
	}
	t.Fatalf("%s: no create of %s", studyFile, variant)
	return ""
}

func rss(s *results.Serve) []int64 { return s.RssKB }

// variantAt keeps the serve steps of variant at pool.
func variantAt(variant string, pool int) func(*results.Record) bool {
	return func(r *results.Record) bool { return r.Variant == variant && r.Serve.Pool == pool }
}

// objectBoxOrTursoAt keeps the serve steps of the ObjectBox and Turso
// variants at pool.
func objectBoxOrTursoAt(pool int) func(*results.Record) bool {
	return func(r *results.Record) bool {
		switch r.Variant {
		case "obx", "obx_cached", "obx_nosync", "turso", "turso_ckpt", "turso_go":
			return r.Serve.Pool == pool
		}
		return false
	}
}

// sharedBytes is the shared store's size on disk in the space phase of
// variant's shared layout in the file name.
func sharedBytes(t *testing.T, rs *records, name, variant string) int64 {
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseSpace && r.Status == "ok" && r.Variant == variant && r.Layout == job.LayoutShared && r.SharedBytes != nil {
			return *r.SharedBytes
		}
	}
	t.Fatalf("%s: no shared space phase of %s", name, variant)
	return 0
}
