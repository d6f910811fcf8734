package orchestrate

import (
	"context"
	"os"
	"time"

	"manydb/internal/measure"
)

// ownServers are the servers the study started (its PostgreSQL, its
// sqld) as the gate sees them: their work is the study's, not the noise
// the gate waits out. sqld rewrites each loaded namespace's stats.json
// every 5 s, in bursts of several threads: with thousands of namespaces
// loaded the load average stayed above 2 between phases while sqld used
// about half a core (docs/method.md, "Load gate and progress").
type ownServers struct {
	pids   func() []int // the servers' processes, nil for none
	window time.Duration
	// machine and tree read the active tasks of the machine (running,
	// runnable or waiting for I/O) and of a process and its descendants
	// (running or runnable); nil means measure.ActiveTasks and
	// measure.TreeActiveTasks.
	machine func() (int, error)
	tree    func(pid int) int
}

// activeEvery is how often othersActive reads the active tasks.
const activeEvery = 100 * time.Millisecond

// ownServers is the study's servers for its gate.
func (s *study) ownServers() ownServers {
	return ownServers{pids: s.OwnPIDs, window: quietWindow}
}

// running tells whether a server of the study's own is running.
func (o ownServers) running() bool { return o.pids != nil && len(o.pids()) > 0 }

// othersActive is the mean count of the machine's active tasks less
// those of this process (the reader among them) and its children (the
// servers, which manydb starts), read every activeEvery over the window:
// what the load average counts, without the study's own and without its
// one-minute lag.
func (o ownServers) othersActive(ctx context.Context) (float64, error) {
	machine, tree := o.machine, o.tree
	if machine == nil {
		machine, tree = measure.ActiveTasks, measure.TreeActiveTasks
	}
	var sum, n float64
	for end := time.Now().Add(o.window); ; {
		all, err := machine()
		if err != nil {
			return 0, err
		}
		sum, n = sum+float64(max(all-tree(os.Getpid()), 0)), n+1
		if !time.Now().Before(end) {
			return sum / n, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(activeEvery):
		}
	}
}

// ticks is the servers' CPU time, in clock ticks (measure.TreeCPUTicks),
// which the quiet gate leaves out beside manydb's own.
func (o ownServers) ticks() uint64 {
	if o.pids == nil {
		return 0
	}
	var sum uint64
	for _, pid := range o.pids() {
		n, _ := measure.TreeCPUTicks(pid)
		sum += n
	}
	return sum
}
