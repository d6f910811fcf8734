//go:build cgo

package worker

import "testing"

// The probe sees keys taken and given back, and leaves none taken itself.
func TestFreePthreadKeysCountsKeysTaken(t *testing.T) {
	free0, max := freePthreadKeys()
	if max < 128 || free0 <= 5 || free0 > max {
		t.Fatalf("free pthread keys %d of %d: want PTHREAD_KEYS_MAX ≥ 128 and more than 5 free", free0, max)
	}
	release, made := takePthreadKeys(5)
	if made != 5 {
		release()
		t.Fatalf("made %d of 5 pthread keys with %d free", made, free0)
	}
	free1, _ := freePthreadKeys()
	release()
	free2, _ := freePthreadKeys()
	if free1 != free0-5 || free2 != free0 {
		t.Fatalf("free pthread keys %d, with 5 taken %d, given back %d: want %d, %d, %d", free0, free1, free2, free0, free0-5, free0)
	}
}
