package results

import "testing"

// A warm run reads its stores again only while its sample is cold, its
// passes last and its files could all fit in the memory available.
func TestPrewarmAgain(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		name             string
		pass             int
		resident         float64
		readBytes, avail int64
		want             bool
	}{
		{"warm after the first pass", 1, WarmResident, 1 * gib, 20 * gib, false},
		{"cold, the files fit", 1, 0.6, 1 * gib, 20 * gib, true},
		{"cold, passes spent", PrewarmPasses, 0.6, 1 * gib, 20 * gib, false},
		{"cold, files larger than the memory available", 1, 0.6, 34 * gib, 20 * gib, false},
		{"cold, memory not known", 2, 0.6, 34 * gib, 0, true},
	} {
		if got := PrewarmAgain(c.pass, c.resident, c.readBytes, c.avail); got != c.want {
			t.Errorf("%s: PrewarmAgain = %v, want %v", c.name, got, c.want)
		}
	}
}
