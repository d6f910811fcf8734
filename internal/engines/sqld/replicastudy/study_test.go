package replicastudy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"manydb/internal/replica"
	"manydb/internal/sqldserver"
)

// TestStudy runs the whole study on 4 agents against the installed sqld:
// every sample there, each append seen on the replica, the replica's
// memory read, the primary's loss recorded (reads served, the append
// refused), and nothing left in the root.
func TestStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	bin, ok := sqldserver.Find(".")
	if !ok {
		t.Skip("sqld is not installed: scripts/fetch-sqld.sh (make build) installs it")
	}
	root := filepath.Join(t.TempDir(), "root")
	var log strings.Builder
	c := replica.Config{Bin: bin, Root: root, Agents: 4, Notes: 20, TextLen: 64, Appends: 12, Reads: 8, Recent: 5, Seed: 1, Wait: 10 * time.Second}
	res, err := Run(context.Background(), c, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for name, n := range map[string]int{"create": len(res.CreateMs), "catch-up": len(res.CatchUpMs), "delay": len(res.DelayMs),
		"polls": len(res.Polls), "primary reads": len(res.PrimaryRecentMs), "replica reads": len(res.ReplicaRecentMs)} {
		want := map[string]int{"create": 4, "catch-up": 4, "delay": 12, "polls": 12, "primary reads": 8, "replica reads": 8}[name]
		if n != want {
			t.Errorf("%s: %d samples, want %d", name, n, want)
		}
	}
	for i, p := range res.Polls {
		if p < 1 || res.DelayMs[i] <= 0 {
			t.Errorf("append %d: %d reads, %.3f ms", i, p, res.DelayMs[i])
		}
	}
	if res.Memory.ReplicaAfter.RssKB <= 0 || res.Memory.ReplicaBefore.RssKB <= 0 {
		t.Errorf("the replica's memory not read: %+v", res.Memory)
	}
	if !res.Lost.ReadsServed || res.Lost.WriteError == "" {
		t.Errorf("the primary lost: %+v", res.Lost)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 0 {
		t.Errorf("left in the root after the study: %v", entries)
	}
}
