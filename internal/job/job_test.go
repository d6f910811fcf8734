package job

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"manydb/internal/workload"
)

var (
	large = workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	small = workload.Spec{Name: "small", Objects: 10, TextLen: 40}
)

// roundTrips are jobs as the orchestrator makes them; together they set
// every field of Job (TestRoundTripsCoverEveryField).
var roundTrips = []Job{
	{Variant: "fake", Phase: PhaseCreate, Dir: "/d/fake", Stores: 1000, Workload: large, Progress: true, Fanout: 2, Layout: LayoutShared, WAL: true},
	{Variant: "fake_two", Phase: PhaseCreate, Dir: "/d x/fake", Stores: 5, Workload: small, CPUProfile: "/tmp/cpu.pprof", THPOff: true, Lean: true, Allocator: Jemalloc},
	{Variant: "fake", Phase: PhaseOpen, Dir: "/d", Stores: 7, Workload: small, Run: 3, Seed: 3, Progress: true, THPOff: true, Queries: []Query{QueryRecent, QueryCount}, Cache: CacheCold},
	{Variant: "fake", Phase: PhaseOpen, Dir: "/d", Stores: 7, Workload: large, Run: 1, Seed: 1<<63 + 5, Prewarm: true, Allocator: Glibc},
	{Variant: "fake", Phase: PhaseOpen, Dir: "/d", Stores: 7, Workload: large, Run: 2, Seed: 2, Cache: CacheDrop,
		Env: []string{"MALLOC_MMAP_THRESHOLD_=131072", "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}},
	{Variant: "fake", Phase: PhaseHold, Dir: "/d", Stores: 7, Workload: small, Hold: 7, Progress: true, Cgroup: "/sys/fs/cgroup/manydb-1", Server: "host=/r/pg user=manydb dbname=manydb_default"},
	{Variant: "fake", Phase: PhaseHold, Dir: "/d", Stores: 30000, Workload: small, Hold: 25000, Procs: 2, Proc: 1},
	{Variant: "fake", Phase: PhaseSpace, Dir: "/d", Stores: 2, Workload: workload.Spec{Name: "custom", Objects: 3, TextLen: 1, Dims: 8, TopicPool: 40, Spread: 0.35}},
	{Variant: "fake", Phase: PhaseSpace, Dir: "/d", Stores: 2, Workload: workload.Spec{Name: "custom", Objects: 3, TextLen: 1, Dims: 8, Data: workload.Data{Name: "glove50"}, Split: true}},
	{Variant: "fake", Phase: PhaseCreate, Dir: "/d", Stores: 2, Workload: workload.Spec{Name: "custom", Objects: 3, TextLen: 1, Data: workload.Data{Name: "files", Version: "2", SHA256: "9f86d081"}}},
	{Variant: "fake", Phase: PhaseTurn, Dir: "/d", Stores: 4, Workload: workload.Spec{Name: "custom", Objects: 3, TextLen: 1, Dims: 8}, Run: 2, Seed: 2, Appended: 1, KNNOversample: 4},
	{Variant: "fake", Phase: PhaseServe, Dir: "/d", Stores: 100, Workload: small, Seed: 1, Serve: Serve{Pool: 10, Requests: 500, Concurrency: 4, Zipf: 1.1, Rate: 250.5, PoolTime: 90 * time.Second}},
	{Variant: "fake", Phase: PhaseProfile, Dir: "/d", Stores: 2, Workload: large, Progress: true, CPUProfile: "cpu.tmpfs.pprof"},
	{Variant: "fake", Phase: PhaseDelete, Dir: "/d", Stores: 20, Workload: small, Seed: 1, Layout: LayoutShared, Deletes: 3},
	{Variant: "fake", Phase: PhaseVersions, Workload: large},
	{List: true, Workload: large},
}

// TestArgsParseBack: Args is the inverse of Parse, for each phase and
// every flag.
func TestArgsParseBack(t *testing.T) {
	for _, j := range roundTrips {
		args := j.Args()
		got, err := Parse(args, io.Discard, []string{"fake", "fake_two"})
		if err != nil {
			t.Errorf("%+v: Parse(%q): %v", j, args, err)
			continue
		}
		if !reflect.DeepEqual(got, j) {
			t.Errorf("Parse(%q) = %+v, want %+v", args, got, j)
		}
	}
}

// TestRoundTripsCoverEveryField: each field of Job (and of its nested
// structs) is set in some case of roundTrips, so a field that Args or
// Parse forgets fails TestArgsParseBack.
func TestRoundTripsCoverEveryField(t *testing.T) {
	set := map[string]bool{}
	for _, j := range roundTrips {
		markSet(reflect.ValueOf(j), "", set)
	}
	for _, name := range fieldNames(reflect.TypeOf(Job{}), "") {
		if !set[name] {
			t.Errorf("no case of roundTrips sets Job.%s: add one", name)
		}
	}
}

// fieldNames lists the leaf fields of struct type t, nested ones as "A.B".
func fieldNames(t reflect.Type, prefix string) []string {
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Type.Kind() == reflect.Struct {
			names = append(names, fieldNames(f.Type, prefix+f.Name+".")...)
			continue
		}
		names = append(names, prefix+f.Name)
	}
	return names
}

// markSet records in set each leaf field of struct v that is not zero.
func markSet(v reflect.Value, prefix string, set map[string]bool) {
	for i := range v.NumField() {
		f, name := v.Field(i), prefix+v.Type().Field(i).Name
		if f.Kind() == reflect.Struct {
			markSet(f, name+".", set)
			continue
		}
		if !f.IsZero() {
			set[name] = true
		}
	}
}

// TestArgsCommandLines: the orchestrator's command lines, flag for flag.
func TestArgsCommandLines(t *testing.T) {
	for _, tt := range []struct {
		job  Job
		want string
	}{
		{Job{Variant: "sqlite", Phase: PhaseOpen, Dir: "/r/default/sqlite", Stores: 5, Workload: small, Progress: true, THPOff: true, Run: 2, Seed: 2},
			"--variant sqlite --phase open --dir /r/default/sqlite --stores 5 --workload small --objects 10 --text-len 40 --progress --thp-off --run 2 --seed 2"},
		{Job{Variant: "sqlite", Phase: PhaseHold, Dir: "/r", Stores: 5, Workload: small, Progress: true, Hold: 4},
			"--variant sqlite --phase hold --dir /r --stores 5 --workload small --objects 10 --text-len 40 --progress --hold 4"},
		{Job{Variant: "sqlite", Phase: PhaseProfile, Dir: "/r", Stores: 5, Workload: small, Progress: true, CPUProfile: "cpu.pprof"},
			"--variant sqlite --phase profile --dir /r --stores 5 --workload small --objects 10 --text-len 40 --progress --cpuprofile cpu.pprof"},
		{Job{Variant: "sqlite", Phase: PhaseVersions}, "--variant sqlite --phase versions"},
		{Job{List: true}, "--list"},
	} {
		if got := strings.Join(tt.job.Args(), " "); got != tt.want {
			t.Errorf("Args() = %s\nwant      %s", got, tt.want)
		}
	}
}

// TestParseRefuses: each bad command line is refused with a message that
// names the flag.
func TestParseRefuses(t *testing.T) {
	ok := "--variant fake --dir /d --stores 3 --seed 1"
	for _, tt := range []struct{ args, want string }{
		{"--variant other --phase create --dir /d --stores 3", `--variant "other"`},
		{ok + " --phase remove", `--phase "remove": use create, open, hold, space, turn, serve, delete, profile, versions`},
		{ok + " --phase open --layout one", `--layout "one": use shared, or leave it out for a store per agent`},
		{ok + " --phase open --queries count,count", "count is listed twice"},
		{ok + " --phase open --queries nearest", `unknown query "nearest"`},
		{ok + " --phase open --queries knn", "--queries knn needs embeddings: give --dims"},
		{ok + " --phase open --dims -1", "--dims -1"},
		{ok + " --phase open --dims 9000", "--dims 9000"},
		{ok + " --phase open --cache hot", `--cache "hot"`},
		{ok + " --phase open --allocator ptmalloc", `--allocator "ptmalloc"`},
		{ok + " --phase open --fanout 4", "--fanout 4"},
		{ok + " --phase hold --hold 4", "--hold 4"},
		{ok + " --phase open --cpuprofile x", "--cpuprofile is for the create and profile phases"},
		{ok + " --phase open --env MALLOC", `--env "MALLOC": give NAME=value`},
		{ok + " --phase open --env A=1 --env A=2", `--env "A=2": A is set twice`},
		{"--variant fake --phase open --dir /d --stores 3", "--seed is required"},
		{ok + " --phase open --deletes 2", "--deletes is for the delete phase, not open"},
		{ok + " --phase delete --deletes 3", "--deletes 3: give how many agents"},
	} {
		_, err := Parse(strings.Fields(tt.args), io.Discard, []string{"fake"})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", tt.args, err, tt.want)
		}
	}
}

// TestStoreDir: the flat and nested layouts of a store's directory.
func TestStoreDir(t *testing.T) {
	for _, tt := range []struct {
		i, fanout int
		want      string
	}{{1234, 0, "/r/001234"}, {1234, 1, "/r/34/001234"}, {1234, 2, "/r/12/34/001234"}, {1234, 3, "/r/00/12/34/001234"},
		{7, 2, "/r/00/07/000007"}, {999999, 2, "/r/99/99/999999"}} {
		if got := StoreDir("/r", tt.i, tt.fanout); got != tt.want {
			t.Errorf("StoreDir(/r, %d, %d) = %s, want %s", tt.i, tt.fanout, got, tt.want)
		}
	}
}

// TestParseQueries: known queries in the order given, each once.
func TestParseQueries(t *testing.T) {
	if q, err := ParseQueries("recent,count"); err != nil || !reflect.DeepEqual(q, []Query{QueryRecent, QueryCount}) {
		t.Errorf("ParseQueries(recent,count) = %v, %v", q, err)
	}
	for _, bad := range []string{"", "count,,scan", "count,count", "sum", "append"} {
		if _, err := ParseQueries(bad); err == nil {
			t.Errorf("ParseQueries(%q) accepted", bad)
		}
	}
}

func TestDeleteAgents(t *testing.T) {
	if n := DeleteAgents(5); n != 1 {
		t.Errorf("DeleteAgents(5) = %d, want 1", n)
	}
	if n := DeleteAgents(50); n != 5 {
		t.Errorf("DeleteAgents(50) = %d, want 5", n)
	}
}

// TestCheckDeletes: --deletes is 0 (one in ten) or 1 to the stores, and
// only with the shared layout.
func TestCheckDeletes(t *testing.T) {
	for _, c := range []struct {
		n, stores int
		shared    bool
		want      string
	}{
		{0, 10, false, ""}, {0, 10, true, ""}, {1, 10, true, ""}, {9, 10, true, ""},
		{10, 10, true, "--deletes 10: give how many agents the delete phase exports and deletes, 1 to 9 of the 10 stores (0: one in 10)"},
		{-1, 10, true, "--deletes -1: give how many"},
		{5, 10, false, "--deletes 5: only a study with the shared layout"},
		{50, 10, false, "--deletes 50: only a study with the shared layout"},
	} {
		layouts := DefaultLayouts()
		if c.shared {
			layouts = []Layout{LayoutPerAgent, LayoutShared}
		}
		err := CheckDeletes(c.n, c.stores, layouts)
		if (c.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("CheckDeletes(%d, %d, %t) = %v, want %q", c.n, c.stores, c.shared, err, c.want)
		}
	}
	if n := (Job{Stores: 50, Deletes: 3}).DeleteCount(); n != 3 {
		t.Errorf("DeleteCount with Deletes 3 = %d, want 3", n)
	}
	if n := (Job{Stores: 50}).DeleteCount(); n != 5 {
		t.Errorf("DeleteCount by default of 50 stores = %d, want 5", n)
	}
}

// TestEnviron: the job's environment comes after the orchestrator's, so
// that it wins, and the orchestrator's is left as it was.
func TestEnviron(t *testing.T) {
	base := []string{"PATH=/bin", "LD_PRELOAD="}
	j := Job{Env: []string{"LD_PRELOAD=/lib/x.so"}}
	got := j.Environ(base)
	if want := []string{"PATH=/bin", "LD_PRELOAD=", "LD_PRELOAD=/lib/x.so"}; !slices.Equal(got, want) {
		t.Errorf("Environ = %q, want %q", got, want)
	}
	got[0] = "changed"
	if base[0] != "PATH=/bin" {
		t.Error("Environ changed the orchestrator's environment")
	}
}

func TestCheckSqldMaxActive(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: true, 1: true, 100_000: true} {
		if err := CheckSqldMaxActive(n); (err == nil) != ok {
			t.Errorf("CheckSqldMaxActive(%d) = %v, want ok %v", n, err, ok)
		}
	}
}
