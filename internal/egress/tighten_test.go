package egress

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/egress/policy"
)

// A policy narrowed while a connection is open closes it when the new
// policy would refuse it: a spliced connection to a port an allowlist
// does not take stops at once instead of going on for as long as the
// sandbox keeps it.
func TestNarrowedPolicyClosesOpenConnectionsItRefuses(t *testing.T) {
	e := newEnv(t, policy.Policy{Mode: policy.Open}, false)
	c, err := net.Dial("tcp", redirects[ipAllowed]+":8080")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	get := func() error {
		c.SetDeadline(time.Now().Add(3 * time.Second))
		if _, err := fmt.Fprintf(c, "GET /kept HTTP/1.1\r\nHost: api.allowed.test:8080\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	if err := get(); err != nil {
		t.Fatalf("open policy: %v", err)
	}
	e.setPolicy(policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test"}}, false)
	if n := e.proxy.Recheck(sandboxSrc); n != 1 {
		t.Errorf("Recheck closed %d connections, want 1", n)
	}
	if err := get(); err == nil {
		t.Fatal("a spliced connection to port 8080 went on under an allowlist")
	}
	if !e.refused("closed after a policy change") {
		t.Error("the closing was not reported")
	}
}
