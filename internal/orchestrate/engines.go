package orchestrate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"manydb/internal/engine"
	"manydb/internal/job"
)

// Engine states, as 'manydb engines' prints them.
const (
	EngineBuilt    = "built"     // the worker is built with the engine and serves the variant
	EngineMissing  = "not built" // no worker binary
	EngineDisabled = "disabled"  // the worker was built without the engine (a build tag, a library)
	EngineBroken   = "broken"    // the worker does not start, or disagrees with the catalog
)

// EngineStatus is what 'manydb engines' says of one variant.
type EngineStatus struct {
	Variant string
	Family  engine.Family
	State   string // one of the Engine* states
	Detail  string // why, for every state but EngineBuilt
}

// ListEngines asks each family's worker binary in binDir (its --list)
// which variants it serves and what their ID() answers, and compares that
// with catalog (nil: engine.Catalog()). It returns one status per catalog
// variant, in catalog order, and a list of disagreements between the
// catalog and the workers: a catalog variant that a worker does not serve,
// a variant a worker serves that the catalog does not give it, an adapter
// whose ID() answers another id, a worker that refuses to start because
// its adapters and its own catalog disagree.
func ListEngines(ctx context.Context, catalog []engine.Family, binDir string, env []string) ([]EngineStatus, []string) {
	if catalog == nil {
		catalog = engine.Catalog()
	}
	var out []EngineStatus
	var problems []string
	for _, fam := range catalog {
		bin := filepath.Join(binDir, fam.Binary)
		listing, err := listWorker(ctx, bin, env)
		if err != nil {
			state := EngineBroken
			if os.IsNotExist(err) {
				state, err = EngineMissing, fmt.Errorf("no %s: run 'make build' (it needs %s)", bin, fam.Needs)
			} else {
				problems = append(problems, fmt.Sprintf("%s: %v", fam.Binary, err))
			}
			for _, v := range fam.Variants {
				out = append(out, EngineStatus{Variant: v, Family: fam, State: state, Detail: err.Error()})
			}
			continue
		}
		served := map[string]job.Listing{}
		for _, l := range listing {
			served[l.ID] = l
			if !slices.Contains(fam.Variants, l.ID) {
				problems = append(problems, fmt.Sprintf("%s serves %q, which the catalog does not give it", fam.Binary, l.ID))
			}
		}
		for _, v := range fam.Variants {
			l, ok := served[v]
			st := EngineStatus{Variant: v, Family: fam, State: EngineBuilt}
			switch {
			case !ok:
				st.State, st.Detail = EngineBroken, fmt.Sprintf("%s does not serve it", fam.Binary)
				problems = append(problems, fmt.Sprintf("the catalog gives %s the variant %q, which it does not serve", fam.Binary, v))
			case l.Disabled != "":
				st.State, st.Detail = EngineDisabled, l.Disabled
			case l.Error != "":
				st.State, st.Detail = EngineBroken, l.Error
			case l.Answers != v:
				st.State, st.Detail = EngineBroken, fmt.Sprintf("its adapter's ID() answers %q", l.Answers)
				problems = append(problems, fmt.Sprintf("%s: the adapter of %q answers %q", fam.Binary, v, l.Answers))
			}
			out = append(out, st)
		}
	}
	return out, problems
}

// listWorker runs bin --list and returns its listing; an error satisfying
// os.IsNotExist when bin does not exist.
func listWorker(ctx context.Context, bin string, env []string) ([]job.Listing, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, bin, job.Job{List: true}.Args()...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s --list: %v: %s", bin, err, strings.TrimSpace(stderr.String()))
	}
	var out []job.Listing
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	for sc.Scan() {
		var l job.Listing
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s --list printed %q: %w", bin, sc.Text(), err)
		}
		out = append(out, l)
	}
	return out, nil
}
