package postgres

import (
	"errors"
	"fmt"
	"manydb/internal/pgserver"
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
	if base, err = v.dataDirectory(); err != nil {
		return "", nil, err
	}
	rels, err := v.relationFiles(schemaOf(dir))
	if err != nil {
		return "", nil, err
	}
	for _, rel := range rels {
		more, err := relationForks(base, rel)
		if err != nil {
			return "", nil, err
		}
		names = append(names, more...)
	}
	return base, names, nil
}

// relationForks returns rel (a relation's main file, relative to base)
// with its forks (_fsm, _vm, _init) and further segments (.1, .2, …)
// that exist. It stats each name: globbing would read the database's
// directory, which holds every agent's files, once per store.
func relationForks(base, rel string) ([]string, error) {
	names := []string{rel}
	for _, fork := range []string{"_fsm", "_vm", "_init"} {
		ok, err := fileExists(filepath.Join(base, rel+fork))
		if err != nil {
			return nil, err
		}
		if ok {
			names = append(names, rel+fork)
		}
	}
	for seg := 1; ; seg++ {
		name := fmt.Sprintf("%s.%d", rel, seg)
		ok, err := fileExists(filepath.Join(base, name))
		if err != nil || !ok {
			return names, err
		}
		names = append(names, name)
	}
}

// fileExists tells whether path exists.
func fileExists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// relationFiles returns the main files of the store's relations in
// schema, relative to the data directory: its notes table (or each of its
// partitions), the table's indexes, its TOAST table and that table's
// index. Every lookup is by an
// index of the catalog (the table's name, pg_index's indrelid), so the
// cost does not grow with the number of agents' schemas.
func (v *Variant) relationFiles(schema string) ([]string, error) {
	const q = `WITH t AS (SELECT to_regclass($1) AS oid UNION SELECT relid FROM pg_partition_tree(to_regclass($1))),
		toast AS (SELECT c.reltoastrelid AS oid FROM pg_class c, t WHERE c.oid = t.oid AND c.reltoastrelid <> 0)
		SELECT pg_relation_filepath(r.oid) FROM (
			SELECT oid FROM t WHERE oid IS NOT NULL
			UNION ALL SELECT i.indexrelid FROM pg_index i, t WHERE i.indrelid = t.oid
			UNION ALL SELECT oid FROM toast
			UNION ALL SELECT i.indexrelid FROM pg_index i, toast WHERE i.indrelid = toast.oid) r`
	rows, err := v.pool.Query(ctx, q, pgx.Identifier{schema, "notes"}.Sanitize())
	if err != nil {
		return nil, fmt.Errorf("the files of schema %s: %w", schema, err)
	}
	paths, err := pgx.CollectRows(rows, pgx.RowTo[*string])
	if err != nil {
		return nil, fmt.Errorf("the files of schema %s: %w", schema, err)
	}
	var out []string
	for _, p := range paths {
		if p != nil { // a relation without storage has none
			out = append(out, *p)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no store on the server in schema %s", schema)
	}
	return out, nil
}

// dataDirectory returns the server's data directory (asked once).
func (v *Variant) dataDirectory() (string, error) {
	if v.dataDir != "" {
		return v.dataDir, nil
	}
	if err := v.pool.QueryRow(ctx, "SHOW data_directory").Scan(&v.dataDir); err != nil {
		return "", fmt.Errorf("the server's data directory: %w", err)
	}
	return v.dataDir, nil
}

// DropStore implements engine.ServerVariant: DROP SCHEMA … CASCADE, after
// dropping the notes table's partitions (if any) a few hundred at a
// time: one transaction dropping thousands of tables would need more
// locks than the server's lock table holds (max_locks_per_transaction).
func (v *Variant) DropStore(dir string) error {
	if v.pool == nil {
		return errNoServer
	}
	schema := schemaOf(dir)
	rows, err := v.pool.Query(ctx, "SELECT relid::regclass::text FROM pg_partition_tree(to_regclass($1)) WHERE level > 0", pgx.Identifier{schema, "notes"}.Sanitize())
	if err != nil {
		return fmt.Errorf("the partitions of schema %s: %w", schema, err)
	}
	parts, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("the partitions of schema %s: %w", schema, err)
	}
	for len(parts) > 0 {
		n := min(len(parts), 200)
		if _, err := v.pool.Exec(ctx, "DROP TABLE "+strings.Join(parts[:n], ", ")); err != nil {
			return fmt.Errorf("drop the partitions of schema %s: %w", schema, err)
		}
		parts = parts[n:]
	}
	_, err = v.pool.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// ServerProcesses implements engine.ServerVariant: the postmaster (its
// pid is the first line of the data directory's postmaster.pid) and its
// children.
func (v *Variant) ServerProcesses() ([]int, error) {
	if v.pool == nil {
		return nil, errNoServer
	}
	data, err := v.dataDirectory()
	if err != nil {
		return nil, err
	}
	pm, err := pgserver.PostmasterPID(data)
	if err != nil {
		return nil, fmt.Errorf("the server's processes: %w", err)
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
