package measure

import (
	"errors"
	"testing"
	"time"
)

func TestParseStall(t *testing.T) {
	s, err := parseStall("some avg10=0.62 avg60=3.25 avg300=5.35 total=6550341914\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n")
	if err != nil || s.Avg10 != 0.62 || s.Total != 6550341914*time.Microsecond {
		t.Errorf("parsed %+v, %v", s, err)
	}
	for _, bad := range []string{"", "full avg10=0 total=0\n", "some avg10=x total=1\n", "some avg10=101 total=1\n",
		"some avg10=1 total=-5\n", "some avg60=1 total=5\n"} {
		if _, err := parseStall(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
}

// On a kernel with pressure stall information the totals only grow.
func TestReadPressure(t *testing.T) {
	a, err := ReadPressure()
	if errors.Is(err, ErrNoPressure) {
		t.Skipf("this kernel keeps none: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := ReadPressure()
	if err != nil || b.CPU.Total < a.CPU.Total || b.IO.Total < a.IO.Total {
		t.Errorf("%+v then %+v, %v", a, b, err)
	}
}
