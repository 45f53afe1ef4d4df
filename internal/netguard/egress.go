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

// OpenMark is the packet mark bit a worker's redirect table sets on the
// packets of its sandboxes whose policy is open: only those may send
// anything but TCP (which the proxy judges) and DNS (which the policy
// resolver answers), e.g. UDP to the public internet. The guard drops the
// rest, so a sandbox under `none` or an allowlist, or one no running worker
// marks, sends no UDP, ICMP or other protocol at all: fail closed. A
// sandbox cannot forge the bit: the kernel clears a packet's mark when it
// leaves the container's network namespace through its veth.
const OpenMark uint32 = 0x00b0_0000

// egressForward drops the TCP and DNS that reach the forward path: every
// sandbox a worker knows is redirected before routing, so this is a
// sandbox no running worker knows (its worker is down or restarting).
// It fails closed instead of reaching the internet unjudged. Every other
// protocol passes only for sandboxes their worker marked open.
func egressForward(from []expr.Any) []ruleDef {
	return []ruleDef{
		{"TCP no egress proxy took (its worker is not running)", cat(from, l4(unix.IPPROTO_TCP), drop())},
		{"DNS no policy resolver took (its worker is not running)", cat(from, l4(unix.IPPROTO_UDP), dport(53), drop())},
		{"anything but TCP from a sandbox whose policy is not open (or that no worker marks)", cat(from, markClear(OpenMark), drop())},
	}
}

// markClear matches packets whose mark lacks bit.
func markClear(bit uint32) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(bit), Xor: binaryutil.NativeEndian.PutUint32(0)},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)},
	}
}

// markSet sets bit in the packet's mark, keeping the other bits.
func markSet(bit uint32) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(^bit), Xor: binaryutil.NativeEndian.PutUint32(bit)},
		&expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: 1},
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
