package egress

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// Proxy is the transparent egress proxy. The host redirects sandboxes' TCP
// connections to its listener; for each one it finds the sandbox by source
// address, the destination by OrigDst, and then:
//
//   - open policy, no secrets: any public destination is spliced through;
//   - allowlist: ports 80 and 443 only (other ports only to allowed CIDRs);
//     the Host header or TLS server name must be allowed and the destination
//     one of the addresses the policy resolver returned for it; HTTPS is
//     intercepted so that every request's Host must equal the server name
//     (no domain fronting);
//   - with Sandbox.Secrets (or in allowlist mode), HTTPS on 443 is
//     intercepted and getSecret placeholders substituted for bound hosts;
//   - none: nothing.
//
// Private and special-purpose destinations are always refused.
type Proxy struct {
	Registry    *Registry
	Resolutions *Resolutions
	// Secrets resolves placeholder values; nil refuses every placeholder.
	Secrets secrets.Resolver
	// RootCAs verifies upstream servers of intercepted HTTPS; nil means the
	// system roots.
	RootCAs *x509.CertPool
	// OrigDst finds where a redirected connection was headed; nil means
	// OriginalDst (SO_ORIGINAL_DST).
	OrigDst func(net.Conn) (netip.AddrPort, error)
	// Dial opens upstream connections; nil means a net.Dialer with a 10 s
	// timeout. The worker can mark sockets here so its own redirect rules
	// skip them.
	Dial      func(ctx context.Context, network, addr string) (net.Conn, error)
	Log       *zap.Logger
	OnRefusal func(Refusal)
	// Bound tells whether some secret is bound to host. Under an open
	// policy, HTTPS to such a host is intercepted for every sandbox with a
	// CA (not only those whose boot env named a secret), so a placeholder
	// added after boot (an env change, an exec's own env) is substituted.
	// nil intercepts nothing more.
	Bound func(host string) bool
	// MaxConnsPerSandbox bounds one sandbox's open connections; past it a
	// new one is refused (and reported). 0 means DefaultMaxConnsPerSandbox.
	MaxConnsPerSandbox int

	transports  transports
	conns       connCounts
	refusalLogs logLimiter
}

// CloseIdle closes the proxy's idle upstream connections.
func (p *Proxy) CloseIdle() { p.transports.Close() }

// conn is what is known about one client connection.
type conn struct {
	src    netip.Addr
	dst    netip.AddrPort
	sbID   string
	boot   string // the sandbox's boot, for log lines
	sni    string
	tls    bool
	refuse string // a refusal decided at connect time, answered per request after interception
	redact redactor
	// mu guards what is learnt after the connection was accepted (the
	// peeked server name, the last Host), which Recheck reads.
	mu       sync.Mutex
	lastHost string
}

func (c *conn) setSNI(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sni, c.tls = name, true
}

// names is the connection's server name and last Host header.
func (c *conn) names() (sni, host string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sni, c.lastHost
}

func (p *Proxy) handle(c net.Conn) {
	src, _ := netip.ParseAddrPort(c.RemoteAddr().String())
	info := &conn{src: src.Addr().Unmap()}
	refuse := func(reason string) {
		p.reporter().refuse(Refusal{Sandbox: info.sbID, Boot: info.boot, Source: info.src, Destination: info.dst, Host: info.sni, Kind: "connect", Reason: reason})
		c.Close()
	}
	e := p.Registry.lookup(info.src)
	if e == nil {
		refuse("unknown source address")
		return
	}
	info.sbID, info.boot = e.ID, e.BootID
	dst, err := p.origDst(c)
	if err != nil {
		refuse(err.Error())
		return
	}
	info.dst = netip.AddrPortFrom(dst.Addr().Unmap(), dst.Port())
	if local, _ := netip.ParseAddrPort(c.LocalAddr().String()); local == dst {
		refuse("connection was not redirected (destination is the proxy itself)")
		return
	}
	// Counted once its destination is known (Recheck reads it).
	max := p.MaxConnsPerSandbox
	if max <= 0 {
		max = DefaultMaxConnsPerSandbox
	}
	release, why := p.conns.acquire(e.ID, max, c, info)
	if why != "" {
		refuse(why)
		return
	}
	defer release()
	m := e.m
	switch {
	case m.Mode() == policy.None:
		refuse("policy none allows no connections")
		return
	case m.Forbidden(info.dst.Addr()):
		refuse("destination is a private or special-purpose address")
		return
	}
	port := info.dst.Port()
	web := port == 80 || port == 443
	if m.Mode() == policy.Open && (!e.Secrets || !web) {
		if port == 443 && e.CA != nil && p.Bound != nil {
			p.passOrInterceptBound(c, info, e)
			return
		}
		p.pass(c, info, nil)
		return
	}
	if m.Mode() == policy.Allowlist && !web {
		if m.AllowIP(info.dst.Addr()) {
			p.pass(c, info, nil)
			return
		}
		refuse(fmt.Sprintf("port %d is not allowed (allowlist mode: only 80 and 443, or any port to allowed CIDRs)", port))
		return
	}
	if port == 80 {
		p.serveHTTP(c, info)
		return
	}
	hello, prefix, err := peekClientHello(c)
	if err != nil {
		if m.Mode() == policy.Open {
			p.pass(c, info, prefix) // not TLS: nothing to intercept
			return
		}
		refuse("port 443 without a TLS ClientHello")
		return
	}
	info.setSNI(hello.ServerName)
	if info.sni == "" {
		if m.Mode() == policy.Open || m.AllowIP(info.dst.Addr()) {
			p.pass(c, info, prefix)
			return
		}
		refuse("TLS without a server name (raw IP address) is not allowed in allowlist mode")
		return
	}
	info.refuse = p.checkName(e, info.sni, info.dst)
	if e.CA == nil {
		if m.Mode() == policy.Allowlist || e.Secrets {
			// This policy needs interception (Host against SNI, secrets)
			// and there is no CA to do it with: fail closed.
			refuse("no CA to intercept HTTPS for this sandbox on this host (it is made at boot: the next boot has one)")
			return
		}
		// Cannot intercept: the server-name check is all there is.
		if info.refuse != "" {
			refuse(info.refuse)
			return
		}
		p.pass(c, info, prefix)
		return
	}
	p.serveTLS(newPrefixConn(c, prefix), info, e)
}

// passOrInterceptBound intercepts HTTPS whose server name some secret is
// bound to and splices the rest.
func (p *Proxy) passOrInterceptBound(c net.Conn, info *conn, e *entry) {
	hello, prefix, err := peekClientHello(c)
	if err != nil || hello.ServerName == "" || !p.Bound(hello.ServerName) {
		p.pass(c, info, prefix)
		return
	}
	info.setSNI(hello.ServerName)
	p.serveTLS(newPrefixConn(c, prefix), info, e)
}

// checkName says why a connection to host at dst is refused, or "".
func (p *Proxy) checkName(e *entry, host string, dst netip.AddrPort) string {
	m := e.m
	if m.Mode() == policy.Open {
		return ""
	}
	if m.Mode() == policy.None {
		return "policy none allows no connections"
	}
	name, ok := policy.NormalizeHost(host)
	if m.AllowIP(dst.Addr()) {
		return "" // an allowed CIDR: any name
	}
	switch {
	case policy.IsIP(name):
		return fmt.Sprintf("raw IP address %s is not allowed in allowlist mode (use a name in the allowlist)", name)
	case !ok:
		return fmt.Sprintf("%q is not a valid host name", host)
	case !m.AllowName(name):
		return fmt.Sprintf("host %s is not in the allowlist", name)
	case !p.Resolutions.Has(e.ID, name, dst.Addr()):
		return fmt.Sprintf("destination %s is not an address the sandbox's resolver returned for %s (Host/SNI does not match the destination)", dst.Addr(), name)
	}
	return ""
}

// pass splices c to its destination.
func (p *Proxy) pass(c net.Conn, info *conn, prefix []byte) {
	up, err := p.dial(context.Background(), info.dst)
	if err != nil {
		if p.Log != nil {
			p.Log.Info("egress: upstream unreachable", sandboxlog.Of(info.sbID, info.boot), zap.Stringer("destination", info.dst), zap.Error(err))
		}
		c.Close()
		return
	}
	metrics.EgressConnections.WithLabelValues("splice").Inc()
	splice(c, up, prefix)
}

func (p *Proxy) dial(ctx context.Context, dst netip.AddrPort) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", dst.String())
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, "tcp", dst.String())
}

func (p *Proxy) origDst(c net.Conn) (netip.AddrPort, error) {
	if p.OrigDst != nil {
		return p.OrigDst(c)
	}
	return OriginalDst(c)
}

func (p *Proxy) reporter() reporter {
	return reporter{log: p.Log, on: p.OnRefusal, limit: &p.refusalLogs}
}
