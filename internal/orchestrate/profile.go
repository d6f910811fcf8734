package orchestrate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/measure"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// Media of a profile.
const (
	MediumDisk  = "disk"
	MediumTmpfs = "tmpfs"
)

// ProfileConfig is one "where the create time goes" profile (manydb
// profile) of one variant: the worker's profile phase on the disk and on a
// tmpfs, each followed by a separate, smaller run under strace that counts
// the sync calls per store.
type ProfileConfig struct {
	Variant  string
	Stores   int           // stores per medium in the timed run
	Workload workload.Spec // what each store holds
	Root     string        // data root on the disk (carries MarkerFile)
	Tmpfs    string        // data root on a tmpfs; "" for the disk only
	Out      string        // results file (JSON Lines, appended)
	// CPUProfile is a pprof CPU profile file for the disk's timed run; the
	// tmpfs run writes TmpfsName(CPUProfile). "" for none.
	CPUProfile string
	// SyncStores is the number of stores the counting run creates under
	// strace; 0 makes no counting run.
	SyncStores int
	// Strace is the strace binary; "" when it is not installed (the
	// records then say why the syncs were not counted).
	Strace  string
	BinDir  string    // where the worker binaries are
	Version string    // manydb's own version, recorded in the environment
	Env     []string  // environment passed to workers (os.Environ())
	Log     io.Writer // progress and messages (stderr)
	Bar     Progress  // nil means NewProgress(Log)
	// Catalog maps variants to worker binaries; nil means engine.Catalog().
	Catalog []engine.Family
}

// TmpfsName returns the CPU profile file of the tmpfs run: file with
// ".tmpfs" before its extension (cpu.pprof → cpu.tmpfs.pprof).
func TmpfsName(file string) string {
	ext := filepath.Ext(file)
	return strings.TrimSuffix(file, ext) + ".tmpfs" + ext
}

func (c *ProfileConfig) family() (engine.Family, bool) {
	return lookupFamily(c.Catalog, c.Variant)
}

// Validate checks the configuration before anything is written.
func (c *ProfileConfig) Validate() error {
	switch {
	case c.Stores < 1:
		return &job.InputError{Msg: fmt.Sprintf("--stores %d: create at least one store", c.Stores)}
	case c.SyncStores < 0:
		return &job.InputError{Msg: fmt.Sprintf("--sync-stores %d must not be negative", c.SyncStores)}
	case c.Workload.Objects < 1 || c.Workload.TextLen < 1:
		return &job.InputError{Msg: "--objects and --text-len must be at least 1"}
	case c.Root == "":
		return &job.InputError{Msg: "--root is empty: name a directory on the disk for the stores"}
	case c.Out == "":
		return &job.InputError{Msg: "--out is empty: name a results file"}
	}
	if err := checkNotesFit(c.Workload); err != nil {
		return err
	}
	if err := CheckRoot(c.Root, "--root"); err != nil {
		return err
	}
	if err := checkOut(c.Out, c.Root); err != nil {
		return err
	}
	if err := c.checkCPUProfile(); err != nil {
		return err
	}
	if c.Tmpfs != "" {
		if err := CheckRoot(c.Tmpfs, "--tmpfs"); err != nil {
			return err
		}
		// Checked on the folder itself, or on the nearest one that exists
		// (the folder is created only once all input is checked).
		at := existingAncestor(c.Tmpfs)
		if fs, _ := filesystem(at); fs != "tmpfs" {
			where := "is"
			if at != resolve(c.Tmpfs) {
				where = fmt.Sprintf("would be made in %s, which is", at)
			}
			return &job.InputError{Msg: fmt.Sprintf("--tmpfs %s %s on %s, not on a tmpfs: name a directory on a tmpfs (e.g. /dev/shm/manydb-profile) or --tmpfs none", c.Tmpfs, where, fs)}
		}
		if inside(c.Tmpfs, c.Out) {
			return &job.InputError{Msg: fmt.Sprintf("--out %s is inside the tmpfs data root %s: put the results file elsewhere", c.Out, c.Tmpfs)}
		}
	}
	if fam, ok := lookupFamily(c.Catalog, c.Variant); ok && fam.Server != "" {
		return &job.InputError{Msg: fmt.Sprintf("--engine %s keeps its stores in a %s server, and manydb profile times the engine's calls in the worker's process and their syncs on its files: it has no profile of a server (manydb run measures it)", c.Variant, fam.Server)}
	}
	return checkWorker(c.Catalog, c.BinDir, c.Variant, c.Env)
}

// checkCPUProfile checks that the worker will be able to create the CPU
// profile files: each names no folder, and its folder exists and is
// writable.
func (c *ProfileConfig) checkCPUProfile() error {
	if c.CPUProfile == "" {
		return nil
	}
	files := []string{c.CPUProfile}
	if c.Tmpfs != "" {
		files = append(files, TmpfsName(c.CPUProfile))
	}
	for _, f := range files {
		if st, err := os.Stat(f); err == nil && st.IsDir() {
			return &job.InputError{Msg: fmt.Sprintf("--cpuprofile %s is a directory: name a file", f)}
		}
		dir := filepath.Dir(f)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return &job.InputError{Msg: fmt.Sprintf("--cpuprofile %s: the folder %s does not exist; create it or name another file", c.CPUProfile, dir)}
		}
		if err := unix.Access(dir, unix.W_OK); err != nil {
			return &job.InputError{Msg: fmt.Sprintf("--cpuprofile %s: the folder %s is not writable (%v)", c.CPUProfile, dir, err)}
		}
	}
	return nil
}

// medium is one data root of a profile.
type medium struct {
	name, root, fs string
}

// Profile runs the profile and appends its records (env, one profile
// record per medium, end) to c.Out; it returns the profile's study id.
// A failed worker run gives a failed record and a *Failed error.
func Profile(ctx context.Context, c ProfileConfig) (string, error) {
	if err := c.Validate(); err != nil {
		return "", err
	}
	if err := results.CheckAppendable(c.Out); err != nil {
		return "", &job.InputError{Msg: fmt.Sprintf("%v: choose another --out", err)}
	}
	if c.Bar == nil {
		c.Bar = NewProgress(c.Log)
	}
	media := []medium{{name: MediumDisk, root: c.Root}}
	if c.Tmpfs != "" {
		media = append(media, medium{name: MediumTmpfs, root: c.Tmpfs})
	}
	fam, _ := c.family()
	bin := filepath.Join(c.BinDir, fam.Binary)
	versions, err := WorkerVersions(ctx, bin, c.Variant, c.Env)
	if err != nil {
		return "", &job.InputError{Msg: fmt.Sprintf("worker for %s does not start: %v", c.Variant, err)}
	}
	// All input is checked: now the locks, the results file's first, so
	// that a refusal creates no root; a refused profile removes what it
	// created.
	var cl claim
	defer cl.release()
	if err := c.claimMedia(&cl, media); err != nil {
		return "", err
	}
	w, err := results.OpenWriter(c.Out)
	if err != nil {
		return "", &job.InputError{Msg: fmt.Sprintf("results file %s cannot be written (%v): choose another --out", c.Out, errors.Unwrap(err))}
	}
	defer w.Close()
	start := time.Now()
	id := newStudyID(start)
	if err := w.Append(c.envRecord(id, start, media, versions)); err != nil {
		return id, err
	}

	var failed []string
	for _, m := range media {
		rec, err := c.profileMedium(ctx, bin, m)
		if err != nil {
			return id, err
		}
		rec.Study, rec.Setting = id, "default"
		if rec.Status != results.StatusOK {
			failed = append(failed, c.Variant+" profile "+m.name)
		}
		if err := w.Append(rec); err != nil {
			return id, err
		}
	}
	if err := w.Append(results.Record{Study: id, Phase: job.PhaseEnd, Status: results.StatusOK,
		Workload: c.Workload, Stores: c.Stores, Started: start.UTC(), WallS: time.Since(start).Seconds()}); err != nil {
		return id, err
	}
	if len(failed) > 0 {
		return id, &Failed{Phases: failed}
	}
	return id, nil
}

// claimMedia locks the results file, then each medium's root, and
// empties their trash; a refusal creates no root, and a refused profile
// removes what it created.
func (c *ProfileConfig) claimMedia(cl *claim, media []medium) error {
	if err := cl.lockOut(c.Out); err != nil {
		return err
	}
	for i, flag := range []string{"--root", "--tmpfs"}[:len(media)] {
		if err := cl.lockRoot(media[i].root, flag); err != nil {
			return undoAfter(err, cl)
		}
	}
	for i := range media {
		m := &media[i]
		if err := EmptyTrash(m.root); err != nil {
			return err
		}
		m.fs, _ = filesystem(m.root)
	}
	if len(media) == 2 && media[0].fs == "tmpfs" {
		fmt.Fprintf(c.Log, "warning: --root %s is on a tmpfs too: its column shows no disk syncs\n", c.Root)
	}
	return nil
}

// envRecord returns the profile's env record: the environment, the
// tmpfs medium's root and filesystem, strace's version and the worker's
// versions.
func (c *ProfileConfig) envRecord(id string, start time.Time, media []medium, versions map[string]string) results.Record {
	env := Environment(c.Root, c.Version)
	if len(media) == 2 {
		env["tmpfs_root"] = c.Tmpfs
		env["tmpfs_fs"] = media[1].fs
	}
	env["strace"] = straceVersion(c.Strace)
	root, err := filepath.Abs(c.Root)
	if err != nil {
		root = c.Root
	}
	return results.Record{Study: id, Phase: job.PhaseEnv, Status: results.StatusOK, Started: start.UTC(),
		Env: env, Versions: versions, Workload: c.Workload, Stores: c.Stores,
		Config: &results.StudyConfig{Variants: []string{c.Variant}, Settings: []string{"default"}, Stores: c.Stores,
			Workload: c.Workload, Root: root}}
}

// profileMedium makes the timed run and the counting run on one medium
// and returns the record of the timed run with the sync counts added. Its
// stores are removed afterwards. The error is for what stops the profile.
func (c *ProfileConfig) profileMedium(ctx context.Context, bin string, m medium) (results.Record, error) {
	base := filepath.Join(m.root, "profile")
	dir := filepath.Join(base, c.Variant)
	cpuProfile := c.CPUProfile
	if cpuProfile != "" && m.name == MediumTmpfs {
		cpuProfile = TmpfsName(cpuProfile)
	}
	args := c.workerArgs(dir, c.Stores, cpuProfile)
	label := fmt.Sprintf("%s profile on %s", c.Variant, m.name)
	rec, err := c.run(ctx, label, bin, dir, args, c.Stores)
	if err != nil {
		return rec, err
	}
	if rec.Profile == nil { // failed
		rec.Profile = &results.Profile{}
	}
	rec.Profile.Medium, rec.Profile.FS = m.name, m.fs
	rec.Profile.Dir, _ = filepath.Abs(dir)
	if rec.Status != results.StatusOK {
		return rec, nil
	}
	if c.SyncStores == 0 {
		return rec, nil
	}
	if c.Strace == "" {
		rec.Profile.Syncs = &results.Syncs{NotCounted: "strace is not installed (scripts/ensure-strace.sh installs it)"}
		return rec, nil
	}
	syncDir := filepath.Join(base, c.Variant+"-strace")
	tf, err := os.CreateTemp("", "manydb-strace-*.txt")
	if err != nil {
		return rec, fmt.Errorf("file for strace's output: %w", err)
	}
	tf.Close()
	trace := tf.Name()
	defer os.Remove(trace)
	traced := append([]string{"-f", "-T", "-qq", "--seccomp-bpf", "-e", "signal=none",
		"-e", "trace=" + straceTrace(), "-o", trace, "--", bin}, c.workerArgs(syncDir, c.SyncStores, "")...)
	crec, err := c.run(ctx, label+", syncs counted under strace", c.Strace, syncDir, traced, c.SyncStores)
	if err != nil {
		return rec, err
	}
	if crec.Status != results.StatusOK {
		rec.Profile.Syncs = &results.Syncs{NotCounted: "the run under strace failed: " + crec.Error}
		return rec, nil
	}
	syncs, perr := readStraceFile(trace)
	if perr != nil {
		rec.Profile.Syncs = &results.Syncs{NotCounted: perr.Error()}
		return rec, nil
	}
	syncs.Stores = c.SyncStores
	syncs.Tool = straceVersion(c.Strace) + " -f -T --seccomp-bpf"
	rec.Profile.Syncs = syncs
	return rec, nil
}

// remove removes the stores stores a profile worker makes in dir and says
// what it left there.
func (c *ProfileConfig) remove(root, dir string, stores int) error {
	fam, _ := lookupFamily(c.Catalog, c.Variant)
	left, err := RemoveInRoot(root, dir, made{stores: stores, files: fam.FolderFiles[c.Variant]})
	if len(left) > 0 {
		fmt.Fprint(c.Log, leftLine(dir, left))
	}
	return err
}

// workerArgs is the command line of a profile worker; cpuProfile "" for
// no CPU profile.
func (c *ProfileConfig) workerArgs(dir string, stores int, cpuProfile string) []string {
	return job.Job{Variant: c.Variant, Phase: job.PhaseProfile, Dir: dir, Stores: stores,
		Workload: c.Workload, Progress: true, CPUProfile: cpuProfile}.Args()
}

// run makes dir anew, runs one worker (bin args, which may be strace
// running the worker), removes dir and returns the worker's record, or a
// failed record.
func (c *ProfileConfig) run(ctx context.Context, label, bin, dir string, args []string, stores int) (results.Record, error) {
	root := filepath.Dir(filepath.Dir(dir))
	if err := c.remove(root, dir, stores); err != nil {
		return results.Record{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return results.Record{}, fmt.Errorf("create store directory: %w", err)
	}
	load, err := measure.Load1()
	if err != nil {
		return results.Record{}, err
	}
	started := time.Now().UTC()
	sampler := startLoadSampler(10 * time.Second)
	c.Bar.Start(label, stores, "store")
	res := runWorker(ctx, workerCmd{bin: bin, args: args, env: c.Env, onProgress: c.Bar.Set, unit: "store", label: label, log: c.Log})
	c.Bar.Done()
	during := sampler.stop()
	if err := c.remove(root, dir, stores); err != nil {
		return results.Record{}, err
	}
	if ctx.Err() != nil {
		return results.Record{}, fmt.Errorf("interrupted during %s; the records of finished runs are in %s", label, c.Out)
	}
	rec := res.rec
	if res.err != nil {
		rec = failedRecord(res, bin, args, c.Variant, job.PhaseProfile, 0, c.Workload, stores)
		fmt.Fprintf(c.Log, "%s failed: %v\n  command: %s\n", label, res.err, strings.Join(rec.Command, " "))
	}
	rec.Load1, rec.Started, rec.WorkerS, rec.LoadDuring = load, started, res.seconds, during
	return rec, nil
}
