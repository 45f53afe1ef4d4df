package egress

import (
	"net/netip"

	"github.com/berthdev/berth/internal/egress/policy"
)

// Recheck closes the open connections of the sandbox at src that its
// policy, as registered now, would refuse: a policy narrowed to none or to
// a smaller allowlist applies to the spliced and upgraded connections it
// let through before, not only to the next ones. It returns how many it
// closed. Requests on intercepted connections are checked one by one
// anyway; closing them ends what a request-level check cannot see (an
// upgraded WebSocket, an idle connection reused later).
func (p *Proxy) Recheck(src netip.Addr) int {
	e := p.Registry.lookup(src)
	if e == nil {
		return 0
	}
	n := 0
	for _, lc := range p.conns.of(e.ID) {
		if reason := p.stillAllowed(e, lc.info); reason != "" {
			lc.c.Close()
			n++
			p.reporter().refuse(Refusal{Sandbox: e.ID, Boot: e.BootID, Source: lc.info.src, Destination: lc.info.dst, Kind: "connect",
				Reason: "closed after a policy change: " + reason})
		}
	}
	return n
}

// stillAllowed says why the policy of e refuses an open connection, or "".
func (p *Proxy) stillAllowed(e *entry, info *conn) string {
	m := e.m
	switch {
	case m.Mode() == policy.None:
		return "policy none allows no connections"
	case m.Forbidden(info.dst.Addr()):
		return "destination is a private or special-purpose address"
	case m.Mode() == policy.Open, m.AllowIP(info.dst.Addr()):
		return ""
	}
	port := info.dst.Port()
	if port != 80 && port != 443 {
		return "port not allowed in allowlist mode"
	}
	sni, host := info.names()
	name := sni
	if name == "" {
		name = host
	}
	if name == "" {
		return "a connection whose host is not known cannot be shown allowed"
	}
	return p.checkName(e, name, info.dst)
}
