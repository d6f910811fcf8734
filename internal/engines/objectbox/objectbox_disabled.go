//go:build !objectbox

package objectbox

import (
	"fmt"

	"manydb/internal/engine"
)

// Factories lists the ObjectBox variants; in a build without the
// objectbox tag each one fails with a message that says how to enable it.
func Factories() []engine.Factory {
	var fs []engine.Factory
	for _, id := range []string{IDSync, IDCached, IDNoSync} {
		fs = append(fs, engine.Factory{ID: id, New: disabled, Lean: disabled})
	}
	return fs
}

func disabled() (engine.Variant, error) {
	return nil, fmt.Errorf("%w: ObjectBox needs its C library and the Go build tag objectbox; run 'make build', which fetches the library from PyPI (objectbox-clib) and builds worker-objectbox with -tags objectbox", engine.ErrDisabled)
}
