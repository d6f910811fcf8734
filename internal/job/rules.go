package job

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"manydb/internal/workload"
)

// The rules on a study's values and between its flags, each with its one
// message. The worker (Job.Validate), the orchestrator
// (orchestrate.Config.Validate) and the command line check them here, so
// a rule and its message live in one place.

// CheckStores checks a count of stores.
func CheckStores(n int) error {
	if n < 1 {
		return fmt.Errorf("--stores %d: create at least one store", n)
	}
	return nil
}

// CheckDims checks the length of the notes' embeddings.
func CheckDims(dims int) error {
	if dims < 0 || dims > MaxDims {
		return fmt.Errorf("--dims %d: give the embedding's length, 1 to %d, or 0 for notes without embeddings", dims, MaxDims)
	}
	return nil
}

// CheckWorkload checks what each store holds: notes, their text and
// their embeddings.
func CheckWorkload(w workload.Spec) error {
	if w.Objects < 1 || w.TextLen < 1 {
		return fmt.Errorf("--objects %d, --text-len %d: a store holds at least one note of at least one character", w.Objects, w.TextLen)
	}
	if err := CheckDims(w.Dims); err != nil {
		return err
	}
	if w.Spread < 0 {
		return fmt.Errorf("--note-spread %v: give the noise around a topic's centre, above 0", w.Spread)
	}
	if w.Split && w.Data == (workload.Data{}) {
		return fmt.Errorf("a split of the notes among the stores needs a corpus (--data): generated notes never repeat")
	}
	return CheckTopics(w.TopicPool, w.NoteSpread(), w.Dims)
}

// CheckEnv checks a setting's environment: NAME=value pairs, each name
// once.
func CheckEnv(env []string) error {
	seen := map[string]bool{}
	for _, e := range env {
		name, _, ok := strings.Cut(e, "=")
		switch {
		case !ok || name == "" || strings.ContainsAny(name, " \t"):
			return fmt.Errorf("--env %q: give NAME=value", e)
		case seen[name]:
			return fmt.Errorf("--env %q: %s is set twice", e, name)
		}
		seen[name] = true
	}
	return nil
}

// MaxOversample bounds --knn-oversample.
const MaxOversample = 1000

// CheckOversample checks --knn-oversample: 1 (none) to MaxOversample,
// above 1 only with embeddings. (A job or a study records no
// oversampling as 0: their checks pass max(m, 1).)
func CheckOversample(m, dims int) error {
	if m < 1 || m > MaxOversample {
		return fmt.Errorf("--knn-oversample %d: give how many times 10 notes an approximate knn asks for, 1 (none) to %d", m, MaxOversample)
	}
	if m > 1 && dims == 0 {
		return fmt.Errorf("--knn-oversample %d: it changes the knn query, which needs --dims", m)
	}
	return nil
}

// CheckTopics checks how the embeddings cluster: the topic pool all
// agents share (0: none) and σ, the spread around a topic, each changed
// from its default only with embeddings.
func CheckTopics(pool int, spread float64, dims int) error {
	if pool < 0 || pool > workload.MaxTopicPool {
		return fmt.Errorf("--topic-pool %d: give the number of topic centres all agents share, 1 to %d, or 0 for each agent's own", pool, workload.MaxTopicPool)
	}
	if !(spread > 0 && spread <= workload.MaxSpread) {
		return fmt.Errorf("--note-spread %v: give the noise around a topic's centre, above 0 and at most %g (default %g)", spread, workload.MaxSpread, workload.NoteSpread)
	}
	if dims == 0 && (pool > 0 || spread != workload.NoteSpread) {
		return fmt.Errorf("--topic-pool and --note-spread shape the embeddings: give --dims too")
	}
	return nil
}

// CheckGenerated checks that the flags that shape the synthetic
// generator's embeddings (--topic-pool, --note-spread) are not given with
// another data source (data, --data's value), whose notes they cannot
// shape.
func CheckGenerated(data, synthetic string, pool int, spread float64) error {
	if data != synthetic && (pool > 0 || spread != workload.NoteSpread) {
		return fmt.Errorf("--topic-pool and --note-spread shape the synthetic embeddings; --data %s has its own", data)
	}
	return nil
}

// CheckQueries checks that the queries can run on notes with embeddings
// of dims values (0: none).
func CheckQueries(queries []Query, dims int) error {
	if slices.Contains(queries, QueryKNN) && dims == 0 {
		return fmt.Errorf("--queries knn needs embeddings: give --dims (e.g. --dims 384)")
	}
	return nil
}

// CheckFanout checks the store directories' layout.
func CheckFanout(fanout int) error {
	if fanout < 0 || fanout > MaxFanout {
		return fmt.Errorf("--fanout %d: use 0 (flat, the reference's layout) to %d levels", fanout, MaxFanout)
	}
	return nil
}

// CheckHold checks a count of stores to hold open out of stores.
func CheckHold(hold, stores int) error {
	if hold < 1 || hold > stores {
		return fmt.Errorf("--hold %d: hold between 1 and --stores (%d) stores open", hold, stores)
	}
	return nil
}

// CheckProcs checks a count of worker processes to split most things
// (held stores, agents, goroutines: what) over, one at least each (0 is
// the default, one process).
func CheckProcs(procs, most int, what string) error {
	if procs < 0 || procs > most {
		return fmt.Errorf("--procs %d: split the %d %s over 1 to %d processes", procs, most, what, most)
	}
	return nil
}

// Validate checks serve's traffic on stores stores.
func (s Serve) Validate(stores int) error {
	switch {
	case stores < 1:
		return fmt.Errorf("--stores %d: serve at least one store", stores)
	case s.Requests < 1:
		return fmt.Errorf("--requests %d: serve at least one request", s.Requests)
	case s.Pool < 0:
		return fmt.Errorf("--pool %d must not be negative", s.Pool)
	case s.Concurrency < 1:
		return fmt.Errorf("--concurrency %d: need at least one goroutine", s.Concurrency)
	case !(s.Zipf > 1) || math.IsInf(s.Zipf, 1):
		return fmt.Errorf("--zipf %v: the exponent must be a finite number above 1", s.Zipf)
	case !(s.Rate >= 0) || math.IsInf(s.Rate, 1):
		return fmt.Errorf("--rate %v: use a finite number of requests per second, or 0 for a closed loop", s.Rate)
	}
	return CheckPoolTime(s.PoolTime)
}

// CheckPoolTime checks serve's time limit of each pool size's step.
func CheckPoolTime(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--pool-time %v: give a positive duration (e.g. 20m), or 0 for no limit", d)
	}
	return nil
}

// CheckStudy checks what every study needs: an engine, a setting, a data
// root and a results file.
func CheckStudy(variants, settings int, root, out string) error {
	switch {
	case variants == 0:
		return fmt.Errorf("no engine given: use --engines sqlite (or all)")
	case settings == 0:
		return fmt.Errorf("no setting given: use --settings default")
	case root == "":
		return fmt.Errorf("--root is empty: name a directory for the stores")
	case out == "":
		return fmt.Errorf("--out is empty: name a results file")
	}
	return nil
}

// CheckRuns checks the warm open runs of a study (serve makes none).
func CheckRuns(runs int) error {
	if runs < 1 {
		return fmt.Errorf("--runs %d: make at least one warm open run", runs)
	}
	return nil
}

// CheckTurns checks the turn runs of a study, sweep telling whether it
// is one of several store counts (--stores A,B,…).
func CheckTurns(turns int, sweep bool) error {
	switch {
	case turns < 0:
		return fmt.Errorf("--turns %d: make 0 or more turn runs", turns)
	case turns > 0 && sweep:
		return fmt.Errorf("--turns with several --stores counts: turns change the stores that the smaller counts reuse; sweep without --turns")
	}
	return nil
}

// CheckServeStudy checks serve's own rules on the study flags: one store
// count, one hold count, and processes (--procs procs, or auto) that split
// a closed loop of concurrency goroutines (no open loop: --rate or
// --rates), each process one at least.
func CheckServeStudy(stores, holds, procs int, auto bool, openLoop bool, concurrency int) error {
	switch {
	case stores > 1:
		return fmt.Errorf("serve takes one --stores count")
	case holds > 1:
		return fmt.Errorf("serve takes one --hold count")
	case auto:
		return fmt.Errorf("serve --procs takes a number of processes, not auto")
	case procs > 1 && openLoop:
		return fmt.Errorf("--procs with --rate: an open loop's schedule is one process'; split a closed loop (no --rate, --rates max) over processes")
	case procs > 1 && procs > concurrency:
		return fmt.Errorf("--procs %d: more processes than --concurrency %d goroutines; each process sends with one at least", procs, concurrency)
	}
	return nil
}

// CheckLoadGate checks the wait before each phase: the load average it
// waits for (0: none), how often it looks, and the gate, one of gates;
// quiet tells whether it is the quiet gate, which waits only with a
// --max-load.
func CheckLoadGate(maxLoad float64, loadWait time.Duration, gate string, gates []string, quiet bool) error {
	switch {
	case !(maxLoad >= 0) || math.IsInf(maxLoad, 1):
		return fmt.Errorf("--max-load %v: use a finite load average, or 0 not to wait", maxLoad)
	case maxLoad > 0 && loadWait <= 0:
		return fmt.Errorf("--load-wait must be positive")
	case gate != "" && !slices.Contains(gates, gate):
		return fmt.Errorf("--gate %q: use one of %v", gate, gates)
	case quiet && maxLoad <= 0:
		return fmt.Errorf("--gate quiet waits only with --max-load, the load that marks a phase loud: set both")
	}
	return nil
}

// CheckStallLimit checks how long a worker may make no progress.
func CheckStallLimit(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--stall-limit %s: use a positive duration, or 0 for the default rule", d)
	}
	return nil
}

// CheckSqldMaxActive checks --sqld-max-active: the namespaces the study's
// sqld keeps loaded, 1 or more, or 0 for every namespace.
func CheckSqldMaxActive(n int) error {
	if n < 0 {
		return fmt.Errorf("--sqld-max-active %d: give the namespaces sqld keeps loaded, 1 or more, or 0 for every namespace", n)
	}
	return nil
}
