package measure

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEvictResident(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 1<<20)
	for i := range data {
		data[i] = byte(i)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sub", "b"), data[:4096*3], 0o644); err != nil {
		t.Fatal(err)
	}
	before, err := Resident(dir)
	if err != nil {
		t.Fatal(err)
	}
	if before.Pages != 256+3 {
		t.Fatalf("pages = %d, want 259", before.Pages)
	}
	if before.Resident == 0 {
		t.Skip("the files just written are not in the page cache: this filesystem bypasses it, so eviction cannot be tested here")
	}
	if err := Evict(dir); err != nil {
		t.Fatal(err)
	}
	after, err := Resident(dir)
	if err != nil {
		t.Fatal(err)
	}
	if after.Resident != 0 {
		t.Fatalf("after Evict %d of %d pages resident (before %d)", after.Resident, after.Pages, before.Resident)
	}
	if _, err := os.ReadFile(filepath.Join(dir, "a")); err != nil {
		t.Fatal(err)
	}
	read, err := Resident(dir)
	if err != nil {
		t.Fatal(err)
	}
	if read.Resident < 256 {
		t.Fatalf("after reading a, %d pages resident, want at least 256", read.Resident)
	}
}

// TestResidentSparse: a sparse file's holes are never read, so a file
// whose data pages are all cached counts as fully resident.
func TestResidentSparse(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "sparse"))
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = 1
	}
	if _, err := f.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 20); err != nil { // 960 KB of hole
		t.Fatal(err)
	}
	f.Close()
	r, err := Resident(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r.Pages != 256 || r.Allocated >= r.Pages {
		t.Skipf("pages %d, allocated %d: this filesystem does not keep the file sparse", r.Pages, r.Allocated)
	}
	if r.Resident == 0 {
		t.Skip("the data just written is not in the page cache: this filesystem bypasses it")
	}
	if got := r.Fraction(); got < 0.95 {
		t.Errorf("fraction %.2f with %d of %d pages resident and %d allocated: want the data pages' share, about 1", got, r.Resident, r.Pages, r.Allocated)
	}
	if err := Evict(dir); err != nil {
		t.Fatal(err)
	}
	if r, _ := Resident(dir); r.Fraction() != 0 {
		t.Errorf("after Evict: fraction %.2f", r.Fraction())
	}
}

// TestReadAll: it brings evicted files back into the page cache
// (measure.TestEvictResident shows whether this filesystem can evict).
func TestReadAll(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 600<<10)
	for i := range data {
		data[i] = byte(i)
	}
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Evict(dir); err != nil {
		t.Fatal(err)
	}
	if r, err := Resident(dir); err != nil || r.Resident != 0 {
		t.Fatalf("after Evict: %d pages resident (%v), want 0", r.Resident, err)
	}
	if err := ReadAll(dir); err != nil {
		t.Fatal(err)
	}
	if r, err := Resident(dir); err != nil || r.Fraction() < 1 {
		t.Fatalf("after ReadAll: %.2f resident (%v), want all", r.Fraction(), err)
	}
}
