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
	own := s.ownServers()
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
// average read before it, and what it saw, for the log: a load below
// MaxLoad lets it start; above, with servers of the study's own running,
// so do fewer tasks of others active (ownServers.othersActive); if not,
// the quiet gate also watches the machine for a window (ReadQuiet) and
// lets it start if it was quiet.
func (s *study) ready(ctx context.Context, load float64, own ownServers) (bool, string, error) {
	if s.MaxLoad <= 0 || load < s.MaxLoad {
		return true, "", nil
	}
	high := fmt.Sprintf("load average %.2f is not below --max-load %.2f", load, s.MaxLoad)
	if own.running() {
		if err := s.trash.pause(&s.budget); err != nil {
			return false, "", err
		}
		others, err := own.othersActive(ctx)
		if err != nil {
			return false, "", err
		}
		high = fmt.Sprintf("load average %.2f; without the study's own servers %.2f tasks were active (the mean over %s), not below --max-load %.2f", load, others, own.window, s.MaxLoad)
		load = others
	}
	if load < s.MaxLoad || s.Gate != GateQuiet {
		return load < s.MaxLoad, high, nil
	}
	if err := s.trash.pause(&s.budget); err != nil {
		return false, "", err
	}
	q, err := s.ReadQuiet(ctx, quietWindow, own.ticks)
	if err != nil {
		return false, "", fmt.Errorf("the quiet gate: %w", err)
	}
	return q.ok(), high + " and " + q.String(), nil
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
