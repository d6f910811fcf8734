package sqld

import (
	"bytes"
	"io"
	"net/http"
	"sync/atomic"
)

// sqld 0.24.32 answers some requests for a namespace that exists with
// 404 "Namespace `…` doesn't exist" when it keeps fewer namespaces loaded
// than are used (--max-active-namespaces): its pool (the moka cache of
// libsql-server's namespace/store.rs) evicts namespaces on the task of
// the request that comes next, and the request whose own namespace is
// evicted that way finds it gone. The request has run nothing (the
// namespace is looked up before its statements), and sent again it is
// answered. libsql-client-go has no option for its HTTP client (it sends
// with http.DefaultClient), so the variant makes that client's transport
// one that sends such a request again, at most maxRetries times, and
// counts each: the record's retries. The time of a retried request,
// both sends, is inside the span that timed it.

// maxRetries is how many times a request answered "doesn't exist" is
// sent again; a namespace that is really gone (deleted) is answered so
// every time, and the last answer is returned.
const maxRetries = 3

// retryTransport sends a request again when sqld answered that its
// namespace does not exist.
type retryTransport struct {
	base    http.RoundTripper
	retries atomic.Int64
}

// useRetries makes c send through a retryTransport (once: a client
// already made so keeps its transport) and returns it.
func useRetries(c *http.Client) *retryTransport {
	if t, ok := c.Transport.(*retryTransport); ok {
		return t
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	t := &retryTransport{base: base}
	c.Transport = t
	return t
}

// RoundTrip implements http.RoundTripper.
func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	for try := 0; try < maxRetries && err == nil; try++ {
		var gone bool
		if resp, gone = namespaceGone(resp); !gone || req.GetBody == nil {
			break
		}
		again, berr := resend(req)
		if berr != nil {
			break
		}
		resp.Body.Close()
		t.retries.Add(1)
		resp, err = t.base.RoundTrip(again)
	}
	return resp, err
}

// resend is req again, with its body from its start.
func resend(req *http.Request) (*http.Request, error) {
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	again := req.Clone(req.Context())
	again.Body = body
	return again, nil
}

// namespaceGone says whether resp is sqld's 404 "Namespace … doesn't
// exist"; resp is returned with its body readable again.
func namespaceGone(resp *http.Response) (*http.Response, bool) {
	if resp.StatusCode != http.StatusNotFound {
		return resp, false
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return resp, err == nil && bytes.Contains(b, []byte("Namespace")) && bytes.Contains(b, []byte("doesn't exist"))
}
