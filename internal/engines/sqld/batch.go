package sqld

import (
	"database/sql/driver"
	"errors"
	"strings"

	"manydb/internal/engines/sqlnotes"
	"manydb/internal/workload"
)

// batchRows is how many notes one INSERT statement of a sqld store
// writes. libsql-client-go sends each statement as an HTTP request of its
// own, so a store's 1,000 notes go in 10 requests, as an application
// batches them, rather than 1,000, which timed the client's round trips
// more than the server.
const batchRows = 100

// batchedStore is the SQL family's store over one namespace, its notes
// written batchRows to a statement.
type batchedStore struct{ *sqlnotes.Store }

// Insert writes notes in one transaction, batchRows to a statement.
func (s batchedStore) Insert(notes []workload.Note) error { return insertBatched(s.Conn, notes) }

// insertBatched writes notes on c in one transaction (the connection's
// Begin and Commit), one multi-row INSERT per batchRows notes.
func insertBatched(c driver.Conn, notes []workload.Note) (err error) {
	tx, err := c.Begin() //lint:ignore SA1019 the driver's own Begin, as sqlnotes calls it
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	for start := 0; start < len(notes); start += batchRows {
		if err = insertRows(c, notes[start:min(len(notes), start+batchRows)]); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// insertRows writes rows in one statement.
func insertRows(c driver.Conn, rows []workload.Note) error {
	st, err := c.Prepare(insertSQL(len(rows)))
	if err != nil {
		return err
	}
	args := make([]driver.Value, 0, 3*len(rows))
	for _, n := range rows {
		args = append(args, n.ID, n.Text, n.Ts)
	}
	_, err = st.Exec(args) //lint:ignore SA1019 the driver's own Exec, as sqlnotes calls it
	return errors.Join(err, st.Close())
}

// insertSQL is sqlnotes.InsertSQL for n rows.
func insertSQL(n int) string {
	return sqlnotes.InsertSQL + strings.Repeat(", (?, ?, ?)", n-1)
}
