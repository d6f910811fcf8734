package sqldserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Client is what reaches a running server: its addresses, its keys, its
// process and its data. Start writes it into the server's directory
// (client.json, readable by manydb's user only), where a worker reads it
// (Connect): the worker is given the directory, and no key is ever on a
// command line.
type Client struct {
	// HTTP is the host:port of the Hrana-over-HTTP API.
	HTTP string `json:"http"`
	// Admin is the host:port of the admin API, AdminKey its key.
	Admin    string `json:"admin"`
	AdminKey string `json:"admin_key"`
	// GRPC is the host:port a primary's replicas follow it on; "" for a
	// server that is not Replicable.
	GRPC string `json:"grpc,omitempty"`
	// Token is the JWT every request to the HTTP API carries.
	Token string `json:"token"`
	// Version is the server's version.
	Version string `json:"version"`
	// PID is the server's process id.
	PID int `json:"pid"`
	// DataDir is the server's data directory; a namespace's database is
	// in NamespaceDir.
	DataDir string `json:"data_dir"`
}

// NamespaceDir is the directory of namespace ns's database, relative to
// DataDir.
func NamespaceDir(ns string) string { return filepath.Join("dbs", ns) }

// write writes c into the server's directory dir.
func (c Client) write(dir string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(clientPath(dir), b, 0o600)
}

// Connect reads how to reach the server whose directory is dir.
func Connect(dir string) (Client, error) {
	b, err := os.ReadFile(clientPath(dir))
	if err != nil {
		return Client{}, fmt.Errorf("the sqld server in %s: %w", dir, err)
	}
	var c Client
	if err := json.Unmarshal(b, &c); err != nil {
		return Client{}, fmt.Errorf("the sqld server in %s: %s: %w", dir, clientPath(dir), err)
	}
	return c, nil
}

func clientPath(dir string) string { return filepath.Join(dir, "client.json") }
