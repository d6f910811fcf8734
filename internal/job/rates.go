package job

import (
	"fmt"
	"math"
	"strconv"
)

// RateMax is the rung of a rate ladder (serve --rates) that has no rate:
// the closed loop, as fast as the engine serves, written as rate 0.
const RateMax = "max"

// ParseRate reads one rung of serve --rates: requests per second (a
// finite number above 0, an open loop), or max (0: the closed loop).
func ParseRate(s string) (float64, error) {
	if s == RateMax {
		return 0, nil
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || !(r > 0) || math.IsInf(r, 1) {
		return 0, fmt.Errorf("--rates %q: give requests per second above 0, or %s for the closed loop, e.g. 10,100,1000,%s", s, RateMax, RateMax)
	}
	return r, nil
}

// FormatRate writes a rung of a rate ladder as --rates takes it: max for
// the closed loop (0).
func FormatRate(r float64) string {
	if r == 0 {
		return RateMax
	}
	return strconv.FormatFloat(r, 'g', -1, 64)
}
