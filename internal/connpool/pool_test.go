package connpool

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// connCountingServer is a real HTTP server on loopback that counts the
// connections it accepted.
func connCountingServer(t *testing.T, h http.HandlerFunc) (addr string, conns *atomic.Int32) {
	srv, conns := stateCountingServer(t, h, http.StateNew)
	return strings.TrimPrefix(srv.URL, "http://"), conns
}

// stateCountingServer is a real HTTP server on loopback that counts its
// connections' changes to state.
func stateCountingServer(t *testing.T, h http.HandlerFunc, state http.ConnState) (*httptest.Server, *atomic.Int32) {
	n := new(atomic.Int32)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == state {
			n.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, n
}

func directGet(t *testing.T, ctx context.Context, p *Pool, addr, path string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+path, strings.NewReader(`{"cmd":["true"]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := p.Do(req, addr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return resp
}

func TestPoolReuseAConnectionReadToItsEnd(t *testing.T) {
	addr, conns := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Query().Get("close") != "" {
			w.Header().Set("Connection", "close")
		}
		w.Write([]byte(r.URL.Path + " " + string(b)))
	})
	p := new(Pool)
	for i, path := range []string{"/a", "/b", "/c"} {
		resp := directGet(t, context.Background(), p, addr, path)
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if want := path + ` {"cmd":["true"]}`; err != nil || string(got) != want {
			t.Fatalf("request %d: got %q, %v; want %q", i, got, err, want)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("three sequential requests used %d connections, want 1", n)
	}

	// An answer that says Connection: close is not pooled.
	resp := directGet(t, context.Background(), p, addr, "/d?close=1")
	io.ReadAll(resp.Body)
	resp.Body.Close()
	resp = directGet(t, context.Background(), p, addr, "/e")
	io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := conns.Load(); n != 2 {
		t.Fatalf("after a Connection: close answer: %d connections, want 2", n)
	}
}

func TestPoolDropAnAnswerClosedBeforeItsEnd(t *testing.T) {
	addr, conns := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", 1<<20)))
	})
	p := new(Pool)
	resp := directGet(t, context.Background(), p, addr, "/big")
	resp.Body.Read(make([]byte, 10))
	resp.Body.Close()
	resp = directGet(t, context.Background(), p, addr, "/big")
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(got) != 1<<20 {
		t.Fatalf("second answer has %d bytes, want %d", len(got), 1<<20)
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("a half-read answer's connection was reused: %d connections, want 2", n)
	}
}

// The client leaving a follow ends the server's side of it: the supervisor
// stops a waited process's stream only when its connection goes.
func TestPoolCloseTheConnectionWhenTheClientLeaves(t *testing.T) {
	left := make(chan struct{})
	addr, _ := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("first"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(left)
	})
	p := new(Pool)
	ctx, cancel := context.WithCancel(context.Background())
	resp := directGet(t, ctx, p, addr, "/follow")
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	readErr := make(chan error, 1)
	go func() { _, err := resp.Body.Read(buf); readErr <- err }()
	cancel()
	select {
	case err := <-readErr:
		if err == nil {
			t.Fatal("a read after the client left returned no error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read blocked after the client left")
	}
	resp.Body.Close()
	select {
	case <-left:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's request did not end after the client left")
	}
}

// A pooled connection the server closed while it sat idle (its idle
// timeout, a replaced container) is not written to: the next request
// dials afresh and succeeds.
func TestPoolSkipAConnectionTheServerClosed(t *testing.T) {
	srv, conns := stateCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Write([]byte("ok"))
	}, http.StateNew)
	addr := strings.TrimPrefix(srv.URL, "http://")
	p := new(Pool)
	for i := range 3 {
		resp := directGet(t, context.Background(), p, addr, "/x")
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != "ok" {
			t.Fatalf("request %d: %q, %v", i, got, err)
		}
		srv.CloseClientConnections() // the pooled connection is gone now
		time.Sleep(20 * time.Millisecond)
	}
	if n := conns.Load(); n != 3 {
		t.Fatalf("%d connections for three requests each after a close, want 3", n)
	}
}

// Bytes a server sends after its answer, unasked, are never read as the
// answer to the next request: the connection is not reused.
func TestPoolDropAConnectionWithUnaskedBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					if _, err := http.ReadRequest(br); err != nil {
						return
					}
					answer := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
					if n == 1 {
						answer += "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nforged"
					}
					c.Write([]byte(answer))
				}
			}()
		}
	}()
	addr := ln.Addr().String()
	p := new(Pool)
	for i := range 2 {
		resp := directGet(t, context.Background(), p, addr, "/x")
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(got) != "ok" {
			t.Fatalf("request %d: %q, %v; want ok", i, got, err)
		}
		time.Sleep(20 * time.Millisecond) // the unasked bytes arrive
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections; want 2 (the one with unasked bytes dropped)", n)
	}
}

// Idle connections are closed after MaxIdleAge though no request follows:
// those of destroyed containers must not pile up in a quiet gateway.
func TestPoolCloseIdleConnectionsWithoutTraffic(t *testing.T) {
	srv, closed := stateCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	}, http.StateClosed)
	addr := strings.TrimPrefix(srv.URL, "http://")
	p := &Pool{MaxIdleAge: 100 * time.Millisecond}
	resp := directGet(t, context.Background(), p, addr, "/x")
	io.ReadAll(resp.Body)
	resp.Body.Close()
	deadline := time.Now().Add(5 * time.Second)
	for closed.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("an idle pooled connection was still open 5 s after its idle age (100 ms)")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.mu.Lock()
	left, sweeping := len(p.idle), p.sweeper != nil
	p.mu.Unlock()
	if left != 0 || sweeping {
		t.Fatalf("after the sweep: %d addresses pooled, sweeper set %v; want none", left, sweeping)
	}
}

// Whatever answers at a sandbox's address cannot make the gateway buffer
// headers without end: more than 1 MiB of them fails the request.
func TestPoolRefuseHugeResponseHeaders(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if _, err := http.ReadRequest(bufio.NewReader(c)); err != nil {
			return
		}
		// One header without end, until the client stops reading (64 MiB
		// at most); the connection stays open meanwhile, so what the
		// client read is not lost to a reset.
		c.Write([]byte("HTTP/1.1 200 OK\r\nX-Big: "))
		chunk := []byte(strings.Repeat("a", 64<<10))
		for range 1024 {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	}()
	addr := ln.Addr().String()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/processes", nil)
	resp, err := new(Pool).Do(req, addr)
	if err == nil {
		resp.Body.Close()
		t.Fatalf("an answer with endless headers was accepted (X-Big of %d bytes)", len(resp.Header.Get("X-Big")))
	}
	if !errors.Is(err, ErrResponseHeadersTooLarge) {
		t.Fatalf("error %v, want %v", err, ErrResponseHeadersTooLarge)
	}
}

func TestPoolUnreachableAddressFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing answers there now
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/v1/processes", nil)
	start := time.Now()
	if _, err := new(Pool).Do(req, addr); err == nil {
		t.Fatal("a request to a closed port succeeded")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v to fail", d)
	}
}

// An informational answer (103 Early Hints) is not the answer.
func TestPoolSkipInformationalAnswers(t *testing.T) {
	addr, _ := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</a.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Write([]byte("done"))
	})
	p := new(Pool)
	for i := range 2 {
		resp := directGet(t, context.Background(), p, addr, "/x")
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || string(got) != "done" {
			t.Fatalf("request %d: %s %q, %v; want 200 done", i, resp.Status, got, err)
		}
	}
}

// An answer with no body needs no read to be at its end: closing it keeps
// the connection, as http.Transport does.
func TestPoolReuseAConnectionAfterAnEmptyAnswer(t *testing.T) {
	addr, conns := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	p := new(Pool)
	for range 3 {
		directGet(t, context.Background(), p, addr, "/x").Body.Close()
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("three requests answered 204 used %d connections, want 1", n)
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 5 s for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A caller whose context ends sees that, as from http.Transport, whether it
// waited for the answer or read its body.
func TestPoolReturnTheContextsEnd(t *testing.T) {
	addr, _ := connCountingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Write([]byte("first"))
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	})
	p := new(Pool)

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/headers", nil)
	if _, err := p.Do(req, addr); !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting for the answer: %v, want %v", err, context.Canceled)
	}

	ctx, cancel = context.WithCancel(context.Background())
	resp := directGet(t, ctx, p, addr, "/body")
	defer resp.Body.Close()
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := resp.Body.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("reading the body: %v, want %v", err, context.Canceled)
	}
}
