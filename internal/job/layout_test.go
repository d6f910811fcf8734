package job

import (
	"slices"
	"strings"
	"testing"
)

// TestLayoutNames: each layout's name, label and marks, and the default.
func TestLayoutNames(t *testing.T) {
	if got := LayoutNames(Layouts()); !slices.Equal(got, []string{"per-agent", "shared"}) {
		t.Errorf("LayoutNames(Layouts()) = %q, want per-agent, shared", got)
	}
	if got := DefaultLayouts(); !slices.Equal(got, []Layout{LayoutPerAgent}) {
		t.Errorf("DefaultLayouts() = %q, want the per-agent layout alone", got)
	}
	for _, c := range []struct {
		l                  Layout
		label, column, dir string
	}{
		{LayoutPerAgent, "", "sqlite", "sqlite"},
		{LayoutShared, "shared", "sqlite shared", "sqlite-shared"},
	} {
		if got := c.l.Label(); got != c.label {
			t.Errorf("%s: Label() = %q, want %q", c.l.Name(), got, c.label)
		}
		if got := c.l.Mark("sqlite", " "); got != c.column {
			t.Errorf("%s: Mark(sqlite, space) = %q, want %q", c.l.Name(), got, c.column)
		}
		if got := c.l.Mark("sqlite", "-"); got != c.dir {
			t.Errorf("%s: Mark(sqlite, -) = %q, want %q", c.l.Name(), got, c.dir)
		}
	}
	if u := LayoutUsage(); !strings.Contains(u, "per-agent (a store each) and shared (one store for all, keyed by agent)") {
		t.Errorf("LayoutUsage() = %q, want each layout with what it is", u)
	}
}

// TestParseLayouts: a --layout list of known layouts, each once.
func TestParseLayouts(t *testing.T) {
	got, err := ParseLayouts("per-agent, shared")
	if err != nil || !slices.Equal(got, []Layout{LayoutPerAgent, LayoutShared}) {
		t.Fatalf("ParseLayouts(per-agent, shared) = %v, %v", got, err)
	}
	if got, err := ParseLayouts("per-agent"); err != nil || !slices.Equal(got, DefaultLayouts()) {
		t.Errorf("ParseLayouts(per-agent) = %v, %v, want the default", got, err)
	}
	for in, want := range map[string]string{
		"shared,shared": "--layout: shared is listed twice",
		"one":           `--layout: unknown layout "one": use per-agent, shared, comma-separated`,
		"":              `--layout: unknown layout "": use per-agent, shared, comma-separated`,
	} {
		if _, err := ParseLayouts(in); err == nil || err.Error() != want {
			t.Errorf("ParseLayouts(%q) = %v, want %q", in, err, want)
		}
	}
}

// TestRecordedLayouts: a study of the default layout alone records none,
// as records before layouts; any other list by name.
func TestRecordedLayouts(t *testing.T) {
	if got := RecordedLayouts(DefaultLayouts()); got != nil {
		t.Errorf("RecordedLayouts(default) = %q, want nil", got)
	}
	for _, ls := range [][]Layout{{LayoutShared}, {LayoutPerAgent, LayoutShared}, {LayoutShared, LayoutPerAgent}} {
		if got := RecordedLayouts(ls); !slices.Equal(got, LayoutNames(ls)) {
			t.Errorf("RecordedLayouts(%q) = %q, want %q", ls, got, LayoutNames(ls))
		}
	}
}

// TestCheckLayout: a known layout passes, an unknown one is named.
func TestCheckLayout(t *testing.T) {
	for _, l := range Layouts() {
		if err := CheckLayout("layout", l); err != nil {
			t.Errorf("CheckLayout(%s) = %v", l.Name(), err)
		}
	}
	want := `layout "per-agent": use shared, or leave it out for a store per agent`
	if err := CheckLayout("layout", "per-agent"); err == nil || err.Error() != want {
		t.Errorf("CheckLayout(per-agent as a value) = %v, want %q", err, want)
	}
}

// TestLayoutStores: where each layout keeps store i's notes.
func TestLayoutStores(t *testing.T) {
	if LayoutPerAgent.Stores() != OwnStores || LayoutShared.Stores() != OneStore {
		t.Errorf("Stores: per-agent %d, shared %d, want OwnStores, OneStore", LayoutPerAgent.Stores(), LayoutShared.Stores())
	}
	if got, want := LayoutPerAgent.StoreDir("/d", 1234, 2), StoreDir("/d", 1234, 2); got != want {
		t.Errorf("per-agent StoreDir = %s, want %s", got, want)
	}
	if got := LayoutShared.StoreDir("/d", 1234, 2); got != "/d/shared" {
		t.Errorf("shared StoreDir = %s, want /d/shared", got)
	}
}

// TestLayoutRules: the delete phase, the wal setting and the rules
// between --layout and other flags.
func TestLayoutRules(t *testing.T) {
	both := []Layout{LayoutPerAgent, LayoutShared}
	if DeletePhase(DefaultLayouts()) || !DeletePhase(both) {
		t.Errorf("DeletePhase: default %t, both %t, want false, true", DeletePhase(DefaultLayouts()), DeletePhase(both))
	}
	if why := LayoutPerAgent.NotUnderWAL("wal"); why != "" {
		t.Errorf("per-agent under wal: %q, want none", why)
	}
	if why := LayoutShared.NotUnderWAL("wal"); !strings.Contains(why, "under wal it is the shared store of the setting without wal") {
		t.Errorf("shared under wal: %q, want the setting named", why)
	}
	for _, c := range []struct {
		layouts      []Layout
		sweep, split bool
		want         string
	}{
		{both, false, false, ""}, {[]Layout{LayoutShared}, false, false, ""},
		{DefaultLayouts(), true, true, ""},
		{nil, false, false, "--layout: give at least one of per-agent, shared"},
		{both, true, false, "--layout shared with a sweep (--stores A,B,…)"},
		{both, false, true, "--procs splits stores per agent over processes; with --layout shared every process would open the one shared store: use --layout per-agent"},
	} {
		err := CheckLayouts(c.layouts, c.sweep, c.split)
		if (c.want == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("CheckLayouts(%q, %t, %t) = %v, want %q", c.layouts, c.sweep, c.split, err, c.want)
		}
	}
}
