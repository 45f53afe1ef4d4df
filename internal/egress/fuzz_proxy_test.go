package egress

import (
	"flag"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/internal/egress/policy"
)

// FuzzProxyRequest writes whatever a sandbox might send on a plain HTTP
// connection to the egress proxy (request lines, absolute-form URLs, Host
// headers, chunked bodies, upgrades, pipelined requests), through the
// redirects of the allowlisted name's address and of another's, and checks
// that the proxy answers or closes without a panic and that nothing
// reaches the internet but requests for the allowlisted name, arriving at
// that name's own address. (Which input a request came from is not
// checked: the upstream may record one after its client has gone.)
func FuzzProxyRequest(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n",
		"GET http://other.test/ HTTP/1.1\r\nHost: api.allowed.test\r\n\r\n",
		"POST /x HTTP/1.1\r\nHost: api.allowed.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: API.Allowed.Test:80\r\nHost: other.test\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
		"CONNECT other.test:443 HTTP/1.1\r\nHost: other.test:443\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.allowed.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: api.allowed.test\r\n\r\nGET / HTTP/1.1\r\nHost: other.test\r\n\r\n",
		"TRACE / HTTP/1.1\r\nHost: api.allowed.test\r\nAuthorization: getSecret(\"KEY\")\r\n\r\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	// The harness listens on fixed addresses, which the fuzzing
	// coordinator would hold while its worker (which runs the inputs)
	// tries to listen on them: only the process that runs inputs sets up.
	var e *env
	if flagSet("test.fuzz") == "" || flagSet("test.fuzzworker") == "true" {
		e = newEnv(f, policy.Policy{Mode: policy.Allowlist, Domains: []string{"api.allowed.test"}}, false)
		e.lookup("api.allowed.test", "udp") // the DNS pin: the name's address, as a sandbox would resolve it
	}
	f.Fuzz(func(t *testing.T, data []byte, other bool) {
		via := redirects[ipAllowed]
		if other {
			via = redirects[ipOther]
		}
		before := e.up.count()
		c, err := net.Dial("tcp", via+":80")
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(3 * time.Second))
		c.Write(data)
		if tc, ok := c.(*net.TCPConn); ok {
			tc.CloseWrite()
		}
		io.Copy(io.Discard, c) // the answer, up to the proxy's close or the deadline
		c.Close()
		e.up.mu.Lock()
		got := append([]seen(nil), e.up.requests[before:]...)
		e.up.mu.Unlock()
		for _, s := range got {
			host, _ := policy.NormalizeHost(hostOnly(s.Host))
			if ip, _, _ := net.SplitHostPort(s.Local); host != "api.allowed.test" || ip != ipAllowed {
				t.Fatalf("the upstream %s got a request for %q (sent through %s: %q)", s.Local, s.Host, via, data)
			}
		}
	})
}

func flagSet(name string) string {
	if fl := flag.Lookup(name); fl != nil {
		return fl.Value.String()
	}
	return ""
}

func hostOnly(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		return host
	}
	return strings.TrimSuffix(h, ".")
}
