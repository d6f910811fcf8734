package serverdir

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestMakeThenCheck(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "server")
	if ok, err := Check(dir, "mark"); ok || err != nil {
		t.Fatalf("Check of a missing directory: %v, %v; want false, nil", ok, err)
	}
	if err := Make(dir, "mark", nil); err != nil {
		t.Fatal(err)
	}
	if ok, err := Check(dir, "mark"); !ok || err != nil {
		t.Fatalf("Check of a directory Make made: %v, %v; want true, nil", ok, err)
	}
	if err := Make(dir, "mark", nil); err == nil {
		t.Fatal("Make of an existing directory succeeded")
	}
}

func TestCheckRefusesForeignDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(dir, "mark"); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("Check of a foreign directory: %v, want ErrNotOurs", err)
	}
}

func TestLastLines(t *testing.T) {
	if got := LastLines("a\n\nb\n c \n", 2); got != "b | c" {
		t.Fatalf("LastLines = %q, want %q", got, "b | c")
	}
}

func TestFindUp(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := FindUp(deep, "tool/x"); ok {
		t.Fatal("FindUp found a missing file")
	}
	if err := os.MkdirAll(filepath.Join(root, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "tool", "x"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := FindUp(deep, "tool/x"); !ok || got != filepath.Join(root, "tool", "x") {
		t.Fatalf("FindUp = %q, %v", got, ok)
	}
}
