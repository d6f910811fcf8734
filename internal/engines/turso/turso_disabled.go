//go:build !turso

package turso

import (
	"fmt"

	"manydb/internal/engine"
)

// Factories lists the Turso variants; in a build without the turso tag
// each one fails with a message that says how to enable it.
func Factories() []engine.Factory {
	return []engine.Factory{{ID: IDTurso, New: disabled}, {ID: IDCheckpoint, New: disabled}}
}

func disabled() (engine.Variant, error) {
	return nil, fmt.Errorf("%w: Turso needs rust/turso-capi built with cargo and the Go build tag turso; run 'make build', which runs scripts/build-capi.sh turso and builds worker-turso with -tags turso", engine.ErrDisabled)
}
