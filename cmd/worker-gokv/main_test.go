package main

import (
	"testing"

	"manydb/internal/engines/enginetest"
)

// TestVersions builds the worker without cgo and checks that each variant
// records its engine's module version.
func TestVersions(t *testing.T) {
	modules := map[string]string{
		"bbolt":  "go.etcd.io/bbolt",
		"pebble": "github.com/cockroachdb/pebble/v2",
		"badger": "github.com/dgraph-io/badger/v4",
	}
	var ids []string
	for id := range modules {
		ids = append(ids, id)
	}
	got := enginetest.WorkerVersions(t, "manydb/cmd/worker-gokv", ids...)
	for id, mod := range modules {
		if got[id][mod] == "" || got[id][id] != got[id][mod] {
			t.Errorf("%s: versions %v, want %s and %s with the module version", id, got[id], mod, id)
		}
	}
}
