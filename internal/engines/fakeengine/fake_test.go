package fakeengine

import (
	"testing"

	"manydb/internal/engines/enginetest"
)

// TestQueryChecksCatchWrongEngines: enginetest's query checks pass the
// correct fake and fail every wrong one.
func TestQueryChecksCatchWrongEngines(t *testing.T) {
	for _, id := range []string{"fake", "fake_wrongrecent", "fake_wrongget", "fake_wrongscan", "fake_lostappend", "fake_wrongcount"} {
		v, err := New(id)()
		if err != nil {
			t.Fatal(err)
		}
		err = enginetest.QueryErrors(v, t.TempDir())
		if (err == nil) != (id == "fake") {
			t.Errorf("%s: QueryErrors = %v", id, err)
		}
	}
}
