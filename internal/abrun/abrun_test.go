package abrun

import (
	"bytes"
	"context"
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/abtest"
	"manydb/internal/results"
)

// synthetic is a measureFunc that draws each figure of a column around
// its base with lognormal noise, B's figures times their effect; every
// call advances the clock by step.
type synthetic struct {
	rng    *rand.Rand
	base   map[string]float64 // figure → value
	effect map[string]float64 // figure → B/A
	noise  float64
	clock  time.Time
	step   time.Duration
	calls  []string // "round side", in the order run
}

func newSynthetic(seed uint64, effect map[string]float64) *synthetic {
	return &synthetic{
		rng:    rand.New(rand.NewPCG(seed, 2)),
		base:   map[string]float64{"open": 0.05, "create": 3.5, "open-query-close-p99": 0.4},
		effect: effect,
		noise:  0.03,
		clock:  time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC),
		step:   10 * time.Second,
	}
}

func (s *synthetic) now() time.Time { return s.clock }

func (s *synthetic) measure(_ context.Context, n int, side Side) (Values, error) {
	s.clock = s.clock.Add(s.step)
	s.calls = append(s.calls, side.Name)
	v := Values{}
	for _, fig := range slices.Sorted(maps.Keys(s.base)) { // one order: the same draws each run
		base := s.base[fig]
		x := base * math.Exp(s.rng.NormFloat64()*s.noise)
		if side.Name == "B" && s.effect[fig] != 0 {
			x *= s.effect[fig]
		}
		v[Key{Column: "sqlite_capi@default", Figure: fig}] = x
	}
	return v, nil
}

func config() Config {
	return Config{
		A: Side{Name: "A", Manydb: "a/manydb"}, B: Side{Name: "B", Manydb: "b/manydb"},
		Dir: "unused", MinRounds: 4, MaxRounds: 200, Floor: abtest.DefaultFloor,
	}
}

func verdicts(cmp *Comparison) map[string]abtest.Verdict {
	out := map[string]abtest.Verdict{}
	for _, r := range cmp.Results {
		out[figureOf(r.Key)] = r.Verdict
	}
	return out
}

// TestAAIsSame: both sides alike: every figure same, in ABBA order, and
// the rounds stop once decided.
func TestAAIsSame(t *testing.T) {
	s := newSynthetic(1, nil)
	cmp, err := runRounds(context.Background(), config(), s.measure, s.now)
	if err != nil {
		t.Fatal(err)
	}
	for fig, v := range verdicts(cmp) {
		if v != abtest.Same {
			t.Errorf("%s: %s, want same", fig, v)
		}
	}
	if n := len(cmp.Rounds); n >= 200 || !strings.Contains(cmp.Stopped, "every figure has a verdict") {
		t.Errorf("%d rounds, stopped: %s; want fewer than 200, every figure decided", n, cmp.Stopped)
	}
	if got := strings.Join(s.calls[:8], ""); got != "ABBAABBA" {
		t.Errorf("order %s, want ABBAABBA", got)
	}
}

// TestKnownChange: B's open 10 % slower: open different, the others same.
func TestKnownChange(t *testing.T) {
	cmp, err := runRounds(context.Background(), config(), newSynthetic(2, map[string]float64{"open": 1.10}).measure, newSynthetic(2, nil).now)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]abtest.Verdict{"open": abtest.Different, "create": abtest.Same, "open-query-close-p99": abtest.Same}
	for fig, v := range verdicts(cmp) {
		if v != want[fig] {
			t.Errorf("%s: %s, want %s", fig, v, want[fig])
		}
	}
}

// TestMaxTime: rounds of 20 s under a 65 s budget stop after 3 rounds,
// the next one would pass it; what stayed unknown is named with the
// rounds it needs.
func TestMaxTime(t *testing.T) {
	c := config()
	c.MinRounds, c.MaxTime = 2, 65*time.Second
	s := newSynthetic(3, map[string]float64{"open": 1.029})
	s.noise = 0.2
	var progress bytes.Buffer
	c.Progress = &progress
	cmp, err := runRounds(context.Background(), c, s.measure, s.now)
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Rounds) != 3 || !strings.Contains(cmp.Stopped, "--max-time") {
		t.Errorf("%d rounds, stopped: %s; want 3, by --max-time", len(cmp.Rounds), cmp.Stopped)
	}
	var out bytes.Buffer
	if err := WriteText(&out, cmp); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not yet known; about") || !strings.Contains(progress.String(), "ETA") {
		t.Errorf("no rounds-needed line or no ETA:\n%s\n%s", out.String(), progress.String())
	}
}

// TestNotJudged: a figure with a value of 0 is named, not waited for.
func TestNotJudged(t *testing.T) {
	s := newSynthetic(4, nil)
	s.base["pthread-keys-per-open-store"] = 0
	cmp, err := runRounds(context.Background(), config(), s.measure, s.now)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmp.Stopped, "every figure has a verdict") {
		t.Errorf("stopped: %s", cmp.Stopped)
	}
	for _, r := range cmp.Results {
		if figureOf(r.Key) == "pthread-keys-per-open-store" && r.Note == "" {
			t.Errorf("a figure of value 0 was judged: %+v", r)
		}
	}
}

// TestTwoVariants: sides of one column each, named differently, are
// paired; sides with no column in common and a figure neither measured
// are refused.
func TestTwoVariants(t *testing.T) {
	a := map[string]float64{"sqlite@default / open": 1, "sqlite@default / create": 2}
	b := map[string]float64{"sqlite_capi@default / open": 1, "sqlite_capi@default / create": 2}
	pairs := pairKeys(a, b)
	if got := pairs["sqlite@default vs sqlite_capi@default / open"]; got != [2]string{"sqlite@default / open", "sqlite_capi@default / open"} {
		t.Errorf("pairs: %v", pairs)
	}
	b["bbolt@default / open"] = 1
	c := config()
	if _, err := judge(c, []Round{{A: a, B: b}, {A: a, B: b}}); !errors.Is(err, ErrConfig) {
		t.Errorf("no column in common: %v, want ErrConfig", err)
	}
	c.Figures = []string{"opne"}
	if _, err := judge(c, []Round{{A: a, B: a}, {A: a, B: a}}); err == nil || !strings.Contains(err.Error(), "opne") {
		t.Errorf("unknown figure: %v", err)
	}
}

func TestValidate(t *testing.T) {
	for _, bad := range []func(*Config){
		func(c *Config) { c.MinRounds = 1 },
		func(c *Config) { c.MaxRounds = 3 },
		func(c *Config) { c.Floor = 0 },
		func(c *Config) { c.Floor = 1.5 },
		func(c *Config) { c.B.Manydb = "" },
		func(c *Config) { c.RunArgs = []string{"--root", "x"} },
		func(c *Config) { c.A.Args = []string{"--out=x.jsonl"} },
		func(c *Config) { c.MaxTime = -time.Second },
	} {
		c := config()
		bad(&c)
		if err := c.Validate(); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", c, err)
		}
	}
	if err := config().Validate(); err != nil {
		t.Errorf("good config refused: %v", err)
	}
}

// TestStudyValues: every figure of every column of a real record gets
// one positive value.
func TestStudyValues(t *testing.T) {
	recs, err := results.ReadFile(filepath.Join("..", "report", "testdata", "study.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	v := studyValues(recs)
	if len(v) < 10 {
		t.Fatalf("%d values from a study of several variants", len(v))
	}
	if _, ok := v[Key{Column: "sqlite@default", Figure: "open"}]; !ok {
		t.Errorf("no sqlite@default / open among %d values", len(v))
	}
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s: %v", k, x)
		}
	}
}

// TestCalibrationRoundTrip: an A/A comparison's calibrations read back
// equal; a file with δ out of range is refused.
func TestCalibrationRoundTrip(t *testing.T) {
	s := newSynthetic(5, nil)
	cmp, err := runRounds(context.Background(), config(), s.measure, s.now)
	if err != nil {
		t.Fatal(err)
	}
	cals := Calibrations(cmp, 0.03)
	path := filepath.Join(t.TempDir(), "cal.json")
	if err := WriteCalibration(path, 0.03, cals); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCalibration(path)
	if err != nil || len(got) != len(cals) || len(got) == 0 {
		t.Fatalf("read back %d of %d: %v", len(got), len(cals), err)
	}
	for k := range cals {
		if got[k].Delta != cals[k].Delta {
			t.Errorf("%s: δ %v, wrote %v", k, got[k].Delta, cals[k].Delta)
		}
	}
	bad := map[string]abtest.Calibration{"x / open": {Delta: 2}}
	if err := WriteCalibration(path, 0.03, bad); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCalibration(path); !errors.Is(err, ErrConfig) {
		t.Errorf("δ 2 read: %v", err)
	}
}
