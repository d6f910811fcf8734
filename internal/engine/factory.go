package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Factory makes one variant. Each adapter package lists its variants as
// factories (its Factories function); a worker binary links the adapters of
// its family and serves exactly the variants the catalog gives that family.
type Factory struct {
	// ID is the variant id, as in the catalog.
	ID string
	// New makes the variant. It may fail, e.g. when the engine's library
	// is missing or the worker was built without it; the error then says
	// how to enable it.
	New func() (Variant, error)
	// Lean makes the variant under the lean setting: with its engine's
	// documented options for many open stores, which the variant reports
	// (Optioner). nil when the engine has none, which the catalog's
	// Family.NoLean explains (CheckFamily checks that the two agree).
	Lean func() (Variant, error)
}

// ErrCatalogMismatch is returned by CheckFamily when a worker's factories
// and the catalog disagree.
var ErrCatalogMismatch = errors.New("the catalog and the worker's adapters disagree")

// CheckFamily checks that the factories linked into the worker binary
// named binary serve exactly the variants catalog gives its family: no
// catalog variant without a factory, no factory without a catalog entry,
// no id twice, and a lean factory exactly for the variants the catalog
// does not exempt from lean (Family.NoLean).
func CheckFamily(catalog []Family, binary string, factories []Factory) error {
	i := slices.IndexFunc(catalog, func(f Family) bool { return f.Binary == binary })
	if i < 0 {
		return fmt.Errorf("%w: no family in the catalog has worker binary %s", ErrCatalogMismatch, binary)
	}
	fam := catalog[i]
	var problems []string
	seen := map[string]bool{}
	for _, f := range factories {
		switch {
		case seen[f.ID]:
			problems = append(problems, fmt.Sprintf("variant %q has two factories", f.ID))
		case !slices.Contains(fam.Variants, f.ID):
			problems = append(problems, fmt.Sprintf("an adapter serves %q, which the catalog does not give %s", f.ID, binary))
		case f.Lean == nil && fam.NoLean[f.ID] == "":
			problems = append(problems, fmt.Sprintf("variant %q has no lean factory, and the catalog does not say why (Family.NoLean)", f.ID))
		case f.Lean != nil && fam.NoLean[f.ID] != "":
			problems = append(problems, fmt.Sprintf("variant %q has a lean factory, but the catalog says lean has no option for it", f.ID))
		}
		seen[f.ID] = true
	}
	for _, id := range fam.Variants {
		if !seen[id] {
			problems = append(problems, fmt.Sprintf("the catalog gives %s the variant %q, but no adapter linked into it serves it", binary, id))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrCatalogMismatch, strings.Join(problems, "; "))
	}
	return nil
}

// CheckID checks that a variant made by the factory for id answers id.
func CheckID(id string, v Variant) error {
	if got := v.ID(); got != id {
		return fmt.Errorf("%w: the factory for %q made a variant whose ID() is %q", ErrCatalogMismatch, id, got)
	}
	return nil
}

// ErrDisabled is wrapped by the error of a factory whose engine was left
// out of this build (a build tag not set, its library missing).
var ErrDisabled = errors.New("engine not built into this worker")

// CheckShared checks that the catalog and variant v agree on the shared
// layout: a variant has it (SharedVariant) exactly when its family's
// NoShared gives no reason against it. A variant the catalog does not
// know (a test's fake) is not checked.
func CheckShared(catalog []Family, v Variant) error {
	_, has := v.(SharedVariant)
	return checkCapability(catalog, v.ID(), has, func(f Family) map[string]string { return f.NoShared }, "the shared layout (SharedVariant)", "NoShared")
}

// CheckSharedVectors checks that the catalog and a variant v of the
// shared layout agree on its embeddings there (SharedVectorVariant with a
// search, and Family.NoSharedVectors), as CheckShared does. A variant
// without the shared layout is not checked: NoShared says why already.
func CheckSharedVectors(catalog []Family, v Variant) error {
	if _, ok := v.(SharedVariant); !ok {
		return nil
	}
	sv, has := v.(SharedVectorVariant)
	has = has && sv.SharedVectorSearch().Method != ""
	return checkCapability(catalog, v.ID(), has, func(f Family) map[string]string { return f.NoSharedVectors }, "embeddings in the shared layout (SharedVectorVariant)", "NoSharedVectors")
}

// CheckSharedServe checks that a variant whose shared store opens with a
// connection per caller (SharedConnsVariant) is not said to be unable to
// serve concurrent requests (Family.NoSharedServe).
func CheckSharedServe(catalog []Family, v Variant) error {
	if _, ok := v.(SharedConnsVariant); !ok {
		return nil
	}
	for _, f := range catalog {
		if why := f.NoSharedServe[v.ID()]; why != "" {
			return fmt.Errorf("%w: variant %q opens its shared store with a connection per caller (SharedConnsVariant), but the catalog says %q", ErrCatalogMismatch, v.ID(), why)
		}
	}
	return nil
}

// CheckWAL checks that the catalog and variant v agree on the wal
// setting (WALVariant and Family.NoWAL), as CheckShared does.
func CheckWAL(catalog []Family, v Variant) error {
	_, has := v.(WALVariant)
	return checkCapability(catalog, v.ID(), has, func(f Family) map[string]string { return f.NoWAL }, "the WAL journal mode (WALVariant)", "NoWAL")
}

// checkCapability checks that variant id has a capability (has) exactly
// when its family's reasons against it (no, the field named field) give
// none.
func checkCapability(catalog []Family, id string, has bool, no func(Family) map[string]string, what, field string) error {
	for _, f := range catalog {
		if !slices.Contains(f.Variants, id) {
			continue
		}
		switch why := no(f)[id]; {
		case has && why != "":
			return fmt.Errorf("%w: variant %q has %s, but the catalog says %q", ErrCatalogMismatch, id, what, why)
		case !has && why == "":
			return fmt.Errorf("%w: variant %q has no %s, and the catalog does not say why (Family.%s)", ErrCatalogMismatch, id, what, field)
		}
	}
	return nil
}
