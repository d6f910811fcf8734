package worker

import (
	"io"
	"testing"

	"manydb/internal/engines/fakeengine"
	"manydb/internal/results"
	"manydb/internal/stats"
	"manydb/internal/workload"
)

// BenchmarkHarnessSpan measures the harness's own cost per open, query,
// close span with the null engine, which does nothing: the median of its
// total_ms samples is what the harness adds to every engine's figure.
// Run with: go test -run '^$' -bench HarnessSpan -benchtime 20000x ./internal/worker/
func BenchmarkHarnessSpan(b *testing.B) {
	job := Job{Variant: "null", Phase: results.PhaseOpen, Dir: b.TempDir(), Stores: b.N, Seed: 1,
		Workload: workload.Spec{Name: "large", Objects: 1000, TextLen: 300}}
	b.ResetTimer()
	rec, err := RunJob(job, fakeengine.NewNull(1000), io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(stats.Median(rec.TotalMs)*1e6, "ns/span-median")
	b.ReportMetric(stats.P99(rec.TotalMs)*1e6, "ns/span-p99")
	b.ReportMetric(stats.Median(rec.OpenMs)*1e6, "ns/open-median")
}
