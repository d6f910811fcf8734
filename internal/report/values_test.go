package report

import (
	"testing"

	"manydb/internal/results"
)

func TestNeedsCgroupSaysWhy(t *testing.T) {
	for _, c := range []struct {
		hold *results.Hold
		want string
	}{
		{&results.Hold{Container: &results.Container{}}, ""},
		{&results.Hold{}, "n/a (needs a memory cgroup)"},
		{&results.Hold{Server: &results.ServerMemory{Processes: 10}}, "n/a (the server's processes are outside it)"},
	} {
		if got := needsCgroup([]*results.Record{{Hold: c.hold}}); got != c.want {
			t.Errorf("needsCgroup(%+v) = %q, want %q", c.hold, got, c.want)
		}
	}
}
