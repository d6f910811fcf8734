// Package codeshape holds the tests of the code's own shape: that the
// files of a package do not all lean on each other (shape_test.go), so
// each file can be read with few others open, and that no function or
// file of the code is too long to read at once (length_test.go); and that
// docs/code.md, the code map, names every package under internal/ and no
// path that is gone (codemap_test.go).
package codeshape
