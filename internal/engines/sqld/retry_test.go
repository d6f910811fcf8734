package sqld

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// fakeSqld is a fake server (for the transport's tests only): it answers
// the first gone requests as sqld does for a namespace its pool is
// evicting, then with the body it was sent.
func fakeSqld(t *testing.T, gone int, answer string) (*httptest.Server, *atomic.Int64) {
	var seen atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if seen.Add(1) <= int64(gone) {
			http.Error(w, answer, http.StatusNotFound)
			return
		}
		w.Write(body)
	}))
	t.Cleanup(s.Close)
	return s, &seen
}

func post(t *testing.T, c *http.Client, url, body string) (int, string) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const goneAnswer = `{"error":"Namespace ` + "`s-1`" + ` doesn't exist"}`

func TestRetrySendsTheRequestAgain(t *testing.T) {
	s, seen := fakeSqld(t, 2, goneAnswer)
	c := &http.Client{}
	tr := useRetries(c)
	code, body := post(t, c, s.URL, `{"requests":[1]}`)
	if code != http.StatusOK || body != `{"requests":[1]}` || seen.Load() != 3 || tr.retries.Load() != 2 {
		t.Fatalf("got %d %q after %d sends, %d retries; want 200 with the request's body after 3 sends, 2 retries", code, body, seen.Load(), tr.retries.Load())
	}
	if useRetries(c) != tr {
		t.Fatal("a second useRetries replaced the client's retrying transport")
	}
}

func TestRetryGivesUp(t *testing.T) {
	s, seen := fakeSqld(t, 100, goneAnswer)
	c := &http.Client{}
	tr := useRetries(c)
	code, body := post(t, c, s.URL, "{}")
	if code != http.StatusNotFound || !strings.Contains(body, "doesn't exist") || seen.Load() != 1+maxRetries || tr.retries.Load() != maxRetries {
		t.Fatalf("got %d %q after %d sends; want sqld's 404 after %d", code, body, seen.Load(), 1+maxRetries)
	}
}

func TestOtherNotFoundIsNotRetried(t *testing.T) {
	s, seen := fakeSqld(t, 1, "no such page")
	c := &http.Client{}
	tr := useRetries(c)
	code, body := post(t, c, s.URL, "{}")
	if code != http.StatusNotFound || !strings.Contains(body, "no such page") || seen.Load() != 1 || tr.retries.Load() != 0 {
		t.Fatalf("got %d %q after %d sends; want the 404 as it came, sent once", code, body, seen.Load())
	}
}
