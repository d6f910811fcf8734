package orchestrate

import (
	"math"
	"testing"

	"manydb/internal/results"
	"manydb/internal/serve"
	"manydb/internal/settings"
)

// ScheduleSeconds counts the warm-up and every pool size, variant and
// setting; a closed loop has no schedule.
func TestScheduleSeconds(t *testing.T) {
	c := Config{Variants: []string{"a", "b"}, Settings: []settings.Setting{{}},
		Serve: &results.ServeConfig{Pools: []int{0, 10, 100}, Requests: 200, Rate: 10}}
	// (10 warm-up + 200 requests) / 10 per s × 3 pools × 2 variants × 1 setting.
	if got, want := c.ScheduleSeconds(), 21.0*6; got != want {
		t.Errorf("ScheduleSeconds() = %v, want %v", got, want)
	}
	c.Serve.PoolTimeS = 5 // each step stops after 5 s
	if got, want := c.ScheduleSeconds(), 5.0*6; got != want {
		t.Errorf("with --pool-time 5s: ScheduleSeconds() = %v, want %v", got, want)
	}
	c.Serve.Rate = 0
	if got := c.ScheduleSeconds(); got != 0 {
		t.Errorf("closed loop: ScheduleSeconds() = %v, want 0", got)
	}
	// A ladder: each pool at 10 and 100 per s and closed (no schedule).
	c.Serve.PoolTimeS, c.Serve.Rates = 0, []float64{10, 100, 0}
	if got, want := c.ScheduleSeconds(), (21.0+2.1)*6; math.Abs(got-want) > 1e-9 {
		t.Errorf("--rates 10,100,max: ScheduleSeconds() = %v, want %v", got, want)
	}
}

func TestFormatSeconds(t *testing.T) {
	for secs, want := range map[float64]string{1.5: "1.5s", 5025: "1h23m45s", 1e11: "1.16e+06 days"} {
		if got := FormatSeconds(secs); got != want {
			t.Errorf("FormatSeconds(%v) = %q, want %q", secs, got, want)
		}
	}
}

// An open-loop step may start up to serve.MaxSenders senders, each
// keeping a store open, but no more than the stores outside its pool; a
// closed loop's are its goroutines.
func TestStoresInUse(t *testing.T) {
	c := &study{Config: Config{Stores: 5000, Serve: &results.ServeConfig{Concurrency: 8}}}
	for _, tt := range []struct {
		p    phase
		want int
	}{
		{phase{pool: 100}, 8},
		{phase{pool: 100, rate: 10}, serve.MaxSenders},
		{phase{pool: 4500, rate: 10}, 500},
		{phase{pool: 5000, rate: 10}, 8},
	} {
		if got := c.inUse(tt.p); got != tt.want {
			t.Errorf("pool %d at rate %g: %d stores in use, want %d", tt.p.pool, tt.p.rate, got, tt.want)
		}
	}
}
