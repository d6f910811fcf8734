package orchestrate

import (
	"bytes"
	"strings"
	"testing"
)

// TestLineProgressNamesItsUnit: a progress line counts the phase's unit
// (requests for serve, agents for the delete phase), and a phase slower
// than one step a second shows its rate, not 0/s.
func TestLineProgressNamesItsUnit(t *testing.T) {
	var b bytes.Buffer
	l := &lineProgress{w: &b}
	l.Start("fake serve", 400, "request")
	l.Set(100, 400)
	l.Start("fake shared create", 400, "store")
	l.Set(0, 400)
	got := b.String()
	for _, want := range []string{"fake serve: 100/400 requests, ", "fake shared create: 0/400 stores after"} {
		if !strings.Contains(got, want) {
			t.Errorf("progress lines lack %q:\n%s", want, got)
		}
	}
	for rate, want := range map[float64]string{0.27: "0.27", 3.44: "3.4", 12.6: "13", 250: "250"} {
		if got := rateText(rate); got != want {
			t.Errorf("rateText(%v) = %q, want %q", rate, got, want)
		}
	}
}
