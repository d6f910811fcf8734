package docscheck

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"manydb/internal/job"
	"manydb/internal/results"
)

// readmeClaims are what README.md says of the results of record: the
// reference study's scale and settings, the machine, and when each part
// ran.
func readmeClaims() []claim {
	const doc = "README.md"
	return []claim{
		{doc, "the reference's study at 10,000 stores per variant under both of its settings, 5 warm runs, 1,000 stores held open", func(t *testing.T, rs *records) string {
			c := studyEnv(t, rs, studyFile, studyPart).Config
			settings := fmt.Sprintf("%d settings", len(c.Settings))
			if len(c.Settings) == 2 {
				settings = "both of its settings"
			}
			return fmt.Sprintf("study at %s stores per variant under %s, %d warm runs, %s stores held open",
				grouped(float64(c.Stores)), settings, c.Runs, grouped(float64(c.Hold)))
		}},
		{doc, "on a 2-core AMD EPYC VM (24 GiB, ext4, Linux 6.18, THP `madvise`, glibc 2.36, Go 1.26.8), 2026-12-04 09:19", func(t *testing.T, rs *records) string {
			e := studyEnv(t, rs, studyFile, studyPart)
			return fmt.Sprintf("on a %s-core %s VM (24 GiB, %s, Linux 6.18, THP `%s`, %s, Go %s), %s",
				e.Env["cores"], e.Env["cpu"], e.Env["root_fs"], e.Env["thp"], e.Env["glibc"], strings.TrimPrefix(e.Env["go"], "go"),
				e.Started.UTC().Format("2006-01-02 15:04"))
		}},
		{doc, "(10:40–11:06) the agent workload and (11:19–12:39) serve pools", func(t *testing.T, rs *records) string {
			return fmt.Sprintf("(%s) the agent workload and (%s) serve pools",
				studySpan(t, rs, "2026-12-04/agent.jsonl.gz"), studySpan(t, rs, serveFile))
		}},
	}
}

// studyEnv is the env record of study in the file name.
func studyEnv(t *testing.T, rs *records, name, study string) *results.Record {
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseEnv && r.Study == study {
			return &r
		}
	}
	t.Fatalf("%s: no env record of study %s", name, study)
	return nil
}

// studySpan is when the one study of the file name started and ended,
// to the minute (its end record's wall time after its start).
func studySpan(t *testing.T, rs *records, name string) string {
	for _, r := range rs.file(t, name) {
		if r.Phase == job.PhaseEnd && r.Budget != nil {
			end := r.Started.Add(time.Duration(r.Budget.Wall * float64(time.Second)))
			return r.Started.UTC().Format("15:04") + "–" + end.UTC().Round(time.Minute).Format("15:04")
		}
	}
	t.Fatalf("%s: no end record", name)
	return ""
}
