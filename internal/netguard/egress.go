package netguard

import (
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// ipsDstNAT is conntrack's "destination was translated" status bit
// (IPS_DST_NAT): set on connections a redirect rule rewrote.
const ipsDstNAT = 1 << 5

// egressInput lets through to this host the connections a worker's
// redirect rules rewrote (to its proxy or resolver). Nothing else
// translates a sandbox's packets to a host address (Docker's published
// ports translate to containers, on the forward path), so a sandbox
// dialling a host port directly is still dropped.
func egressInput(from []expr.Any) []ruleDef {
	return []ruleDef{
		{"redirected TCP to a worker's egress proxy or resolver", cat(from, ctDNAT(), l4(unix.IPPROTO_TCP), verdict(expr.VerdictAccept))},
		{"redirected DNS over UDP to a worker's resolver", cat(from, ctDNAT(), l4(unix.IPPROTO_UDP), verdict(expr.VerdictAccept))},
	}
}

// egressForward drops the TCP and DNS that reach the forward path: every
// sandbox a worker knows is redirected before routing, so this is a
// sandbox no running worker knows (its worker is down or restarting).
// It fails closed instead of reaching the internet unjudged.
func egressForward(from []expr.Any) []ruleDef {
	return []ruleDef{
		{"TCP no egress proxy took (its worker is not running)", cat(from, l4(unix.IPPROTO_TCP), drop())},
		{"DNS no policy resolver took (its worker is not running)", cat(from, l4(unix.IPPROTO_UDP), dport(53), drop())},
	}
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
