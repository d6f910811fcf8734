package sqldserver

import (
	"strings"
	"testing"
)

func TestFilesNeeded(t *testing.T) {
	for _, c := range []struct{ namespaces, maxActive, open, want int }{
		{1000, 0, 0, baseFiles + 5*1000},
		{1000, 2000, 10, baseFiles + 5*1000 + 2*10},
		{10000, 1000, 1000, baseFiles + 5*(1000+poolOvershoot) + 2*1000},
	} {
		if got := FilesNeeded(c.namespaces, c.maxActive, c.open); got != c.want {
			t.Errorf("FilesNeeded(%d, %d, %d) = %d, want %d", c.namespaces, c.maxActive, c.open, got, c.want)
		}
	}
}

// TestCheckFiles: the pool of the growth study of record (3,900 with a
// hold of 1,000 at a limit of 20,000, whose hold ran out of files at its
// 259th open store) is refused, and the pool the message names fits.
func TestCheckFiles(t *testing.T) {
	if err := CheckFiles(3000, 0, 100, 20000); err != nil {
		t.Errorf("3,000 namespaces loaded at a limit of 20,000: %v", err)
	}
	err := CheckFiles(20000, 3900, 1000, 20000)
	if err == nil || !strings.Contains(err.Error(), "20000 namespaces and 1000 open stores need about 21724 open files, more than the limit of 20000") ||
		!strings.Contains(err.Error(), "give --sqld-max-active 3555 or fewer") {
		t.Fatalf("the growth study's pool: %v", err)
	}
	if MaxPool(20000, 1000) != 3555 || MaxPool(20000, 0) != 3955 || MaxPool(10, 0) != 1 {
		t.Errorf("MaxPool = %d, %d, %d; want 3555, 3955, 1", MaxPool(20000, 1000), MaxPool(20000, 0), MaxPool(10, 0))
	}
	if err := CheckFiles(100000, 3555, 1000, 20000); err != nil {
		t.Errorf("the --sqld-max-active the message names does not fit: %v", err)
	}
	if err := CheckFiles(100000, 3556, 1000, 20000); err == nil {
		t.Error("one namespace more than the message names fits")
	}
}
