package netguard

import (
	"fmt"

	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// ipsDstNAT is conntrack's "destination was translated" status bit
// (IPS_DST_NAT): set on connections a redirect rule rewrote.
const ipsDstNAT = 1 << 5

// egressRedirects are the NAT rules of the prerouting chain: DNS first (it
// is TCP too), then every other TCP connection from the bridge. Only a
// connection's first packet meets a NAT chain, so replies to connections
// the worker opened to supervisors are never redirected.
func egressRedirects(from []expr.Any, e Egress) []ruleDef {
	return []ruleDef{
		{"", cat(from, l4(unix.IPPROTO_UDP), dport(53), redirect(e.DNSPort))}, // the first rule carries the fingerprint
		{"DNS over TCP to the policy resolver", cat(from, l4(unix.IPPROTO_TCP), dport(53), redirect(e.DNSPort))},
		{"every other TCP connection to the egress proxy", cat(from, l4(unix.IPPROTO_TCP), redirect(e.ProxyPort))},
	}
}

// egressInput lets through to this host exactly the connections the
// redirect rules rewrote to the proxy's and resolver's ports; a sandbox
// dialling those ports on the host directly is still dropped (the packet
// was not translated).
func egressInput(from []expr.Any, e Egress) []ruleDef {
	var out []ruleDef
	for _, r := range []struct {
		proto byte
		port  uint16
		what  string
	}{
		{unix.IPPROTO_TCP, e.ProxyPort, "redirected TCP to the egress proxy"},
		{unix.IPPROTO_UDP, e.DNSPort, "redirected DNS over UDP to the policy resolver"},
		{unix.IPPROTO_TCP, e.DNSPort, "redirected DNS over TCP to the policy resolver"},
	} {
		out = append(out, ruleDef{fmt.Sprintf("%s (port %d)", r.what, r.port),
			cat(from, ctDNAT(), l4(r.proto), dport(r.port), verdict(expr.VerdictAccept))})
	}
	return out
}

func l4(p byte) []expr.Any { return meta(expr.MetaKeyL4PROTO, []byte{p}) }

// ctDNAT matches packets of a connection whose destination a NAT rule
// rewrote (`ct status dnat`).
func ctDNAT() []expr.Any {
	return []expr.Any{
		&expr.Ct{Key: expr.CtKeySTATUS, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(ipsDstNAT), Xor: binaryutil.NativeEndian.PutUint32(0)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)},
	}
}

// redirect sends the packet to port on the address of the interface it
// came in on (for the bridge: its gateway address).
func redirect(port uint16) []expr.Any {
	return []expr.Any{
		&expr.Immediate{Register: 1, Data: binaryutil.BigEndian.PutUint16(port)},
		&expr.Redir{RegisterProtoMin: 1},
	}
}
