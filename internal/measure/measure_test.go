package measure

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/sys/unix"
)

func TestParseSmapsRollup(t *testing.T) {
	in := []byte(`55d0c0a00000-7ffd4b5f9000 ---p 00000000 00:00 0                          [rollup]
Rss:               15396 kB
Pss:               12000 kB
Anonymous:         10160 kB
Swap:                  0 kB
`)
	m, err := parseSmapsRollup(in)
	if err != nil || m.RssKB != 15396 || m.AnonKB != 10160 {
		t.Fatalf("got %+v, %v; want Rss 15396, Anonymous 10160", m, err)
	}
	if _, err := parseSmapsRollup([]byte("Pss: 1 kB\n")); err == nil {
		t.Error("no error without Rss and Anonymous")
	}
}

func TestReadMemoryAndCounts(t *testing.T) {
	m, err := ReadMemory()
	if err != nil || m.RssKB <= 0 {
		t.Fatalf("ReadMemory = %+v, %v", m, err)
	}
	before, err := OpenFiles()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	after, _ := OpenFiles()
	f.Close()
	if after != before+1 {
		t.Errorf("open files %d → %d after opening one file", before, after)
	}
	if n, err := Threads(); err != nil || n < 1 {
		t.Errorf("Threads = %d, %v", n, err)
	}
}

func TestParseLoadavg(t *testing.T) {
	v, err := parseLoadavg([]byte("0.95 0.71 0.50 1/234 5678\n"))
	if err != nil || v != 0.95 {
		t.Fatalf("got %v, %v", v, err)
	}
	if _, err := parseLoadavg([]byte("x")); err == nil {
		t.Error("no error for a bad load average")
	}
}

func TestDirSpace(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "data.mdb"), make([]byte, 10000), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "lock"), []byte("x"), 0o644)
	s, err := DirSpace(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.ApparentBytes != 10001 || !slices.Equal(s.Files, []string{"data.mdb", "sub/lock"}) {
		t.Errorf("got %+v, want 10001 bytes in data.mdb and sub/lock", s)
	}
	if s.Bytes < 10000 || s.Bytes%512 != 0 {
		t.Errorf("allocated %d bytes, want at least the file's 10000, in 512-byte blocks", s.Bytes)
	}
}

func TestTHPEnabled(t *testing.T) {
	v, err := THPEnabled()
	if err != nil {
		t.Skipf("no THP_enabled here (kernel before 5.0?): %v", err)
	}
	if v != "0" && v != "1" {
		t.Errorf("THPEnabled = %q, want 0 or 1", v)
	}
}

func TestOpenFilesUnder(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, "held")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	held, err := OpenFilesUnder(dir)
	f.Close()
	if err != nil || !slices.Equal(held, []string{name}) {
		t.Errorf("OpenFilesUnder = %v, %v; want [%s]", held, err, name)
	}
	if held, _ := OpenFilesUnder(dir); len(held) != 0 {
		t.Errorf("after closing: %v, want none", held)
	}
}

func TestFlockHolder(t *testing.T) {
	locks := []byte("1: POSIX  ADVISORY  WRITE 99 08:01:5678 0 EOF\n" +
		"2: FLOCK  ADVISORY  WRITE 1234 fe:01:5678 0 EOF\n" +
		"2: -> FLOCK  ADVISORY  WRITE 4321 fe:01:5678 0 EOF\n")
	if pid, ok := flockHolder(locks, 0xfe, 1, 5678); !ok || pid != 1234 {
		t.Errorf("flockHolder = %d, %v; want 1234", pid, ok)
	}
	if _, ok := flockHolder(locks, 8, 1, 5678); ok {
		t.Error("a POSIX lock was taken for a flock")
	}

	path := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, ok := FlockHolder(path); ok {
		t.Error("a holder of an unlocked file")
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if pid, cmd, ok := FlockHolder(path); !ok || pid != os.Getpid() || cmd == "" {
		t.Errorf("FlockHolder = %d, %q, %v; want this process (%d)", pid, cmd, ok, os.Getpid())
	}
}
