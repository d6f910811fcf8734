package orchestrate

import (
	"fmt"
	"os"
	"syscall"
)

// dropCaches writes back dirty pages and drops the kernel's page cache
// (echo 1 > /proc/sys/vm/drop_caches; root only, Validate checked).
func dropCaches() error {
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("1\n"), 0o200); err != nil {
		return fmt.Errorf("drop the page cache: %w", err)
	}
	return nil
}
