package measure

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// EvictionSample is how much of the files an eviction watch wrote is
// still in the page cache, After their sync, beside the machine's page
// cache and free memory then.
type EvictionSample struct {
	After    time.Duration
	Resident float64 // share of the files' data pages in the page cache
	CachedKB int64   // Cached in /proc/meminfo
	FreeKB   int64   // MemFree in /proc/meminfo
}

// WatchEviction writes size bytes under dir in files of fileSize, syncs
// them and leaves them alone: it samples their residency (Resident, which
// reads nothing in) right after and then every `every` until wait has
// passed or ctx ends, calling each with every sample. A machine that
// keeps clean page cache while memory is free shows 100 % throughout.
func WatchEviction(ctx context.Context, dir string, size, fileSize int64, wait, every time.Duration, each func(EvictionSample)) error {
	if err := writeFiles(dir, size, fileSize); err != nil {
		return err
	}
	start := time.Now()
	for {
		s, err := evictionSample(dir, time.Since(start))
		if err != nil {
			return err
		}
		each(s)
		if s.After >= wait {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(every, wait-s.After)):
		}
	}
}

// evictionSample samples the residency of the files under dir.
func evictionSample(dir string, after time.Duration) (EvictionSample, error) {
	r, err := Resident(dir)
	if err != nil {
		return EvictionSample{}, err
	}
	cached, err := meminfoKB("Cached")
	if err != nil {
		return EvictionSample{}, err
	}
	free, err := meminfoKB("MemFree")
	if err != nil {
		return EvictionSample{}, err
	}
	return EvictionSample{After: after, Resident: r.Fraction(), CachedKB: cached, FreeKB: free}, nil
}

// writeFiles writes size bytes under dir in files of fileSize (the last
// one smaller), each synced (fsync) and closed.
func writeFiles(dir string, size, fileSize int64) error {
	buf := make([]byte, fileSize)
	for i := range buf {
		buf[i] = byte(i*7 + 1) // not zeros: nothing may treat the file as sparse
	}
	for n := 0; size > 0; n++ {
		chunk := min(size, fileSize)
		if err := writeSynced(filepath.Join(dir, fmt.Sprintf("file-%06d", n)), buf[:chunk]); err != nil {
			return err
		}
		size -= chunk
	}
	return nil
}

// writeSynced writes b to a new file at path, synced and closed.
func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	return f.Close()
}
