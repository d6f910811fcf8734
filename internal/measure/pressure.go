package measure

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrNoPressure is returned where the kernel keeps no pressure stall
// information (/proc/pressure: Linux 4.20 and later, CONFIG_PSI, not
// switched off with psi=0).
var ErrNoPressure = errors.New("no pressure stall information (/proc/pressure)")

// Pressure is the kernel's pressure stall information for the CPU and
// the disk: how long at least one task was waiting for it ("some"), in
// total since boot and as a share of the last 10 s.
type Pressure struct {
	CPU, IO Stall
}

// Stall is one resource's "some" line of /proc/pressure.
type Stall struct {
	Avg10 float64       // percent of the last 10 s
	Total time.Duration // since boot
}

// ReadPressure reads /proc/pressure/cpu and /proc/pressure/io.
func ReadPressure() (Pressure, error) {
	var p Pressure
	var err error
	if p.CPU, err = readStall("/proc/pressure/cpu"); err != nil {
		return p, err
	}
	p.IO, err = readStall("/proc/pressure/io")
	return p, err
}

// readStall reads the "some" line of a /proc/pressure file.
func readStall(path string) (Stall, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
		return Stall{}, fmt.Errorf("%w: %v", ErrNoPressure, err)
	}
	if err != nil {
		return Stall{}, fmt.Errorf("read %s: %w", path, err)
	}
	s, err := parseStall(string(b))
	if err != nil {
		return s, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseStall parses the "some" line of a pressure file:
// "some avg10=0.62 avg60=3.25 avg300=5.35 total=6550341914" (total in µs).
func parseStall(text string) (Stall, error) {
	for line := range strings.Lines(text) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "some" {
			continue
		}
		var s Stall
		var haveAvg, haveTotal bool
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "avg10":
				x, err := strconv.ParseFloat(v, 64)
				if err != nil || x < 0 || x > 100 {
					return s, fmt.Errorf("avg10 %q is not a percentage", v)
				}
				s.Avg10, haveAvg = x, true
			case "total":
				us, err := strconv.ParseInt(v, 10, 64)
				if err != nil || us < 0 {
					return s, fmt.Errorf("total %q is not a count of microseconds", v)
				}
				s.Total, haveTotal = time.Duration(us)*time.Microsecond, true
			}
		}
		if !haveAvg || !haveTotal {
			return s, fmt.Errorf("its some line %q lacks avg10 or total", strings.TrimSpace(line))
		}
		return s, nil
	}
	return Stall{}, errors.New("no some line")
}
