package orchestrate

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// TestWaitsForAQuietMachine: with --gate quiet a phase waits while the
// machine is busy or its tasks wait for the disk, whatever the load
// average says, and the study records its gate.
func TestWaitsForAQuietMachine(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	var log strings.Builder
	c.Log = &log
	c.MaxLoad, c.Gate, c.LoadWait = 1, GateQuiet, time.Millisecond
	c.ReadLoad = func() (float64, error) { return 7, nil }          // the load gate would never open
	seen := []Quiet{{Busy: 0.5}, {IO: 0.2}, {Busy: 0.01, IO: 0.01}} // busy, then the disk, then quiet
	c.ReadQuiet = func(context.Context, time.Duration, func() uint64) (Quiet, error) {
		q := seen[0]
		if len(seen) > 1 {
			seen = seen[1:]
		}
		return q, nil
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(log.String(), "waiting before fake create: load average 7.00 is not below --max-load 1.00 and other processes kept the CPUs"); n != 2 {
		t.Errorf("%d waiting messages, want 2:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "s waiting for a quiet machine") {
		t.Errorf("the summary line does not name the gate:\n%s", log.String())
	}
	recs, _ := results.ReadFile(c.Out)
	if env := recs[0]; env.Config == nil || env.Config.Gate != string(GateQuiet) {
		t.Errorf("env record's config %+v, want gate quiet", env.Config)
	}
	if create := recs[1]; create.Phase != job.PhaseCreate || create.WaitS <= 0 || create.Load1 != 7 {
		t.Errorf("create record: phase %s, wait %v s, load1 %v; want a wait and the load read before it", create.Phase, create.WaitS, create.Load1)
	}
}

// TestQuietGateError: a failed reading fails the study with what failed.
func TestQuietGateError(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	c.MaxLoad, c.Gate, c.LoadWait = 1, GateQuiet, time.Millisecond
	c.ReadLoad = func() (float64, error) { return 7, nil }
	broken := errors.New("no /proc/stat")
	c.ReadQuiet = func(context.Context, time.Duration, func() uint64) (Quiet, error) { return Quiet{}, broken }
	if _, err := Run(context.Background(), c); !errors.Is(err, broken) || !strings.Contains(err.Error(), "quiet gate") {
		t.Fatalf("err = %v, want the reading's error, named", err)
	}
}

func TestGateInput(t *testing.T) {
	for _, c := range []struct {
		gate    Gate
		maxLoad float64
		want    string
	}{
		{"idle", 1, `--gate "idle": use one of [load quiet]`},
		{GateQuiet, 0, "--gate quiet waits only with --max-load"},
	} {
		cfg := fakeConfig(t, "fake")
		cfg.Gate, cfg.MaxLoad = c.gate, c.maxLoad
		var in *job.InputError
		if err := cfg.Validate(); !errors.As(err, &in) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--gate %s --max-load %v: %v, want an input error %q", c.gate, c.maxLoad, err, c.want)
		}
	}
}

// TestReadQuiet: a reading of the machine is shares, within 0 and 1 (on
// a kernel with pressure stall information), and an idle process
// adds nothing of its own.
func TestReadQuiet(t *testing.T) {
	if noPressure() {
		t.Skip("no /proc/pressure on this kernel: the quiet gate refuses to start (TestGateInput)")
	}
	q, err := ReadQuiet(context.Background(), 50*time.Millisecond, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Busy < 0 || q.Busy > 1 || q.IO < 0 || q.IO > 1 {
		t.Fatalf("ReadQuiet = %+v, want shares between 0 and 1", q)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadQuiet(ctx, time.Hour, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadQuiet after cancel: %v", err)
	}
}

// TestQuietGateOpensOnALowLoad: with the load average below --max-load
// the quiet gate lets every phase start without watching the machine.
func TestQuietGateOpensOnALowLoad(t *testing.T) {
	c := fakeConfig(t, "fake")
	c.Stores, c.Runs, c.Hold = 2, 1, 1
	c.MaxLoad, c.Gate, c.LoadWait = 1, GateQuiet, time.Millisecond
	c.ReadLoad = func() (float64, error) { return 0.5, nil }
	watched := 0
	c.ReadQuiet = func(context.Context, time.Duration, func() uint64) (Quiet, error) {
		watched++
		return Quiet{Busy: 1}, nil
	}
	if _, err := Run(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	if watched != 0 {
		t.Fatalf("the quiet gate watched the machine %d times with the load below --max-load", watched)
	}
}

// TestGateCountsOutOwnServers: the active tasks of the study's own
// servers do not keep a phase waiting: with a load average of 1.5 at
// --max-load 1 and 4 tasks active on the machine, manydb and its servers
// holding all 4 lets the phase start, holding 1 does not, and the line
// says what the gate saw without them.
func TestGateCountsOutOwnServers(t *testing.T) {
	s := &study{Config: Config{MaxLoad: 1, Gate: GateLoad}}
	for _, c := range []struct {
		server int
		ok     bool
		saw    string
	}{
		{4, true, "load average 1.50; without the study's own servers 0.00 tasks were active"},
		{1, false, "load average 1.50; without the study's own servers 3.00 tasks were active (the mean over 10ms), not below --max-load 1.00"},
	} {
		own := ownServers{window: 10 * time.Millisecond, pids: func() []int { return []int{7} },
			machine: func() (int, error) { return 4, nil }, tree: func(pid int) int {
				if pid != os.Getpid() {
					t.Errorf("active tasks read of process %d, want manydb's own tree (%d)", pid, os.Getpid())
				}
				return c.server
			}}
		ok, saw, err := s.ready(context.Background(), 1.5, own)
		if err != nil || ok != c.ok || !strings.HasPrefix(saw, c.saw) {
			t.Errorf("server with %d active: ready %v, %q, %v; want %v, %q", c.server, ok, saw, err, c.ok, c.saw)
		}
	}
	if ok, _, _ := s.ready(context.Background(), 1.5, ownServers{}); ok {
		t.Error("no servers: a load of 1.5 let through at --max-load 1")
	}
	// The quiet gate, after the tasks still too many, is given the
	// servers' CPU time to leave out.
	quiet := &study{Config: Config{MaxLoad: 1, Gate: GateQuiet}}
	quiet.ReadQuiet = func(_ context.Context, _ time.Duration, own func() uint64) (Quiet, error) {
		if own == nil {
			t.Error("the quiet gate got no reader of the servers' CPU time")
		}
		return Quiet{}, nil
	}
	own := ownServers{window: time.Millisecond, pids: func() []int { return []int{7} },
		machine: func() (int, error) { return 9, nil }, tree: func(int) int { return 0 }}
	if ok, _, err := quiet.ready(context.Background(), 1.5, own); !ok || err != nil {
		t.Errorf("a quiet machine: ready %v, %v; want true", ok, err)
	}
}

// TestReadQuietCountsOutOwn: CPU time of the study's own servers is not
// counted as others' busy time.
func TestReadQuietCountsOutOwn(t *testing.T) {
	if noPressure() {
		t.Skip("this kernel keeps no pressure stall information, which ReadQuiet reads")
	}
	calls := uint64(0)
	own := func() uint64 { calls++; return calls * (1 << 40) } // more than the machine ran
	q, err := ReadQuiet(context.Background(), 20*time.Millisecond, own)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 || q.Busy != 0 {
		t.Errorf("own read %d times, busy %v; want 2 readings and the servers' time counted out (0)", calls, q.Busy)
	}
}
