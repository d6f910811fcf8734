package engine

import (
	"errors"
	"testing"
)

// named is a variant that only answers its id.
type named string

func (v named) ID() string                 { return string(v) }
func (named) Create(string) (Store, error) { return nil, nil }
func (named) Open(string) (Store, error)   { return nil, nil }
func (named) Versions() map[string]string  { return nil }

func factories(ids ...string) []Factory {
	var fs []Factory
	for _, id := range ids {
		mk := func() (Variant, error) { return named(id), nil }
		fs = append(fs, Factory{ID: id, New: mk, Lean: mk})
	}
	return fs
}

func TestCheckFamily(t *testing.T) {
	catalog := []Family{{Binary: "worker-a", Variants: []string{"a1", "a2"}}, {Binary: "worker-b", Variants: []string{"b"}}}
	if err := CheckFamily(catalog, "worker-a", factories("a2", "a1")); err != nil {
		t.Fatalf("matching family: %v", err)
	}
	for name, c := range map[string]struct {
		binary string
		ids    []string
	}{
		"catalog id without factory": {"worker-a", []string{"a1"}},
		"factory not in catalog":     {"worker-a", []string{"a1", "a2", "a3"}},
		"factory of another family":  {"worker-a", []string{"a1", "a2", "b"}},
		"id twice":                   {"worker-a", []string{"a1", "a2", "a1"}},
		"unknown binary":             {"worker-c", []string{"a1"}},
	} {
		if err := CheckFamily(catalog, c.binary, factories(c.ids...)); !errors.Is(err, ErrCatalogMismatch) {
			t.Errorf("%s: CheckFamily = %v, want ErrCatalogMismatch", name, err)
		}
	}
}

// TestCheckFamilyLean fails unless a variant has a lean factory exactly
// when the catalog does not exempt it from lean.
func TestCheckFamilyLean(t *testing.T) {
	catalog := []Family{{Binary: "worker-a", Variants: []string{"a1", "a2"}, NoLean: map[string]string{"a2": "no option"}}}
	fs := factories("a1", "a2")
	fs[1].Lean = nil
	if err := CheckFamily(catalog, "worker-a", fs); err != nil {
		t.Fatalf("a2 without lean, as the catalog says: %v", err)
	}
	fs[0].Lean = nil // a1 without lean, and no reason given
	if err := CheckFamily(catalog, "worker-a", fs); !errors.Is(err, ErrCatalogMismatch) {
		t.Errorf("a1 without lean factory or reason: %v, want ErrCatalogMismatch", err)
	}
	fs = factories("a1", "a2") // a2 with a lean factory the catalog says it has not
	if err := CheckFamily(catalog, "worker-a", fs); !errors.Is(err, ErrCatalogMismatch) {
		t.Errorf("a2 with a lean factory: %v, want ErrCatalogMismatch", err)
	}
}

func TestCheckID(t *testing.T) {
	if err := CheckID("a", named("a")); err != nil {
		t.Fatal(err)
	}
	if err := CheckID("a", named("b")); !errors.Is(err, ErrCatalogMismatch) {
		t.Fatalf("CheckID with another id = %v, want ErrCatalogMismatch", err)
	}
}

// TestCatalogIDsAreUnique fails if a variant id is given to two families.
func TestCatalogIDsAreUnique(t *testing.T) {
	seen := map[string]string{}
	for _, f := range Catalog() {
		for _, v := range f.Variants {
			if other, ok := seen[v]; ok {
				t.Errorf("variant %q is in %s and %s", v, other, f.Binary)
			}
			seen[v] = f.Binary
		}
	}
}

func TestParseList(t *testing.T) {
	if ids, err := ParseList("sqlite,bbolt"); err != nil || len(ids) != 2 || ids[0] != "sqlite" {
		t.Errorf("ParseList(sqlite,bbolt) = %v, %v", ids, err)
	}
	if ids, err := ParseList("all"); err != nil || len(ids) != len(AllVariants()) {
		t.Errorf("ParseList(all) = %v, %v", ids, err)
	}
	for _, bad := range []string{"all,sqlite", "sqlite,all", "sqlite,sqlite", "nosuch", ""} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) accepted", bad)
		}
	}
}

type plainVariant struct{ id string }

func (p plainVariant) ID() string                             { return p.id }
func (plainVariant) Create(string) (Store, error)             { return nil, nil }
func (plainVariant) Open(string) (Store, error)               { return nil, nil }
func (plainVariant) Versions() map[string]string              { return nil }
func (plainVariant) CreateShared(string) (SharedStore, error) { return nil, nil }
func (plainVariant) OpenShared(string) (SharedStore, error)   { return nil, nil }
func (plainVariant) SharedLayout() string                     { return "" }

type unsharedVariant struct{ id string }

func (u unsharedVariant) ID() string                 { return u.id }
func (unsharedVariant) Create(string) (Store, error) { return nil, nil }
func (unsharedVariant) Open(string) (Store, error)   { return nil, nil }
func (unsharedVariant) Versions() map[string]string  { return nil }

// TestCheckShared: the catalog's NoShared and a variant's SharedVariant
// must agree both ways; a variant the catalog does not know is not
// checked.
func TestCheckShared(t *testing.T) {
	catalog := []Family{{Binary: "w", Variants: []string{"a", "b"}, NoShared: map[string]string{"b": "none yet"}}}
	for _, c := range []struct {
		v  Variant
		ok bool
	}{
		{plainVariant{"a"}, true}, {unsharedVariant{"a"}, false},
		{unsharedVariant{"b"}, true}, {plainVariant{"b"}, false},
		{unsharedVariant{"z"}, true},
	} {
		err := CheckShared(catalog, c.v)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrCatalogMismatch)) {
			t.Errorf("CheckShared(%T %s) = %v, want ok %t", c.v, c.v.ID(), err, c.ok)
		}
	}
}
