package abrun

import (
	"encoding/json"
	"fmt"
	"os"

	"manydb/internal/abtest"
)

// calibrationFile is what an A/A comparison writes beside its ab.json,
// and what --calibration reads back: per figure, the A/A estimate and
// the δ it gives.
type calibrationFile struct {
	Floor   float64                       `json:"floor"`
	Figures map[string]abtest.Calibration `json:"figures"`
}

// Calibrations derives each judged figure's δ from an A/A comparison (the
// same side twice): the floor, or the A/A's own spread when wider.
func Calibrations(cmp *Comparison, floor float64) map[string]abtest.Calibration {
	out := map[string]abtest.Calibration{}
	for _, r := range cmp.Results {
		if r.Note == "" {
			out[r.Key] = abtest.Calibrate(r.Estimate, floor)
		}
	}
	return out
}

// WriteCalibration writes the calibrations of an A/A comparison to path.
func WriteCalibration(path string, floor float64, cals map[string]abtest.Calibration) error {
	b, err := json.MarshalIndent(calibrationFile{Floor: floor, Figures: cals}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadCalibration reads a file WriteCalibration wrote; a δ outside
// (0, 1) is refused (the file was edited or is not one).
func ReadCalibration(path string) (map[string]abtest.Calibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --calibration: %v", ErrConfig, err)
	}
	var f calibrationFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: --calibration %s: not a calibration manydb ab wrote: %v", ErrConfig, path, err)
	}
	if len(f.Figures) == 0 {
		return nil, fmt.Errorf("%w: --calibration %s: no figure in it", ErrConfig, path)
	}
	for k, c := range f.Figures {
		if !(c.Delta > 0 && c.Delta < 1) {
			return nil, fmt.Errorf("%w: --calibration %s: %s: δ %v is not a share between 0 and 1", ErrConfig, path, k, c.Delta)
		}
	}
	return f.Figures, nil
}
