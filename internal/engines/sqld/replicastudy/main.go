package replicastudy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"manydb/internal/replica"
)

// Main is worker-sqld's study of a read replica (replica.WorkerArg): the
// configuration as JSON from stdin, progress to stderr, the result as
// JSON to stdout; 0 when the study ran to its end, 1 otherwise.
func Main(stdin io.Reader, stdout, stderr io.Writer) int {
	var c replica.Config
	if err := json.NewDecoder(stdin).Decode(&c); err != nil {
		fmt.Fprintf(stderr, "replica study: its configuration: %v\n", err)
		return 1
	}
	res, err := Run(context.Background(), c, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "replica study: %v\n", err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		fmt.Fprintf(stderr, "replica study: its result: %v\n", err)
		return 1
	}
	return 0
}
