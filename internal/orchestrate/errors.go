package orchestrate

import (
	"fmt"
	"strings"
)

// InputError is a problem with what the user asked for (a command, a flag,
// the data root, a results file, a missing worker binary). It is the one
// bad-input error of manydb's command line and the orchestrator: the
// command line tool prints it as one line and exits with code 2.
type InputError struct {
	Msg string
}

func (e *InputError) Error() string { return e.Msg }

// Failed is returned by Run and Profile when one or more phases failed;
// their records are in the results file.
type Failed struct {
	Phases []string
}

func (f *Failed) Error() string {
	return fmt.Sprintf("%d phase(s) failed: %s (see the failed records in the results file)", len(f.Phases), strings.Join(f.Phases, ", "))
}
