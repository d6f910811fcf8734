// Package codeshape holds the tests of the code's own shape: that the
// files of a package do not all lean on each other (shape_test.go), so
// each file can be read with few others open, and that no function or
// file of the code is too long to read at once (length_test.go).
package codeshape
