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

// rankTies numbers the options, in their order (lowest p99 first): a
// rank ends where every option after it has its p99 interval above those
// of every option up to it (a real difference: "<"); the options of a
// rank are tied ("~"). An unknown interval spans everything, so no rank
// ends around it.
func rankTies(opts []Option) {
	after := make([]float64, len(opts)+1) // the lowest Lo from each option on
	after[len(opts)] = math.Inf(1)
	for i := len(opts) - 1; i >= 0; i-- {
		after[i] = min(after[i+1], opts[i].Spread.ends()[0])
	}
	start, upTo := 0, math.Inf(-1) // the rank's first option, the highest Hi so far
	for i := range opts {
		if i > 0 && after[i] > upTo {
			start = i
		}
		upTo = max(upTo, opts[i].Spread.ends()[1])
		opts[i].Rank = start + 1
	}
	for i := range opts {
		opts[i].Tied = (i > 0 && opts[i-1].Rank == opts[i].Rank) || (i+1 < len(opts) && opts[i+1].Rank == opts[i].Rank)
	}
}

// ends are the interval's ends, −∞ and +∞ when it is unknown (it spans
// everything).
func (i Interval) ends() [2]float64 {
	if !i.known() {
		return [2]float64{math.Inf(-1), math.Inf(1)}
	}
	return [2]float64{i.Lo, i.Hi}
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
const spreadRule = "each p99's interval spans its runs' 95 % intervals, over every run and study; \"<\": every interval after it above every one before, a real difference; \"~\": a tie"
