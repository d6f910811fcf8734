package sqldserver

import (
	"strings"
	"testing"
)

func TestFilesNeeded(t *testing.T) {
	for _, c := range []struct{ namespaces, maxActive, want int }{
		{1000, 0, baseFiles + 5*1000},
		{1000, 2000, baseFiles + 5*1000},
		{10000, 1000, baseFiles + 5*(1000+poolOvershoot)},
	} {
		if got := FilesNeeded(c.namespaces, c.maxActive); got != c.want {
			t.Errorf("FilesNeeded(%d, %d) = %d, want %d", c.namespaces, c.maxActive, got, c.want)
		}
	}
}

func TestCheckFiles(t *testing.T) {
	if err := CheckFiles(3000, 0, 20000); err != nil {
		t.Errorf("3,000 namespaces loaded at a limit of 20,000: %v", err)
	}
	if err := CheckFiles(10000, 1000, 20000); err != nil {
		t.Errorf("a pool of 1,000 at a limit of 20,000: %v", err)
	}
	err := CheckFiles(10000, 0, 20000)
	if err == nil || !strings.Contains(err.Error(), "10000 namespaces need about 50064 open files, more than the limit of 20000") ||
		!strings.Contains(err.Error(), "give --sqld-max-active 3955 or fewer") {
		t.Fatalf("10,000 namespaces loaded at a limit of 20,000: %v", err)
	}
	if MaxPool(20000) != 3955 || MaxPool(10) != 1 {
		t.Errorf("MaxPool(20000) = %d, MaxPool(10) = %d; want 3955 and 1", MaxPool(20000), MaxPool(10))
	}
	if err := CheckFiles(100000, 3955, 20000); err != nil {
		t.Errorf("the --sqld-max-active the message names does not fit: %v", err)
	}
	if err := CheckFiles(100000, 3956, 20000); err == nil {
		t.Error("one namespace more than the message names fits")
	}
}
