package abrun

import (
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
)

// Rejudge judges again the rounds of the comparison in dir (its ab.json,
// or ab.json.gz as a record keeps it) by the current rule, with c's
// floor, calibration and figures (none named: the figures the comparison
// judged, so that the family is the same), and runs nothing. It answers
// what the rule says of rounds already run, e.g. after the rule changed.
func Rejudge(dir string, c Config) (*Comparison, error) {
	rec, err := readRecord(dir)
	if err != nil {
		return nil, err
	}
	if rec.Comparison == nil || len(rec.Rounds) < 2 {
		return nil, fmt.Errorf("%w: %s holds fewer than 2 rounds: nothing to judge", ErrConfig, dir)
	}
	if err := checkFloor(c.Floor); err != nil {
		return nil, err
	}
	if len(c.Figures) == 0 {
		for _, r := range rec.Results {
			if f := figureOf(r.Key); !slices.Contains(c.Figures, f) {
				c.Figures = append(c.Figures, f)
			}
		}
	}
	results, err := judge(c, rec.Rounds)
	if err != nil {
		return nil, err
	}
	return &Comparison{Rounds: rec.Rounds, Results: results, Stopped: rec.Stopped}, nil
}

// readRecord reads dir/ab.json, or dir/ab.json.gz when there is no
// ab.json.
func readRecord(dir string) (record, error) {
	var rec record
	f, err := os.Open(filepath.Join(dir, "ab.json"))
	if errors.Is(err, os.ErrNotExist) {
		f, err = os.Open(filepath.Join(dir, "ab.json.gz"))
	}
	if err != nil {
		return rec, fmt.Errorf("%w: --judge %s: no ab.json or ab.json.gz there (%v)", ErrConfig, dir, err)
	}
	defer f.Close()
	var r io.Reader = f
	if filepath.Ext(f.Name()) == ".gz" {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return rec, fmt.Errorf("%w: --judge %s: %v", ErrConfig, f.Name(), err)
		}
		r = zr
	}
	if err := json.NewDecoder(r).Decode(&rec); err != nil {
		return rec, fmt.Errorf("%w: --judge %s: not a comparison manydb ab wrote: %v", ErrConfig, f.Name(), err)
	}
	return rec, nil
}
