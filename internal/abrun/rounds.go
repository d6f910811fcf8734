package abrun

import (
	"context"
	"fmt"
	"time"
)

// order is round n's order: A B, B A, A B, … (ABBA over two rounds).
func order(c Config, n int) [2]Side {
	if n%2 == 0 {
		return [2]Side{c.B, c.A}
	}
	return [2]Side{c.A, c.B}
}

// runRound runs round n: both sides in its order.
func runRound(ctx context.Context, c Config, n int, measure measureFunc, now func() time.Time) (Round, error) {
	r := Round{N: n, Started: now()}
	for _, s := range order(c, n) {
		r.Order += s.Name
		v, err := measure(ctx, n, s)
		if err != nil {
			return r, fmt.Errorf("round %d, side %s: %w", n, s.Name, err)
		}
		if s.Name == c.A.Name {
			r.A = v.byName()
		} else {
			r.B = v.byName()
		}
	}
	r.Seconds = now().Sub(r.Started).Seconds()
	return r, nil
}

// runRounds runs rounds until every figure has a verdict, MaxRounds ran,
// or the next round would pass MaxTime; it judges after each round from
// MinRounds on.
func runRounds(ctx context.Context, c Config, measure measureFunc, now func() time.Time) (*Comparison, error) {
	start := now()
	cmp := &Comparison{Stopped: fmt.Sprintf("%d rounds, the most asked for (--max-rounds)", c.MaxRounds)}
	for n := 1; n <= c.MaxRounds; n++ {
		if c.MaxTime > 0 && n > c.MinRounds && now().Sub(start)+meanRound(cmp.Rounds) > c.MaxTime {
			cmp.Stopped = fmt.Sprintf("%d rounds: another would pass --max-time %s", n-1, c.MaxTime)
			break
		}
		r, err := runRound(ctx, c, n, measure, now)
		if err != nil {
			return cmp, err
		}
		cmp.Rounds = append(cmp.Rounds, r)
		if n < c.MinRounds {
			progress(c, cmp, start, now)
			continue
		}
		if cmp.Results, err = judge(c, cmp.Rounds); err != nil {
			return cmp, err
		}
		progress(c, cmp, start, now)
		if decided(cmp.Results) {
			cmp.Stopped = fmt.Sprintf("%d rounds: every figure has a verdict", n)
			break
		}
	}
	return cmp, nil
}

// meanRound is how long a round took on average so far.
func meanRound(rounds []Round) time.Duration {
	if len(rounds) == 0 {
		return 0
	}
	var s float64
	for _, r := range rounds {
		s += r.Seconds
	}
	return time.Duration(s / float64(len(rounds)) * float64(time.Second))
}

// progress writes a line on the rounds so far: the verdicts' counts, and
// how many rounds and how long the undecided figures need at this spread.
func progress(c Config, cmp *Comparison, start time.Time, now func() time.Time) {
	if c.Progress == nil {
		return
	}
	n := len(cmp.Rounds)
	if n < c.MinRounds {
		fmt.Fprintf(c.Progress, "ab: round %d of at least %d done (%s)\n", n, c.MinRounds, now().Sub(start).Round(time.Second))
		return
	}
	counts, need := tally(cmp.Results)
	line := fmt.Sprintf("ab: round %d: %s (%s)", n, counts, now().Sub(start).Round(time.Second))
	if more := min(need, c.MaxRounds) - n; more > 0 {
		line += fmt.Sprintf("; about %d rounds more, ETA %s", more, (time.Duration(more) * meanRound(cmp.Rounds)).Round(time.Second))
	}
	fmt.Fprintln(c.Progress, line)
}
