package sqldserver

import (
	"bytes"
	"context"
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

// adminCall sends one authenticated request to the admin API; an answer
// other than 200 is an error that carries the server's words.
func (c Client) adminCall(ctx context.Context, method, path, body string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+c.Admin+path, bytes.NewReader([]byte(body)))
	if err != nil {
		return fmt.Errorf("sqld's admin API: %w", err)
	}
	req.Header.Set("Authorization", "basic "+c.AdminKey)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("sqld's admin API, %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	words, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("sqld's admin API, %s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(words)))
	}
	return nil
}
