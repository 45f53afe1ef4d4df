package netguard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// TableName names Berth's tables: `inet berth` (what sandboxes reach) and
// `bridge berth` (frames between sandboxes on the bridge).
const TableName = "berth"

// Priority of the base chains: before Docker's filter chains (0), so the
// guard has judged a packet before anything Docker installs can accept it.
// A drop in any base chain is final, whatever other tables say.
const Priority = -10

// version changes whenever the rule set's shape does, so a worker of a new
// version replaces a table an older one installed.
const version = "4"

// Spec is what the rule set depends on.
type Spec struct {
	// Bridge is the sandbox network's bridge interface on this host.
	Bridge string
	// Resolvers are the host's private nameservers, which a sandbox's
	// resolv.conf names: the one private destination a sandbox may reach,
	// on port 53 only, or no name would resolve.
	Resolvers []netip.Addr
	// Ports prefixes the names of the host ends of sandboxes' interfaces
	// (dockerrt.VethPrefix). Such an interface passes traffic only as a
	// port of the bridge, where the rules above see it as the bridge's;
	// one left out of a bridge (its network removed behind the worker's
	// back) is dropped outright, or a sandbox could reach the host through
	// it unmatched. "" adds no such rule.
	Ports string
	// Subnets are the bridge's address ranges, for the layer-2 rule.
	Subnets []netip.Prefix
	// Egress: the sandboxes' TCP and DNS go through egress proxies on this
	// host. Each worker redirects its own sandboxes' connections to its
	// proxy (its Redirect table); the guard lets in exactly the redirected
	// flows, and drops TCP and DNS that no worker redirected (fail closed).
	Egress bool
}

// Validate refuses a spec that would install rules matching nothing.
func (s Spec) Validate() error {
	if s.Bridge == "" || len(s.Bridge) >= unix.IFNAMSIZ {
		return fmt.Errorf("netguard: bad bridge interface name %q", s.Bridge)
	}
	return nil
}

// fingerprint names one rule set; it is stored as the comment of the first
// rule of every chain so that a check can tell whether the installed rules
// are the ones this spec wants.
func (s Spec) fingerprint() string {
	v4, v6 := DeniedPrefixes()
	h := sha256.Sum256(fmt.Appendf(nil, "%s|%s|%v|%v|%v|%v|%v|%s", version, s.Bridge, s.Resolvers, s.Subnets, v4, v6, s.Egress, s.Ports))
	return "berth netguard " + hex.EncodeToString(h[:8])
}

// chainDef is one base chain and its rules, in order. A chain without a
// type is a filter chain at Priority.
type chainDef struct {
	family nftables.TableFamily
	name   string
	hook   *nftables.ChainHook
	typ    nftables.ChainType
	prio   *nftables.ChainPriority
	rules  []ruleDef
}

// ruleDef is one rule; why says what it is for, for `nft list` readers and
// the unit tests.
type ruleDef struct {
	why   string
	exprs []expr.Any
}

// Set names, referenced by the lookups in the rules.
const (
	set4 = "denied4"
	set6 = "denied6"
)

// chains builds the whole rule set for spec. Lookups name the sets; the
// installer binds them to the sets it creates in the same transaction.
func chains(s Spec) []chainDef {
	br := ifname(s.Bridge)
	from := meta(expr.MetaKeyIIFNAME, br)
	replies := ruleDef{"replies to connections made to a sandbox", cat(from, ctReply(), verdict(expr.VerdictAccept))}

	forward := []ruleDef{replies}
	var offBridge []ruleDef
	if s.Ports != "" {
		offBridge = []ruleDef{{"a sandbox interface outside the bridge", cat(meta(expr.MetaKeyIIFNAME, []byte(s.Ports)), drop())}}
	}
	forward = append(forward, offBridge...)
	if s.Egress {
		forward = append(forward, egressForward(from)...)
	}
	forward = append(forward, []ruleDef{
		{"sandbox to sandbox on its bridge", cat(from, meta(expr.MetaKeyOIFNAME, br), drop())},
		{"sandbox to another Docker network", cat(from, meta(expr.MetaKeyOIFNAME, []byte("br-")), drop())},
		{"sandbox to Docker's default bridge", cat(from, meta(expr.MetaKeyOIFNAME, ifname("docker0")), drop())},
	}...)
	for _, r := range s.Resolvers {
		for _, proto := range []struct {
			name string
			num  byte
		}{{"udp", unix.IPPROTO_UDP}, {"tcp", unix.IPPROTO_TCP}} {
			forward = append(forward, ruleDef{
				fmt.Sprintf("DNS to the host's resolver %s over %s", r, proto.name),
				cat(from, daddrIs(r), meta(expr.MetaKeyL4PROTO, []byte{proto.num}), dport(53), verdict(expr.VerdictAccept)),
			})
		}
	}
	forward = append(forward,
		ruleDef{"sandbox to a private IPv4 destination", cat(from, nfproto(unix.NFPROTO_IPV4), daddr4(), lookup(set4), drop())},
		ruleDef{"sandbox to a private IPv6 destination", cat(from, nfproto(unix.NFPROTO_IPV6), daddr6(), lookup(set6), drop())},
	)

	input := append([]ruleDef{replies}, offBridge...)
	if s.Egress {
		input = append(input, egressInput(from)...)
	}
	input = append(input, []ruleDef{
		// Without neighbour discovery an IPv6 sandbox network cannot reach
		// its gateway at all; ARP (IPv4's) never passes these hooks.
		{"IPv6 neighbour solicitation", cat(from, meta(expr.MetaKeyL4PROTO, []byte{unix.IPPROTO_ICMPV6}), icmpType(135), verdict(expr.VerdictAccept))},
		{"IPv6 neighbour advertisement", cat(from, meta(expr.MetaKeyL4PROTO, []byte{unix.IPPROTO_ICMPV6}), icmpType(136), verdict(expr.VerdictAccept))},
		{"sandbox to this host", cat(from, drop())},
	}...)

	// On the bridge itself, frames between two sandboxes reach the IP
	// hooks only while br_netfilter is on: drop them at layer 2 too. (By
	// addresses: not every kernel can match a frame's bridge by name.)
	var bridged []ruleDef
	for i, n := range s.Subnets {
		why := "frames between sandboxes in " + n.String()
		if i == 0 {
			why = "" // the first rule of a chain carries the fingerprint
		}
		bridged = append(bridged, ruleDef{why, cat(within(n), drop())})
	}
	if len(bridged) == 0 {
		bridged = []ruleDef{{"no subnet known: nothing to match", []expr.Any{&expr.Counter{}}}}
	}
	defs := []chainDef{
		{family: nftables.TableFamilyINet, name: "forward", hook: nftables.ChainHookForward, rules: forward},
		{family: nftables.TableFamilyINet, name: "input", hook: nftables.ChainHookInput, rules: input},
		{family: nftables.TableFamilyBridge, name: "forward", hook: nftables.ChainHookForward, rules: bridged},
	}
	return defs
}

// within matches a frame on a bridge whose IP source and destination are
// both in n.
func within(n netip.Prefix) []expr.Any {
	n = n.Masked()
	ethertype, src, dst, size := []byte{0x08, 0x00}, uint32(12), uint32(16), uint32(4)
	if n.Addr().Is6() {
		ethertype, src, dst, size = []byte{0x86, 0xdd}, 8, 24, 16
	}
	mask := make([]byte, size)
	for i := 0; i < n.Bits(); i++ {
		mask[i/8] |= 0x80 >> (i % 8)
	}
	addr := func(off uint32) []expr.Any {
		return []expr.Any{
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: size},
			&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: size, Mask: mask, Xor: make([]byte, size)},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: n.Addr().AsSlice()},
		}
	}
	return cat(meta(expr.MetaKeyPROTOCOL, ethertype), addr(src), addr(dst))
}

func cat(parts ...[]expr.Any) []expr.Any {
	var out []expr.Any
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ifname is an interface name as the kernel compares it: NUL-padded to
// IFNAMSIZ. A name given without padding matches as a prefix (nft's "br-*").
func ifname(n string) []byte {
	b := make([]byte, unix.IFNAMSIZ)
	copy(b, n)
	return b
}

func meta(key expr.MetaKey, want []byte) []expr.Any {
	return []expr.Any{
		&expr.Meta{Key: key, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: want},
	}
}

func nfproto(p byte) []expr.Any { return meta(expr.MetaKeyNFPROTO, []byte{p}) }

// ctReply matches packets that answer a connection someone else opened
// (conntrack's reply direction): the SYN-ACK of a supervisor the worker
// dialled passes, a connection the sandbox opens never does, even one that
// existed before the guard.
func ctReply() []expr.Any {
	return []expr.Any{
		&expr.Ct{Key: expr.CtKeyDIRECTION, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{1}}, // IP_CT_DIR_REPLY
	}
}

func daddr4() []expr.Any {
	return []expr.Any{&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4}}
}

func daddr6() []expr.Any {
	return []expr.Any{&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 24, Len: 16}}
}

func daddrIs(a netip.Addr) []expr.Any {
	if a.Is4() {
		return cat(nfproto(unix.NFPROTO_IPV4), daddr4(), []expr.Any{&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a.AsSlice()}})
	}
	return cat(nfproto(unix.NFPROTO_IPV6), daddr6(), []expr.Any{&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a.AsSlice()}})
}

func dport(p uint16) []expr.Any {
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{byte(p >> 8), byte(p)}},
	}
}

func icmpType(t byte) []expr.Any {
	return []expr.Any{
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 0, Len: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{t}},
	}
}

func lookup(set string) []expr.Any {
	return []expr.Any{&expr.Lookup{SourceRegister: 1, SetName: set}}
}

func verdict(k expr.VerdictKind) []expr.Any {
	return []expr.Any{&expr.Verdict{Kind: k}}
}

// drop counts what it refuses, so `nft list table inet berth` shows the
// operator what sandboxes tried.
func drop() []expr.Any {
	return []expr.Any{&expr.Counter{}, &expr.Verdict{Kind: expr.VerdictDrop}}
}
