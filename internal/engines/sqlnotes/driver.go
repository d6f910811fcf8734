package sqlnotes

import (
	"database/sql/driver"
	"path/filepath"
	"strings"

	"manydb/internal/engine"
)

// DriverStores is what the variants that open a database/sql/driver
// connection by a DSN (sqlite through mattn, sqlite_modernc) do alike: a
// store is a connection to its directory's FileName with Params, made
// and opened as Store and VectorStore, the shared store is Shared, and
// the wal setting adds WALParam to Params. Such a variant embeds it for
// Create, CreateVectors, VectorSearch, Open, the shared layout and
// UseWAL.
type DriverStores struct {
	// Connect opens a connection with a DSN.
	Connect func(dsn string) (driver.Conn, error)
	// Driver names the driver in SharedLayout ("mattn", "modernc").
	Driver string
	// Params follow the file name in every open's DSN ("?_sync=FULL…").
	Params string
	// WALParam is the wal setting's addition to Params.
	WALParam string
	// Vectors are the variant's statements for embeddings.
	Vectors VectorsFunc
}

var (
	_ engine.SharedVariant      = (*DriverStores)(nil)
	_ engine.SharedConnsVariant = (*DriverStores)(nil)
	_ engine.WALVariant         = (*DriverStores)(nil)
)

// ConnectStore opens a connection to the database of the store in dir.
func (d *DriverStores) ConnectStore(dir string) (driver.Conn, error) {
	return d.Connect("file:" + filepath.Join(dir, FileName) + d.Params)
}

// Create implements engine.Variant: open a new database and commit the
// schema (its own transaction, as an application creating it would).
func (d *DriverStores) Create(dir string) (engine.Store, error) {
	c, err := d.ConnectStore(dir)
	if err != nil {
		return nil, err
	}
	return Create(c)
}

// CreateVectors implements engine.VectorVariant: Create with the tables
// of Vectors, committed in one transaction.
func (d *DriverStores) CreateVectors(dir string, dims int) (engine.Store, error) {
	c, err := d.ConnectStore(dir)
	if err != nil {
		return nil, err
	}
	return CreateVectors(c, dims, d.Vectors)
}

// VectorSearch implements engine.VectorVariant.
func (d *DriverStores) VectorSearch() engine.VectorSearch { return d.Vectors.Search() }

// Open implements engine.Variant: a VectorStore, which writes and
// searches embeddings when its notes have them, and otherwise runs the
// statements of Store.
func (d *DriverStores) Open(dir string) (engine.Store, error) {
	c, err := d.ConnectStore(dir)
	if err != nil {
		return nil, err
	}
	return &VectorStore{Store: NewStore(c), Vectors: d.Vectors}, nil
}

// CreateShared implements engine.SharedVariant: one database for every
// agent (SharedSchema), opened as a store of one agent is.
func (d *DriverStores) CreateShared(dir string) (engine.SharedStore, error) {
	c, err := d.ConnectStore(dir)
	if err != nil {
		return nil, err
	}
	return CreateShared(c)
}

// OpenShared implements engine.SharedVariant.
func (d *DriverStores) OpenShared(dir string) (engine.SharedStore, error) {
	c, err := d.ConnectStore(dir)
	if err != nil {
		return nil, err
	}
	return NewShared(c), nil
}

// OpenSharedConns implements engine.SharedConnsVariant: n connections to
// the shared database with the DSN of the per-agent stores (whose busy
// timeout of 5 s makes a writer wait for another's commit).
func (d *DriverStores) OpenSharedConns(dir string, n int) (engine.SharedStore, error) {
	return SharedConns(n, func() (driver.Conn, error) { return d.ConnectStore(dir) })
}

// SharedLayout implements engine.SharedVariant.
func (d *DriverStores) SharedLayout() string {
	return SharedLayout + "; " + d.Driver + "'s DSN " + d.Params
}

// UseWAL implements engine.WALVariant: WALParam in the DSN, which the
// driver runs as PRAGMA journal_mode=WAL at every open.
func (d *DriverStores) UseWAL() map[string]string {
	if !strings.Contains(d.Params, d.WALParam) {
		d.Params += d.WALParam
	}
	return WALOption()
}
