// Package replicastudy measures libSQL's server, sqld, with a read replica,
// the path of a database per agent past one machine: a primary and a
// replica the study starts and owns (internal/sqldserver; both on
// 127.0.0.1, the replica following the primary's replication port), a
// namespace per agent on the primary, and
//
//   - per agent, the catch-up: from the agent's first request to the
//     replica until the replica returns all of its notes and its
//     replication index reaches the primary's (the replica loads a
//     namespace on its first request and follows it from then);
//   - per append committed on the primary, the delay until a read of the
//     replica returns it (the read repeated until it does);
//   - the replica's memory per namespace it follows (its process before
//     the first namespace and after the last, from /proc);
//   - reads (the newest notes) served by the replica beside the same
//     reads on the primary;
//   - the primary lost (SIGKILL): whether the replica still serves reads
//     and what a write to it answers (sqld 0.24.32 has no promotion).
//
// Every answer is checked against the notes written; a wrong one fails
// the study. It runs in worker-sqld (Main), which manydb replica starts
// with the study's configuration (internal/replica).
package replicastudy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"path/filepath"
	"time"

	"manydb/internal/engine"
	"manydb/internal/engines/sqld"
	"manydb/internal/measure"
	"manydb/internal/replica"
	"manydb/internal/sqldserver"
	"manydb/internal/workload"
)

// pair is the two servers, a client of each, and where progress goes.
type pair struct {
	primary, replica *sqldserver.Server
	p, r             *sqld.Variant
	log              io.Writer
}

// Run runs the study; the servers are stopped and their directories
// removed whatever happens.
func Run(ctx context.Context, c replica.Config, log io.Writer) (*replica.Result, error) {
	res := &replica.Result{Sqld: sqldserver.Version, Started: time.Now().UTC(), Config: c}
	sp, err := start(c, log)
	if err != nil {
		return nil, err
	}
	defer sp.stop()
	steps := []func(context.Context, replica.Config, *pair, *replica.Result) error{create, catchUp, appends, reads, loseThePrimary}
	for _, step := range steps {
		if err := step(ctx, c, sp, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// start starts the primary, then its replica, and connects to both.
func start(c replica.Config, log io.Writer) (*pair, error) {
	primary, err := sqldserver.Start(sqldserver.Config{Bin: c.Bin, Dir: filepath.Join(c.Root, "primary"), Replicable: true})
	if err != nil {
		return nil, fmt.Errorf("the primary: %w", err)
	}
	rep, err := sqldserver.Start(sqldserver.Config{Bin: c.Bin, Dir: filepath.Join(c.Root, "replica"), Primary: primary})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("the replica: %w", err), primary.Stop())
	}
	sp := &pair{primary: primary, replica: rep, p: &sqld.Variant{}, r: &sqld.Variant{}, log: log}
	if err := errors.Join(sp.p.UseServer(primary.Dir()), sp.r.UseServer(rep.Dir())); err != nil {
		return nil, errors.Join(err, sp.stop())
	}
	sp.say("sqld %s: a primary on 127.0.0.1:%s and its replica on 127.0.0.1:%s, following it on %s",
		sqldserver.Version, port(primary.Client().HTTP), port(rep.Client().HTTP), primary.Client().GRPC)
	return sp, nil
}

// stop stops both servers and removes their directories. The replica
// is killed: its data goes with it, and once its primary is gone sqld
// 0.24.32 does not end on SIGTERM (it waited out the 30 s grace).
func (sp *pair) stop() error {
	sp.replica.Kill()
	return errors.Join(sp.replica.Stop(), sp.primary.Stop())
}

// agentDir names agent i's store: its namespace is named for the path
// (the directory holds no file; the data is the server's).
func agentDir(c replica.Config, i int) string {
	return filepath.Join(c.Root, "agents", fmt.Sprintf("agent-%05d", i))
}

// spec is the notes every agent holds.
func spec(c replica.Config) workload.Spec {
	return workload.Spec{Name: "replica", Objects: c.Notes, TextLen: c.TextLen}
}

// create makes every agent's namespace on the primary with its notes,
// the servers' memory read before the first.
func create(_ context.Context, c replica.Config, sp *pair, res *replica.Result) error {
	var err error
	if res.Memory.PrimaryBefore, err = memoryOf(sp.primary); err != nil {
		return err
	}
	if res.Memory.ReplicaBefore, err = memoryOf(sp.replica); err != nil {
		return err
	}
	notes := make([]workload.Note, c.Notes)
	for i := range c.Agents {
		spec(c).Fill(i, notes)
		t := time.Now()
		s, err := sp.p.Create(agentDir(c, i))
		if err == nil {
			err = errors.Join(s.Insert(notes), s.Close())
		}
		if err != nil {
			return fmt.Errorf("agent %d on the primary: %w", i, err)
		}
		res.CreateMs = append(res.CreateMs, ms(time.Since(t)))
		sp.progress("created", i+1, c.Agents)
	}
	return nil
}

// catchUp asks the replica for each agent's notes until it has all of
// them, then reads the servers' memory.
func catchUp(ctx context.Context, c replica.Config, sp *pair, res *replica.Result) error {
	for i := range c.Agents {
		ns := sqld.Namespace(agentDir(c, i))
		want, err := sp.primary.Client().ReplicationIndex(ctx, ns) // fixed: nothing is written now
		if err != nil {
			return fmt.Errorf("agent %d on the primary: %w", i, err)
		}
		t := time.Now()
		_, err = until(ctx, c.Wait, func() (bool, error) {
			s, err := sp.r.Open(agentDir(c, i))
			if err != nil {
				return false, nil // the namespace is not there yet
			}
			defer s.Close()
			n, err := s.Count()
			return err == nil && n == int64(c.Notes), nil
		})
		if err == nil {
			err = caughtUp(ctx, c, sp, ns, want)
		}
		if err != nil {
			return fmt.Errorf("agent %d on the replica: %w", i, err)
		}
		res.CatchUpMs = append(res.CatchUpMs, ms(time.Since(t)))
		sp.progress("followed by the replica", i+1, c.Agents)
	}
	var err error
	if res.Memory.PrimaryAfter, err = memoryOf(sp.primary); err != nil {
		return err
	}
	res.Memory.ReplicaAfter, err = memoryOf(sp.replica)
	return err
}

// caughtUp waits until the replica's replication index of namespace ns
// reaches want, the primary's. Until then sqld 0.24.32 sends a replica's
// reads of the namespace on to its primary, so a count can be right
// before the replica holds the notes; from then on it answers them
// itself, which the delays of the appends need.
func caughtUp(ctx context.Context, c replica.Config, sp *pair, ns string, want uint64) error {
	_, err := until(ctx, c.Wait, func() (bool, error) {
		got, err := sp.replica.Client().ReplicationIndex(ctx, ns)
		return err == nil && got >= want, err
	})
	return err
}

// appends appends notes to agents drawn at random on the primary and
// times each until the replica returns it, checked.
func appends(ctx context.Context, c replica.Config, sp *pair, res *replica.Result) error {
	rng := rand.New(rand.NewPCG(c.Seed, 1))
	turns := make([]int, c.Agents)
	for k := range c.Appends {
		i := rng.IntN(c.Agents)
		turns[i]++
		note := spec(c).TurnNote(i, turns[i])
		delay, polls, err := appendOne(ctx, c, sp, i, note)
		if err != nil {
			return fmt.Errorf("append %d (agent %d, note %d): %w", k+1, i, note.ID, err)
		}
		res.DelayMs, res.Polls = append(res.DelayMs, delay), append(res.Polls, polls)
		sp.progress("appends timed", k+1, c.Appends)
	}
	return nil
}

// appendOne appends note to agent i on the primary and reads it from the
// replica until it is there: the delay from the commit's return, and the
// reads it took.
func appendOne(ctx context.Context, c replica.Config, sp *pair, i int, note workload.Note) (float64, int, error) {
	rs, err := sp.r.Open(agentDir(c, i)) // before the append: the first read after it is one request
	if err != nil {
		return 0, 0, fmt.Errorf("open on the replica: %w", err)
	}
	defer rs.Close()
	ps, err := sp.p.Open(agentDir(c, i))
	if err != nil {
		return 0, 0, fmt.Errorf("open on the primary: %w", err)
	}
	defer ps.Close() // after the reads: its close request is not among them
	if err := ps.Append(note); err != nil {
		return 0, 0, fmt.Errorf("on the primary: %w", err)
	}
	committed := time.Now()
	var got []workload.Note
	polls, err := until(ctx, c.Wait, func() (bool, error) {
		got, err = rs.Get([]int64{note.ID}, got[:0])
		if errors.Is(err, engine.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return 0, polls, fmt.Errorf("on the replica: %w", err)
	}
	delay := ms(time.Since(committed))
	if err := spec(c).Check(i, note.ID, got[0]); err != nil {
		return 0, polls, fmt.Errorf("the replica returned: %w", err)
	}
	return delay, polls, nil
}

// until calls done until it says true, fails, or wait passes; it
// returns how many calls it made.
func until(ctx context.Context, wait time.Duration, done func() (bool, error)) (int, error) {
	end := time.Now().Add(wait)
	for n := 1; ; n++ {
		ok, err := done()
		switch {
		case err != nil:
			return n, err
		case ok:
			return n, nil
		case ctx.Err() != nil:
			return n, ctx.Err()
		case time.Now().After(end):
			return n, fmt.Errorf("not there after %v (%d reads)", wait, n)
		}
	}
}

// memoryOf is a server process' memory (/proc/PID/smaps_rollup).
func memoryOf(s *sqldserver.Server) (measure.Memory, error) {
	m, n, err := measure.ProcessesMemory([]int{s.PID()})
	if err == nil && n == 0 {
		err = fmt.Errorf("the server (pid %d) is gone", s.PID())
	}
	return m, err
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// say writes a line of progress.
func (sp *pair) say(format string, args ...any) {
	if sp.log != nil {
		fmt.Fprintf(sp.log, format+"\n", args...)
	}
}

// progress says how far a step of total is, at its end and every 10 %.
func (sp *pair) progress(what string, done, total int) {
	if done == total || done%max(1, total/10) == 0 {
		sp.say("replica: %d of %d %s", done, total, what)
	}
}

// port is the port of a host:port address.
func port(addr string) string {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return p
}
