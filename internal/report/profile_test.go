package report

import (
	"bytes"
	"strings"
	"testing"

	"manydb/internal/results"
)

func TestSyncsPerStore(t *testing.T) {
	tests := []struct {
		s    results.Syncs
		want string
	}{
		{results.Syncs{Stores: 10, Calls: map[string]int{"fdatasync": 21}}, "2.1 (fdatasync 2.1)"},
		{results.Syncs{Stores: 3, Calls: map[string]int{"msync": 3, "fsync": 6, "sync": 0}}, "3 (fsync 2, msync 1)"},
		{results.Syncs{Stores: 3, Calls: map[string]int{}}, "0"},
		{results.Syncs{Stores: 0}, "–"},
	}
	for _, tt := range tests {
		if got := syncsPerStore(&tt.s); got != tt.want {
			t.Errorf("syncsPerStore(%+v) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestStudyAndProfile: a file with a study and a profile prints both, the
// study's table first; the profile records make no study table of their own.
func TestStudyAndProfile(t *testing.T) {
	var recs []results.Record
	for _, f := range []string{"testdata/study.jsonl", "testdata/profile.jsonl"} {
		r, err := results.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r...)
	}
	var got bytes.Buffer
	if err := Tables(&got, recs); err != nil {
		t.Fatal(err)
	}
	out := got.String()
	study := strings.Index(out, "## Study 20261202T100000Z-abc123, setting default")
	prof := strings.Index(out, "## Where the create time goes: sqlite")
	if study < 0 || prof < study || strings.Contains(out, "## Study 20261202T100000Z-aaaaaa") {
		t.Errorf("want the study's tables, then the profiles, and no study table for a profile:\n%s", out)
	}
}

// TestProfileRerun: a later record of the same medium replaces a failed one.
func TestProfileRerun(t *testing.T) {
	recs, err := results.ReadFile("testdata/profile.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var obxDisk results.Record
	for _, r := range recs {
		if r.Variant == "obx_cached" && r.Status == results.StatusOK {
			obxDisk = r
		}
	}
	fixed := obxDisk
	p := *obxDisk.Profile
	p.Medium = "tmpfs"
	fixed.Profile = &p
	var got bytes.Buffer
	if err := Tables(&got, append(recs, fixed)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got.String(), "| failed |") || strings.Contains(got.String(), "On tmpfs: failed") {
		t.Errorf("the rerun's record did not replace the failed one:\n%s", got.String())
	}
}
