//go:build !cgo

package worker

// freePthreadKeys, in a worker built without cgo, cannot ask the C
// library: -1, -1 (its engine is pure Go and makes no pthread keys).
func freePthreadKeys() (free, max int) { return -1, -1 }
