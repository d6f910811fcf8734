package orchestrate

import (
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/settings"
)

// where is a variant under one setting in one layout: a column of the
// study's tables and its own stores.
type where struct {
	set    settings.Setting
	layout job.Layout
	v      string // the variant
}

// name is how the console names w's variant: with its layout when that
// is not a store per agent ("sqlite shared"), as the tables' columns.
func (w where) name() string { return w.layout.Mark(w.v, " ") }

// key names where's stores.
func (w where) key() storesKey { return storesKey{w.v, w.set.Name, w.layout} }

// cellKey names one cell of a study: a phase's run on a set of stores.
type cellKey struct {
	storesKey
	phase job.Phase
	run   int
	cache job.CacheMode // open runs: warm, cold or drop
}

// storesKey names a variant's stores under one setting in one layout
// (the folder cell.dir).
type storesKey struct {
	variant, setting string
	layout           job.Layout
}

// recordStores is the stores a record is of.
func recordStores(r *results.Record) storesKey { return storesKey{r.Variant, r.Setting, r.Layout} }
