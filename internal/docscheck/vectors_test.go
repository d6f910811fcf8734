package docscheck

import (
	"fmt"
	"testing"
)

// The records of docs/vectors.md's study: its four parts.
const (
	vecExact     = "2026-12-04-vectors/exact-and-obx.jsonl.gz"
	vecObxLean   = "2026-12-04-vectors/obx-lean.jsonl.gz"
	vecLibsqlLn  = "2026-12-04-vectors/libsql-lean.jsonl.gz"
	vecLibsqlDef = "2026-12-04-vectors/libsql-default.jsonl.gz"
)

var (
	objectBoxes = []string{"obx_cached", "obx_nosync"}
	libsqls     = []string{"libsql", "libsql_capi", "libsql_go"}
)

// knnClaims are the knn times of the study's warm runs.
func knnClaims() []claim {
	const doc = "docs/vectors.md"
	return []claim{
		{doc, "takes 0.40–0.42 ms in Turso 0.8.3 (`turso`, `turso_ckpt`; SIMD cosine in Rust), 0.71–0.73 ms in SQLite with sqlite-vec", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%s ms in Turso 0.8.3 (`turso`, `turso_ckpt`; SIMD cosine in Rust), %s ms in SQLite",
				rs.tableSpan(t, vecExact, "default", "knn", []string{"turso", "turso_ckpt"}, same, 2),
				rs.tableSpan(t, vecExact, "default", "knn", []string{"sqlite", "sqlite_capi"}, same, 2))
		}},
		{doc, "0.86–2.6 ms in Go over bbolt, Badger, Pebble, modernc and ncruces", func(t *testing.T, rs *records) string {
			lo := rs.tableFigure(t, vecExact, "bbolt", "default", "knn")                   // the lowest of the five
			hi := rs.tableSpan(t, vecExact, "default", "knn", []string{"pebble"}, same, 1) // the highest
			return fmt.Sprintf("%.2f–%s ms in Go", lo, hi)
		}},
		{doc, "answers in 0.45–0.48 ms (0.74–0.77 ms with the search width of 64 that lean sets) and libSQL's DiskANN index in 1.6–1.8 ms under lean's options and 8.2–9.2 ms with its defaults", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("answers in %s ms (%s ms with the search width of 64 that lean sets) and libSQL's DiskANN index in %s ms under lean's options and %s ms",
				rs.tableSpan(t, vecExact, "default", "knn", objectBoxes, same, 2), rs.tableSpan(t, vecObxLean, "lean", "knn", objectBoxes, same, 2),
				rs.tableSpan(t, vecLibsqlLn, "lean", "knn", libsqls, same, 1), rs.tableSpan(t, vecLibsqlDef, "default", "knn", libsqls, same, 1))
		}},
	}
}

// vectorMemoryClaims are the anonymous memory and the container's charge
// per open store after a knn, in MB.
func vectorMemoryClaims() []claim {
	const doc = "docs/vectors.md"
	anon := func(rs *records, t *testing.T, name, setting string, columns ...string) string {
		return rs.tableSpan(t, name, setting, "anon-per-open-store", columns, mb, 1)
	}
	charged := func(rs *records, t *testing.T, name, setting string, columns ...string) string {
		return rs.tableSpan(t, name, setting, "container-per-open-store", columns, mb, 1)
	}
	return []claim{
		{choosing, "Turso's vector functions find the 10 nearest in 0.40 ms, SQLite with sqlite-vec in 0.71 ms, both with recall 100 % and 0.44 MB (SQLite) or 4.3 MB (Turso) of anonymous memory per open store", func(t *testing.T, rs *records) string {
			fig := func(variant, name string) float64 { return rs.tableFigure(t, vecExact, variant, "default", name) }
			return fmt.Sprintf("in %.2f ms, SQLite with sqlite-vec in %.2f ms, both with recall %.0f %% and %.2f MB (SQLite) or %.1f MB (Turso)",
				fig("turso", "knn"), fig("sqlite", "knn"), min(fig("turso", "recall"), fig("sqlite", "recall")),
				mb(fig("sqlite", "anon-per-open-store")), mb(fig("turso", "anon-per-open-store")))
		}},
		{doc, "ObjectBox holds 8.0–9.9 MB of anonymous memory per open store after one knn (8.5–10.5 MB under lean", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("ObjectBox holds %s MB of anonymous memory per open store after one knn (%s MB under lean",
				anon(rs, t, vecExact, "default", objectBoxes...), anon(rs, t, vecObxLean, "lean", objectBoxes...))
		}},
		{doc, "against 0.44 MB for SQLite with sqlite-vec, 4.2–4.3 MB for Turso, 2.2–3.9 MB for modernc and ncruces", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("against %s MB for SQLite with sqlite-vec, %s MB for Turso, %s MB for modernc and ncruces",
				rs.tableSpan(t, vecExact, "default", "anon-per-open-store", []string{"sqlite", "sqlite_capi"}, mb, 2),
				anon(rs, t, vecExact, "default", "turso", "turso_ckpt", "turso_go"), anon(rs, t, vecExact, "default", "sqlite_modernc", "sqlite_ncruces"))
		}},
		{doc, "charged 2.3 MB per open SQLite store (its 1.9 MB file in the page cache), 10.1–12.1 MB per ObjectBox store (10.6–12.6 under lean), 6.0–6.1 MB per libSQL store under lean (its 5.9 MB file, mapped) and 12.9 MB per Badger store", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("charged %s MB per open SQLite store (its %s MB file in the page cache), %s MB per ObjectBox store (%s under lean), %s MB per libSQL store under lean (its %s MB file, mapped) and %s MB per Badger store",
				charged(rs, t, vecExact, "default", "sqlite", "sqlite_capi"), rs.tableSpan(t, vecExact, "default", "space-per-store", []string{"sqlite", "sqlite_capi"}, mb, 1),
				charged(rs, t, vecExact, "default", objectBoxes...), charged(rs, t, vecObxLean, "lean", objectBoxes...),
				charged(rs, t, vecLibsqlLn, "lean", libsqls...), rs.tableSpan(t, vecLibsqlLn, "lean", "space-per-store", libsqls, mb, 1),
				charged(rs, t, vecExact, "default", "badger"))
		}},
		{doc, "its 80 MB file makes a cold knn 68–71 ms, and a container is charged 61 MB per open store", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("its %s MB file makes a cold knn %s ms, and a container is charged %s MB per open store",
				rs.tableSpan(t, vecLibsqlDef, "default", "space-per-store", libsqls, mb, 0), rs.tableSpan(t, vecLibsqlDef, "default", "cold-knn", libsqls, same, 0),
				rs.tableSpan(t, vecLibsqlDef, "default", "container-per-open-store", libsqls, mb, 0))
		}},
	}
}
