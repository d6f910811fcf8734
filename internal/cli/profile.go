package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/orchestrate"
	"manydb/internal/workload"
)

const profileSynopsis = `manydb profile --engine VARIANT [flags]

Shows where the create time of a store goes, step by step, as the
reference study's "Where the create time goes". The worker creates
--stores stores and times each step of every store on its own:

  1. create the directory and open the new store (schema or model commit)
  2. build the notes in memory
  3. marshal them, where the engine does that as a step of its own
     (ObjectBox's C-call variants obx_cached and obx_nosync: FlatBuffers;
     "–" for the others)
  4. insert (put) them in one transaction, commit included
  5. close

and the total, one span around all five (so, unlike the create phase's
figure, it includes building the notes). It does so on the disk (--root)
and on a tmpfs (--tmpfs), side by side in one table, so that the cost of
the disk syncs shows.

The sync calls (fsync, fdatasync, msync, sync_file_range, sync, syncfs,
and writes to files opened with O_DSYNC or O_SYNC, as LMDB and ObjectBox
write their meta page) are counted in a separate run of --sync-stores stores per medium under
strace -f -T, which also times each call; that run is not timed itself,
as strace slows everything. Without strace (scripts/ensure-strace.sh
installs it, as root) the sync rows say "not counted".

The records (phase profile, one per medium, with every store's samples
per step and the sync counts) are appended to --out; the table is printed
on stdout, and 'manydb tables' prints it again from the file.

Example:
  manydb profile --engine obx_cached --stores 200 --out profile.jsonl`

// profileOptions are the flags of manydb profile.
type profileOptions struct {
	engine     string
	stores     int
	syncStores int
	root       string
	tmpfs      string
	out        string
	cpuProfile string
	workload   string
	data       string // --data
	objects    int
	textLen    int
	binDir     string
}

// AddFlags defines profile's flags in fs; bin defaults to the value opt
// holds.
func (opt *profileOptions) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&opt.engine, "engine", "", "the variant to profile (known: "+joinIDs()+")")
	fs.IntVar(&opt.stores, "stores", 200, "stores created per medium in the timed run")
	fs.IntVar(&opt.syncStores, "sync-stores", 10, "stores created per medium in the run under strace that counts the syncs (0: no count)")
	fs.StringVar(&opt.root, "root", "manydb-data", "data root on the disk")
	fs.StringVar(&opt.tmpfs, "tmpfs", "/dev/shm/manydb-profile", "data root on a tmpfs, or none")
	fs.StringVar(&opt.out, "out", "results.jsonl", "results file, appended to")
	fs.StringVar(&opt.cpuProfile, "cpuprofile", "", "write a pprof CPU profile of the disk run to this file (and of the tmpfs run to FILE with .tmpfs before its extension)")
	fs.StringVar(&opt.workload, "workload", "large", "large (1,000 notes of 300 characters) or small (10 notes of 40)")
	fs.StringVar(&opt.data, "data", datasource.Synthetic, datasource.Help())
	fs.IntVar(&opt.objects, "objects", 0, "notes per store (0: the workload's)")
	fs.IntVar(&opt.textLen, "text-len", 0, "characters per note text (0: the workload's)")
	fs.StringVar(&opt.binDir, "bin", opt.binDir, "directory of the worker binaries")
}

// Validate checks the variant, the workload and its data source; the
// orchestrator checks
// the rest (orchestrate.Profile).
func (opt *profileOptions) Validate() error {
	if opt.engine == "" {
		return &job.InputError{Msg: "profile: name the variant to profile, e.g. --engine sqlite (known: " + joinIDs() + ")"}
	}
	if _, ok := engine.Lookup(opt.engine); !ok {
		return &job.InputError{Msg: fmt.Sprintf("profile: unknown engine %q: known variants are %s", opt.engine, joinIDs())}
	}
	_, err := workload.Lookup(opt.workload, opt.objects, opt.textLen)
	if err == nil {
		_, err = datasource.Choose(opt.data)
	}
	if err != nil {
		return &job.InputError{Msg: "profile: " + err.Error()}
	}
	return nil
}

func profileCmd(ctx context.Context, args []string, o Options) error {
	opt := profileOptions{binDir: o.BinDir}
	rest, done, err := parseOptions("profile", profileSynopsis, &opt, args, o)
	if done || err != nil {
		return err
	}
	if err := noArgs("profile", rest); err != nil {
		return err
	}
	if err := opt.Validate(); err != nil {
		return err
	}
	cfg := opt.config(o)
	if err := prepareWorkload(o, opt.binDir, &cfg.Workload, max(cfg.Stores, cfg.SyncStores)); err != nil {
		return &job.InputError{Msg: "profile: " + err.Error()}
	}
	if cfg.Strace == "" && cfg.SyncStores > 0 {
		fmt.Fprintln(o.Stderr, "strace is not installed: the syncs are not counted (run scripts/ensure-strace.sh as root to install it)")
	}
	id, err := orchestrate.Profile(ctx, cfg.ProfileConfig)
	var inputErr *job.InputError
	if errors.As(err, &inputErr) {
		return fmt.Errorf("profile: %w", err)
	}
	var failed *orchestrate.Failed
	if err != nil && !errors.As(err, &failed) {
		return err
	}
	if terr := printStudy(o, opt.out, id); terr != nil {
		return terr
	}
	if opt.cpuProfile != "" {
		fmt.Fprintf(o.Stderr, "CPU profiles: %s", opt.cpuProfile)
		if cfg.Tmpfs != "" {
			fmt.Fprintf(o.Stderr, " (disk), %s (tmpfs)", orchestrate.TmpfsName(opt.cpuProfile))
		}
		fmt.Fprintf(o.Stderr, "; see them with: go tool pprof -top %s/%s %s\n", opt.binDir, cfg.Binary, opt.cpuProfile)
	}
	fmt.Fprintf(o.Stderr, "records of profile %s are in %s\n", id, opt.out)
	return err
}

// profileConfig is the orchestrator's configuration and the worker
// binary's name (for the pprof hint).
type profileConfig struct {
	orchestrate.ProfileConfig
	Binary string
}

// config is the orchestrator's configuration of the options Validate
// checked.
func (opt profileOptions) config(o Options) profileConfig {
	// Validate checked the variant, the workload and its data source.
	fam, _ := engine.Lookup(opt.engine)
	wl, _ := workload.Lookup(opt.workload, opt.objects, opt.textLen)
	wl.Data, _ = datasource.Choose(opt.data)
	tmpfs := opt.tmpfs
	switch {
	case tmpfs == "none" || tmpfs == "":
		tmpfs = ""
	case tmpfs == "/dev/shm/manydb-profile":
		// the default: skipped, with a message, where there is no /dev/shm
		if _, err := os.Stat("/dev/shm"); err != nil {
			fmt.Fprintln(o.Stderr, "no /dev/shm here: profiling on the disk only (name a tmpfs directory with --tmpfs)")
			tmpfs = ""
		}
	}
	return profileConfig{Binary: fam.Binary, ProfileConfig: orchestrate.ProfileConfig{
		Variant:    opt.engine,
		Stores:     opt.stores,
		Workload:   wl,
		Root:       opt.root,
		Tmpfs:      tmpfs,
		Out:        opt.out,
		CPUProfile: opt.cpuProfile,
		SyncStores: opt.syncStores,
		Strace:     orchestrate.FindStrace(),
		BinDir:     opt.binDir,
		Version:    o.Version,
		Env:        o.Environ,
		Log:        o.Stderr,
	}}
}
