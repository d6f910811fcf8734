package serve

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
)

// benchServe runs the serve loop on null stores (fakeengine.Null), which
// do nothing: it measures the loop's own cost (pool, locks, sequence,
// recording).
func benchServe(b *testing.B, pool int) {
	null := fakeengine.NewNull(0)
	f := Funcs{
		Open:    func(int) (engine.Store, error) { return null.Open("") },
		NewTurn: func() Turn { return func(int, engine.Store) error { return nil } },
	}
	c := Config{Stores: 10000, Requests: b.N, Concurrency: 8, Pool: pool, Zipf: 1.1, Seed: 1}
	seq := Sequence(c.Stores, c.Requests, c.Zipf, c.Seed)
	b.ResetTimer()
	res, err := run(c, f, nil, seq)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(c.Requests)/res.Wall.Seconds(), "req/s")
}

// BenchmarkServeNull: requests per second of the serve loop with a null
// engine, opening on every request (pool 0) and from a pool of 100.
func BenchmarkServeNullPool0(b *testing.B)   { benchServe(b, 0) }
func BenchmarkServeNullPool100(b *testing.B) { benchServe(b, 100) }

// BenchmarkServeNullRate: the open loop's own latency at 10 and 100
// requests/s with a null engine, counted as serve counts an engine's,
// from each request's due time: the floor under every open-loop p50 and
// p99 (the schedule's wake-up and the hand-out to a sender). Each
// iteration sends 300 requests (3 s at 100/s): run it with -benchtime 1x.
func BenchmarkServeNullRate10(b *testing.B)  { benchRate(b, 10, 100) }
func BenchmarkServeNullRate100(b *testing.B) { benchRate(b, 100, 1000) }

func benchRate(b *testing.B, rate float64, requests int) {
	null := fakeengine.NewNull(0)
	f := Funcs{
		Open:    func(int) (engine.Store, error) { return null.Open("") },
		NewTurn: func() Turn { return func(int, engine.Store) error { return nil } },
	}
	c := Config{Stores: 10000, Requests: requests, Concurrency: 8, Pool: 100, Zipf: 1.1, Seed: 1, Rate: rate}
	seq := Sequence(c.Stores, c.Requests, c.Zipf, c.Seed)
	h := NewHistogram()
	for b.Loop() {
		res, err := run(c, f, nil, seq)
		if err != nil {
			b.Fatal(err)
		}
		h.Merge(res.Latency)
	}
	b.ReportMetric(float64(h.ValueAtQuantile(50)), "p50-µs")
	b.ReportMetric(float64(h.ValueAtQuantile(90)), "p90-µs")
	b.ReportMetric(float64(h.ValueAtQuantile(99)), "p99-µs")
}

// BenchmarkRecord: what recording one request's latency costs (two clock
// reads and one histogram update).
func BenchmarkRecord(b *testing.B) {
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	for b.Loop() {
		t0 := time.Now()
		h.RecordValue(max(1, time.Since(t0).Microseconds()))
	}
}
