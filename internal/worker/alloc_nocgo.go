//go:build !cgo

package worker

// findAllocator, in a worker built without cgo (turso-go's purego worker
// on a machine without a C compiler, say), reads the memory map only: see
// allocatorFromMaps.
func findAllocator() (Allocator, error) { return allocatorFromMaps("/proc/self/maps") }
