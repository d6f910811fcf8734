package orchestrate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// Environment describes the machine a study runs on, with the data root's
// filesystem. Values that cannot be read are "unknown".
func Environment(root, version string) map[string]string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown"
	}
	env := map[string]string{
		"host":        host, // with cpu, cores and memory_kb, names the machine in a report
		"manydb":      version,
		"go":          runtime.Version(),
		"goos_goarch": runtime.GOOS + "/" + runtime.GOARCH,
		"cores":       fmt.Sprint(runtime.NumCPU()),
		"kernel":      orUnknown(measure.KernelRelease()),
		"distro":      osRelease(),
		"cpu":         orUnknown(measure.CPUModel()),
		"memory_kb":   orUnknown(measure.MemTotalKB()),
		"thp":         thpMode(),
		"glibc":       glibcVersion(),
		// What drops clean page cache without memory pressure: a warm
		// run reads its stores in first because of it.
		"page_cache_reclaim": pageCacheReclaim(),
	}
	if d := os.Getenv(job.TestOpenDelayEnv); d != "" {
		env["test_open_delay"] = d // a test of the A/B method: every open made slower
	}
	fsType, free := filesystem(root)
	env["root"] = root
	env["root_fs"] = fsType
	env["root_free_bytes"] = free
	return env
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}

func osRelease() string {
	for _, line := range strings.Split(readTrim("/etc/os-release"), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return "unknown"
}

// orUnknown returns v as text, or "unknown" when it could not be read.
func orUnknown[T any](v T, err error) string {
	if err != nil {
		return "unknown"
	}
	return fmt.Sprint(v)
}

// thpMode returns the bracketed mode of transparent huge pages, e.g. "madvise".
func thpMode() string {
	s := readTrim("/sys/kernel/mm/transparent_hugepage/enabled")
	if i := strings.Index(s, "["); i >= 0 {
		if j := strings.Index(s[i:], "]"); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}

// glibcVersion asks getconf, which every glibc system has.
func glibcVersion() string {
	out, err := exec.Command("getconf", "GNU_LIBC_VERSION").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

// filesystem returns the type of the filesystem holding path and its free
// bytes.
func filesystem(path string) (fsType, free string) {
	return orUnknown(measure.FSType(path)), orUnknown(measure.FreeBytes(path))
}

// engineVersions asks each worker of the study for its library and module
// versions; a worker that does not start is bad input (it was built
// wrongly or its library is missing).
func (c *Config) engineVersions(ctx context.Context) (all map[string]string, byVariant map[string]map[string]string, err error) {
	all, byVariant = map[string]string{}, map[string]map[string]string{}
	for _, v := range c.Variants {
		vs, err := WorkerVersions(ctx, filepath.Join(c.BinDir, c.binary(v)), v, c.Env)
		if err != nil {
			return nil, nil, &job.InputError{Msg: fmt.Sprintf("worker for %s does not start (%v): run 'make build' again", v, err)}
		}
		byVariant[v] = vs
		for k, val := range vs {
			all[k] = val
		}
	}
	return all, byVariant, nil
}

// writeEnv records the environment, the study's configuration and the
// versions of every engine in the study.
func (s *study) writeEnv(versions map[string]string) error {
	return s.w.Append(results.Record{
		Study:    s.id,
		Phase:    job.PhaseEnv,
		Status:   results.StatusOK,
		Started:  s.start.UTC(),
		Env:      Environment(s.Root, s.Version),
		Config:   s.config(),
		Versions: versions,
		Workload: s.Workload,
		Stores:   s.Stores,
		Fanout:   s.Fanout,
		Sweep:    s.sweepID,
	})
}

// WorkerVersions asks a worker binary for the versions of its engine
// libraries and Go modules.
func WorkerVersions(ctx context.Context, bin, variant string, env []string) (map[string]string, error) {
	res := runWorker(ctx, workerCmd{bin: bin, args: job.Job{Variant: variant, Phase: job.PhaseVersions}.Args(), env: env})
	if res.err != nil {
		return nil, res.err
	}
	return res.rec.Versions, nil
}

// checkSpace refuses a study whose stores would not fit on the data root's
// filesystem. Stores are removed after each variant, so one variant's
// stores must fit, or all of them with --keep. Stores that manydb will
// remove before it creates new ones (this study's variant folders and the
// root's trash) count as free.
func (c *Config) checkSpace() error {
	avail, err := measure.FreeBytes(existingAncestor(c.Root))
	if err != nil {
		return nil // the study will say what is wrong when it writes
	}
	free := float64(avail)
	removable := c.removableBytes()
	perStore := EstimateStoreBytes(c.Workload)
	need := c.storesBytes()
	what := "one variant's stores at a time"
	if c.Keep {
		need *= float64(len(c.Variants) * len(c.Settings))
		what = "all stores, kept (--keep)"
	}
	need *= 1 + spaceMargin
	if free+removable < need {
		also := ""
		if removable > 0 {
			also = fmt.Sprintf(" (and manydb would first remove %s of its own stores)", bytesText(removable))
		}
		return &job.InputError{Msg: fmt.Sprintf("the data root's filesystem has %s free%s, but this study needs about %s (%d stores × %s, %s, plus %.0f %%): free space, use fewer --stores, another --root, or --skip-space-check",
			bytesText(free), also, bytesText(need), c.Stores, bytesText(perStore), what, 100*spaceMargin)}
	}
	return nil
}

// spaceMargin is the share of room the space checks ask for beyond the
// stores' estimate (checkSpace, and the trash's makeRoom).
const spaceMargin = 0.1

// storesBytes is the estimated space of one variant's stores.
func (c *Config) storesBytes() float64 {
	return EstimateStoreBytes(c.Workload) * float64(c.Stores)
}

// removableBytes is the space of the stores manydb removes before creating
// this study's: its variants' folders in a marked root, and the trash.
func (c *Config) removableBytes() float64 {
	if _, err := os.Stat(filepath.Join(c.Root, MarkerFile)); err != nil {
		return 0
	}
	dirs := []string{filepath.Join(c.Root, TrashDir)}
	for _, set := range c.Settings {
		for _, v := range c.Variants {
			dirs = append(dirs, filepath.Join(c.Root, set.Name, v))
		}
	}
	var total float64
	for _, d := range dirs {
		if sp, err := measure.DirSpace(d); err == nil {
			total += float64(sp.Bytes)
		}
	}
	return total
}

// EstimateStoreBytes is a generous estimate of one store on disk: 1.6
// times the notes' payload (text, the embedding's 4 bytes per value, and
// 40 bytes per note) plus 64 KiB of fixed files; docs/method.md says
// where the ratio comes from, and that a vector index can take far more
// (libSQL's default index: about 50 times the vectors). It is a float so
// that absurd sizes compare instead of overflowing.
func EstimateStoreBytes(w workload.Spec) float64 {
	return float64(w.Objects)*float64(w.TextLen+4*w.Dims+40)*1.6 + 64<<10
}

// pageCacheReclaim names the kernel's running proactive reclaim of page
// cache (DAMON pageout schemes), "none found" when there is none.
func pageCacheReclaim() string {
	ps, err := measure.PageoutSchemes(measure.DAMONAdmin)
	if err != nil {
		return "unknown: " + err.Error()
	}
	if len(ps) == 0 {
		return "none found (no running DAMON pageout scheme)"
	}
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.String())
	}
	return strings.Join(parts, "; ")
}
