package measure

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeTree writes files (path relative to root → content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		path := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPageoutSchemes reads a copy of DAMON's sysfs tree: a running
// kdamond with a pageout scheme (the one this VM runs) and a statistics
// scheme, and a stopped kdamond whose pageout scheme does not count.
func TestPageoutSchemes(t *testing.T) {
	admin := t.TempDir()
	ctx := "kdamonds/0/contexts/0/"
	pageout := ctx + "schemes/0/"
	writeTree(t, admin, map[string]string{
		"kdamonds/0/state":                                         "on",
		ctx + "operations":                                         "paddr",
		ctx + "monitoring_attrs/intervals/aggr_us":                 "5000000",
		pageout + "action":                                         "pageout",
		pageout + "access_pattern/age/min":                         "12",
		pageout + "quotas/bytes":                                   "134217728",
		pageout + "quotas/reset_interval_ms":                       "1000",
		pageout + "ops_filters/0/type":                             "anon",
		pageout + "ops_filters/0/matching":                         "Y",
		pageout + "ops_filters/0/allow":                            "N",
		pageout + "ops_filters/1/type":                             "unmapped",
		pageout + "ops_filters/1/matching":                         "Y",
		pageout + "ops_filters/1/allow":                            "Y",
		ctx + "schemes/1/action":                                   "stat",
		"kdamonds/1/state":                                         "off",
		"kdamonds/1/contexts/0/operations":                         "vaddr",
		"kdamonds/1/contexts/0/monitoring_attrs/intervals/aggr_us": "100000",
		"kdamonds/1/contexts/0/schemes/0/action":                   "pageout",
		"kdamonds/1/contexts/0/schemes/0/access_pattern/age/min":   "1",
	})
	got, err := PageoutSchemes(admin)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d schemes %v, want the running pageout one", len(got), got)
	}
	want := "DAMON kdamond 0 pages out paddr memory untouched for 60 s, up to 128 MiB per 1 s (anon excluded, unmapped only)"
	if s := got[0].String(); s != want {
		t.Errorf("got %q\nwant %q", s, want)
	}
	none, err := PageoutSchemes(filepath.Join(admin, "absent"))
	if err != nil || len(none) != 0 {
		t.Errorf("no DAMON: %v, %v; want none and no error", none, err)
	}
	writeTree(t, admin, map[string]string{pageout + "access_pattern/age/min": "twelve"})
	if _, err := PageoutSchemes(admin); err == nil || !strings.Contains(err.Error(), "twelve") {
		t.Errorf("a malformed age: err = %v, want it named", err)
	}
}

// TestWatchEviction writes the files it watches, synced (resident right
// after on a filesystem with a page cache), and samples until the wait.
func TestWatchEviction(t *testing.T) {
	dir := t.TempDir()
	var samples []EvictionSample
	err := WatchEviction(context.Background(), dir, 1<<20+100, 256<<10, 60*time.Millisecond, 25*time.Millisecond, func(s EvictionSample) {
		samples = append(samples, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 5 {
		t.Fatalf("%d files (%v), want 5: four of 256 KB and one of 100 bytes", len(entries), err)
	}
	if len(samples) < 3 || samples[0].After > 10*time.Millisecond || samples[len(samples)-1].After < 60*time.Millisecond {
		t.Fatalf("samples %+v: want one right after the sync, then every 25 ms to 60 ms", samples)
	}
	if samples[0].Resident < 0.99 || samples[0].CachedKB <= 0 || samples[0].FreeKB <= 0 {
		t.Errorf("first sample %+v: want the just-written files resident and the machine's memory read", samples[0])
	}
}
