package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"manydb/internal/job"
)

// TestStudyFlagsValidateFirst: run and serve refuse a bad engine list,
// setting or workload in one line before asking any worker which engines
// it serves (which would print a line per engine not built here).
func TestStudyFlagsValidateFirst(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--settings", "lukewarm"}, "run: --settings: "},
		{[]string{"run", "--workload", "huge"}, `run: unknown workload "huge"`},
		{[]string{"serve", "--engines", "oracle"}, `serve: --engines: unknown engine "oracle"`},
		{[]string{"serve", "--settings", "lukewarm"}, "serve: --settings: "},
		{[]string{"serve", "--workload", "huge"}, `serve: unknown workload "huge"`},
		{[]string{"run", "--stall-limit", "-1s"}, "run: --stall-limit -1s"},
		{[]string{"run", "--dims", "-3"}, "run: --dims -3"},
		{[]string{"serve", "--dims", "10000"}, "serve: --dims 10000"},
	}
	for _, tt := range tests {
		o, _, errOut := options(t)
		err := Run(context.Background(), tt.args, o)
		var in *job.InputError
		if !errors.As(err, &in) || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line starting %q", tt.args, err, tt.want)
		}
		if errOut.Len() > 0 {
			t.Errorf("%v: stderr before the error:\n%s", tt.args, errOut)
		}
	}
}

// TestHoldCapInHelp: each command's --help states the hold count it uses
// unless told, from the one field that sets it.
func TestHoldCapInHelp(t *testing.T) {
	for _, c := range []struct {
		cmd   string
		study studyFlags
	}{
		{"run", runStudyFlags(Options{})},
		{"serve", serveStudyFlags(Options{})},
	} {
		o, out, _ := options(t)
		if err := Run(context.Background(), []string{c.cmd, "--help"}, o); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("min(%d, --stores)", c.study.holdCap); !strings.Contains(out.String(), want) {
			t.Errorf("%s --help does not say %q", c.cmd, want)
		}
	}
}

// TestNonFiniteNumbersAreRefused: NaN and infinities in the number flags
// are refused in one line with exit 2, before anything is made.
func TestNonFiniteNumbersAreRefused(t *testing.T) {
	for _, tt := range []struct{ flag, value, want string }{
		{"--zipf", "NaN", "zipf NaN"}, {"--zipf", "Inf", "zipf +Inf"},
		{"--rate", "NaN", "rate NaN"}, {"--rate", "+Inf", "rate +Inf"},
		{"--max-load", "NaN", "--max-load NaN"},
		// Finite, but a schedule of about 10¹¹ s (issue 31, case 9).
		{"--rate", "1e-9", "--rate 1e-09: the open-loop schedule of --requests 20 (and its warm-up) for 2 pool sizes × 1 variants × 1 settings takes about 4.86e+05 days, more than 24h0m0s"},
	} {
		o, _, _ := options(t)
		root := t.TempDir() + "/root"
		err := Run(context.Background(), []string{"serve", "--engines", "sqlite", "--stores", "10", "--requests", "20",
			"--pool", "0,5", "--root", root, "--out", t.TempDir() + "/s.jsonl", tt.flag, tt.value}, o)
		var in *job.InputError
		if !errors.As(err, &in) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want an input error naming %q", tt.flag, tt.value, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "serve: serve:") {
			t.Errorf("%s %s: the command is named twice: %v", tt.flag, tt.value, err)
		}
		if _, err := os.Stat(root); !os.IsNotExist(err) {
			t.Errorf("%s %s: the data root was made", tt.flag, tt.value)
		}
	}
}

// TestParsePools: sizes and percentages of --stores; a percentage that
// comes to a size listed already names both entries; NaN is refused.
func TestParsePools(t *testing.T) {
	parsePools := func(s string, stores int) ([]int, error) {
		pools, err := job.ParseList(s, parsePoolSize)
		if err != nil {
			return nil, err
		}
		return poolSizes(pools, stores)
	}
	if got, err := parsePools("0,10%,100%", 20); err != nil || !slices.Equal(got, []int{0, 2, 20}) {
		t.Errorf("parsePools(0,10%%,100%%, 20) = %v, %v", got, err)
	}
	// serve's default pools at 20 stores: 1 % keeps one store open.
	if got, err := parsePools("0,1%,10%,100%", 20); err != nil || !slices.Equal(got, []int{0, 1, 2, 20}) {
		t.Errorf("parsePools(0,1%%,10%%,100%%, 20) = %v, %v", got, err)
	}
	for _, tt := range []struct{ pools, want string }{
		{"1,1%", "--pool: 1 and 1% both mean a pool of 1 of the 20 stores"},
		{"NaN%", `--pool "NaN%": a percentage`},
		{"21", `--pool "21": a number of open stores between 0 and --stores (20)`},
		{"5,5", "5 is listed twice"},
		{"5,,6", `"5,,6" has an empty item`},
	} {
		if _, err := parsePools(tt.pools, 20); err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("parsePools(%s, 20): err = %v, want %q", tt.pools, err, tt.want)
		}
	}
}
