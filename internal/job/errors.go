package job

// InputError is a problem with what the user asked for (a command, a flag,
// the data root, a results file, a missing worker binary). It is the one
// bad-input error of manydb's command line and the orchestrator, which
// both import this package: the command line tool prints it as one line
// and exits with code 2, having measured and changed nothing. Wrap it with
// %w and find it with errors.As.
type InputError struct {
	Msg string
}

func (e *InputError) Error() string { return e.Msg }
