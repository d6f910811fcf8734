package orchestrate

import (
	"context"
	"fmt"
	"time"

	"manydb/internal/measure"
)

// Gate is what a study with --max-load waits for before each phase
// (docs/method.md, "Load gate and progress"). With either, --max-load also marks
// a phase whose load average reached it while it ran as loud.
type Gate string

const (
	// GateLoad waits until the 1-minute load average is below --max-load.
	GateLoad Gate = "load"
	// GateQuiet lets a phase start when the load average is below
	// --max-load and, when it is not, once the other processes and the
	// kernel kept the CPUs busy less than quietBusy of a window
	// (quietWindow) and tasks waited for the disk less than quietIO of it
	// (pressure stall information): a machine falls quiet within seconds,
	// where the load average takes a minute to decay.
	GateQuiet Gate = "quiet"
)

// GateNames are the gates by the names --gate accepts.
func GateNames() []string { return []string{string(GateLoad), string(GateQuiet)} }

// The quiet gate's window and limits.
const (
	quietWindow = 2 * time.Second
	quietBusy   = 0.05 // share of all CPUs' time
	quietIO     = 0.05 // share of the window
)

// Quiet is what the quiet gate saw over one window.
type Quiet struct {
	Busy float64 // share of the CPUs' time others kept them busy (not this process)
	IO   float64 // share of the window at least one task waited for the disk
}

// ok says whether the machine was quiet.
func (q Quiet) ok() bool { return q.Busy < quietBusy && q.IO < quietIO }

func (q Quiet) String() string {
	return fmt.Sprintf("other processes kept the CPUs %.1f %% busy and tasks waited for the disk %.1f %% of the last %s (the quiet gate wants under %.0f %% and %.0f %%)",
		100*q.Busy, 100*q.IO, quietWindow, 100*quietBusy, 100*quietIO)
}

// QuietRule says what the quiet gate waits for (--help).
func QuietRule() string {
	return fmt.Sprintf("the load average below --max-load or, for %s, other processes kept the CPUs under %.0f %% busy and tasks waited for the disk under %.0f %% of the time",
		quietWindow, 100*quietBusy, 100*quietIO)
}

// waitsFor names what g waits for, for the study's summary line.
func (g Gate) waitsFor() string {
	if g == GateQuiet {
		return "a quiet machine"
	}
	return "the load"
}

// ReadQuiet watches the machine for window and returns what it saw: the
// CPU time of the machine less this process' own and that of the
// study's own servers, read by own (the orchestrator, whose trash
// emptying is paused meanwhile, and the servers the study measures are
// not the noise the gate looks for), and the disk's pressure stall time.
func ReadQuiet(ctx context.Context, window time.Duration, own func() uint64) (Quiet, error) {
	m0, self0, p0, err := quietCounters()
	if err != nil {
		return Quiet{}, err
	}
	own0 := ownTicks(own)
	start := time.Now()
	select {
	case <-ctx.Done():
		return Quiet{}, ctx.Err()
	case <-time.After(window):
	}
	m1, self1, p1, err := quietCounters()
	if err != nil {
		return Quiet{}, err
	}
	own1 := ownTicks(own)
	var q Quiet
	if total := m1.Total - m0.Total; total > 0 {
		others := max(0, int64(m1.Busy-m0.Busy)-int64(self1-self0)-max(0, int64(own1)-int64(own0)))
		q.Busy = float64(others) / float64(total)
	}
	q.IO = (p1.IO.Total - p0.IO.Total).Seconds() / time.Since(start).Seconds()
	return q, nil
}

// noPressure says whether the kernel keeps no pressure stall
// information, which the quiet gate needs.
func noPressure() bool {
	_, err := measure.ReadPressure()
	return err != nil
}

// quietCounters reads the counters ReadQuiet compares.
func quietCounters() (measure.CPUTicks, uint64, measure.Pressure, error) {
	m, err := measure.ReadCPUTicks()
	if err != nil {
		return m, 0, measure.Pressure{}, err
	}
	self, err := measure.SelfCPUTicks()
	if err != nil {
		return m, 0, measure.Pressure{}, err
	}
	p, err := measure.ReadPressure()
	return m, self, p, err
}

// ownTicks reads own, when there is one.
func ownTicks(own func() uint64) uint64 {
	if own == nil {
		return 0
	}
	return own()
}
