package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"manydb/internal/datasource"
	"manydb/internal/engine"
	"manydb/internal/job"
	"manydb/internal/results"
	"manydb/internal/workload"
)

// deleteAgents exports and then deletes j.DeleteCount() of the agents,
// the first of the seed's order, one after another: what an application
// does when an agent's user asks for their data and then to be forgotten.
// The export is one span: the agent's open, every note read (Scan) and
// written as a JSON line to a file of its own, the file synced and
// closed, the store closed. The delete is one span: per agent the removal
// of the store's files and directory (removeStore); shared the engine's delete of the agent and
// what gives its space back (SharedStore.DeleteAgent). The space the
// store's files take is measured before and after each delete, outside
// the spans. An untimed export of the next agent in the order comes
// first, so the engine's one-time set-up is in no sample. Every export
// is checked (every note, in id order); after a delete the agent must
// have no note left.
func deleteAgents(j job.Job, v engine.Variant, data datasource.Source, rec *results.Record, loop *storeLoop) error {
	n := j.DeleteCount()
	rec.Deletes = n
	order := Order(j.Stores, j.Seed)
	ex, err := newExporter(j, v, data)
	if err != nil {
		return err
	}
	defer os.RemoveAll(ex.dir)
	if n < j.Stores {
		if _, _, err := ex.export(order[n]); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	rec.ExportMs, rec.ExportBytes = make([]float64, n), make([]int64, n)
	rec.DeleteMs, rec.FreedBytes = make([]float64, n), make([]int64, n)
	return loop.eachStore(n, order, func(k, i int) error {
		var err error
		rec.ExportMs[k], rec.ExportBytes[k], err = ex.export(i)
		if err != nil {
			return err
		}
		rec.DeleteMs[k], rec.FreedBytes[k], err = deleteAgent(j, v, i)
		return err
	})
}

// exporter writes an agent's notes to a file of its own and checks them.
type exporter struct {
	j     job.Job
	data  datasource.Source
	open  func(i int, dir string) (engine.Store, error)
	dir   string          // the export files' directory
	notes []workload.Note // the workload's notes of the agent exported
	total int             // notes each agent holds
}

// newExporter makes the export files' directory, or takes the one a
// worker killed in this phase left (its files are written anew).
func newExporter(j job.Job, v engine.Variant, data datasource.Source) (*exporter, error) {
	dir := job.ExportsDir(j.Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("mkdir the exports' directory: %w", err)
	}
	return &exporter{j: j, data: data, open: opener(v), dir: dir, notes: make([]workload.Note, j.Workload.Objects),
		total: j.Workload.Objects + j.Appended}, nil
}

// export writes agent i's notes to a file of their own and returns the
// span of that (from the agent's open to the file's close) and the
// file's size. The notes to check against are made before the span; the
// answer is checked after it and the file removed.
func (e *exporter) export(i int) (span float64, size int64, err error) {
	e.data.Fill(i, e.notes)
	path := filepath.Join(e.dir, fmt.Sprintf("%06d.jsonl", i))
	c := exportCheck{want: e.notes}
	dir := storeDir(e.j, i)
	t0 := time.Now()
	err = writeExport(path, func(enc *json.Encoder) error {
		s, err := e.open(i, dir)
		if err != nil {
			return err
		}
		var werr error
		err = s.Scan(func(n workload.Note) {
			c.add(n)
			if werr == nil {
				werr = enc.Encode(exported{n.ID, n.Text, n.Ts})
			}
		})
		return errors.Join(err, werr, s.Close())
	})
	span = ms(time.Since(t0))
	if err != nil {
		return 0, 0, storeError(e.j, i, "export", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, 0, storeError(e.j, i, "export", err)
	}
	if err := c.done(e.total); err != nil {
		return 0, 0, storeError(e.j, i, "export", err)
	}
	return span, fi.Size(), os.Remove(path)
}

// exported is a note as an export file holds it, one JSON object a line.
type exported struct {
	ID   int64  `json:"id"`
	Text string `json:"text"`
	Ts   int64  `json:"ts"`
}

// writeExport creates the file at path (or empties the one a killed
// worker left half written), lets write fill it through a buffer and
// syncs and closes it.
func writeExport(path string, write func(*json.Encoder) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 64<<10)
	err = write(json.NewEncoder(w))
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// exportCheck checks an export's notes: ids 1, 2, … in order, the
// workload's notes first with their text and time.
type exportCheck struct {
	want  []workload.Note
	n     int
	wrong error
}

func (c *exportCheck) add(n workload.Note) {
	c.n++
	switch {
	case c.wrong != nil:
	case n.ID != int64(c.n):
		c.wrong = fmt.Errorf("note %d of the export has id %d, want %d", c.n, n.ID, c.n)
	case c.n <= len(c.want) && (n.Text != c.want[c.n-1].Text || n.Ts != c.want[c.n-1].Ts):
		c.wrong = fmt.Errorf("note %d of the export differs from the note written", n.ID)
	}
}

func (c *exportCheck) done(total int) error {
	if c.wrong != nil {
		return c.wrong
	}
	if c.n != total {
		return fmt.Errorf("the export has %d notes, want %d", c.n, total)
	}
	return nil
}

// deleteAgent deletes agent i and returns the delete's span and the
// space it gave back; afterwards the agent must have no note.
func deleteAgent(j job.Job, v engine.Variant, i int) (span float64, freed int64, err error) {
	dir, fs := storeDir(j, i), filesOf(v)
	before, err := spaceOf(fs, dir)
	if err != nil {
		return 0, 0, storeError(j, i, "measure space before the delete", err)
	}
	a, shared := v.(*agents)
	files := folderFiles(j.Variant) // the catalog read outside the span
	t0 := time.Now()
	if shared {
		err = a.store.DeleteAgent(i)
	} else {
		err = removeStore(v, files, dir)
	}
	span = ms(time.Since(t0))
	if err != nil {
		return 0, 0, storeError(j, i, "delete", err)
	}
	if !shared {
		return span, before.Bytes, nil
	}
	after, err := spaceOf(fs, dir)
	if err != nil {
		return 0, 0, storeError(j, i, "measure space after the delete", err)
	}
	if err := checkDeleted(a, i); err != nil {
		return 0, 0, storeError(j, i, "delete", err)
	}
	return span, before.Bytes - after.Bytes, nil
}

// checkDeleted checks that agent i of the shared store has no note left.
func checkDeleted(a *agents, i int) error {
	s, err := a.store.Agent(i)
	if err != nil {
		return err
	}
	n, err := s.Count()
	err = errors.Join(err, s.Close())
	switch {
	case errors.Is(err, engine.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("count after the delete: %w", err)
	case n != 0:
		return fmt.Errorf("%d notes left after the delete", n)
	}
	return nil
}

// folderFiles are the files a store of variant id consists of in its
// folder (engine.Family.FolderFiles); nil when the catalog lists none.
func folderFiles(id string) []string {
	fam, _ := engine.Lookup(id)
	return fam.FolderFiles[id]
}

// removeStore deletes the store in dir, of the per-agent layout: first,
// for a store on a server, the store there; then the engine's files in
// its folder (files, folderFiles) and the folder itself, unless it holds
// files that are not the engine's, which stay with it. A variant whose
// files the catalog does not list (nil: a test's) loses the folder whole.
func removeStore(v engine.Variant, files []string, dir string) error {
	if sv, ok := v.(engine.ServerVariant); ok {
		if err := sv.DropStore(dir); err != nil {
			return err
		}
	}
	if files == nil {
		return os.RemoveAll(dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	others := false
	for _, e := range entries {
		if !engine.IsFolderFile(files, e.Name()) {
			others = true
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	if others {
		return nil
	}
	return os.Remove(dir)
}
