package docscheck

import (
	"fmt"
	"slices"
	"testing"

	"manydb/internal/results"
)

// The records of choosing.md's shared stores under concurrent traffic.
const (
	serveLayouts = "2026-12-05-serve-layouts/serve.jsonl.gz"
	sharedServe  = "2026-12-05-shared-serve/serve.jsonl.gz"
)

func p99Of(s *results.Serve) float64       { return s.P99Ms }
func p50Of(s *results.Serve) float64       { return s.P50Ms }
func perSecondOf(s *results.Serve) float64 { return float64(s.Requests) / s.WallS }
func peakMBOf(s *results.Serve) float64    { return mb(float64(slices.Max(s.RssKB))) }

// rateSpan is the lowest and highest requests per second of the serve
// steps of columns in the file name, grouped as the docs write them.
func rateSpan(t *testing.T, rs *records, name string, columns ...string) string {
	xs := serveValues(t, rs, name, -1, perSecondOf, columns...)
	return grouped(slices.Min(xs)) + "–" + grouped(slices.Max(xs))
}

// choosingSharedServeClaims are what docs/choosing.md says of the shared
// layout under concurrent traffic: PostgreSQL's and bbolt's, the SQLite
// family's and ObjectBox's, each against a store per agent.
func choosingSharedServeClaims() []claim {
	sqlite := []string{"sqlite", "sqlite_capi", "libsql_capi"}
	return []claim{
		{choosing, "p99 4.95–5.48 ms and 5,441–5,906 requests/s across the three pools, against 6.39–7.80 ms and 3,346–4,066 requests/s for a schema per agent, at about half the memory (186–187 MB against 335–339 MB)", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("p99 %s ms and %s requests/s across the three pools, against %s ms and %s requests/s for a schema per agent, at about half the memory (%s MB against %s MB)",
				serveSpan(t, rs, serveLayouts, -1, p99Of, 2, "postgres shared"), rateSpan(t, rs, serveLayouts, "postgres shared"),
				serveSpan(t, rs, serveLayouts, -1, p99Of, 2, "postgres"), rateSpan(t, rs, serveLayouts, "postgres"),
				serveSpan(t, rs, serveLayouts, -1, peakMBOf, 0, "postgres shared"), serveSpan(t, rs, serveLayouts, -1, peakMBOf, 0, "postgres"))
		}},
		{choosing, "against 5.75–6.83 ms and 4,784–5,706 requests/s: one file means one writer", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("against %s ms and %s requests/s", serveSpan(t, rs, serveLayouts, -1, p99Of, 2, "bbolt"), rateSpan(t, rs, serveLayouts, "bbolt"))
		}},
		{choosing, "per agent**: p99 9.49–9.74 ms and about 2,800 requests/s", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("p99 %s ms", serveSpan(t, rs, serveLayouts, -1, p99Of, 2, "bbolt shared"))
		}},
		{choosing, "The shared store's median request took 0.155–0.195 ms against 1.92–2.59 ms for a file per agent, but its p99 was 45–59 ms against 8.4–11.5 ms", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("took %s ms against %s ms for a file per agent, but its p99 was %s ms against %s ms",
				serveSpan(t, rs, sharedServe, -1, p50Of, 3, sharedOf(sqlite...)...), serveSpan(t, rs, sharedServe, -1, p50Of, 2, sqlite...),
				serveSpan(t, rs, sharedServe, -1, p99Of, 0, sharedOf(sqlite...)...), serveSpan(t, rs, sharedServe, -1, p99Of, 1, sqlite...))
		}},
		{choosing, "(2,761–3,461 against 2,477–3,295 requests/s), and the shared store's worker stayed at 17.7–20.4 MB where files per agent grew to 138–231 MB at 1,000 open", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("(%s against %s requests/s), and the shared store's worker stayed at %s MB where files per agent grew to %s MB at 1,000 open",
				rateSpan(t, rs, sharedServe, sharedOf(sqlite...)...), rateSpan(t, rs, sharedServe, sqlite...),
				serveSpan(t, rs, sharedServe, -1, peakMBOf, 1, sharedOf(sqlite...)...), serveSpan(t, rs, sharedServe, 1000, peakMBOf, 0, sqlite...))
		}},
		{choosing, "p99 24.1–42.2 ms at 1,062–1,443 requests/s against 16.2–49.8 ms at 1,502–2,297 for a store per agent", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("p99 %s ms at %s requests/s against %s ms at %s for a store per agent",
				serveSpan(t, rs, sharedObx, -1, p99Of, 1, "obx_nosync shared"), rateSpan(t, rs, sharedObx, "obx_nosync shared"),
				serveSpan(t, rs, sharedServe, -1, p99Of, 1, "obx_nosync"), rateSpan(t, rs, sharedServe, "obx_nosync"))
		}},
	}
}
