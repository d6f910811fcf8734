package postgres

import (
	"errors"
	"fmt"
	"manydb/internal/measure"
	"manydb/internal/pgserver"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
)

// StoreFiles implements engine.ServerVariant: the files of every relation
// of dir's schema (its table, the table's primary key, its TOAST table
// and that table's index), each fork (_fsm, _vm) and segment (.1, …)
// that exists, relative to the server's data directory.
func (v *Variant) StoreFiles(dir string) (base string, names []string, err error) {
	base, all, err := v.StoresFiles([]string{dir})
	if err != nil {
		return "", nil, err
	}
	if len(all[0]) == 0 {
		return "", nil, fmt.Errorf("no store on the server in schema %s", schemaOf(dir))
	}
	return base, all[0], nil
}

// StoresFiles implements engine.ServerFilesLister: StoreFiles of each of
// dirs, their relations found in one query; none for a directory whose
// schema holds no store.
func (v *Variant) StoresFiles(dirs []string) (base string, names [][]string, err error) {
	if v.pool == nil {
		return "", nil, errNoServer
	}
	if base, err = v.dataDirectory(); err != nil {
		return "", nil, err
	}
	schemas := make([]string, len(dirs))
	for k, dir := range dirs {
		schemas[k] = schemaOf(dir)
	}
	rels, err := v.relationFiles(schemas)
	if err != nil {
		return "", nil, err
	}
	exists := statExists(base)
	if len(dirs) > 1 {
		// Many stores: read each directory of their relations once
		// rather than stat four names a relation.
		if exists, err = listedExists(base, rels); err != nil {
			return "", nil, err
		}
	}
	names = make([][]string, len(dirs))
	for k := range dirs {
		for _, rel := range rels[k] {
			more, err := relationForks(rel, exists)
			if err != nil {
				return "", nil, err
			}
			names[k] = append(names[k], more...)
		}
	}
	return base, names, nil
}

// relationForks returns rel (a relation's main file, relative to the data
// directory) with its forks (_fsm, _vm, _init) and further segments (.1,
// .2, …) that exist.
func relationForks(rel string, exists func(name string) (bool, error)) ([]string, error) {
	names := []string{rel}
	for _, fork := range []string{"_fsm", "_vm", "_init"} {
		ok, err := exists(rel + fork)
		if err != nil {
			return nil, err
		}
		if ok {
			names = append(names, rel+fork)
		}
	}
	for seg := 1; ; seg++ {
		name := fmt.Sprintf("%s.%d", rel, seg)
		ok, err := exists(name)
		if err != nil || !ok {
			return names, err
		}
		names = append(names, name)
	}
}

// statExists says whether a file, named relative to base, exists by
// stat(2): four calls a relation, for a few stores.
func statExists(base string) func(name string) (bool, error) {
	return func(name string) (bool, error) {
		_, err := os.Stat(filepath.Join(base, name))
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
}

// listedExists says whether a file, named relative to base, was in its
// directory when each directory of rels (a database's, which holds every
// agent's files) was read, once.
func listedExists(base string, rels [][]string) (func(name string) (bool, error), error) {
	files := map[string]bool{}
	read := map[string]bool{}
	for _, rs := range rels {
		for _, rel := range rs {
			dir := filepath.Dir(rel)
			if read[dir] {
				continue
			}
			read[dir] = true
			names, err := dirNames(filepath.Join(base, dir))
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				files[filepath.Join(dir, n)] = true
			}
		}
	}
	return func(name string) (bool, error) { return files[name], nil }, nil
}

// dirNames returns the names in dir, unsorted.
func dirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// relationFiles returns, for each of schemas, the main files of the
// store's relations in it, relative to the data directory: its notes
// table (or each of its partitions), the table's indexes, its TOAST table
// and that table's index; none for a schema without a store. Every
// lookup is by an index of the catalog (the table's name, pg_index's
// indrelid), so the cost per schema does not grow with the number of
// agents' schemas.
func (v *Variant) relationFiles(schemas []string) ([][]string, error) {
	const q = `WITH s AS (SELECT ord, to_regclass(format('%I.notes', schema)) AS notes
			FROM unnest($1::text[]) WITH ORDINALITY AS u(schema, ord)),
		t AS (SELECT ord, notes AS oid FROM s WHERE notes IS NOT NULL
			UNION SELECT s.ord, p.relid FROM s, pg_partition_tree(s.notes) p WHERE s.notes IS NOT NULL),
		toast AS (SELECT t.ord, c.reltoastrelid AS oid FROM pg_class c JOIN t ON c.oid = t.oid WHERE c.reltoastrelid <> 0)
		SELECT r.ord, pg_relation_filepath(r.oid) FROM (
			SELECT ord, oid FROM t
			UNION ALL SELECT t.ord, i.indexrelid FROM pg_index i JOIN t ON i.indrelid = t.oid
			UNION ALL SELECT ord, oid FROM toast
			UNION ALL SELECT toast.ord, i.indexrelid FROM pg_index i JOIN toast ON i.indrelid = toast.oid) r`
	rows, err := v.pool.Query(ctx, q, schemas)
	if err != nil {
		return nil, fmt.Errorf("the files of %d schemas: %w", len(schemas), err)
	}
	out := make([][]string, len(schemas))
	var ord int64
	var path *string
	_, err = pgx.ForEachRow(rows, []any{&ord, &path}, func() error {
		if ord < 1 || int(ord) > len(schemas) {
			return fmt.Errorf("row of schema %d: not one of the %d asked", ord, len(schemas))
		}
		if path != nil { // a relation without storage has none
			out[ord-1] = append(out[ord-1], *path)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("the files of %d schemas: %w", len(schemas), err)
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
	kids, err := measure.Children(pm)
	return append([]int{pm}, kids...), err
}
