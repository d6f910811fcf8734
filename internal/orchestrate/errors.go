package orchestrate

import (
	"fmt"
	"strings"
)

// Failed is returned by Run and Profile when one or more phases failed;
// their records are in the results file.
type Failed struct {
	Phases []string
}

func (f *Failed) Error() string {
	return fmt.Sprintf("%d phase(s) failed: %s (see the failed records in the results file)", len(f.Phases), strings.Join(f.Phases, ", "))
}
