package job

import "testing"

// TestParseRate: a rung of --rates is requests per second above 0, or max
// (the closed loop, 0); FormatRate writes it back as --rates takes it.
func TestParseRate(t *testing.T) {
	for s, want := range map[string]float64{"10": 10, "0.5": 0.5, "1e3": 1000, "max": 0} {
		got, err := ParseRate(s)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", s, got, err, want)
		}
		if back, _ := ParseRate(FormatRate(got)); back != got {
			t.Errorf("FormatRate(%v) = %q reads back as %v", got, FormatRate(got), back)
		}
	}
	for _, s := range []string{"0", "-5", "NaN", "+Inf", "MAX", "", "10/s"} {
		if _, err := ParseRate(s); err == nil {
			t.Errorf("ParseRate(%q) accepted", s)
		}
	}
	if got, err := ParseList("10,100,max", ParseRate); err != nil || len(got) != 3 || got[2] != 0 {
		t.Errorf("ParseList(10,100,max) = %v, %v", got, err)
	}
}
