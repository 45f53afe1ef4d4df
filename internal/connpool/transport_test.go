package connpool

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// countingTransport counts the requests it passes on to rt.
type countingTransport struct {
	rt     http.RoundTripper
	n      atomic.Int32
	closed atomic.Int32 // calls of CloseIdleConnections
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.rt.RoundTrip(r)
}

func (c *countingTransport) CloseIdleConnections() { c.closed.Add(1) }

// newTransport is a Transport over a fresh Pool whose Fallback counts what
// it is given.
func newTransport(t *testing.T, fallback http.RoundTripper) (*Transport, *countingTransport) {
	if fallback == nil {
		fallback = &http.Transport{}
	}
	ft := &countingTransport{rt: fallback}
	tr := &Transport{Pool: new(Pool), Fallback: ft}
	t.Cleanup(tr.Pool.CloseIdleConnections)
	if c, ok := fallback.(interface{ CloseIdleConnections() }); ok {
		t.Cleanup(c.CloseIdleConnections)
	}
	return tr, ft
}

// echo answers with the request's path and body.
func echo(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	fmt.Fprintf(w, "%s %s", r.URL.Path, b)
}

// send makes req through tr and returns the answer's body, failing t unless
// the status is 200.
func send(t *testing.T, tr http.RoundTripper, req *http.Request) string {
	t.Helper()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: %s %q, %v", req.Method, req.URL, resp.Status, b, err)
	}
	return string(b)
}

func newRequest(t *testing.T, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestTransportSendsSmallRequestsOverOneConnection(t *testing.T) {
	srv, conns := stateCountingServer(t, echo, http.StateNew)
	tr, fallback := newTransport(t, nil)
	for _, path := range []string{"/a", "/b"} {
		got := send(t, tr, newRequest(t, http.MethodPost, srv.URL+path, strings.NewReader(`{"cmd":["true"]}`)))
		if want := path + ` {"cmd":["true"]}`; got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("two sequential requests used %d connections, want 1", n)
	}
	if n := fallback.n.Load(); n != 0 {
		t.Fatalf("%d requests went to the Fallback, want none", n)
	}
}

func TestTransportSendsHTTPSToTheFallback(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(echo))
	t.Cleanup(srv.Close)
	tr, fallback := newTransport(t, srv.Client().Transport)
	if got, want := send(t, tr, newRequest(t, http.MethodPost, srv.URL+"/tls", strings.NewReader("hi"))), "/tls hi"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if n := fallback.n.Load(); n != 1 {
		t.Fatalf("%d requests went to the Fallback, want 1", n)
	}
}

// A body not in memory, or of a length not known, may be a stream: the
// Pool writes the whole body before it reads the answer.
func TestTransportSendsABodyOfUnknownLengthToTheFallback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(echo))
	t.Cleanup(srv.Close)
	piped := func(length int64) *http.Request {
		pr, pw := io.Pipe()
		go func() { pw.Write([]byte("hello")); pw.Close() }()
		req := newRequest(t, http.MethodPost, srv.URL+"/up", pr)
		req.ContentLength = length
		return req
	}
	inMemoryUnknownLength := newRequest(t, http.MethodPost, srv.URL+"/up", strings.NewReader("hello"))
	inMemoryUnknownLength.ContentLength = -1
	for name, req := range map[string]*http.Request{
		"a pipe of unknown length":           piped(-1),
		"a pipe of known length":             piped(5),
		"a body in memory of unknown length": inMemoryUnknownLength,
	} {
		t.Run(name, func(t *testing.T) {
			tr, fallback := newTransport(t, nil)
			if got := send(t, tr, req); got != "/up hello" {
				t.Fatalf("got %q", got)
			}
			if n := fallback.n.Load(); n != 1 {
				t.Fatalf("%d requests went to the Fallback, want 1", n)
			}
		})
	}
}

// An upgraded connection outlives its request: an http.Transport hands it
// over as a writable body.
func TestTransportSendsAnUpgradeToTheFallback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "echo" {
			http.Error(w, "no upgrade", http.StatusBadRequest)
			return
		}
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n"))
		io.CopyN(c, brw, 2)
	}))
	t.Cleanup(srv.Close)
	tr, fallback := newTransport(t, nil)
	req := newRequest(t, http.MethodGet, srv.URL+"/term", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "echo")
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("status %s, want 101", resp.Status)
	}
	if n := fallback.n.Load(); n != 1 {
		t.Fatalf("%d requests went to the Fallback, want 1", n)
	}
	rw, ok := resp.Body.(io.ReadWriter)
	if !ok {
		t.Fatalf("the upgraded connection's body (%T) is not writable", resp.Body)
	}
	buf := make([]byte, 2)
	if _, err := rw.Write([]byte("hi")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(rw, buf); err != nil || string(buf) != "hi" {
		t.Fatalf("echoed %q, %v; want hi", buf, err)
	}
}

func TestTransportSendsAProxiedRequestToTheFallback(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(echo))
	t.Cleanup(target.Close)
	// The proxy answers itself: a request sent past it fails to resolve.
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "proxied %s", r.RequestURI)
	}))
	t.Cleanup(proxy.Close)
	proxyURL, _ := url.Parse(proxy.URL)
	fallback := &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) {
		if r.URL.Hostname() == "behind.proxy.invalid" {
			return proxyURL, nil
		}
		return nil, nil
	}}
	t.Cleanup(fallback.CloseIdleConnections)
	p := new(Pool)
	t.Cleanup(p.CloseIdleConnections)
	tr := &Transport{Pool: p, Fallback: fallback}

	got := send(t, tr, newRequest(t, http.MethodPost, "http://behind.proxy.invalid/x", strings.NewReader("hi")))
	if want := "proxied http://behind.proxy.invalid/x"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// One the proxy does not take goes over the Pool.
	if got := send(t, tr, newRequest(t, http.MethodPost, target.URL+"/direct", strings.NewReader("hi"))); got != "/direct hi" {
		t.Fatalf("got %q", got)
	}
	p.mu.Lock()
	pooled := len(p.idle[strings.TrimPrefix(target.URL, "http://")])
	p.mu.Unlock()
	if pooled != 1 {
		t.Fatalf("%d connections pooled after a request with no proxy, want 1", pooled)
	}
}

// A body larger than MaxBody could be cut off by a server answering before
// it reads it (see MaxBody).
func TestTransportSendsABodyLargerThanMaxBodyToTheFallback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprint(w, n)
	}))
	t.Cleanup(srv.Close)
	for _, size := range []int{MaxBody, MaxBody + 1} {
		tr, fallback := newTransport(t, nil)
		got := send(t, tr, newRequest(t, http.MethodPut, srv.URL+"/f", bytes.NewReader(make([]byte, size))))
		if got != fmt.Sprint(size) {
			t.Fatalf("a body of %d bytes: the server read %s", size, got)
		}
		want := int32(0)
		if size > MaxBody {
			want = 1
		}
		if n := fallback.n.Load(); n != want {
			t.Fatalf("a body of %d bytes: %d requests went to the Fallback, want %d", size, n, want)
		}
	}
}

func TestTransportCloseIdleConnections(t *testing.T) {
	srv, closed := stateCountingServer(t, echo, http.StateClosed)
	tr, fallback := newTransport(t, nil)
	send(t, tr, newRequest(t, http.MethodGet, srv.URL+"/x", nil))
	(&http.Client{Transport: tr}).CloseIdleConnections()
	if n := fallback.closed.Load(); n != 1 {
		t.Fatalf("the Fallback's CloseIdleConnections was called %d times, want 1", n)
	}
	tr.Pool.mu.Lock()
	left := len(tr.Pool.idle)
	tr.Pool.mu.Unlock()
	if left != 0 {
		t.Fatalf("%d addresses still pooled", left)
	}
	waitFor(t, func() bool { return closed.Load() == 1 }, "the server to see the pooled connection closed")
}
