package measure

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
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
	// Now clean, the files are dropped without a sync.
	if err := Evict(dir); err != nil {
		t.Fatal(err)
	}
	if r, err := Resident(dir); err != nil || r.Resident != 0 {
		t.Fatalf("after evicting clean files: %d pages resident (%v), want 0", r.Resident, err)
	}
	// A cold run's eviction syncs every file and drops it the same.
	if err := ReadAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := SyncEvictFiles(DirFiles(dir)); err != nil {
		t.Fatal(err)
	}
	if r, err := Resident(dir); err != nil || r.Resident != 0 {
		t.Fatalf("after SyncEvictFiles: %d pages resident (%v), want 0", r.Resident, err)
	}
}

// TestDirty: a file just written has dirty pages (or pages under
// writeback), one synced has none.
func TestDirty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !dirty(int(f.Fd()), 1<<20) {
		t.Fatal("a file just written: dirty says no page is dirty")
	}
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		t.Fatal(err)
	}
	var cs unix.Cachestat_t
	if err := unix.Cachestat(uint(f.Fd()), &unix.CachestatRange{Len: 1 << 20}, &cs, 0); err != nil {
		t.Skipf("no cachestat here (%v): dirty says yes for every file", err)
	}
	if dirty(int(f.Fd()), 1<<20) {
		t.Fatal("a file synced: dirty says it has dirty pages")
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

// TestCountersAgree: with the file evicted and then 10 of its pages read
// without readahead, both ways of counting cached pages say 10 (cachestat
// where the kernel has it).
func TestCountersAgree(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	page := os.Getpagesize()
	size := int64(64 * page)
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := EvictFiles(ListedFiles(filepath.Dir(path), []string{"f"})); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_RANDOM); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	for i := range 10 {
		if _, err := f.ReadAt(buf, int64(i*5*page)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := mincorePages(int(f.Fd()), size)
	if err != nil {
		t.Fatal(err)
	}
	if n == 64 {
		t.Skip("this filesystem keeps pages after POSIX_FADV_DONTNEED: nothing to count apart")
	}
	if n != 10 {
		t.Fatalf("mincore counts %d cached pages, want 10", n)
	}
	c, err := cachedPages(int(f.Fd()), size)
	if errors.Is(err, unix.ENOSYS) {
		t.Skipf("no cachestat in this kernel (%v); mincore counted 10", err)
	}
	if err != nil || c != 10 {
		t.Fatalf("cachestat counts %d cached pages (%v), want 10", c, err)
	}
}

// BenchmarkResidency counts the cached pages of a 1 GiB file that is not
// in the page cache, as a shared store's cold run does before each agent:
// cachestat's cost follows the pages cached, mincore's the file's size.
func BenchmarkResidency(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	const size = 1 << 30
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, size), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := EvictFiles(ListedFiles(filepath.Dir(path), []string{"f"})); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct {
		name  string
		count func(int, int64) (int64, error)
	}{{"cachestat", cachedPages}, {"mincore", mincorePages}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := c.count(int(f.Fd()), size); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadAllFiles reads 100 cached files of 344 KB (a store's size
// in the reference workload) into the page cache, as a warm run's prewarm
// does: with sendfile to /dev/null (CacheReader) and, for comparison,
// with reads of 8 KB (io.Copy's, which it replaced).
func BenchmarkReadAllFiles(b *testing.B) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte{1}, 344<<10)
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("sendfile", func(b *testing.B) { benchRead(b, dir) })
	b.Run("read-8KB", func(b *testing.B) {
		buf := make([]byte, 8<<10)
		for b.Loop() {
			err := DirFiles(dir).each(func(path string, fd int, _ *unix.Stat_t) error {
				for {
					n, err := unix.Read(fd, buf)
					if err != nil || n == 0 {
						return err
					}
				}
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReadSparseFiles reads 100 cached sparse files into the page
// cache as a warm run's prewarm does: 1 MB each with 20 bytes of data,
// like badger's DISCARD file in every store.
func BenchmarkReadSparseFiles(b *testing.B) {
	dir := b.TempDir()
	for i := range 100 {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 20), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Truncate(path, 1<<20); err != nil {
			b.Fatal(err)
		}
	}
	benchRead(b, dir)
}

// benchRead reads the files under dir into the page cache with a
// CacheReader, b.N times.
func benchRead(b *testing.B, dir string) {
	r, err := NewCacheReader()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for b.Loop() {
		if _, err := r.Read(DirFiles(dir)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvict evicts 100 clean cached files of 344 KB, as a hold in a
// memory cgroup does before its opens: Evict, which syncs only files with
// dirty pages, and, for comparison, a sync of every file first.
func BenchmarkEvict(b *testing.B) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte{1}, 344<<10)
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	syncEach := func(dir string) error {
		return DirFiles(dir).each(func(path string, fd int, _ *unix.Stat_t) error {
			return unix.Fdatasync(fd)
		})
	}
	if err := syncEach(dir); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		first func(string) error
	}{{"Evict", func(string) error { return nil }}, {"fdatasync+Evict", syncEach}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				if err := ReadAll(dir); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := c.first(dir); err != nil {
					b.Fatal(err)
				}
				if err := Evict(dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpenFile opens a cached file, reads its status and closes it,
// as every page cache pass does for each file of each store: with
// open(2) itself (openFile) and, for comparison, with os.Open, which
// openFile replaced.
func BenchmarkOpenFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, 344<<10), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("openFile", func(b *testing.B) {
		for b.Loop() {
			if err := openFile(path, func(string, int, *unix.Stat_t) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("os.Open", func(b *testing.B) {
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := f.Stat(); err != nil {
				b.Fatal(err)
			}
			f.Fd()
			f.Close()
		}
	})
}

// TestOpenFileGone: a listed file that is gone is skipped, another
// failure to open is an error naming the file, and fn gets the file's
// status and a descriptor it can read.
func TestOpenFileGone(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("12345"), 0o644); err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	err := ListedFiles(dir, []string{"gone", "a"}).each(func(path string, fd int, st *unix.Stat_t) error {
		buf := make([]byte, 8)
		n, err := unix.Read(fd, buf)
		if err != nil || string(buf[:n]) != "12345" {
			t.Errorf("read %s: %q (%v), want 12345", path, buf[:n], err)
		}
		sizes = append(sizes, st.Size)
		return nil
	})
	if err != nil || !slices.Equal(sizes, []int64{5}) {
		t.Fatalf("each over a gone and a present file: sizes %v (%v), want [5]", sizes, err)
	}
	err = ListedFiles(dir, []string{"a/b"}).each(func(string, int, *unix.Stat_t) error { return nil })
	if !errors.Is(err, unix.ENOTDIR) || !strings.Contains(err.Error(), "a/b") {
		t.Fatalf("each over a path through a file: %v, want ENOTDIR naming a/b", err)
	}
}

// TestReadRange: the reads that stand in for sendfile(2) where a
// filesystem cannot splice read the range asked for, and stop at the
// file's end.
func TestReadRange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	const size = 100<<10 + 7
	if err := os.WriteFile(path, bytes.Repeat([]byte{1}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	err := openFile(path, func(_ string, fd int, _ *unix.Stat_t) error {
		for _, c := range []struct{ off, end, want int64 }{
			{0, 1 << 30, size}, {10, 20, 10}, {40 << 10, 100 << 10, 60 << 10}, {size, size + 5, 0},
		} {
			n, err := readRange(fd, c.off, c.end)
			if err != nil {
				return err
			}
			if n != c.want {
				t.Errorf("readRange(%d, %d) read %d bytes, want %d", c.off, c.end, n, c.want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadSkipsHoles: a sparse file's data is read into the page cache,
// and its holes are not (reading them would cache pages of zeros): after
// an eviction, a Read of a 1 MB file with 4 KB of data at its start and
// at 512 KB caches both and no page far from them, and says it read 8 KB.
func TestReadSkipsHoles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sparse")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	page := bytes.Repeat([]byte{1}, 4096)
	for _, off := range []int64{0, 512 << 10} {
		if _, err := f.WriteAt(page, off); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Truncate(1 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if r, _ := Resident(dir); r.Allocated >= r.Pages {
		t.Skipf("pages %d, allocated %d: this filesystem does not keep the file sparse", r.Pages, r.Allocated)
	}
	if err := Evict(dir); err != nil {
		t.Fatal(err)
	}
	r, err := NewCacheReader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n, err := r.Read(DirFiles(dir))
	if err != nil {
		t.Fatal(err)
	}
	if n != 8192 {
		t.Errorf("Read says it read %d bytes, want the 8192 of data", n)
	}
	for _, c := range []struct{ off, len, want int64 }{{0, 4096, 1}, {512 << 10, 4096, 1}, {192 << 10, 256 << 10, 0}, {768 << 10, 256 << 10, 0}} {
		if got := cachedRange(t, path, c.off, c.len); got != c.want {
			t.Errorf("%d pages cached from %d KB for %d KB, want %d", got, c.off>>10, c.len>>10, c.want)
		}
	}
}

// cachedRange counts the cached pages of the file at path in len bytes
// from off, with cachestat(2); it skips the test where the kernel has
// none.
func cachedRange(t *testing.T, path string, off, len int64) int64 {
	t.Helper()
	var cs unix.Cachestat_t
	err := openFile(path, func(_ string, fd int, _ *unix.Stat_t) (err error) {
		cs, err = cacheStat(fd, off, len)
		return err
	})
	if errors.Is(err, unix.ENOSYS) {
		t.Skip("no cachestat(2) in this kernel")
	}
	if err != nil {
		t.Fatal(err)
	}
	return int64(cs.Cache)
}

// TestWalkFiles: every regular file under a directory, its
// subdirectories' too, and nothing else (no symbolic link, no FIFO, no
// directory); a directory that is not there is an error.
func TestWalkFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "sub/b", "sub/deeper/c"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(dir, "sub", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := walkFiles(dir+"/", func(path string, fd int, st *unix.Stat_t) error {
		rel, err := filepath.Rel(dir, path)
		if err == nil && st.Size != int64(len(rel)) {
			t.Errorf("%s: size %d, want %d", rel, st.Size, len(rel))
		}
		got = append(got, rel)
		return err
	})
	slices.Sort(got)
	if want := []string{"a", "sub/b", "sub/deeper/c"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("walkFiles: %v (%v), want %v", got, err, want)
	}
	err = walkFiles(filepath.Join(dir, "missing"), func(string, int, *unix.Stat_t) error { return nil })
	if !errors.Is(err, unix.ENOENT) {
		t.Fatalf("walkFiles of a missing directory: %v, want ENOENT", err)
	}
}

// BenchmarkWalkFiles lists a store's directory of three files (a SQLite
// store in WAL mode) and opens each, as each page cache pass does: with
// getdents(2) (walkFiles) and, for comparison, with filepath.WalkDir,
// which it replaced.
func BenchmarkWalkFiles(b *testing.B) {
	dir := b.TempDir()
	for _, name := range []string{"db", "db-wal", "db-shm"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	nothing := func(string, int, *unix.Stat_t) error { return nil }
	b.Run("getdents", func(b *testing.B) {
		for b.Loop() {
			if err := walkFiles(dir, nothing); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("WalkDir", func(b *testing.B) {
		for b.Loop() {
			err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.Type().IsRegular() {
					return err
				}
				return openFile(path, nothing)
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestWalkFilesManyEntries: a directory whose listing takes more than
// one read of getdents(2) (300 long names) is listed whole.
func TestWalkFilesManyEntries(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		name := fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 40))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]bool{}
	err := walkFiles(dir, func(path string, _ int, _ *unix.Stat_t) error {
		seen[filepath.Base(path)] = true
		return nil
	})
	if err != nil || len(seen) != 300 {
		t.Fatalf("walkFiles listed %d of 300 files (%v)", len(seen), err)
	}
}

// TestDirGone: only the failure to open the very directory, because it
// is gone, counts as a subdirectory removed meanwhile.
func TestDirGone(t *testing.T) {
	gone := &os.PathError{Op: "open", Path: "d/sub", Err: unix.ENOENT}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{gone, true},
		{fmt.Errorf("wrapped: %w", gone), true},
		{&os.PathError{Op: "open", Path: "d/sub/f", Err: unix.ENOENT}, false},
		{&os.PathError{Op: "getdents", Path: "d/sub", Err: unix.ENOENT}, false},
		{&os.PathError{Op: "open", Path: "d/sub", Err: unix.EACCES}, false},
	} {
		if got := dirGone(c.err, "d/sub"); got != c.want {
			t.Errorf("dirGone(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
