package worker

import (
	"io"
	"os"
	"runtime"
	"testing"

	"manydb/internal/engines/fakeengine"
	"manydb/internal/job"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

// BenchmarkHarnessSpan measures the harness's own cost per open, query,
// close span with the null engine, which does nothing: the median of its
// total_ms samples is what the harness adds to every engine's figure.
// Run with: go test -run '^$' -bench HarnessSpan -benchtime 20000x ./internal/worker/
func BenchmarkHarnessSpan(b *testing.B) {
	j := job.Job{Variant: "null", Phase: job.PhaseOpen, Dir: b.TempDir(), Stores: b.N, Seed: 1,
		Workload: workload.Spec{Name: "large", Objects: 1000, TextLen: 300}}
	// The null engine makes no files, but the run samples its stores' page
	// cache residency: each store is an empty directory.
	for _, dir := range storeDirs(j) {
		if err := os.Mkdir(dir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	rec, err := RunJob(j, fakeengine.NewNull(1000), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(stats.Median(rec.TotalMs)*1e6, "ns/span-median")
	b.ReportMetric(stats.P99(rec.TotalMs)*1e6, "ns/span-p99")
	b.ReportMetric(stats.Median(rec.OpenMs)*1e6, "ns/open-median")
}

// BenchmarkYield measures what a yield between stores costs a phase:
// runtime.Gosched from a goroutine locked to its thread, as a phase's is.
// It reports the share of a phase's wall time the yields take at one per
// yieldEvery (manydb's own work, between timed spans).
// Run with: go test -run '^$' -bench Yield -benchtime 20000x ./internal/worker/
func BenchmarkYield(b *testing.B) {
	err := onOtherThread(func() error {
		b.ResetTimer()
		for range b.N {
			runtime.Gosched()
		}
		b.StopTimer()
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	perYield := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(100*perYield/float64(yieldEvery.Nanoseconds()), "%-of-wall-time")
}
