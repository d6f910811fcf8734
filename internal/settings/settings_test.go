package settings

import (
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	got, err := ParseList("default, mmap-threshold")
	if err != nil || len(got) != 2 || got[1].Env[0] != "MALLOC_MMAP_THRESHOLD_=131072" {
		t.Fatalf("got %+v, %v", got, err)
	}
	for _, bad := range []string{"", "fast", "default,default"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	_, err = ParseList("fast")
	if !strings.Contains(err.Error(), "thp-off") {
		t.Errorf("error %q does not list the known settings", err)
	}
}

func TestApplies(t *testing.T) {
	mmap, _ := Lookup("mmap-threshold")
	thp, _ := Lookup("thp-off")
	if mmap.Applies(false) || !mmap.Applies(true) || !thp.Applies(false) {
		t.Error("glibc settings must apply to cgo engines only, thp-off to all")
	}
}
