// Package faults holds manydb's fault suite: its tests drive the real
// manydb binary and the real SQLite and PostgreSQL workers through the
// faults a careful user meets (kills at every phase, a second run on the same
// root, a results file cut by one byte, a full or read-only disk, a
// corrupt store, bad input, too few file descriptors, a missing engine
// library) and measure, for each, what matters about a results file and
// a data root:
//
//   - records lost: a record present before the fault that is gone or
//     changed after it;
//   - records doubled: a cell (study, variant, setting, phase, run) with
//     more than one ok record;
//   - wrong figures recorded as ok: an ok record whose samples do not
//     match its study's configuration (one sample per store, the study's
//     workload, at least the notes' text on disk);
//   - whether the user got a clear message (exit code and one stderr
//     line for bad input);
//   - whether running the same command again completes the study.
//
// The package has no code of its own. Run it with
//
//	make faults                            all cases, then the table
//	go test ./internal/faults/ -table FILE all cases, the table in FILE
//	go test -short ./internal/faults/      the quick cases only
//
// TestMain builds manydb and the workers into a temporary directory in
// the repository's bin directory (the PostgreSQL cases' binaries find the
// server that scripts/fetch-postgres.sh installs beside them, or those
// cases skip saying so); each case runs tiny studies in a directory of
// its own. Cases that need
// root (mounting a small or read-only tmpfs) skip with a message saying
// so. docs/faults.md holds the table of a full run.
package faults
