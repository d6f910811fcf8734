package advise

import (
	"strings"
	"testing"
	"time"

	"manydb/internal/results"
	"manydb/internal/serve"
)

// withLatencies is e's records with each serve step's latency
// histogram: 1,000 requests of i × step + shift µs, i = 1…1,000, and its
// p99.
func withLatencies(t *testing.T, e fakeEngine, step, shift int64) []results.Record {
	t.Helper()
	recs := e.records()
	for i := range recs {
		if recs[i].Serve == nil {
			continue
		}
		h := serve.NewHistogram()
		for k := int64(1); k <= 1000; k++ {
			if err := h.RecordValue(k*step + shift); err != nil {
				t.Fatal(err)
			}
		}
		if err := serve.RecordLatency(recs[i].Serve, h); err != nil {
			t.Fatal(err)
		}
	}
	return recs
}

// TestTiesShareARank: of three variants whose p99s are 9.9, 9.93 and
// 11.9 ms over 1,000 requests each, the first two's intervals overlap
// (a tie: one rank, "~") and the third's lies apart (a real difference);
// a variant without a histogram ties with the rank before it.
func TestTiesShareARank(t *testing.T) {
	s := Default()
	s.Agents, s.P99 = 100, time.Second
	var recs []results.Record
	for _, c := range []struct {
		name        string
		step, shift int64
	}{{"a", 10, 0}, {"b", 10, 30}, {"c", 12, 0}} {
		e := quiet
		e.name = c.name
		recs = append(recs, withLatencies(t, e, c.step, c.shift)...)
	}
	a := ladderAnswer(t, s, recs)
	var got []string
	for _, o := range a.Options {
		got = append(got, rankText(o)+" "+o.Name())
	}
	if strings.Join(got, ", ") != "1 ~ a, 1 ~ b, 3 c" {
		t.Errorf("ranks %q, want 1 ~ a, 1 ~ b, 3 c", got)
	}
	if !strings.Contains(a.tiesLine(), ": a ~ b < c.") {
		t.Errorf("ties line %q", a.tiesLine())
	}
	if sp := a.Options[0].Spread; !(sp.Lo < a.Options[0].P99.Value && a.Options[0].P99.Value < sp.Hi) {
		t.Errorf("a's interval %v does not hold its p99 %v", sp, a.Options[0].P99.Value)
	}
	unknown := ladderAnswer(t, s, append(withLatencies(t, quiet, 10, 0), slow.records()...))
	if o := unknown.Options[1]; o.Name() != "slow" || o.Rank != 1 || !o.Tied || o.Spread.known() {
		t.Errorf("without a histogram: %s rank %d tied %v spread %v; want slow tied at 1, unknown", o.Name(), o.Rank, o.Tied, o.Spread)
	}
}

// slow is a variant whose records have no histogram.
var slow = fakeEngine{name: "slow", p99s: [3]float64{30, 30, 30}, peaks: [3]int64{1000, 2000, 11000}, holdKB: 50, filesPer: 1, spaceKB: 300}

// TestTiesAreChained: a rank ends only where every interval after it is
// above every one before: b overlaps both a and c, so the three tie though
// a and c lie apart; d lies above them all.
func TestTiesAreChained(t *testing.T) {
	opts := []Option{{Spread: Interval{10.3, 10.9}}, {Spread: Interval{9.94, 12.4}}, {Spread: Interval{11.1, 11.6}}, {Spread: Interval{12.5, 13}}}
	rankTies(opts)
	var got []string
	for _, o := range opts {
		got = append(got, rankText(o))
	}
	if strings.Join(got, ", ") != "1 ~, 1 ~, 1 ~, 4" {
		t.Errorf("ranks %q, want 1 ~, 1 ~, 1 ~, 4", got)
	}
}
