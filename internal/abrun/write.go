package abrun

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"

	"manydb/internal/abtest"
)

// pText is a judged figure's adjusted p-value as the table prints it:
// "–" for a figure not decidable here, which has none.
func pText(r Result) string {
	if r.PHolm == nil {
		return "–"
	}
	return fmt.Sprintf("%.2g", *r.PHolm)
}

// record is what Dir/ab.json keeps: how the comparison was made, every
// round's figures and the verdicts.
type record struct {
	SideA      Side     `json:"a"`
	SideB      Side     `json:"b"`
	RunArgs    []string `json:"run_args"`
	Floor      float64  `json:"floor"`
	Calibrated bool     `json:"calibrated"`
	*Comparison
}

// writeRecord writes Dir/ab.json.
func writeRecord(c Config, cmp *Comparison) error {
	rec := record{SideA: c.A, SideB: c.B, RunArgs: c.RunArgs, Floor: c.Floor, Calibrated: len(c.Calibration) > 0, Comparison: cmp}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, "ab.json"), append(b, '\n'), 0o644)
}

// WriteText prints the verdicts, one figure a line: the ratio B/A with
// its 95 % interval, its p-value adjusted for the figures judged with it
// (different needs it under 0.05), the δ it was judged against and the
// verdict; then
// why the rounds stopped, and what stayed unknown with the rounds it
// would need.
func WriteText(w io.Writer, cmp *Comparison) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tB/A\t95 % interval\tp (Holm)\tδ\tverdict")
	for _, r := range cmp.Results {
		if r.Note != "" {
			fmt.Fprintf(tw, "%s\t\t\t\t\tnot judged: %s\n", r.Key, r.Note)
			continue
		}
		e := r.Estimate
		fmt.Fprintf(tw, "%s\t%.3f\t[%.3f, %.3f]\t%s\t%.1f %%\t%s\n", r.Key, e.Ratio, e.CI95.Lo, e.CI95.Hi, pText(r), 100*r.Delta, r.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	counts, _ := tally(cmp.Results)
	fmt.Fprintf(w, "\n%s; stopped after %s.\n", counts, cmp.Stopped)
	for _, r := range cmp.Results {
		if r.Note == "" && r.Verdict == abtest.Unknown {
			if r.RoundsNeeded > 0 {
				fmt.Fprintf(w, "%s: not yet known; about %d rounds in all would decide it at this spread.\n", r.Key, r.RoundsNeeded)
			} else {
				fmt.Fprintf(w, "%s: not yet known; its ratio sits at the edge of δ, where no number of rounds decides.\n", r.Key)
			}
		}
	}
	return nil
}
