package docscheck

import (
	"fmt"
	"slices"
	"testing"

	"manydb/internal/results"
)

// The record of choosing.md's PostgreSQL section.
const (
	pgLayouts = "2026-12-05-postgres/layouts.jsonl.gz"
	pgServe   = "2026-12-05-postgres/serve.jsonl.gz"
)

// choosingPostgresClaims are what docs/choosing.md says of PostgreSQL
// beside SQLite: the warm open, the append, the delete, and serve's
// throughput, p99 and memory.
func choosingPostgresClaims() []claim {
	pg := func(t *testing.T, rs *records, column, fig string) float64 {
		return rs.tableFigure(t, pgLayouts, column, "default", fig)
	}
	return []claim{
		{choosing, "open and three queries in 0.53 ms from one shared table and 1.37 ms from a schema per agent: 3.4× the shared SQLite store's 0.158 ms, and 5.2× a SQLite file per agent's 0.262 ms", func(t *testing.T, rs *records) string {
			const fig = "open-query-close"
			shared, own := pg(t, rs, "postgres shared", fig), pg(t, rs, "postgres", fig)
			sqShared, sqOwn := pg(t, rs, "sqlite_capi shared", fig), pg(t, rs, "sqlite_capi", fig)
			return fmt.Sprintf("in %.2f ms from one shared table and %.2f ms from a schema per agent: %.1f× the shared SQLite store's %.3f ms, and %.1f× a SQLite file per agent's %.3f ms",
				shared, own, shared/sqShared, sqShared, own/sqOwn, sqOwn)
		}},
		{choosing, "an append committed alone takes 0.19 ms in the shared table (0.38 ms in a schema per agent), between the shared SQLite store's 0.15 ms and a SQLite file per agent's 0.61 ms", func(t *testing.T, rs *records) string {
			const fig = "turn-append"
			return fmt.Sprintf("takes %.2f ms in the shared table (%.2f ms in a schema per agent), between the shared SQLite store's %.2f ms and a SQLite file per agent's %.2f ms",
				pg(t, rs, "postgres shared", fig), pg(t, rs, "postgres", fig), pg(t, rs, "sqlite_capi shared", fig), pg(t, rs, "sqlite_capi", fig))
		}},
		{choosing, "(0 KB given back, 4.83 ms); dropping an agent's schema gives back its 424 KB in 1.35 ms", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("(%.0f KB given back, %.2f ms); dropping an agent's schema gives back its %.0f KB in %.2f ms",
				pg(t, rs, "postgres shared", "delete-freed"), pg(t, rs, "postgres shared", "delete-agent"),
				pg(t, rs, "postgres", "delete-freed"), pg(t, rs, "postgres", "delete-agent"))
		}},
		{choosing, "`postgres` served 3,424–4,151 requests/s at a p99 of 6.1–7.8 ms across pools of 0 to 10,000 open agents, `sqlite_capi` 2,419–3,251 requests/s at 8.6–12.0 ms", func(t *testing.T, rs *records) string {
			perSecond := func(s *results.Serve) float64 { return float64(s.Requests) / s.WallS }
			p99 := func(s *results.Serve) float64 { return s.P99Ms }
			rate := func(v string) string {
				xs := serveValues(t, rs, pgServe, -1, perSecond, v)
				return grouped(slices.Min(xs)) + "–" + grouped(slices.Max(xs))
			}
			return fmt.Sprintf("`postgres` served %s requests/s at a p99 of %s ms across pools of 0 to 10,000 open agents, `sqlite_capi` %s requests/s at %s ms",
				rate("postgres"), serveSpan(t, rs, pgServe, -1, p99, 1, "postgres"), rate("sqlite_capi"), serveSpan(t, rs, pgServe, -1, p99, 1, "sqlite_capi"))
		}},
		{choosing, "`postgres` 336–339 MB at every pool size, `sqlite_capi` 18 MB with no pool to 516 MB with 10,000 stores open", func(t *testing.T, rs *records) string {
			peak := func(s *results.Serve) float64 { return mb(float64(slices.Max(s.RssKB))) }
			return fmt.Sprintf("`postgres` %s MB at every pool size, `sqlite_capi` %s MB with no pool to %s MB with 10,000 stores open",
				serveSpan(t, rs, pgServe, -1, peak, 0, "postgres"), serveSpan(t, rs, pgServe, 0, peak, 0, "sqlite_capi"), serveSpan(t, rs, pgServe, 10000, peak, 0, "sqlite_capi"))
		}},
	}
}
