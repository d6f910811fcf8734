package orchestrate

// InputError is a problem with what the user asked for (a flag, the data
// root, a missing worker binary): the command line tool prints it as one
// line and exits with code 2.
type InputError struct {
	Msg string
}

func (e *InputError) Error() string { return e.Msg }
