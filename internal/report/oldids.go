package report

import (
	"fmt"

	"manydb/internal/results"
)

// renamedVariant is a variant id that named another variant in results
// files recorded before a commit: such records are read under today's id.
type renamedVariant struct {
	old, now string
	commit   string // the commit that renamed it
	oldNow   string // what the old id names today
	// module is a Go module the old variant's records name in their
	// versions (the worker records the modules it was built with) and
	// today's variant of the old id does not.
	module string
}

// renamedVariants lists the renamed variant ids: go-libsql was "libsql"
// until 628aaf7 gave "libsql" to libSQL's Rust SDK.
var renamedVariants = []renamedVariant{
	{old: "libsql", now: "libsql_go", commit: "628aaf7", oldNow: "libSQL's Rust SDK", module: "github.com/tursodatabase/go-libsql"},
}

// renameOldVariants returns recs with the records of a renamed variant
// under today's id, and the renamed variants by study and today's id. A
// study's records of an old id are renamed when one of them names the old
// variant's module. recs itself is left as it is.
func renameOldVariants(recs []results.Record) ([]results.Record, map[studyVariant]renamedVariant) {
	found := map[studyVariant]renamedVariant{} // by study and old id
	for _, r := range recs {
		for _, rv := range renamedVariants {
			if _, ok := r.Versions[rv.module]; ok && r.Variant == rv.old {
				found[studyVariant{r.Study, r.Variant}] = rv
			}
		}
	}
	renamed := map[studyVariant]renamedVariant{}
	if len(found) == 0 {
		return recs, renamed
	}
	out := make([]results.Record, len(recs))
	for i, r := range recs {
		if rv, ok := found[studyVariant{r.Study, r.Variant}]; ok {
			r.Variant = rv.now
			renamed[studyVariant{r.Study, r.Variant}] = rv
		}
		out[i] = r
	}
	return out, renamed
}

// note says under which id the column's records were recorded.
func (rv renamedVariant) note() string {
	return fmt.Sprintf("%s: recorded as %s, its id before commit %s (%s now names %s).", rv.now, rv.old, rv.commit, rv.old, rv.oldNow)
}

// studyVariant names the records of one variant in one study.
type studyVariant struct{ study, variant string }
