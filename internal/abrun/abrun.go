// Package abrun runs interleaved A/B rounds of manydb studies and judges
// every figure with package abtest. A round runs the same study (the same
// flags, stores and seeds) once as side A and once as side B, back to
// back, each in fresh processes and a fresh root, in the order A B, then
// B A, then A B… (ABBA), so that a drift of the machine falls on both
// sides alike. A side is a manydb binary (its workers beside it: two
// builds are two bin/ directories) with flags of its own (another
// variant, setting or option of one build). Rounds go on until every
// figure has a verdict, the rounds or the time run out.
package abrun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"manydb/internal/abtest"
)

// Side is one side of the comparison.
type Side struct {
	// Name is "A" or "B".
	Name string `json:"name"`
	// Manydb is the side's manydb binary; its workers are beside it.
	Manydb string `json:"manydb"`
	// Args are flags of manydb run for this side only.
	Args []string `json:"args,omitempty"`
	// Env are NAME=value pairs added to this side's environment (e.g.
	// the test-only job.TestOpenDelayEnv).
	Env []string `json:"env,omitempty"`
}

// Config is an A/B comparison.
type Config struct {
	A, B Side
	// RunArgs are the flags of manydb run both sides share; --root and
	// --out are the rounds' own and may not be among them.
	RunArgs []string
	// Dir holds every round's roots, results files and logs, and the
	// comparison's record (ab.json); it is made new.
	Dir string
	// MinRounds rounds run before any verdict (at least 2); MaxRounds at
	// most; MaxTime bounds the whole comparison (0: no bound).
	MinRounds, MaxRounds int
	MaxTime              time.Duration
	// Floor is the smallest δ (abtest.DefaultFloor unless set).
	Floor float64
	// Figures names the figures judged; empty: every figure both sides
	// measured.
	Figures []string
	// Calibration maps a Key's String to its A/A calibration (δ per
	// figure); a figure without one is judged against Floor.
	Calibration map[string]abtest.Calibration
	// Progress gets a line per round (nil: none).
	Progress io.Writer
}

// ErrConfig marks a Config that cannot run; its message names the flag.
var ErrConfig = errors.New("bad A/B configuration")

// ownFlags are manydb run's flags each round sets itself.
var ownFlags = []string{"--root", "-root", "--out", "-out"}

// Validate checks c before anything is made.
func (c Config) Validate() error {
	switch {
	case c.A.Manydb == "" || c.B.Manydb == "":
		return fmt.Errorf("%w: each side needs its manydb binary", ErrConfig)
	case c.Dir == "":
		return fmt.Errorf("%w: name a directory for the rounds", ErrConfig)
	case c.MinRounds < 2:
		return fmt.Errorf("%w: --rounds %d: at least 2 rounds give an interval", ErrConfig, c.MinRounds)
	case c.MaxRounds < c.MinRounds:
		return fmt.Errorf("%w: --max-rounds %d is below --rounds %d", ErrConfig, c.MaxRounds, c.MinRounds)
	case c.MaxTime < 0:
		return fmt.Errorf("%w: --max-time must not be negative", ErrConfig)
	}
	if err := checkFloor(c.Floor); err != nil {
		return err
	}
	for _, a := range slices.Concat(c.RunArgs, c.A.Args, c.B.Args) {
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(ownFlags, name) {
			return fmt.Errorf("%w: %s: each round sets its own root and results file", ErrConfig, name)
		}
	}
	return nil
}

// checkFloor refuses a δ floor that is not a share between 0 and 1.
func checkFloor(floor float64) error {
	if floor <= 0 || floor >= 1 {
		return fmt.Errorf("%w: --floor %v: give a share between 0 and 1 (0.03 for 3 %%)", ErrConfig, floor)
	}
	return nil
}

// measureFunc runs one side of one round and returns its figures.
type measureFunc func(ctx context.Context, round int, s Side) (Values, error)

// Key names one figure of one column: "sqlite_capi@default / open"
// (a column may hold a space: "sqlite_capi shared@default").
type Key struct {
	Column string // the column as the tables name it, with its setting
	Figure string // the registry's name of the figure
}

// String is the Key as records and tables write it.
func (k Key) String() string { return k.Column + sep + k.Figure }

// sep stands between a Key's column and its figure.
const sep = " / "

// Values are one side's figures in one round.
type Values map[Key]float64

// byName is v keyed by Key.String, as a Round keeps it.
func (v Values) byName() map[string]float64 {
	out := make(map[string]float64, len(v))
	for k, x := range v {
		out[k.String()] = x
	}
	return out
}

// Result is one figure's verdict over the rounds.
type Result struct {
	Key      string          `json:"key"`
	Estimate abtest.Estimate `json:"estimate"`
	// PHolm is the figure's p-value adjusted for the others judged with
	// it (abtest.HolmAdjust): different needs it under abtest.Alpha. A
	// figure not judged, or not decidable here, has none.
	PHolm *float64 `json:"p_holm,omitempty"`
	// Delta is the δ the verdict used: the calibration's, or the floor.
	Delta   float64        `json:"delta"`
	Verdict abtest.Verdict `json:"verdict"`
	// RoundsNeeded is about how many rounds in all would decide a figure
	// not yet known (0 when no number would).
	RoundsNeeded int `json:"rounds_needed,omitempty"`
	// Note says why a figure is not judged (a value no ratio can be made
	// of); such a figure is not waited for.
	Note string `json:"note,omitempty"`
}

// Round is one round's figures, A's and B's, by Key.String.
type Round struct {
	N int `json:"round"`
	// Order is "AB" or "BA": which side ran first.
	Order   string             `json:"order"`
	Started time.Time          `json:"started"`
	Seconds float64            `json:"seconds"`
	A       map[string]float64 `json:"a"`
	B       map[string]float64 `json:"b"`
}

// Comparison is what the rounds gave: every round's figures and, per
// figure, its verdict.
type Comparison struct {
	Rounds  []Round  `json:"rounds"`
	Results []Result `json:"results"`
	// Stopped says why the rounds ended.
	Stopped string `json:"stopped"`
}
