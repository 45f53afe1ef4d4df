package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/egress/policy"
)

// failingListener fails its first accepts as a process out of file
// descriptors does, then reports itself closed.
type failingListener struct {
	net.Listener
	fails, calls atomic.Int32
}

func (l *failingListener) Accept() (net.Conn, error) {
	if l.calls.Add(1) <= l.fails.Load() {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return nil, net.ErrClosed
}

// The accept loop outlives EMFILE and the like: it waits and accepts again
// instead of returning (which left the worker's egress dead).
func TestProxyAcceptLoopSurvivesTemporaryErrors(t *testing.T) {
	l := &failingListener{}
	l.fails.Store(4)
	p := &Proxy{Registry: NewRegistry()}
	done := make(chan error, 1)
	go func() { done <- p.Serve(l) }()
	select {
	case err := <-done:
		if err != nil || l.calls.Load() != 5 {
			t.Fatalf("Serve returned %v after %d accepts, want nil after 5", err, l.calls.Load())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return once the listener was closed")
	}
}

// One sandbox holds at most MaxConnsPerSandbox connections through the
// proxy; the next is refused and reported, and a slot freed is usable.
func TestProxyBoundsConnectionsPerSandbox(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	e.proxy.MaxConnsPerSandbox = 2
	via := redirects[ipAllowed] + ":8080"
	dial := func() net.Conn {
		c, err := net.Dial("tcp", via)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	get := func(c net.Conn) error {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		fmt.Fprintf(c, "GET /held HTTP/1.1\r\nHost: api.allowed.test:8080\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	a, b := dial(), dial()
	defer a.Close()
	defer b.Close()
	for _, c := range []net.Conn{a, b} {
		if err := get(c); err != nil {
			t.Fatalf("within the limit: %v", err)
		}
	}
	third := dial()
	defer third.Close()
	if err := get(third); err == nil {
		t.Fatal("a third connection was served past the limit of 2")
	}
	if !e.refused("connections open through the egress proxy") {
		t.Fatal("the refusal was not reported")
	}
	a.Close()
	time.Sleep(200 * time.Millisecond)
	fourth := dial()
	defer fourth.Close()
	if err := get(fourth); err != nil {
		t.Fatalf("after a slot was freed: %v", err)
	}
}
