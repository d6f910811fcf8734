//go:build objectbox

package objectbox

import (
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/enginetest"
)

// TestShared runs enginetest.CheckShared and CheckSharedVectors with
// obx_cached and obx_nosync, default and lean: two agents with look-alike
// notes, each answering its own only, before and after a reopen, appends
// and a delete.
func TestShared(t *testing.T) {
	eachCVariant(t, func(t *testing.T, v engine.Variant) {
		enginetest.CheckShared(t, v)
		enginetest.CheckSharedVectors(t, v)
	})
}
