package sqlnotes

import (
	"database/sql/driver"
	"fmt"
)

// The lean setting's options for the SQLite-based engines, the same for
// each (docs/engines.md cites where each is documented): a page cache of
// 64 KiB per connection, reads through a mapping of the file, and no
// lookaside where the binding lets the process configure SQLite.
const (
	// LeanCacheSize is PRAGMA cache_size: 64 KiB of page cache per
	// connection instead of SQLite's -2000 (about 2 MB),
	// https://sqlite.org/pragma.html#pragma_cache_size.
	LeanCacheSize = "-64"
	// LeanPragma sets it on a connection.
	LeanPragma = "PRAGMA cache_size=" + LeanCacheSize
	// LeanMmapSize is every connection's mmap_size: reads go through a
	// mapping of the file (page-cache pages, not heap),
	// https://sqlite.org/mmap.html; 64 MiB is far above a store's size.
	LeanMmapSize = 64 << 20
)

// LeanConfig names the process-wide configuration that lean sets before
// SQLite's first open, as a record's engine_options: sqlite3_config with
// SQLITE_CONFIG_LOOKASIDE 0,0 (no lookaside, 48 KB less per connection,
// https://sqlite.org/malloc.html#lookaside), SQLITE_CONFIG_MMAP_SIZE
// LeanMmapSize,-1 (the default mmap_size of every connection, the maximum
// left at its default) and, with bulk, SQLITE_CONFIG_PAGECACHE NULL,0,0
// (no bulk allocation of 20 pages at a connection's first page; it
// exists only where each connection has its own page cache),
// https://sqlite.org/c3ref/c_config_covering_index_scan.html.
func LeanConfig(bulk bool) map[string]string {
	opts := map[string]string{
		"sqlite3_config(SQLITE_CONFIG_LOOKASIDE)": "0,0",
		"sqlite3_config(SQLITE_CONFIG_MMAP_SIZE)": fmt.Sprintf("%d,-1", LeanMmapSize),
		"PRAGMA cache_size":                       LeanCacheSize,
	}
	if bulk {
		opts["sqlite3_config(SQLITE_CONFIG_PAGECACHE)"] = "NULL,0,0"
	}
	return opts
}

// Pragmas returns the values of the named pragmas on c as text: what a
// test reads to see that the options it set are in effect.
func Pragmas(c driver.Conn, names ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range names {
		row, err := QueryRow(c, "PRAGMA "+name, 1)
		if err != nil {
			return nil, err
		}
		out[name] = fmt.Sprint(row[0])
	}
	return out, nil
}
