package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"manydb/internal/results"
)

// libraries lists the engine library versions in a versions map (not the
// Go modules, the Go version or SQLite's source ids), sorted: "sqlite 3.54.1".
func libraries(versions map[string]string) []string {
	var libs []string
	for k, val := range versions {
		if isLibrary(k) {
			libs = append(libs, k+" "+val)
		}
	}
	sort.Strings(libs)
	return libs
}

// isLibrary tells whether a key of a versions map names an engine library
// (or the allocator), not a Go module, Go itself or a source id.
func isLibrary(k string) bool {
	return !strings.Contains(k, "/") && k != "go" && !strings.HasSuffix(k, "_source_id")
}

// envText is an env record's environment in one sentence's words.
func envText(env *results.Record, dataRoot bool) string {
	e := env.Env
	host := ""
	if h := e["host"]; h != "" {
		host = "host " + h + ", "
	}
	root := ""
	if dataRoot {
		root = ", data root on " + e["root_fs"]
	}
	return fmt.Sprintf("%s%s, Linux %s, %s cores (%s), %s GiB%s, THP %s, %s, %s, manydb %s",
		host, e["distro"], e["kernel"], e["cores"], e["cpu"], gib(e["memory_kb"]), root, e["thp"], e["glibc"], e["go"], e["manydb"])
}

// writeSessions writes the environment below a table: one line for a
// table recorded in one session, else one line per session.
func (t *table) writeSessions(w io.Writer) {
	switch len(t.sessions) {
	case 0:
		return
	case 1:
		fmt.Fprintf(w, "Environment: %s.\n", envText(t.sessions[0].env, true))
		return
	}
	for i, s := range t.sessions {
		fmt.Fprintf(w, "%s: %s.\n", t.sessionTitle(i), envText(s.env, true))
	}
}

// sessionTitle names session i of the table: its study (when the table
// has several), its start, its machine's label (several machines), its
// records and the engine versions it found.
func (t *table) sessionTitle(i int) string {
	s := t.sessions[i]
	what := fmt.Sprintf("Session %d", i+1)
	if len(t.studies) > 1 {
		what += " of study " + s.env.Study
	}
	what += ", started " + s.env.Started.UTC().Format(time.DateTime) + " UTC"
	if s.machine != "" {
		what += " on " + s.machine
	}
	recs := "records"
	if s.records == 1 {
		recs = "record"
	}
	what += fmt.Sprintf(", %d %s", s.records, recs)
	if libs := libraries(s.env.Versions); len(libs) > 0 {
		what += " (" + strings.Join(libs, ", ") + ")"
	}
	return what
}

// mixed says what differs between the sessions of a table: manydb's
// version, the engine libraries' versions, the machine (unless each
// machine has its own columns) and its software; nil when nothing does.
func (t *table) mixed() []string {
	var out []string
	distinct := func(what string, value func(s *session) string) {
		var vals []string
		for _, s := range t.sessions {
			if v := value(s); !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) > 1 {
			out = append(out, what+" "+strings.Join(vals, " and "))
		}
	}
	distinct("manydb", func(s *session) string { return s.env.Env["manydb"] })
	if libs, known := t.mixedLibraries(); known {
		out = append(out, libs...)
	} else { // records without versions of their own (older files): the sessions' env records
		var libs []string
		for _, s := range t.sessions {
			for k := range s.env.Versions {
				if isLibrary(k) && !slices.Contains(libs, k) {
					libs = append(libs, k)
				}
			}
		}
		sort.Strings(libs)
		for _, lib := range libs {
			distinct(lib, func(s *session) string {
				if v, ok := s.env.Versions[lib]; ok {
					return v
				}
				return "(none)"
			})
		}
	}
	if !t.machines {
		distinct("machines", func(s *session) string {
			e := s.env.Env
			return fmt.Sprintf("(%s, %s cores, %s GiB)", orQuestion(e["host"]+" "+e["cpu"]), e["cores"], gib(e["memory_kb"]))
		})
	}
	for _, k := range []string{"kernel", "distro", "glibc", "go", "thp"} {
		distinct(k, func(s *session) string { return orQuestion(s.env.Env[k]) })
	}
	return out
}

// mixedLibraries lists each library of which one column's records name
// more than one version ("sqlite 3.54.1 and 3.55.0 in sqlite"): the
// Versions line's own source, so the two lines agree. Variants that use
// different versions of one library (libSQL's SQLite and SQLite's) are not
// mixed. known is false when no record names its versions.
func (t *table) mixedLibraries() (out []string, known bool) {
	for _, v := range t.variants {
		c := t.columns[v]
		if c == nil {
			continue
		}
		known = known || len(c.version) > 0
		libs := slices.Sorted(maps.Keys(c.version))
		for _, lib := range libs {
			if vals := c.version[lib]; isLibrary(lib) && len(vals) > 1 {
				out = append(out, fmt.Sprintf("%s %s in %s", lib, strings.Join(vals, " and "), v))
			}
		}
	}
	return out, known
}

func orQuestion(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return "?"
	}
	return s
}

// sessionsLine is the line above a table recorded in several sessions:
// how many, and what was mixed; "" for one session.
func (t *table) sessionsLine() string {
	if len(t.sessions) < 2 {
		return ""
	}
	s := fmt.Sprintf("Recorded in %d sessions (listed below the table)", len(t.sessions))
	if t.machines {
		var labels []string
		for _, se := range t.sessions {
			if !slices.Contains(labels, se.machine) {
				labels = append(labels, se.machine)
			}
		}
		s = fmt.Sprintf("Recorded on %d machines (%s; a column per variant and machine) in %d sessions (listed below the table)",
			len(labels), strings.Join(labels, ", "), len(t.sessions))
		if len(labels) == 1 {
			s = fmt.Sprintf("Recorded on one of the input's machines (%s) in %d sessions (listed below the table)", labels[0], len(t.sessions))
		}
		if m := t.mixed(); len(m) > 0 {
			return s + "; they differ in: " + strings.Join(m, "; ") + "."
		}
		return s + "; between sessions nothing differs: the same manydb, software and engine version per variant."
	}
	if m := t.mixed(); len(m) > 0 {
		return s + "; mixed: " + strings.Join(m, "; ") + "."
	}
	return s + "; between sessions nothing differs: the same manydb, machine and engine version per variant (variants may use different versions of a library, as the Versions line shows)."
}

// writeEnv prints the environment line of one env record.
func writeEnv(w io.Writer, env *results.Record, dataRoot bool) {
	if env == nil {
		return
	}
	fmt.Fprintf(w, "Environment: %s.\n", envText(env, dataRoot))
}
