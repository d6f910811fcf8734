package orchestrate

import (
	"testing"

	"manydb/internal/results"
	"manydb/internal/workload"
)

// TestDeletesMakeAnotherStudy: a study asked to delete another number of
// agents is not resumed from one that deleted these (its delete records
// would hold other counts), and the log names the difference.
func TestDeletesMakeAnotherStudy(t *testing.T) {
	a := &results.StudyConfig{Stores: 10, Runs: 1, Deletes: 3}
	b := &results.StudyConfig{Stores: 10, Runs: 1, Deletes: 2}
	if sameStudy(a, b) {
		t.Error("sameStudy: --deletes 3 and 2 taken for one study")
	}
	if got := configDiff(a, b); got != "deletes 3, now 2" {
		t.Errorf("configDiff = %q, want %q", got, "deletes 3, now 2")
	}
	if b.Deletes = 3; !sameStudy(a, b) {
		t.Error("sameStudy: the same configuration taken for another study")
	}
}

// TestDataMakesAnotherStudy: a study of another data source is not
// resumed from one of the synthetic notes, and the log names it.
func TestDataMakesAnotherStudy(t *testing.T) {
	a := &results.StudyConfig{Stores: 10, Runs: 1}
	b := &results.StudyConfig{Stores: 10, Runs: 1}
	b.Workload.Data = workload.Data{Name: "glove"}
	if sameStudy(a, b) {
		t.Error("sameStudy: two data sources taken for one study")
	}
	if got, want := configDiff(a, b), "data synthetic, now glove"; got != want {
		t.Errorf("configDiff = %q, want %q", got, want)
	}
}

// TestSqldPoolMakesAnotherStudy: a study whose sqld keeps another number
// of namespaces loaded is not resumed from one that kept these.
func TestSqldPoolMakesAnotherStudy(t *testing.T) {
	a := &results.StudyConfig{Stores: 10, Runs: 1}
	b := &results.StudyConfig{Stores: 10, Runs: 1, SqldMaxActive: 100}
	if sameStudy(a, b) {
		t.Error("sameStudy: --sqld-max-active 0 and 100 taken for one study")
	}
	if got, want := configDiff(a, b), "sqld's namespaces loaded 0, now 100"; got != want {
		t.Errorf("configDiff = %q, want %q", got, want)
	}
}
