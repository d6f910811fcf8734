package orchestrate

import (
	"strings"
	"testing"
)

func TestParseStrace(t *testing.T) {
	out := `4711 fdatasync(5)                      = 0 <0.004000>
4712 fsync(6 <unfinished ...>
4711 msync(0x7f0000000000, 4096, MS_SYNC) = 0 <0.000100>
4712 <... fsync resumed>)                = 0 <0.002000>
4711 fdatasync(9)                      = -1 EBADF (Bad file descriptor) <0.000001>
--- SIGURG {si_signo=SIGURG} ---
4711 openat(AT_FDCWD, "/d/data.mdb", O_RDWR|O_CREAT, 0644) = 6 <0.000010>
4711 openat(AT_FDCWD, "/d/data.mdb", O_WRONLY|O_DSYNC|O_CLOEXEC <unfinished ...>
4712 write(1, "progress", 8)           = 8 <0.000010>
4711 <... openat resumed>)             = 7 <0.000020>
4711 pwrite64(6, "\0\0", 4096, 8192)    = 4096 <0.000021>
4711 pwrite64(7, "\0\0", 120, 4128)     = 120 <0.004867>
4711 close(7)                          = 0 <0.000002>
4711 openat(AT_FDCWD, "/d/other", O_RDWR|O_CREAT, 0644) = 7 <0.000010>
4711 pwrite64(7, "\0\0", 120, 0)        = 120 <0.000100>
fdatasync(3) = 0 <0.001000>
`
	s, err := ParseStrace(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if s.Calls["fdatasync"] != 2 || s.Calls["fsync"] != 1 || s.Calls["msync"] != 1 || s.Calls[DsyncWrite] != 1 || len(s.Calls) != 4 {
		t.Errorf("calls = %v, want fdatasync 2 (the failed one not counted), fsync 1, msync 1, %s 1 (only the write to the O_DSYNC descriptor before its close)", s.Calls, DsyncWrite)
	}
	want := []float64{4, 0.1, 2, 4.867, 1}
	if len(s.CallMs) != len(want) {
		t.Fatalf("durations = %v, want %v", s.CallMs, want)
	}
	for i := range want {
		if d := s.CallMs[i] - want[i]; d > 1e-9 || d < -1e-9 {
			t.Errorf("duration %d = %v ms, want %v", i, s.CallMs[i], want[i])
		}
	}
}
