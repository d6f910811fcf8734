package engine

import "path/filepath"

// The files each engine makes in a store's folder (Family.FolderFiles),
// from the engines' sources and a study's stores left with --keep.
var (
	// sqliteFiles: the database, and beside it its write-ahead log and
	// shared-memory index (WAL mode) or its rollback journal. Turso and
	// libSQL name theirs as SQLite does.
	sqliteFiles = []string{"notes.db", "notes.db-wal", "notes.db-shm", "notes.db-journal"}
	// objectBoxFiles: LMDB's data and lock files, and manydb's record of
	// the embeddings' dimensions (internal/engines/objectbox).
	objectBoxFiles = []string{"data.mdb", "lock.mdb", "emb-dims"}
	// pebbleFiles: tables, blob files, write-ahead logs, manifests,
	// options, markers, the lock, the CURRENT of older formats and
	// temporary files (pebble's internal/base/filenames.go).
	pebbleFiles = []string{"*.sst", "*.blob", "*.log", "MANIFEST-*", "OPTIONS-*", "marker.*", "LOCK", "CURRENT", "*.dbtmp"}
	// badgerFiles: tables, value logs, memtables' logs, the manifest and
	// key registry and their rewrites, the discard stats and the lock
	// (badger's db.go, manifest.go, key_registry.go, discard.go).
	badgerFiles = []string{"*.sst", "*.vlog", "*.mem", "MANIFEST", "MANIFEST-REWRITE", "KEYREGISTRY", "REWRITE-KEYREGISTRY", "DISCARD", "LOCK"}
)

// files gives each of ids the same folder files.
func files(names []string, ids ...string) map[string][]string {
	m := map[string][]string{}
	for _, id := range ids {
		m[id] = names
	}
	return m
}

// IsFolderFile tells whether name, a file in a store's folder, is one of
// files, a variant's FolderFiles.
func IsFolderFile(files []string, name string) bool {
	for _, p := range files {
		if ok, _ := filepath.Match(p, name); ok {
			return true
		}
	}
	return false
}
