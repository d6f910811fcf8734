package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"manydb/internal/measure"
)

// loadSampler reads the 1-minute load average at the start and then every
// interval until stopped.
type loadSampler struct {
	mu      sync.Mutex
	samples []float64
	quit    chan struct{}
	done    chan struct{}
}

func startLoadSampler(every time.Duration) *loadSampler {
	l := &loadSampler{quit: make(chan struct{}), done: make(chan struct{})}
	l.sample()
	go func() {
		defer close(l.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-l.quit:
				return
			case <-t.C:
				l.sample()
			}
		}
	}()
	return l
}

func (l *loadSampler) sample() {
	if v, err := measure.Load1(); err == nil {
		l.mu.Lock()
		l.samples = append(l.samples, v)
		l.mu.Unlock()
	}
}

// stop ends sampling and returns the samples.
func (l *loadSampler) stop() []float64 {
	close(l.quit)
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.samples
}

// waitForLoad returns the 1-minute load average at the start of a phase,
// after waiting, when MaxLoad is set, until the gate lets the phase start
// (ready); while it waits, the trash is emptied (emptyWhileWaiting).
func (s *study) waitForLoad(ctx context.Context, what string) (float64, error) {
	interrupted := errors.New("interrupted while waiting for the load to drop; the same command resumes the study")
	own := &ownUse{read: s.OwnTicks, window: quietWindow}
	for {
		load, err := s.ReadLoad()
		if err != nil {
			return 0, err
		}
		ok, saw, err := s.ready(ctx, load, own)
		if err != nil && ctx.Err() != nil {
			return 0, interrupted
		}
		if err != nil || ok {
			return load, err
		}
		fmt.Fprintf(s.Log, "waiting before %s: %s; checking again in %s\n", what, saw, s.LoadWait)
		s.trash.emptyWhileWaiting()
		select {
		case <-ctx.Done():
			return 0, interrupted
		case <-time.After(s.LoadWait):
		}
	}
}

// ready says whether the gate lets the next phase start, given the load
// average read before it and the study's own servers (own), and what it
// saw, for the log: a load below MaxLoad lets it start; above, so does
// the load less the cores the servers kept busy (ownUse.cores); if not,
// the quiet gate also watches the machine for a window (ReadQuiet) and
// lets it start if it was quiet.
func (s *study) ready(ctx context.Context, load float64, own *ownUse) (bool, string, error) {
	if s.MaxLoad <= 0 || load < s.MaxLoad {
		return true, "", nil
	}
	high := fmt.Sprintf("load average %.2f is not below --max-load %.2f", load, s.MaxLoad)
	cores, err := own.cores(ctx)
	if err != nil {
		return false, "", err
	}
	if cores > 0 {
		high = fmt.Sprintf("load average %.2f less the %.2f cores of the study's own servers is not below --max-load %.2f", load, cores, s.MaxLoad)
		load -= cores
	}
	if load < s.MaxLoad || s.Gate != GateQuiet {
		return load < s.MaxLoad, high, nil
	}
	if err := s.trash.pause(&s.budget); err != nil {
		return false, "", err
	}
	q, err := s.ReadQuiet(ctx, quietWindow, s.OwnTicks)
	if err != nil {
		return false, "", fmt.Errorf("the quiet gate: %w", err)
	}
	return q.ok(), high + " and " + q.String(), nil
}

// ownUse follows the CPU time of the study's own servers between the
// gate's checks: the load they make is the study's work, not the noise
// the gate waits out (sqld rewrites each loaded namespace's stats.json
// every 5 s, which keeps half a core busy with thousands loaded and the
// load average above 1 between phases: docs/method.md).
type ownUse struct {
	read   func() uint64
	window time.Duration // of the first reading
	ticks  uint64
	at     time.Time
}

// cores is the cores the servers kept busy on average since the last
// call, or at the first over u.window (0 without servers, or when one
// restarted).
func (u *ownUse) cores(ctx context.Context) (float64, error) {
	if u.read == nil {
		return 0, nil
	}
	if u.at.IsZero() {
		u.ticks, u.at = u.read(), time.Now()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(u.window):
		}
	}
	now, ticks := time.Now(), u.read()
	last, at := u.ticks, u.at
	u.ticks, u.at = ticks, now
	if ticks < last || !now.After(at) {
		return 0, nil
	}
	return float64(ticks-last) / measure.TicksPerSecond / now.Sub(at).Seconds(), nil
}

// awaitLoad waits until the load allows the phase (waitForLoad) and
// returns the load then and the seconds waited, which the time budget
// counts (0 when the study does not wait for the load).
func (s *study) awaitLoad(ctx context.Context, label string) (load, wait float64, err error) {
	waitStart := time.Now()
	before, perr := measure.ReadPressure()
	load, err = s.waitForLoad(ctx, label)
	waitEnd := time.Now()
	if rerr := s.trash.pause(&s.budget); err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return 0, 0, err
	}
	wait = waitEnd.Sub(waitStart).Seconds()
	if s.MaxLoad <= 0 {
		return load, 0, nil
	}
	s.budget.Wait += wait
	if after, err := measure.ReadPressure(); perr == nil && err == nil {
		// What kept the load up while the study waited: tasks waiting
		// for the disk (the study's own syncs, writeback) or the CPU.
		s.budget.WaitIOStallS += (after.IO.Total - before.IO.Total).Seconds()
		s.budget.WaitCPUStallS += (after.CPU.Total - before.CPU.Total).Seconds()
	}
	return load, wait, nil
}
