//go:build !libsql

package libsql

import (
	"fmt"

	"manydb/internal/engine"
)

// Factories lists the libsql variants; in a build without the libsql tag
// each one fails with a message that says how to enable it.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: ID, New: disabled, Lean: disabled}, {ID: IDCapi, New: disabled, Lean: disabled}}
}

func disabled() (engine.Variant, error) {
	return nil, fmt.Errorf("%w: libSQL's Rust SDK needs rust/libsql-capi built with cargo and the Go build tag libsql; run 'make build', which runs scripts/build-capi.sh libsql and builds worker-libsql with -tags libsql", engine.ErrDisabled)
}
