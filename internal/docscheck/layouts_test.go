package docscheck

import (
	"fmt"
	"testing"
)

// The records of docs/layouts.md's figures of embeddings in both layouts.
const (
	vecLayouts     = "2026-12-05-vector-layouts/layouts.jsonl.gz"
	vec2000PerAgnt = "2026-12-05-vectors-2000/postgres-per-agent.jsonl.gz"
)

// knnFigure is "R % … at T ms" of a column of the vector layouts' record:
// its mean recall, median knn, and the share of its answers short of 10
// notes in words.
func knnFigure(t *testing.T, rs *records, column string) (recall, knn float64, short string) {
	fig := func(name string) float64 { return rs.tableFigure(t, vecLayouts, column, "default", name) }
	switch s := fig("knn-short"); s {
	case 0:
		short = "none"
	case 100:
		short = "every answer"
	default:
		short = fmt.Sprintf("%.0f %% of answers", s)
	}
	return fig("recall"), fig("knn"), short
}

// layoutsClaims are the figures of docs/layouts.md: the shared store's
// size, and what one index over every agent recalls, how fast, and what
// deleting an agent costs, against a store per agent.
func layoutsClaims() []claim {
	const doc = "docs/layouts.md"
	return []claim{
		{doc, "That eviction is of the whole store, 3.5 GB at 10,000 agents", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.1f GB at 10,000 agents", gb(float64(sharedBytes(t, rs, layouts, "sqlite_capi"))/1024))
		}},
		{doc, "recalled 12.9 %, every answer short of 10 notes, at 1.67 ms a knn, against 97.8 % at 0.44 ms in a store per agent", func(t *testing.T, rs *records) string {
			r, k, short := knnFigure(t, rs, "obx_nosync shared")
			ra, ka, _ := knnFigure(t, rs, "obx_nosync")
			return fmt.Sprintf("recalled %.1f %%, %s short of 10 notes, at %.2f ms a knn, against %.1f %% at %.2f ms", r, short, k, ra, ka)
		}},
		{doc, "(`postgres` shared) 45.8 %, 71 % of answers short, at 2.09 ms, against 100 % at 0.57 ms in a schema per agent", func(t *testing.T, rs *records) string {
			r, k, short := knnFigure(t, rs, "postgres shared")
			ra, ka, _ := knnFigure(t, rs, "postgres")
			return fmt.Sprintf("%.1f %%, %s short, at %.2f ms, against %.0f %% at %.2f ms", r, short, k, ra, ka)
		}},
		{doc, "recalled 100 %, none short, at 1.19 ms: the remedy an oversampled index lacks. A partition per agent (`postgres_part`) recalled 100 % at 0.41 ms", func(t *testing.T, rs *records) string {
			r, k, short := knnFigure(t, rs, "postgres_iter shared")
			rp, kp, _ := knnFigure(t, rs, "postgres_part shared")
			return fmt.Sprintf("recalled %.0f %%, %s short, at %.2f ms: the remedy an oversampled index lacks. A partition per agent (`postgres_part`) recalled %.0f %% at %.2f ms", r, short, k, rp, kp)
		}},
		{doc, "Deleting an agent: 3.1 ms for a partition (4,144 KB given back, its partition's files) against 11.0–12.3 s for the unpartitioned table", func(t *testing.T, rs *records) string {
			s := func(ms float64) float64 { return ms / 1000 }
			return fmt.Sprintf("%.1f ms for a partition (%s KB given back, its partition's files) against %s s",
				rs.tableFigure(t, vecLayouts, "postgres_part shared", "default", "delete-agent"),
				grouped(rs.tableFigure(t, vecLayouts, "postgres_part shared", "default", "delete-freed")),
				rs.tableSpan(t, vecLayouts, "default", "delete-agent", []string{"postgres shared", "postgres_iter shared"}, s, 1))
		}},
		{doc, "and 16.4 s from ObjectBox's shared index", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.1f s from ObjectBox's", rs.tableFigure(t, vecLayouts, "obx_nosync shared", "default", "delete-agent")/1000)
		}},
		{doc, "(`postgres` per agent: recall 100 %, knn 0.535 ms, 21 KB of anonymous memory per active agent with the server's processes)", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("recall %.0f %%, knn %.3f ms, %.0f KB of anonymous memory",
				rs.tableFigure(t, vec2000PerAgnt, "postgres", "default", "recall"), rs.tableFigure(t, vec2000PerAgnt, "postgres", "default", "knn"),
				rs.tableFigure(t, vec2000PerAgnt, "postgres", "default", "anon-per-open-store"))
		}},
	}
}
