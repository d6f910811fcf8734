package measure

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Three mappings of one file at offset 0 cannot merge: the count grows
// by three, and shrinks by three when they are unmapped.
func TestMappingsCountsMaps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 8192), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	var maps [][]byte
	for range 3 {
		b, err := syscall.Mmap(int(f.Fd()), 0, 8192, syscall.PROT_READ, syscall.MAP_SHARED)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(maps, b)
	}
	with, err := Mappings()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range maps {
		syscall.Munmap(b)
	}
	after, _ := Mappings()
	if with != before+3 || after != before {
		t.Fatalf("mappings %d, with 3 more %d, after unmapping %d", before, with, after)
	}
}

func TestReadLimits(t *testing.T) {
	l, err := ReadLimits()
	if err != nil {
		t.Fatal(err)
	}
	var r syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r)
	if l.OpenFiles != int64(r.Cur) || l.Mappings < 1 || l.Threads < 1 {
		t.Fatalf("limits %+v (open files soft limit %d)", l, r.Cur)
	}
}
