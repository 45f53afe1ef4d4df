package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/gateway"
)

// serveLimited runs a gateway (no Temporal: only what answers before it)
// on loopback with lim.
func serveLimited(t *testing.T, lim gateway.HTTPLimits) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv := gateway.New(gateway.Options{Log: zap.NewNop(), Token: "t", HTTP: lim})
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().String()
}

// rawExchange writes req on a new connection and reads one answer.
func rawExchange(t *testing.T, addr, req string, within time.Duration) (*http.Response, api.ErrorEnvelope, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	start := time.Now()
	c.SetDeadline(start.Add(within))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer within %s: %v", within, err)
	}
	b, _ := io.ReadAll(resp.Body)
	var env api.ErrorEnvelope
	if err := json.Unmarshal(b, &env); err != nil || env.Error == nil {
		t.Fatalf("%d %q is not the error envelope (%s)", resp.StatusCode, b, resp.Header.Get("Content-Type"))
	}
	return resp, env, time.Since(start)
}

// A body that stops short of its declared length is answered 408 in the
// envelope once its time is up, and the connection closed.
func TestGatewayAnswersASlowBody408(t *testing.T) {
	addr := serveLimited(t, gateway.HTTPLimits{BodyTimeout: 500 * time.Millisecond})
	resp, env, took := rawExchange(t, addr, "POST /v1/sandboxes HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer t\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":", 10*time.Second)
	if resp.StatusCode != 408 || env.Error.Code != api.CodeRequestTimeout {
		t.Fatalf("%d %s", resp.StatusCode, env.Error.Code)
	}
	if took > 5*time.Second {
		t.Fatalf("answered after %s", took)
	}
	// A body that arrives whole is read as before (400 here: no such field).
	resp, env, _ = rawExchange(t, addr, "POST /v1/sandboxes HTTP/1.1\r\nHost: b\r\nAuthorization: Bearer t\r\n"+
		"Content-Type: application/json\r\nContent-Length: 9\r\n\r\n{\"bad\":1}", 10*time.Second)
	if resp.StatusCode != 400 || env.Error.Code != api.CodeValidation {
		t.Fatalf("whole body: %d %s", resp.StatusCode, env.Error.Code)
	}
}

// Requests net/http refuses before any route runs are answered in the
// envelope too.
func TestGatewayCannedErrorsCarryTheEnvelope(t *testing.T) {
	addr := serveLimited(t, gateway.HTTPLimits{MaxHeaderBytes: 4096})
	for _, c := range []struct {
		req    string
		status int
		code   api.Code
	}{
		{"G(T /v1/sandboxes HTTP/1.1\r\nHost: b\r\n\r\n", 400, api.CodeValidation},
		{"GET /v1/sand\x00boxes HTTP/1.1\r\nHost: b\r\n\r\n", 400, api.CodeValidation},
		{"GET /v1/sandboxes HTTP/1.1\r\n\r\n", 400, api.CodeValidation},
		{"GET /v1/sandboxes HTTP/1.1\r\nHost: b\r\nX-Pad: " + strings.Repeat("p", 8192) + "\r\n\r\n", 431, api.CodeHeadersTooLarge},
	} {
		resp, env, _ := rawExchange(t, addr, c.req, 5*time.Second)
		if resp.StatusCode != c.status || env.Error.Code != c.code {
			t.Errorf("%.40q: %d %s, want %d %s", c.req, resp.StatusCode, env.Error.Code, c.status, c.code)
		}
	}
}

// One client address holds at most MaxConnsPerAddr connections; the next
// is answered 503 in the envelope, and a slot freed is usable again.
func TestGatewayBoundsConnectionsPerClientAddress(t *testing.T) {
	addr := serveLimited(t, gateway.HTTPLimits{MaxConnsPerAddr: 2})
	var held []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	time.Sleep(100 * time.Millisecond) // both accepted
	resp, env, _ := rawExchange(t, addr, "GET /healthz HTTP/1.1\r\nHost: b\r\n\r\n", 5*time.Second)
	if resp.StatusCode != 503 || env.Error.Code != api.CodeTooManyConnections {
		t.Fatalf("%d %s", resp.StatusCode, env.Error.Code)
	}
	held[0].Close()
	time.Sleep(200 * time.Millisecond)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: b\r\n\r\n")
	c.SetDeadline(time.Now().Add(5 * time.Second))
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || r.StatusCode != 200 {
		t.Fatalf("after a slot was freed: %v %v", r, err)
	}
	held[1].Close()
}
