package postgres

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// StoreFiles implements engine.ServerVariant: the files of every relation
// of dir's schema (its table, the table's primary key, its TOAST table
// and that table's index), each fork (_fsm, _vm) and segment (.1, …)
// that exists, relative to the server's data directory.
func (v *Variant) StoreFiles(dir string) (base string, names []string, err error) {
	if v.pool == nil {
		return "", nil, errNoServer
	}
	if err := v.pool.QueryRow(ctx, "SHOW data_directory").Scan(&base); err != nil {
		return "", nil, fmt.Errorf("the server's data directory: %w", err)
	}
	rels, err := v.relationFiles(schemaOf(dir))
	if err != nil {
		return "", nil, err
	}
	for _, rel := range rels {
		names = append(names, rel)
		for _, pattern := range []string{rel + "_*", rel + ".*"} {
			more, err := filepath.Glob(filepath.Join(base, pattern))
			if err != nil {
				return "", nil, err
			}
			for _, m := range more {
				names = append(names, strings.TrimPrefix(m, base+"/"))
			}
		}
	}
	return base, names, nil
}

// relationFiles returns the main files of schema's relations and their
// TOAST relations, relative to the data directory.
func (v *Variant) relationFiles(schema string) ([]string, error) {
	const q = `SELECT pg_relation_filepath(c.oid) FROM pg_class c
		WHERE c.relnamespace = to_regnamespace($1)
		   OR c.oid IN (SELECT t.reltoastrelid FROM pg_class t WHERE t.relnamespace = to_regnamespace($1))
		   OR c.oid IN (SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.reltoastrelid = i.indrelid WHERE t.relnamespace = to_regnamespace($1))`
	rows, err := v.pool.Query(ctx, q, schema)
	if err != nil {
		return nil, fmt.Errorf("the files of schema %s: %w", schema, err)
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	if err != nil {
		return nil, fmt.Errorf("the files of schema %s: %w", schema, err)
	}
	var out []string
	for _, p := range paths {
		if p != nil { // a relation without storage (a view) has none
			out = append(out, *p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no store on the server in schema %s", schema)
	}
	return out, nil
}

// DropStore implements engine.ServerVariant: DROP SCHEMA … CASCADE.
func (v *Variant) DropStore(dir string) error {
	if v.pool == nil {
		return errNoServer
	}
	_, err := v.pool.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schemaOf(dir)}.Sanitize()+" CASCADE")
	return err
}

// ServerProcesses implements engine.ServerVariant: the postmaster (its
// pid is the first line of the data directory's postmaster.pid) and its
// children.
func (v *Variant) ServerProcesses() ([]int, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	var data string
	if err := v.pool.QueryRow(ctx, "SHOW data_directory").Scan(&data); err != nil {
		return nil, fmt.Errorf("the server's data directory: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
	if err != nil {
		return nil, fmt.Errorf("the server's processes: %w", err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return nil, fmt.Errorf("postmaster.pid: %w", err)
	}
	kids, err := children(pm)
	return append([]int{pm}, kids...), err
}

// children lists the child processes of pid (/proc's children file of
// each of its threads).
func children(pid int) ([]int, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err != nil || len(tasks) == 0 {
		return nil, errors.Join(err, fmt.Errorf("no process %d", pid))
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			return nil, err
		}
		for _, f := range strings.Fields(string(b)) {
			c, err := strconv.Atoi(f)
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}
