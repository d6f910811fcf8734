package advise

import (
	"fmt"
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"manydb/internal/results"
)

// spreadZ is the normal quantile of the p99 intervals' 95 % coverage.
const spreadZ = 1.96

// p99Interval is the 95 % interval of the p99 of one serve step's
// latencies: the order statistics of its histogram at n × 0.99 ∓ z ×
// √(n × 0.99 × 0.01) (n requests; the binomial interval of a quantile,
// what a bootstrap of the samples approximates, without random draws).
func p99Interval(s *results.Serve) (Interval, error) {
	if len(s.Histogram) == 0 {
		return unknownSpread, nil
	}
	h, err := hdrhistogram.Decode(s.Histogram)
	if err != nil {
		return unknownSpread, fmt.Errorf("decode a serve latency histogram: %w", err)
	}
	n := float64(h.TotalCount())
	if n == 0 {
		return unknownSpread, nil
	}
	half := spreadZ * math.Sqrt(n*0.99*0.01)
	q := func(rank float64) float64 {
		return float64(h.ValueAtQuantile(100*min(max(rank, 0), n)/n)) / 1000
	}
	return Interval{q(n*0.99 - half), q(n*0.99 + half)}, nil
}

// runsSpread is the span of the p99 intervals of the serve steps ss
// (their runs and studies: it holds the runs' own p99s and each one's
// sampling spread); unknown when a step has no histogram: its p99 alone
// says nothing of its spread.
func runsSpread(ss []*results.Serve) Interval {
	out := unknownSpread
	for _, s := range ss {
		i, err := p99Interval(s)
		if err != nil || !i.known() {
			return unknownSpread
		}
		out = out.span(i)
	}
	return out
}

// rankTies numbers the options, in their order (lowest p99 first): an
// option whose p99 interval overlaps that of the first option of the rank
// before shares its rank, and both are tied; one whose interval lies
// apart from it starts a rank of its place.
func rankTies(opts []Option) {
	lead := 0
	for i := range opts {
		if i > 0 && opts[i].Spread.overlaps(opts[lead].Spread) {
			opts[i].Rank, opts[i].Tied, opts[lead].Tied = opts[lead].Rank, true, true
			continue
		}
		lead, opts[i].Rank = i, i+1
	}
}

// rankText is the option's place as the options' table shows it: "2", or
// "2 ~" when tied (as benchstat marks a difference that is not real).
func rankText(o Option) string {
	if o.Tied {
		return fmt.Sprintf("%d ~", o.Rank)
	}
	return fmt.Sprint(o.Rank)
}

// spreadRule says what a p99 interval is and when two options tie, as
// the answer states it (docs/method.md gives the arithmetic).
const spreadRule = "each p99's interval spans its runs' 95 % intervals, over every run and study; \"<\": intervals apart, a real difference; \"~\": overlapping the rank's first, a tie"
