package sqld

import (
	"manydb/internal/engine"
	"manydb/internal/engines/sqlnotes"
)

var _ engine.SharedVariant = (*Variant)(nil)

// CreateShared implements engine.SharedVariant: the shared layout's
// namespace, one for every agent, with the SQL engines' shared schema
// (sqlnotes.CreateShared).
func (v *Variant) CreateShared(dir string) (engine.SharedStore, error) {
	c, err := v.newNamespace(dir)
	if err != nil {
		return nil, err
	}
	return sqlnotes.CreateServedShared(c)
}

// OpenShared implements engine.SharedVariant: one connection to the
// shared namespace, which every agent's statements run on.
func (v *Variant) OpenShared(dir string) (engine.SharedStore, error) {
	if v.server == nil {
		return nil, errNoServer
	}
	c, err := v.connect(Namespace(dir))
	if err != nil {
		return nil, err
	}
	return sqlnotes.NewServedShared(c), nil
}

// SharedLayout implements engine.SharedVariant.
func (v *Variant) SharedLayout() string {
	return "one namespace of the server for every agent, its database as sqld makes it (journal_mode=WAL, synchronous=NORMAL, no auto_vacuum: sqld refuses PRAGMA auto_vacuum, synchronous, incremental_vacuum and wal_checkpoint): table notes keyed (agent, id) WITHOUT ROWID; " +
		"an agent's open binds its id to the statements of the one connection (no SQL runs); deleting an agent is DELETE, which gives no space back"
}
