package egress

import (
	"net"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/internal/sandboxlog"
)

// DNSServer is the resolver sandboxes use (the host redirects their port 53
// here). It answers only names the sandbox's policy allows and forwards only
// those upstream: a refused name never leaves the host, so queries cannot
// carry data out. Refused names get REFUSED (not cached by clients, so a
// policy change applies at once) with the extended error "Prohibited".
// Allowed names are answered from a bounded cache while their TTL lasts
// (dnscache.go); the policy is checked before the cache is read.
type DNSServer struct {
	Registry    *Registry
	Resolutions *Resolutions
	Upstream    string        // "host:port" of the real resolver
	Timeout     time.Duration // per upstream exchange; 0 means 5 s
	Log         *zap.Logger
	OnRefusal   func(Refusal)
	// CacheSize bounds the cache of upstream answers; 0 means
	// DNSCacheSize, negative turns the cache off.
	CacheSize int
	// Bound tells whether some secret is bound to a name. Under an open
	// policy only such names' addresses are remembered (the proxy checks
	// them only when it substitutes a secret); nil remembers every name.
	Bound func(host string) bool

	servers     []*dns.Server
	refusalLogs logLimiter
	cacheOnce   sync.Once
	cache       *dnsCache
}

// Serve answers on pc (UDP) and ln (TCP); either may be nil. It returns
// once both are serving.
func (s *DNSServer) Serve(pc net.PacketConn, ln net.Listener) error {
	started := make(chan error, 2)
	n := 0
	if pc != nil {
		srv := &dns.Server{PacketConn: pc, Handler: s, NotifyStartedFunc: func() { started <- nil }}
		s.servers = append(s.servers, srv)
		go func() {
			if err := srv.ActivateAndServe(); err != nil {
				started <- err
			}
		}()
		n++
	}
	if ln != nil {
		srv := &dns.Server{Listener: ln, Handler: s, NotifyStartedFunc: func() { started <- nil }}
		s.servers = append(s.servers, srv)
		go func() {
			if err := srv.ActivateAndServe(); err != nil {
				started <- err
			}
		}()
		n++
	}
	for ; n > 0; n-- {
		if err := <-started; err != nil {
			return err
		}
	}
	return nil
}

// Close stops serving.
func (s *DNSServer) Close() {
	for _, srv := range s.servers {
		srv.Shutdown()
	}
}

// ServeDNS implements dns.Handler.
func (s *DNSServer) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	src, _ := netip.ParseAddrPort(w.RemoteAddr().String())
	rep := reporter{log: s.Log, on: s.OnRefusal, limit: &s.refusalLogs}
	outcome := metrics.OK
	defer func() { metrics.ResolverQueries.WithLabelValues(outcome).Inc() }()
	boot := "" // the sandbox's, once known
	refuse := func(sandbox, name, reason string, rcode int) {
		outcome = "refused"
		rep.refuse(Refusal{Sandbox: sandbox, Boot: boot, Source: src.Addr().Unmap(), Host: name, Kind: "dns", Reason: reason})
		m := new(dns.Msg)
		m.SetRcode(req, rcode)
		if req.IsEdns0() != nil {
			m.SetEdns0(1232, false)
			o := m.IsEdns0()
			o.Option = append(o.Option, &dns.EDNS0_EDE{InfoCode: dns.ExtendedErrorCodeProhibited, ExtraText: "egress policy: " + reason})
		}
		w.WriteMsg(m)
	}
	e := s.Registry.lookup(src.Addr())
	if e == nil {
		refuse("", "", "unknown source address", dns.RcodeRefused)
		return
	}
	boot = e.BootID
	if req.Opcode != dns.OpcodeQuery || len(req.Question) != 1 || req.Question[0].Qclass != dns.ClassINET {
		refuse(e.ID, "", "only single-question Internet-class queries are answered", dns.RcodeRefused)
		return
	}
	q := req.Question[0]
	switch q.Qtype {
	case dns.TypeANY, dns.TypeAXFR, dns.TypeIXFR:
		// Amplification and zone walking; no client needs them.
		refuse(e.ID, q.Name, "ANY, AXFR and IXFR queries are not answered", dns.RcodeRefused)
		return
	}
	name, ok := policy.NormalizeHost(strings.TrimSuffix(q.Name, "."))
	switch {
	case e.m.Mode() == policy.None:
		refuse(e.ID, q.Name, "policy none allows no lookups", dns.RcodeRefused)
		return
	case !ok:
		refuse(e.ID, q.Name, "not a host name", dns.RcodeRefused)
		return
	case !e.m.AllowName(name):
		refuse(e.ID, name, "name not in the allowlist", dns.RcodeRefused)
		return
	}
	_, tcp := w.RemoteAddr().(*net.TCPAddr)
	cache := s.answers()
	if cache != nil {
		if resp := cache.get(req, tcp); resp != nil {
			if onlyForbidden(e, resp) {
				refuse(e.ID, name, "the name resolves only to private or special-purpose addresses", dns.RcodeRefused)
				return
			}
			s.remember(e, name, resp)
			w.WriteMsg(resp)
			return
		}
	}
	c := &dns.Client{Net: "udp", Timeout: s.timeout()}
	if tcp {
		c.Net = "tcp"
	}
	resp, _, err := c.Exchange(req, s.Upstream)
	if err != nil {
		if s.Log != nil {
			s.Log.Warn("egress dns: upstream failed", sandboxlog.Of(e.ID, e.BootID), zap.String("name", name), zap.Error(err))
		}
		m := new(dns.Msg)
		m.SetRcode(req, dns.RcodeServerFailure)
		w.WriteMsg(m)
		return
	}
	if cache != nil {
		cache.put(req, resp, tcp)
	}
	if onlyForbidden(e, resp) {
		// A public name for an inside address (DNS rebinding, a leaked
		// internal name): the sandbox could not reach it anyway.
		refuse(e.ID, name, "the name resolves only to private or special-purpose addresses", dns.RcodeRefused)
		return
	}
	s.remember(e, name, resp)
	w.WriteMsg(resp)
}

// answers is the cache, or nil when it is off.
func (s *DNSServer) answers() *dnsCache {
	s.cacheOnce.Do(func() {
		switch {
		case s.CacheSize == 0:
			s.cache = newDNSCache(DNSCacheSize)
		case s.CacheSize > 0:
			s.cache = newDNSCache(s.CacheSize)
		}
	})
	return s.cache
}

// remember records the public addresses of the answer under the name asked
// (CNAME chains included: every A/AAAA answers the question).
func (s *DNSServer) remember(e *entry, name string, resp *dns.Msg) {
	if e.m.Mode() == policy.Open && s.Bound != nil && !s.Bound(name) {
		return
	}
	var addrs []netip.Addr
	ttl := uint32(1 << 31)
	for _, rr := range resp.Answer {
		var a netip.Addr
		switch r := rr.(type) {
		case *dns.A:
			a, _ = netip.AddrFromSlice(r.A.To4())
		case *dns.AAAA:
			a, _ = netip.AddrFromSlice(r.AAAA.To16())
		default:
			continue
		}
		if a.IsValid() && !e.m.Forbidden(a) {
			addrs = append(addrs, a)
			ttl = min(ttl, rr.Header().Ttl)
		}
	}
	if len(addrs) > 0 {
		s.Resolutions.Record(e.ID, name, addrs, time.Duration(ttl)*time.Second)
	}
}

// onlyForbidden tells whether resp has addresses and none of them public.
func onlyForbidden(e *entry, resp *dns.Msg) bool {
	n := 0
	for _, rr := range resp.Answer {
		var a netip.Addr
		switch r := rr.(type) {
		case *dns.A:
			a, _ = netip.AddrFromSlice(r.A.To4())
		case *dns.AAAA:
			a, _ = netip.AddrFromSlice(r.AAAA.To16())
		default:
			continue
		}
		if a.IsValid() && !e.m.Forbidden(a) {
			return false
		}
		n++
	}
	return n > 0
}

func (s *DNSServer) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return 5 * time.Second
}
