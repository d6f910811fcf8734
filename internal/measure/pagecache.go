package measure

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Evict removes the files under dir from the page cache without root:
// each file that has dirty pages or pages under writeback is synced
// first (fdatasync), and every file is then dropped with
// posix_fadvise(POSIX_FADV_DONTNEED), which leaves dirty pages. A clean
// file is not synced: on ext4 that sync, with nothing to write, costs
// about as much as the drop (BenchmarkEvict). Where the kernel cannot
// count dirty pages (cachestat(2), Linux 6.5) every file is synced.
// Pages that another process maps or that the kernel keeps anyway stay;
// Resident tells how many.
func Evict(dir string) error { return EvictFiles(DirFiles(dir)) }

// EvictFiles is Evict of the files fs.
func EvictFiles(fs Files) error { return evictFiles(fs, false) }

// SyncEvictFiles is EvictFiles with every file synced first, dirty or
// not: a cold run's eviction right before each store's open, made the
// same way in every record (docs/method.md, --cache, says why).
func SyncEvictFiles(fs Files) error { return evictFiles(fs, true) }

// evictFiles syncs each of the files fs that has dirty pages, or every
// one (syncAll), and drops them from the page cache.
func evictFiles(fs Files, syncAll bool) error {
	return fs.each(func(path string, fd int, st *unix.Stat_t) error {
		if syncAll || dirty(fd, st.Size) {
			if err := unix.Fdatasync(fd); err != nil {
				return fmt.Errorf("fdatasync %s: %w", path, err)
			}
		}
		if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
			return fmt.Errorf("posix_fadvise %s: %w", path, err)
		}
		return nil
	})
}

// dirty says whether the open file fd, of size bytes, may have pages that
// are dirty or under writeback: true unless cachestat(2) counts none.
func dirty(fd int, size int64) bool {
	cs, err := cacheStat(fd, 0, size)
	return err != nil || cs.Dirty > 0 || cs.Writeback > 0
}

// cacheStat is cachestat(2) of the n bytes from off of the open file fd:
// its pages cached, dirty and under writeback.
func cacheStat(fd int, off, n int64) (unix.Cachestat_t, error) {
	var cs unix.Cachestat_t
	rng := unix.CachestatRange{Off: uint64(off), Len: uint64(n)}
	err := unix.Cachestat(uint(fd), &rng, &cs, 0)
	return cs, err
}

// ReadAll reads the data of every file under dir once, so that its pages
// are in the page cache (as far as the cache holds them) and count as
// just used. It hands each file to /dev/null with sendfile(2): the kernel
// takes each page of the file (reading it in if it must) and marks it
// accessed, as read(2) does, but copies nothing out, so cached files cost
// a fraction of io.Copy's 8 KB reads (BenchmarkReadAllFiles;
// docs/method.md). Reads of 256 KB were slower than io.Copy on the
// record's machine, and checking residency first with mincore, to skip
// resident files, cost more than reading them. A sparse file's holes are
// not read (sendData): reading one fills the page cache with zeros that
// no engine wrote.
func ReadAll(dir string) error {
	r, err := NewCacheReader()
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = r.Read(DirFiles(dir))
	return err
}

// CacheReader reads files into the page cache as ReadAll does, keeping
// /dev/null open from one call of Read to the next.
type CacheReader struct{ null *os.File }

// NewCacheReader opens /dev/null for a CacheReader; Close closes it.
func NewCacheReader() (*CacheReader, error) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("read files into the page cache: %w", err)
	}
	return &CacheReader{null: null}, nil
}

// Close closes the reader's /dev/null.
func (r *CacheReader) Close() error { return r.null.Close() }

// Read reads the data of the files fs into the page cache (ReadAll) and
// returns how many bytes it read.
func (r *CacheReader) Read(fs Files) (int64, error) {
	var total int64
	null := int(r.null.Fd())
	err := fs.each(func(path string, fd int, st *unix.Stat_t) error {
		n, err := sendData(null, fd, st)
		total += n
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		return nil
	})
	return total, err
}

// sendData sends the data of the open file fd, whose status is st, to
// the descriptor null and returns how many bytes it sent: the whole file
// when its allocated blocks cover its size (no hole, so no lseek), else
// each stretch of data that lseek(2)'s SEEK_DATA and SEEK_HOLE find.
func sendData(null, fd int, st *unix.Stat_t) (int64, error) {
	if st.Blocks*512 >= st.Size {
		return sendRange(null, fd, 0, st.Size)
	}
	var sent int64
	for off := int64(0); off < st.Size; {
		data, err := unix.Seek(fd, off, unix.SEEK_DATA)
		switch {
		case errors.Is(err, unix.ENXIO): // no data after off
			return sent, nil
		case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP):
			n, err := sendRange(null, fd, off, st.Size) // no SEEK_DATA here
			return sent + n, err
		case err != nil:
			return sent, fmt.Errorf("lseek SEEK_DATA: %w", err)
		}
		hole, err := unix.Seek(fd, data, unix.SEEK_HOLE)
		if err != nil {
			return sent, fmt.Errorf("lseek SEEK_HOLE: %w", err)
		}
		n, err := sendRange(null, fd, data, min(hole, st.Size))
		sent += n
		if err != nil {
			return sent, err
		}
		off = hole
	}
	return sent, nil
}

// sendRange sends the bytes of the open file fd from off up to end (or
// the file's end, if sooner) to the descriptor null with sendfile(2), or
// with reads where fd's filesystem cannot splice, and returns how many
// it sent. Knowing end, it makes no last call that finds nothing left.
func sendRange(null, fd int, off, end int64) (int64, error) {
	start := off
	for off < end {
		n, err := unix.Sendfile(null, fd, &off, int(end-off))
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS):
			n, err := readRange(fd, off, end)
			return off - start + n, err
		case err != nil:
			return off - start, err
		case n == 0: // the file is shorter than end
			return off - start, nil
		}
	}
	return off - start, nil
}

// readRange reads the open file fd from off up to end (or its end), 32
// KB at a time, drops what it reads and returns how many bytes it read.
func readRange(fd int, off, end int64) (int64, error) {
	buf := make([]byte, 32<<10)
	start := off
	for off < end {
		n, err := unix.Pread(fd, buf[:min(int64(len(buf)), end-off)], off)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return off - start, err
		case n == 0:
			return off - start, nil
		}
		off += int64(n)
	}
	return off - start, nil
}

// Residency is how much of a store's files is in the page cache.
type Residency struct {
	Pages    int64 // pages of the files (their apparent size)
	Resident int64 // of those, in the page cache
	// Allocated is the pages the filesystem holds data for (st_blocks): a
	// sparse file (bbolt grows its file with holes) has fewer, and a hole
	// that nothing reads is never in the page cache.
	Allocated int64
}

// Add adds o's pages to r's.
func (r *Residency) Add(o Residency) {
	r.Pages += o.Pages
	r.Resident += o.Resident
	r.Allocated += o.Allocated
}

// Fraction is the share of the files' data in the page cache: Resident
// over the pages that hold data (the allocated ones, or all pages when the
// filesystem reports no blocks), at most 1; 0 for no pages.
func (r Residency) Fraction() float64 {
	data := r.Pages
	if r.Allocated > 0 && r.Allocated < data {
		data = r.Allocated
	}
	if data == 0 {
		return 0
	}
	return min(1, float64(r.Resident)/float64(data))
}

// Resident counts the pages of the files under dir that are in the page
// cache, reading nothing in (cachestat(2), or mincore(2) on a read-only
// mapping where the kernel has no cachestat).
func Resident(dir string) (Residency, error) { return ResidentFiles(DirFiles(dir)) }

// ResidentFiles is Resident of the files fs.
func ResidentFiles(fs Files) (Residency, error) {
	var r Residency
	err := fs.each(func(path string, fd int, st *unix.Stat_t) error {
		fr, err := fileResidency(path, fd, st)
		r.Add(fr)
		return err
	})
	return r, err
}

// fileResidency counts the pages of one open file, fd, whose status is
// st, that are in the page cache (Resident's count, for one file): with cachestat(2)
// (Linux 6.5 and later), whose cost follows the pages cached, and where
// the kernel has none, with mincore(2), whose cost follows the file's size
// (a shared store's cold run checks its whole file before every agent;
// BenchmarkResidency compares the two).
func fileResidency(path string, fd int, st *unix.Stat_t) (Residency, error) {
	var r Residency
	size := st.Size
	if size == 0 {
		return r, nil
	}
	page := int64(os.Getpagesize())
	r.Allocated = (st.Blocks*512 + page - 1) / page
	r.Pages = (size + page - 1) / page
	n, err := cachedPages(fd, size)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		n, err = mincorePages(fd, size)
	}
	if err != nil {
		return r, fmt.Errorf("residency of %s: %w", path, err)
	}
	r.Resident = min(n, r.Pages)
	return r, nil
}

// cachedPages counts the pages of the open file fd in its first size
// bytes that are in the page cache, with cachestat(2).
func cachedPages(fd int, size int64) (int64, error) {
	cs, err := cacheStat(fd, 0, size)
	if err != nil {
		return 0, fmt.Errorf("cachestat: %w", err)
	}
	return int64(cs.Cache), nil
}

// mincorePages counts the pages of the open file fd in its first size
// bytes that are in the page cache, with mincore(2) on a read-only
// mapping (mapping reads nothing in).
func mincorePages(fd int, size int64) (int64, error) {
	m, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap: %w", err)
	}
	defer unix.Munmap(m)
	page := int64(os.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	// x/sys/unix has no wrapper for mincore(2).
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		return 0, fmt.Errorf("mincore: %w", errno)
	}
	var n int64
	for _, v := range vec {
		n += int64(v & 1)
	}
	return n, nil
}

// A fileFunc is called with a file's path, the file opened read-only (a
// file descriptor, closed when fn returns) and its status.
type fileFunc func(path string, fd int, st *unix.Stat_t) error

// walkFiles calls fn for every regular file under dir, in the order the
// directories list them. It reads each directory with getdents(2):
// filepath.WalkDir's sorted listing cost more than opening a store's
// file (BenchmarkWalkFiles). A subdirectory removed meanwhile is skipped,
// as openFile skips a file.
func walkFiles(dir string, fn fileFunc) error { return walkDir(filepath.Clean(dir), fn) }

// walkDir is walkFiles of a clean path.
func walkDir(dir string, fn fileFunc) error {
	fd, err := openRetrying(dir, unix.O_DIRECTORY)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	subdirs, err := eachEntry(fd, dir, fn)
	unix.Close(fd)
	if err != nil {
		return err
	}
	for _, sub := range subdirs {
		if err := walkDir(sub, fn); err != nil && !dirGone(err, sub) {
			return err
		}
	}
	return nil
}

// dirGone says whether err is walkDir's failure to open dir because it
// is no longer there.
func dirGone(err error, dir string) bool {
	var pe *os.PathError
	return errors.As(err, &pe) && pe.Op == "open" && pe.Path == dir && errors.Is(pe.Err, unix.ENOENT)
}

// The offsets in a getdents(2) record (struct linux_dirent64) of the
// fields eachEntry reads.
const (
	direntIno    = int(unsafe.Offsetof(unix.Dirent{}.Ino))
	direntReclen = int(unsafe.Offsetof(unix.Dirent{}.Reclen))
	direntType   = int(unsafe.Offsetof(unix.Dirent{}.Type))
	direntName   = int(unsafe.Offsetof(unix.Dirent{}.Name))
)

// eachEntry reads the directory fd, whose path is dir: it calls fn for
// each regular file and returns the paths of the subdirectories. An entry
// whose type the filesystem does not give is looked up (lstat).
func eachEntry(fd int, dir string, fn fileFunc) ([]string, error) {
	var subdirs []string
	buf := make([]byte, 4096)
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: dir, Err: err}
		}
		if n == 0 {
			return subdirs, nil
		}
		for off := 0; off < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+direntReclen:]))
			if reclen <= direntName || off+reclen > n {
				return nil, fmt.Errorf("getdents %s: a record of %d bytes at %d of %d", dir, reclen, off, n)
			}
			rec := buf[off : off+reclen]
			off += reclen
			name := unix.ByteSliceToString(rec[direntName:])
			if name == "." || name == ".." || binary.NativeEndian.Uint64(rec[direntIno:]) == 0 {
				continue
			}
			path := dir + "/" + name
			switch typ, err := entryType(path, rec[direntType]); {
			case err != nil:
				return nil, err
			case typ == unix.DT_REG:
				if err := openFile(path, fn); err != nil {
					return nil, err
				}
			case typ == unix.DT_DIR:
				subdirs = append(subdirs, path)
			}
		}
	}
}

// entryType is a directory entry's type: typ as getdents(2) gave it, or,
// where the filesystem gave none (DT_UNKNOWN), from lstat(2) of path; an
// entry removed meanwhile has none (DT_UNKNOWN).
func entryType(path string, typ uint8) (uint8, error) {
	if typ != unix.DT_UNKNOWN {
		return typ, nil
	}
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		return unix.DT_UNKNOWN, nil
	case err != nil:
		return 0, &os.PathError{Op: "lstat", Path: path, Err: err}
	case st.Mode&unix.S_IFMT == unix.S_IFREG:
		return unix.DT_REG, nil
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return unix.DT_DIR, nil
	}
	return unix.DT_UNKNOWN, nil
}

// openFile calls fn with the file at path opened read-only and its
// status; a file that is gone is skipped. It opens the file with open(2)
// itself: os.Open's registration with Go's poller (four fcntl calls and
// an epoll_ctl that a regular file refuses) doubled the cost of a cached
// file's open, status and close (BenchmarkOpenFile).
func openFile(path string, fn fileFunc) error {
	fd, err := openRetrying(path, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // removed meanwhile (an engine's temporary file)
	}
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	return fn(path, fd, &st)
}

// openRetrying opens path read-only (close-on-exec, with the flags
// added), retrying when a signal interrupts the call, as os.Open does.
func openRetrying(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC|flags, 0)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// Files are a store's files: every regular file under Dir (DirFiles), or
// the files Names, relative to Dir, that a server keeps a store in
// (ListedFiles).
type Files struct {
	Dir    string
	Names  []string
	listed bool
}

// DirFiles are the files under dir.
func DirFiles(dir string) Files { return Files{Dir: dir} }

// ListedFiles are the files names, relative to base.
func ListedFiles(base string, names []string) Files {
	return Files{Dir: base, Names: names, listed: true}
}

// each calls fn for each of the files, opened read-only.
func (fs Files) each(fn fileFunc) error {
	if !fs.listed {
		return walkFiles(fs.Dir, fn)
	}
	for _, n := range fs.Names {
		if err := openFile(filepath.Join(fs.Dir, n), fn); err != nil {
			return err
		}
	}
	return nil
}
