package docscheck

import (
	"fmt"
	"testing"
)

// The layouts part's other files: postgres_part's study and Pebble's and
// Badger's.
const (
	layoutsPart = "2026-12-05-layouts/part.jsonl.gz"
	layoutsKV   = "2026-12-05-layouts/kv.jsonl.gz"
)

// sqliteFamily are the SQLite and libSQL variants the layouts part ran in
// both layouts.
var sqliteFamily = []string{"sqlite", "sqlite_capi", "libsql_capi"}

// sharedOf names the shared layout's columns of variants.
func sharedOf(variants ...string) []string {
	cols := make([]string, len(variants))
	for i, v := range variants {
		cols[i] = v + " shared"
	}
	return cols
}

// ms is figure fig of column in the layouts file with the defaults.
func ms(t *testing.T, rs *records, column, fig string) float64 {
	return rs.tableFigure(t, layouts, column, "default", fig)
}

// layoutMemoryClaims are the anonymous memory per active agent.
func layoutMemoryClaims() []claim {
	anon := func(t *testing.T, rs *records, columns []string, prec int) string {
		return rs.tableSpan(t, layouts, "default", "anon-per-open-store", columns, same, prec)
	}
	return []claim{{choosing, "A SQLite store held open costs 430–434 KB of the process' own memory (SQLite's page cache and schema per connection), a Turso store 2.56 MB; an agent of the shared store costs 1.6–1.7 KB (SQLite, libSQL) or 8.5 KB (Turso)", func(t *testing.T, rs *records) string {
		return fmt.Sprintf("costs %s KB of the process' own memory (SQLite's page cache and schema per connection), a Turso store %.2f MB; an agent of the shared store costs %s KB (SQLite, libSQL) or %s KB (Turso)",
			anon(t, rs, sqliteFamily, 0), mb(ms(t, rs, "turso", "anon-per-open-store")), anon(t, rs, sharedOf(sqliteFamily...), 1), anon(t, rs, sharedOf("turso"), 1))
	}}}
}

// layoutTimeClaims are the times of the warm and cold open, the turn and
// the delete in each layout.
func layoutTimeClaims() []claim {
	const doc = choosing
	return []claim{
		{doc, "(`sqlite_capi` 0.163 ms against 0.303 ms for open, three queries and close; Turso 0.133 against 0.684 ms)", func(t *testing.T, rs *records) string {
			const fig = "open-query-close"
			return fmt.Sprintf("(`sqlite_capi` %.3f ms against %.3f ms for open, three queries and close; Turso %.3f against %.3f ms)",
				ms(t, rs, "sqlite_capi shared", fig), ms(t, rs, "sqlite_capi", fig), ms(t, rs, "turso shared", fig), ms(t, rs, "turso", fig))
		}},
		{doc, "bbolt is the fastest either way (0.074–0.104 ms); ObjectBox's shared store is slower than its stores per agent (0.426 against 0.321 ms)", func(t *testing.T, rs *records) string {
			const fig = "open-query-close"
			return fmt.Sprintf("either way (%s ms); ObjectBox's shared store is slower than its stores per agent (%.3f against %.3f ms)",
				rs.tableSpan(t, layouts, "default", fig, []string{"bbolt", "bbolt shared"}, same, 3), ms(t, rs, "obx_nosync shared", fig), ms(t, rs, "obx_nosync", fig))
		}},
		{doc, "(0.138 ms against 0.667 ms for `sqlite_capi`; 0.137–0.150 against 0.682–0.836 ms for `sqlite` and `libsql_capi`)", func(t *testing.T, rs *records) string {
			others := []string{"sqlite", "libsql_capi"}
			return fmt.Sprintf("(%.3f ms against %.3f ms for `sqlite_capi`; %s against %s ms",
				ms(t, rs, "sqlite_capi shared", "turn"), ms(t, rs, "sqlite_capi", "turn"),
				rs.tableSpan(t, layouts, "default", "turn", sharedOf(others...), same, 3), rs.tableSpan(t, layouts, "default", "turn", others, same, 3))
		}},
		{doc, "the stores per agent in WAL mode take 1.02–1.18 ms", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("in WAL mode take %s ms", rs.tableSpan(t, layouts, "wal", "turn", sqliteFamily, same, 2))
		}},
		{doc, "turns cost about the same in both layouts (0.34–0.37 ms and 0.64–0.77 ms", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("(%s ms and %s ms", rs.tableSpan(t, layouts, "default", "turn", []string{"bbolt", "bbolt shared"}, same, 2),
				rs.tableSpan(t, layouts, "default", "turn", []string{"obx_nosync", "obx_nosync shared"}, same, 2))
		}},
		{doc, "an agent of the shared SQLite store takes 1.07–1.23 ms against 0.60–0.63 ms", func(t *testing.T, rs *records) string {
			const fig = "cold-open-query-close"
			return fmt.Sprintf("takes %s ms against %s ms", rs.tableSpan(t, layouts, "default", fig, sharedOf(sqliteFamily...), same, 2),
				rs.tableSpan(t, layouts, "default", fig, sqliteFamily, same, 2))
		}},
		{doc, "Turso's layouts are even cold (1.07 against 1.14 ms)", func(t *testing.T, rs *records) string {
			const fig = "cold-open-query-close"
			return fmt.Sprintf("(%.2f against %.2f ms)", ms(t, rs, "turso shared", fig), ms(t, rs, "turso", fig))
		}},
		{doc, "removing an agent's directory takes 0.31–0.47 ms and frees its 344–484 KB; deleting its rows from a shared SQLite store and shrinking the file (`incremental_vacuum`, a WAL checkpoint) takes 3.9–4.8 ms and gives back 356 KB", func(t *testing.T, rs *records) string {
			dirs := append([]string{"turso", "obx_nosync", "bbolt"}, sqliteFamily...)
			return fmt.Sprintf("takes %s ms and frees its %s KB; deleting its rows from a shared SQLite store and shrinking the file (`incremental_vacuum`, a WAL checkpoint) takes %s ms and gives back %s KB",
				rs.tableSpan(t, layouts, "default", "delete-agent", dirs, same, 2), rs.tableSpan(t, layouts, "default", "delete-freed", dirs, same, 0),
				rs.tableSpan(t, layouts, "default", "delete-agent", sharedOf(sqliteFamily...), same, 1),
				rs.tableSpan(t, layouts, "default", "delete-freed", sharedOf(sqliteFamily...), same, 0))
		}},
		{doc, "Turso (3.0 ms), ObjectBox (0.65 ms), bbolt (0.55 ms) and PostgreSQL's shared table (`DELETE`, then `VACUUM`: 9.1 ms) keep the space for later writes (0 KB back). A partition per agent in PostgreSQL gives its 448 KB back in 3.1 ms", func(t *testing.T, rs *records) string {
			del := func(c string) float64 { return ms(t, rs, c+" shared", "delete-agent") }
			kept := rs.tableSpan(t, layouts, "default", "delete-freed", sharedOf("turso", "obx_nosync", "bbolt", "postgres"), same, 0)
			part := func(fig string) float64 {
				return rs.tableFigure(t, layoutsPart, "postgres_part shared", "default", fig)
			}
			return fmt.Sprintf("Turso (%.1f ms), ObjectBox (%.2f ms), bbolt (%.2f ms) and PostgreSQL's shared table (`DELETE`, then `VACUUM`: %.1f ms) keep the space for later writes (%s KB back). A partition per agent in PostgreSQL gives its %.0f KB back in %.1f ms",
				del("turso"), del("obx_nosync"), del("bbolt"), del("postgres"), kept, part("delete-freed"), part("delete-agent"))
		}},
		{doc, "0.47 ms (Pebble) and 0.63 ms (Badger) in one shared store against 3.45 and 6.05 ms in stores of their own", func(t *testing.T, rs *records) string {
			kv := func(c string) float64 { return rs.tableFigure(t, layoutsKV, c, "default", "open-query-close") }
			return fmt.Sprintf("%.2f ms (Pebble) and %.2f ms (Badger) in one shared store against %.2f and %.2f ms",
				kv("pebble shared"), kv("badger shared"), kv("pebble"), kv("badger"))
		}},
		{doc, "a turn 0.24 and 0.55 ms against 2.75 and 7.49 ms; creating an agent 0.47 and 2.5 ms against 7.5 and 12.8 ms. Pebble's shared store also costs less memory per active agent (66 against 308 KB anonymous)", func(t *testing.T, rs *records) string {
			kv := func(c, fig string) float64 { return rs.tableFigure(t, layoutsKV, c, "default", fig) }
			return fmt.Sprintf("a turn %.2f and %.2f ms against %.2f and %.2f ms; creating an agent %.2f and %.1f ms against %.1f and %.1f ms. Pebble's shared store also costs less memory per active agent (%.0f against %.0f KB",
				kv("pebble shared", "turn"), kv("badger shared", "turn"), kv("pebble", "turn"), kv("badger", "turn"),
				kv("pebble shared", "create"), kv("badger shared", "create"), kv("pebble", "create"), kv("badger", "create"),
				kv("pebble shared", "anon-per-open-store"), kv("pebble", "anon-per-open-store"))
		}},
		{doc, "agent's open and three queries in 0.62 ms from one shared table, 1.27 ms from a partition per agent", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("in %.2f ms from one shared table, %.2f ms from a partition", ms(t, rs, "postgres shared", "open-query-close"),
				rs.tableFigure(t, layoutsPart, "postgres_part shared", "default", "open-query-close"))
		}},
		{doc, "and 1.53 ms from a schema per agent", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.2f ms from a schema", ms(t, rs, "postgres", "open-query-close"))
		}},
		{doc, "Its turn costs 0.37 ms shared, 0.68 ms in a partition and 0.89 ms in a schema per agent", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("%.2f ms shared, %.2f ms in a partition and %.2f ms in a schema", ms(t, rs, "postgres shared", "turn"),
				rs.tableFigure(t, layoutsPart, "postgres_part shared", "default", "turn"), ms(t, rs, "postgres", "turn"))
		}},
	}
}
