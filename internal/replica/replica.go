// Package replica is manydb replica's side of the read-replica study of
// libSQL's server, sqld (the study itself, which speaks to the servers
// through the sqld adapter, runs in worker-sqld:
// internal/engines/sqld/replicastudy): the study's configuration and
// result, the worker run with the one and answering the other (Exec), and
// the result as text and JSON.
package replica

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"

	"manydb/internal/measure"
)

// WorkerArg is worker-sqld's first argument for the study: it reads the
// Config as JSON on its stdin and writes the Result as JSON on its stdout.
const WorkerArg = "replica-study"

// Config is one study.
type Config struct {
	Bin     string        `json:"bin"`      // the sqld program
	Root    string        `json:"root"`     // the study's directory: the two servers' directories
	Agents  int           `json:"agents"`   // namespaces on the primary
	Notes   int           `json:"notes"`    // notes per agent
	TextLen int           `json:"text_len"` // characters of a note's text
	Appends int           `json:"appends"`  // appends timed, to agents drawn at random
	Reads   int           `json:"reads"`    // reads of the newest notes timed per server
	Recent  int           `json:"recent"`   // notes such a read asks for
	Seed    uint64        `json:"seed"`     // the draw of the agents appended to and read
	Wait    time.Duration `json:"wait_ns"`  // how long a catch-up or an append may take to reach the replica (and an append to a replica without its primary may go unanswered) before the study fails (moves on)
}

// Result is what one study measured: every sample, in milliseconds or KiB.
type Result struct {
	Sqld      string    `json:"sqld"`
	Started   time.Time `json:"started"`
	Config    Config    `json:"config"`
	CreateMs  []float64 `json:"create_ms"`   // per agent: its namespace made and its notes written on the primary
	CatchUpMs []float64 `json:"catch_up_ms"` // per agent: its first request to the replica until the replica returns all its notes and its replication index reaches the primary's
	DelayMs   []float64 `json:"delay_ms"`    // per append: the commit on the primary returned until a read of the replica returned the note
	Polls     []int     `json:"polls"`       // per append: reads of the replica until one returned the note
	// PrimaryRecentMs and ReplicaRecentMs are reads of the newest notes,
	// the same agents on each server.
	PrimaryRecentMs []float64 `json:"primary_recent_ms"`
	ReplicaRecentMs []float64 `json:"replica_recent_ms"`
	Memory          Memory    `json:"memory"`
	Lost            Lost      `json:"primary_lost"`
}

// Memory is the two servers' memory (measure.Memory) before the first
// namespace and after the last one was followed.
type Memory struct {
	PrimaryBefore measure.Memory `json:"primary_before"`
	PrimaryAfter  measure.Memory `json:"primary_after"`
	ReplicaBefore measure.Memory `json:"replica_before"`
	ReplicaAfter  measure.Memory `json:"replica_after"`
}

// Lost is what the replica does once its primary is killed.
type Lost struct {
	ReadsServed bool   `json:"reads_served"` // every agent's count answered right
	ReadError   string `json:"read_error,omitempty"`
	WriteError  string `json:"write_error"` // what an append to the replica answered
}

// Exec runs the study in worker (worker-sqld): the configuration on its
// stdin, its progress to log, its result read from its stdout. The
// worker dies with manydb, and the servers with the worker.
func Exec(ctx context.Context, worker string, c Config, log io.Writer) (*Result, error) {
	in, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, worker, WorkerArg)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &out, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", worker, WorkerArg, err)
	}
	var res Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return nil, fmt.Errorf("%s %s: its result: %w", worker, WorkerArg, err)
	}
	return &res, nil
}
