//go:build !cgo

package worker

// findAllocator: a worker built without cgo has no C malloc.
func findAllocator() (Allocator, error) { return Allocator{}, errNoCgo }
