package replica

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"manydb/internal/stats"
)

// WriteText prints what the study measured: per figure its median, p99
// and largest, the memory per namespace, and the primary lost.
func WriteText(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "sqld %s, a primary and a read replica on 127.0.0.1; %d agents of %d notes of %d characters, a namespace each\n\n",
		r.Sqld, r.Config.Agents, r.Config.Notes, r.Config.TextLen)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "figure (ms)\tsamples\tmedian\tp99\tlargest\t")
	polls := make([]float64, len(r.Polls))
	for i, p := range r.Polls {
		polls[i] = float64(p)
	}
	for _, f := range []struct {
		name string
		xs   []float64
	}{
		{"create on the primary, per agent", r.CreateMs},
		{"catch-up on the replica, per agent", r.CatchUpMs},
		{"append → visible on the replica", r.DelayMs},
		{"  reads of the replica until then (count)", polls},
		{"newest notes, primary", r.PrimaryRecentMs},
		{"newest notes, replica", r.ReplicaRecentMs},
	} {
		if len(f.xs) == 0 {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t\n", f.name, len(f.xs), stats.Median(f.xs), stats.P99(f.xs), stats.Max(f.xs))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	m := r.Memory
	fmt.Fprintf(w, "\nmemory per namespace (KB, the server's growth from before the first to after the last, divided by %d):\n", r.Config.Agents)
	fmt.Fprintf(w, "  replica: resident %.1f, anonymous %.1f\n", perAgent(m.ReplicaAfter.RssKB-m.ReplicaBefore.RssKB, r.Config.Agents), perAgent(m.ReplicaAfter.AnonKB-m.ReplicaBefore.AnonKB, r.Config.Agents))
	fmt.Fprintf(w, "  primary: resident %.1f, anonymous %.1f\n", perAgent(m.PrimaryAfter.RssKB-m.PrimaryBefore.RssKB, r.Config.Agents), perAgent(m.PrimaryAfter.AnonKB-m.PrimaryBefore.AnonKB, r.Config.Agents))
	fmt.Fprintf(w, "\nthe primary killed: the replica served every agent's count: %v", r.Lost.ReadsServed)
	if r.Lost.ReadError != "" {
		fmt.Fprintf(w, " (%s)", r.Lost.ReadError)
	}
	_, err := fmt.Fprintf(w, "; an append to the replica answered: %s\n", r.Lost.WriteError)
	return err
}

// perAgent is kb divided among n agents.
func perAgent(kb int64, n int) float64 { return float64(kb) / float64(max(n, 1)) }

// WriteJSON writes the result, every sample, to path.
func WriteJSON(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
