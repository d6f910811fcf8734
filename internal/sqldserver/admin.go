package sqldserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// CreateNamespace creates namespace ns, an empty database, through the
// admin API. A namespace that exists already is an error.
func (c Client) CreateNamespace(ctx context.Context, ns string) error {
	return c.adminCall(ctx, http.MethodPost, "/v1/namespaces/"+ns+"/create", "{}")
}

// DeleteNamespace deletes namespace ns and its database through the
// admin API.
func (c Client) DeleteNamespace(ctx context.Context, ns string) error {
	return c.adminCall(ctx, http.MethodDelete, "/v1/namespaces/"+ns, "")
}

// ReplicationIndex is namespace ns's replication index on the server,
// from the admin API's stats: the position in the namespace's log of
// changes that the server holds (on a replica, how far it has followed
// its primary).
func (c Client) ReplicationIndex(ctx context.Context, ns string) (uint64, error) {
	b, err := c.adminGet(ctx, "/v1/namespaces/"+ns+"/stats")
	if err != nil {
		return 0, err
	}
	var st struct {
		Index *uint64 `json:"replication_index"`
	}
	if err := json.Unmarshal(b, &st); err != nil || st.Index == nil {
		return 0, fmt.Errorf("sqld's admin API, the stats of %s: no replication_index in %.200q (%v)", ns, b, err)
	}
	return *st.Index, nil
}

// adminCall sends one authenticated request to the admin API; an answer
// other than 200 is an error that carries the server's words.
func (c Client) adminCall(ctx context.Context, method, path, body string) error {
	_, err := c.adminDo(ctx, method, path, body)
	return err
}

// adminGet is an authenticated GET of the admin API and its answer.
func (c Client) adminGet(ctx context.Context, path string) ([]byte, error) {
	return c.adminDo(ctx, http.MethodGet, path, "")
}

// adminDo sends one authenticated request to the admin API and returns
// its answer (at most 1 MiB); an answer other than 200 is an error that
// carries the server's words.
func (c Client) adminDo(ctx context.Context, method, path, body string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.Admin+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, fmt.Errorf("sqld's admin API: %w", err)
	}
	req.Header.Set("Authorization", "basic "+c.AdminKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("sqld's admin API, %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	words, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("sqld's admin API, %s %s: %s: %.1024s", method, path, resp.Status, strings.TrimSpace(string(words)))
	}
	return words, nil
}
