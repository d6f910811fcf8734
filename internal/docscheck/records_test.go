// Package docscheck checks the figures of the prose a reader acts on
// against the committed records they come from. Its tests read README.md,
// docs/choosing.md and the headline figures of docs/layouts.md,
// vectors.md, capacity.md and serve.md, recompute each listed figure from
// the records under docs/results (the same statistics the tables use:
// medians of the pooled samples, KB as /proc reports them, a MB of 1,024
// KB and a GB of 1,024 MB), format it as the docs write it, and fail when
// the docs' words no longer hold the recomputed figure: a figure changed
// by hand, a record changed under it, or a MB taken as 1,000 KB. The
// tables inside the docs are generated and checked by the tests of
// internal/cli; capacity.md's table of agents per machine is arithmetic
// on its own columns, and TestMachineTable checks that arithmetic.
//
// TestDocFigures reads tens of megabytes of records (each file once, for
// every doc's claims), so it is a long test: go test -short skips it
// (TestMachineTable reads the doc only and runs under -short too). The package has test files only: it
// is a check of the docs, not a part of manydb.
package docscheck

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"manydb/internal/job"
	"manydb/internal/report"
	"manydb/internal/results"
	"manydb/internal/stats"
)

// kbPerMB is the docs' unit (docs/method.md): a MB is 1,024 KB, a GB
// 1,024 MB, a KB 1,024 bytes.
const kbPerMB = 1024

// mb and gb turn KB into the docs' MB and GB.
func mb(kb float64) float64 { return kb / kbPerMB }
func gb(kb float64) float64 { return kb / kbPerMB / kbPerMB }

// repoRoot is the repository's root, two directories above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// records reads the committed records the checks name, each file once,
// and collects each file's figures once.
type records struct {
	dir     string // docs/results
	files   map[string][]results.Record
	figures map[string][]*report.Figures
}

func newRecords(t *testing.T) *records {
	return &records{dir: filepath.Join(repoRoot(t), "docs", "results"),
		files: map[string][]results.Record{}, figures: map[string][]*report.Figures{}}
}

// figuresOf is the figures of the file name, as the tables compute them
// (report.CollectFigures).
func (rs *records) figuresOf(t *testing.T, name string) []*report.Figures {
	t.Helper()
	if figs, ok := rs.figures[name]; ok {
		return figs
	}
	figs := report.CollectFigures(rs.file(t, name))
	rs.figures[name] = figs
	return figs
}

// file is every record of docs/results/name.
func (rs *records) file(t *testing.T, name string) []results.Record {
	t.Helper()
	if recs, ok := rs.files[name]; ok {
		return recs
	}
	recs, err := results.ReadFile(filepath.Join(rs.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	rs.files[name] = recs
	return recs
}

// hold is the ok hold record of variant (setting) that held held stores
// in the file name.
func (rs *records) hold(t *testing.T, name, variant, setting string, held int) *results.Hold {
	t.Helper()
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseHold && r.Status == "ok" && r.Variant == variant && r.Setting == setting && r.Hold != nil && r.Hold.Held == held {
			return r.Hold
		}
	}
	t.Fatalf("%s: no hold of %d for %s (%s)", name, held, variant, setting)
	return nil
}

// warmPooled is the samples pick takes from every ok warm open run of
// variant (setting) of study in the file name, pooled, as the tables pool
// them.
func (rs *records) warmPooled(t *testing.T, name, study, variant, setting string, pick func(*results.Record) []float64) []float64 {
	t.Helper()
	var xs []float64
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseOpen && r.Status == "ok" && r.Cache == job.CacheWarm && r.Study == study && r.Variant == variant && r.Setting == setting {
			xs = append(xs, pick(&r)...)
		}
	}
	if len(xs) == 0 {
		t.Fatalf("%s: no warm open run of %s (%s) in study %s", name, variant, setting, study)
	}
	return xs
}

// servePeaks is the peak of pick over each ok serve step of the file
// name that keep accepts.
func (rs *records) servePeaks(t *testing.T, name string, keep func(*results.Record) bool, pick func(*results.Serve) []int64) []float64 {
	t.Helper()
	var peaks []float64
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseServe && r.Status == "ok" && r.Serve != nil && keep(&r) {
			peaks = append(peaks, float64(slices.Max(pick(r.Serve))))
		}
	}
	if len(peaks) == 0 {
		t.Fatalf("%s: no serve step", name)
	}
	return peaks
}

// growthInProcess is the figure "growth per 1,000 open in its own
// process" of the largest split hold of variant (setting) in the file
// name, as the tables compute it (report.CollectFigures).
func (rs *records) growthInProcess(t *testing.T, name, variant, setting string) float64 {
	t.Helper()
	for _, f := range rs.figuresOf(t, name) {
		if f.Variant == variant && f.Setting == setting && f.Layout == "" {
			vs := f.Values["open-growth-per-1000-open-in-process"]
			if len(vs) > 0 && !math.IsNaN(vs[len(vs)-1]) {
				return vs[len(vs)-1]
			}
		}
	}
	t.Fatalf("%s: no growth in its own process for %s (%s)", name, variant, setting)
	return math.NaN()
}

// growth is the figure "growth per 1,000 open (slope)" of the hold of
// variant (setting) in the file name with the most stores.
func (rs *records) growth(t *testing.T, name, variant, setting string) float64 {
	t.Helper()
	for _, f := range rs.figuresOf(t, name) {
		if f.Variant == variant && f.Setting == setting && f.Layout == "" {
			if vs := f.Values["open-growth-per-1000-open"]; len(vs) > 0 {
				return slices.Max(vs)
			}
		}
	}
	t.Fatalf("%s: no open growth for %s (%s)", name, variant, setting)
	return math.NaN()
}

// pssRange is the lowest and highest Pss before its first store of the
// processes of a split hold, in KB.
func pssRange(h *results.Hold) (lo, hi float64) {
	var xs []float64
	for _, p := range h.Procs {
		xs = append(xs, float64(p.PssBeforeKB))
	}
	return stats.Min(xs), stats.Max(xs)
}

// words are the words of a doc with its line breaks and runs of spaces
// as one space, so that a figure's sentence matches wherever it wraps.
func words(t *testing.T, doc string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), doc))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// claim is a figure of a doc: the words that hold it, as the doc writes
// them (wrapping aside), and the figure recomputed from its records,
// formatted as the doc formats it. The words must be in the doc and hold
// the figure.
type claim struct {
	doc    string
	words  string
	figure func(t *testing.T, rs *records) string
}

// TestDocFigures checks each claim of the docs against the records it
// names, read once for all: a subtest per part of the docs.
func TestDocFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the records the docs name: a long test")
	}
	rs := newRecords(t)
	for _, part := range []struct {
		name   string
		claims []claim
	}{
		{"readme", readmeClaims()},
		{"choosing", append(timeClaims(), memoryClaims()...)},
		{"choosing-layouts", append(layoutMemoryClaims(), layoutTimeClaims()...)},
		{"choosing-serve", choosingServeClaims()},
		{"choosing-shared-serve", choosingSharedServeClaims()},
		{"choosing-postgres", choosingPostgresClaims()},
		{"layouts", layoutsClaims()},
		{"vectors", append(append(knnClaims(), vectorMemoryClaims()...), realDataClaims()...)},
		{"capacity", append(capacityAnswerClaims(), capacityProcsClaims()...)},
		{"serve", serveClaims()},
	} {
		t.Run(part.name, func(t *testing.T) { checkClaims(t, rs, part.claims) })
	}
}

// checkClaims fails for each claim whose doc lacks its words or whose
// words lack its recomputed figure.
func checkClaims(t *testing.T, rs *records, claims []claim) {
	docs := map[string]string{}
	for _, c := range claims {
		if _, ok := docs[c.doc]; !ok {
			docs[c.doc] = words(t, c.doc)
		}
		if err := claimError(docs[c.doc], c.doc, c.words, c.figure(t, rs)); err != nil {
			t.Error(err)
		}
	}
}

// claimError says what is wrong with a claim of doc, whose words are
// text: its words are gone from the doc, or they do not hold fig, the
// figure its records give; nil when neither.
func claimError(text, doc, words, fig string) error {
	if !strings.Contains(text, words) {
		return fmt.Errorf("%s no longer says %q: change the claim with the doc", doc, words)
	}
	if !containsFigure(words, fig) {
		return fmt.Errorf("%s: %q, but its records give %q", doc, words, fig)
	}
	return nil
}

// containsFigure says whether words hold fig as a figure of its own, not
// as the tail of a longer number ("4.6 GB" is not in "24.6 GB").
func containsFigure(words, fig string) bool {
	return regexp.MustCompile(`(^|[^0-9.,])` + regexp.QuoteMeta(fig)).MatchString(words)
}

// tableFigure is the figure fig of column (a variant, or "VARIANT
// shared") under setting in the file name, as its tables give it: the
// statistic of every run's samples pooled where the figure has one (a
// median, a p99, a mean recall), else the median of its runs' values.
func (rs *records) tableFigure(t *testing.T, name, column, setting, fig string) float64 {
	t.Helper()
	for _, f := range rs.figuresOf(t, name) {
		if f.Key() != column+"@"+setting {
			continue
		}
		if v, ok := f.Pooled[fig]; ok {
			return v
		}
		if vs := f.Values[fig]; len(vs) > 0 {
			return stats.Median(vs)
		}
	}
	t.Fatalf("%s: no figure %s of %s (%s)", name, fig, column, setting)
	return math.NaN()
}

// tableSpan is the lowest and highest tableFigure of columns, each
// passed through conv, as span writes them with prec decimals.
func (rs *records) tableSpan(t *testing.T, name, setting, fig string, columns []string, conv func(float64) float64, prec int) string {
	t.Helper()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range columns {
		v := conv(rs.tableFigure(t, name, c, setting, fig))
		lo, hi = min(lo, v), max(hi, v)
	}
	return span(lo, hi, prec)
}

// same is a conversion that leaves a figure as it is.
func same(x float64) float64 { return x }
