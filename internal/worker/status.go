package worker

import (
	"encoding/binary"
	"strconv"

	"golang.org/x/sys/unix"

	"manydb/internal/job"
)

// status is the worker's status page (job.StatusEnv): where the store
// loop is, for the orchestrator's watchdog to name the store a stalled
// worker was stuck in. Writing it is two stores to memory, between timed
// spans.
type status struct {
	page []byte // nil: no status page
}

// openStatus maps the status page whose file descriptor fd names (the
// value of job.StatusEnv); with none, or one that cannot be mapped, the
// worker keeps no status.
func openStatus(fd string) status {
	n, err := strconv.Atoi(fd)
	if fd == "" || err != nil {
		return status{}
	}
	page, err := unix.Mmap(n, 0, job.StatusSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return status{}
	}
	return status{page: page}
}

// at says that store i is being worked on.
func (s status) at(i int) {
	if s.page != nil {
		binary.LittleEndian.PutUint64(s.page[job.StatusStore:], uint64(i+1))
	}
}

// done says that n stores are done.
func (s status) done(n int) {
	if s.page != nil {
		binary.LittleEndian.PutUint64(s.page[job.StatusDone:], uint64(n))
	}
}

// close unmaps the page.
func (s status) close() {
	if s.page != nil {
		unix.Munmap(s.page)
	}
}
