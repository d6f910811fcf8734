package advise

import (
	"strings"
	"testing"
	"time"

	"manydb/internal/results"
)

// rung is one open-loop step of a synthetic ladder: the rate offered,
// the rate served and the p99 (ms).
type rung struct{ offered, served, p99 float64 }

// withLadder is e's records (closed loop at pools 0, 10 and 100 of 100
// stores, 1,000 requests/s) with an open-loop step at each pool for each
// rung (each its own step of the study).
func withLadder(e fakeEngine, rungs ...rung) []results.Record {
	recs := e.records()
	for _, r := range slicesOfServe(recs) {
		for _, g := range rungs {
			open := r
			open.PoolStep = len(recs) + 1 // each step of a study its own
			s := *r.Serve
			s.Rate, s.AchievedRate, s.WallS, s.P99Ms = g.offered, g.served, float64(s.Requests)/g.served, g.p99
			open.Serve = &s
			recs = append(recs, open)
		}
	}
	return recs
}

// slicesOfServe are the closed-loop serve records of recs.
func slicesOfServe(recs []results.Record) []results.Record {
	var out []results.Record
	for _, r := range recs {
		if r.Serve != nil {
			out = append(out, r)
		}
	}
	return out
}

// ladderAnswer is Advise's answer to s over recs.
func ladderAnswer(t *testing.T, s Scenario, recs []results.Record) Answer {
	t.Helper()
	a, err := Advise(s, Collect(recs, s.Dims), []string{"dir/x.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// quiet has a closed-loop p99 of 8 ms at every pool, and a ladder whose
// p99 is 1 ms at 10 requests/s and 2 ms at 100, saturating at 1,000
// (served 500).
var quiet = fakeEngine{name: "quiet", p99s: [3]float64{8, 8, 8}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}

var quietLadder = []rung{{10, 10, 1}, {100, 100, 2}, {1000, 500, 20}}

// TestP99AtTheScenariosRate: a variant whose p99 meets 5 ms at the
// scenario's low rate and not at saturation qualifies with the ladder
// (the p99 of the next measured rate above the scenario's), and not
// without it (the closed loop's, labelled saturation).
func TestP99AtTheScenariosRate(t *testing.T) {
	s := Default()
	s.Agents, s.P99 = 100, 5*time.Millisecond // about 0.06 requests/s
	a := ladderAnswer(t, s, withLadder(quiet, quietLadder...))
	if len(a.Options) != 1 {
		t.Fatalf("with a ladder: %d options (refused %+v), want quiet", len(a.Options), a.Refused)
	}
	if o := a.Options[0]; o.P99.Value != 1 || o.Load.Rate != 10 || o.Load.Text() != "10/s" || !strings.Contains(o.P99.From, "open loop at 10 requests/s") {
		t.Errorf("p99 %v at %+v (%s); want 1 ms at 10/s", o.P99.Value, o.Load, o.P99.From)
	}
	if !strings.Contains(a.loadLine(), "at 10/s, the lowest rate of its ladder at or above yours: quiet") {
		t.Errorf("load line %q", a.loadLine())
	}
	without := ladderAnswer(t, s, quiet.records())
	if len(without.Options) != 0 || len(without.Refused) != 1 || !strings.Contains(without.Refused[0].Why, "p99 8 ms (at saturation) over 5 ms") {
		t.Errorf("without a ladder: options %+v, refused %+v; want quiet refused at 8 ms", without.Options, without.Refused)
	}
}

// TestP99PastSaturation: between two measured rates the higher one's p99
// is read; past the saturation point, or above the ladder, the closed
// loop's.
func TestP99PastSaturation(t *testing.T) {
	for _, c := range []struct {
		rate float64
		p99  float64
		load string
		why  string
	}{
		{50, 2, "100/s", "the lowest rate"},
		{100, 2, "100/s", "the lowest rate"},
		{500, 8, "saturation", "its ladder saturates at 1,000 requests/s"},
		{990, 8, "saturation", "its ladder saturates at 1,000 requests/s"},
	} {
		s := Default()
		s.Agents, s.Rate, s.P99 = 100, c.rate, time.Second
		a := ladderAnswer(t, s, withLadder(quiet, quietLadder...))
		if len(a.Options) != 1 {
			t.Fatalf("rate %g: %d options, refused %+v", c.rate, len(a.Options), a.Refused)
		}
		if o := a.Options[0]; o.P99.Value != c.p99 || o.Load.Text() != c.load || !strings.HasPrefix(o.Load.Why, c.why) {
			t.Errorf("rate %g: p99 %v at %s (%s); want %v at %s (%s…)", c.rate, o.P99.Value, o.Load.Text(), o.Load.Why, c.p99, c.load, c.why)
		}
	}
	s := Default()
	s.Agents, s.Rate, s.P99 = 100, 50, time.Second
	unsaturated := ladderAnswer(t, s, withLadder(quiet, rung{10, 10, 1}, rung{20, 20, 1.5}))
	if o := unsaturated.Options[0]; o.P99.Value != 8 || !strings.HasPrefix(o.Load.Why, "your rate is above its ladder's highest rate, 20") {
		t.Errorf("above the ladder: p99 %v (%s); want the closed loop's 8 ms", o.P99.Value, o.Load.Why)
	}
}

// TestNoLadderIsSaturation: records without a ladder are read at
// saturation, and say so; the traffic gap names them.
func TestNoLadderIsSaturation(t *testing.T) {
	s := Default()
	s.Agents, s.P99 = 100, time.Second
	a := ladderAnswer(t, s, quiet.records())
	if o := a.Options[0]; o.Load.Text() != "saturation" || o.Load.Why != noLadder {
		t.Errorf("load %+v; want saturation, %q", o.Load, noLadder)
	}
	hasGap := func(a Answer) bool {
		for _, g := range a.Gaps {
			if strings.HasPrefix(g.What, "Your traffic") {
				return true
			}
		}
		return false
	}
	if !hasGap(a) || hasGap(ladderAnswer(t, s, withLadder(quiet, quietLadder...))) {
		t.Errorf("the traffic gap should be there without a ladder only")
	}
}

// TestSaturationAgainstItsOwnStudy: a rung saturates against the closed
// loop of its own study, not the median of every study's: a ladder study
// whose closed loop's p99 is 30 ms serves 1,000 requests/s at 20 ms
// (not saturated), beside an older study's closed loop at 8 ms.
func TestSaturationAgainstItsOwnStudy(t *testing.T) {
	slow := quiet
	slow.p99s = [3]float64{30, 30, 30}
	ladderStudy := withLadder(slow, rung{1000, 1000, 20})
	older := quiet.records()
	for i := range older {
		older[i].File = "dir/older.jsonl"
	}
	s := Default()
	s.Agents, s.Rate, s.P99 = 100, 500, time.Second
	a := ladderAnswer(t, s, append(ladderStudy, older...))
	if len(a.Options) != 1 {
		t.Fatalf("%d options, refused %+v", len(a.Options), a.Refused)
	}
	if o := a.Options[0]; o.P99.Value != 20 || o.Load.Text() != "1,000/s" {
		t.Errorf("p99 %v at %s (%s); want 20 ms at 1,000/s: the rung is under its own study's closed loop of 30 ms", o.P99.Value, o.Load.Text(), o.Load.Why)
	}
}
