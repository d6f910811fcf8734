package worker

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"manydb/internal/engine"
	"manydb/internal/engines/fakeengine"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// TestArgsParseBack: Args is the inverse of parseJob, for each phase and
// every flag.
func TestArgsParseBack(t *testing.T) {
	factories := []engine.Factory{{ID: "fake", New: fakeengine.New("fake")}, {ID: "fake_two", New: fakeengine.New("fake_two")}}
	large := workload.Spec{Name: "large", Objects: 1000, TextLen: 300}
	small := workload.Spec{Name: "small", Objects: 10, TextLen: 40}
	jobs := []Job{
		{Variant: "fake", Phase: results.PhaseCreate, Dir: "/d/fake", Stores: 1000, Workload: large, Progress: true},
		{Variant: "fake_two", Phase: results.PhaseCreate, Dir: "/d x/fake", Stores: 5, Workload: small, CPUProfile: "/tmp/cpu.pprof", THPOff: true},
		{Variant: "fake", Phase: results.PhaseOpen, Dir: "/d", Stores: 7, Workload: small, Run: 3, Seed: 3, Progress: true, THPOff: true},
		{Variant: "fake", Phase: results.PhaseOpen, Dir: "/d", Stores: 7, Workload: large, Run: 1, Seed: 1<<63 + 5},
		{Variant: "fake", Phase: results.PhaseHold, Dir: "/d", Stores: 7, Workload: small, Hold: 7, Progress: true},
		{Variant: "fake", Phase: results.PhaseSpace, Dir: "/d", Stores: 2, Workload: workload.Spec{Name: "custom", Objects: 3, TextLen: 1}},
		{Variant: "fake", Phase: results.PhaseProfile, Dir: "/d", Stores: 2, Workload: large, Progress: true, CPUProfile: "cpu.tmpfs.pprof"},
		{Variant: "fake", Phase: "versions", Workload: large},
		{List: true, Workload: large},
	}
	for _, j := range jobs {
		args := j.Args()
		got, err := parseJob(args, io.Discard, factories)
		if err != nil {
			t.Errorf("%+v: parseJob(%q): %v", j, args, err)
			continue
		}
		if !reflect.DeepEqual(got, j) {
			t.Errorf("parseJob(%q) = %+v, want %+v", args, got, j)
		}
	}
}

// TestArgsCommandLines: the orchestrator's command lines, flag for flag.
func TestArgsCommandLines(t *testing.T) {
	small := workload.Spec{Name: "small", Objects: 10, TextLen: 40}
	for _, tt := range []struct {
		job  Job
		want string
	}{
		{Job{Variant: "sqlite", Phase: results.PhaseOpen, Dir: "/r/default/sqlite", Stores: 5, Workload: small, Progress: true, THPOff: true, Run: 2, Seed: 2},
			"--variant sqlite --phase open --dir /r/default/sqlite --stores 5 --workload small --objects 10 --text-len 40 --progress --thp-off --run 2 --seed 2"},
		{Job{Variant: "sqlite", Phase: results.PhaseHold, Dir: "/r", Stores: 5, Workload: small, Progress: true, Hold: 4},
			"--variant sqlite --phase hold --dir /r --stores 5 --workload small --objects 10 --text-len 40 --progress --hold 4"},
		{Job{Variant: "sqlite", Phase: results.PhaseProfile, Dir: "/r", Stores: 5, Workload: small, Progress: true, CPUProfile: "cpu.pprof"},
			"--variant sqlite --phase profile --dir /r --stores 5 --workload small --objects 10 --text-len 40 --progress --cpuprofile cpu.pprof"},
		{Job{Variant: "sqlite", Phase: "versions"}, "--variant sqlite --phase versions"},
		{Job{List: true}, "--list"},
	} {
		if got := strings.Join(tt.job.Args(), " "); got != tt.want {
			t.Errorf("Args() = %s\nwant      %s", got, tt.want)
		}
	}
}
