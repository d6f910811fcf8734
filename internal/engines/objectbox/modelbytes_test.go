//go:build objectbox

package objectbox

import (
	"encoding/hex"
	"testing"

	"manydb/internal/engines/objectbox/note"
)

// plainModelHex is ModelBytes(note.ModelJSON) as obx_cached and obx_nosync
// have passed it to every open since the model bytes were first written:
// the model of a store made by Create, which the reference workload
// measures, so it must not change.
const plainModelHex = "1400000000000e0030002c0028001c00180004000e0000000100000000000000566d5cbdf01c9d4300000000180000000100000000000000000000001000000002000000010000001c0000000700000064656661756c74000c002c0014002800240004000c0000000300000000000000c3cdc76647f69d2f0100000000000000566d5cbdf01c9d43080000001400000003000000880000004c00000018000000040000004e6f746500000a001c000400180016000a0000000300000000000000c3cdc76647f69d2f0000060004000000020000005473000000000a00200004001c001a000a0000000200000000000000e4980f87159aeb760000000000000900040000000400000054657874000000000c002400040020001a001c000c0000000100000000000000181f89828ba08d46000000000000060001000000040000000200000049640000"

// TestPlainModelBytesUnchanged: the model of plain Create is byte for byte
// what it was before vectors (an HNSW property) came to ModelBytes.
func TestPlainModelBytesUnchanged(t *testing.T) {
	b, err := ModelBytes(note.ModelJSON)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b); got != plainModelHex {
		t.Errorf("ModelBytes(note.ModelJSON) changed:\n got %s\nwant %s", got, plainModelHex)
	}
}
