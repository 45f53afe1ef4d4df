package netguard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"
)

// The address sets of a redirect table: its sandboxes, and those of them
// whose policy is open.
const (
	setSources = "sources"
	setOpen    = "open"
)

// RedirectPrefix begins the name of every worker's redirect table.
const RedirectPrefix = "berth_egress_"

// RedirectTable names the redirect table of the worker with this host id.
func RedirectTable(hostID string) string {
	h := sha256.Sum256([]byte(hostID))
	return RedirectPrefix + hex.EncodeToString(h[:6])
}

// Redirect is one worker's NAT table (`inet berth_egress_<id>`): its
// sandboxes' DNS goes to its resolver and every other TCP connection,
// whatever the port, to its proxy, so raw addresses and unusual ports are
// judged there too. The proxy learns the original destination with
// SO_ORIGINAL_DST. Keyed by source address, so several workers can share a
// Docker host (tests do), each with its own ports.
type Redirect struct {
	Table     string
	Bridge    string
	ProxyPort uint16
	DNSPort   uint16
	Sources   []netip.Addr // the worker's sandboxes (IPv4; IPv6 TCP is dropped by the guard)
	// Open are the sources whose policy is open: their packets get
	// OpenMark, so the guard lets their UDP (and other protocols that are
	// not TCP) reach the public internet. The others send only TCP and DNS.
	Open []netip.Addr
}

// Install replaces the table in one transaction (the set of sources is
// small: one address per running sandbox).
func (r Redirect) Install() error {
	if r.Bridge == "" || r.ProxyPort == 0 || r.DNSPort == 0 || !strings.HasPrefix(r.Table, RedirectPrefix) {
		return fmt.Errorf("netguard: bad redirect %+v", r)
	}
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("netguard: nftables: %w", err)
	}
	defer c.CloseLasting()
	t := &nftables.Table{Name: r.Table, Family: nftables.TableFamilyINet}
	c.AddTable(t)
	c.DelTable(t)
	t = c.AddTable(&nftables.Table{Name: r.Table, Family: nftables.TableFamilyINet})
	set := &nftables.Set{Table: t, Name: setSources, KeyType: nftables.TypeIPAddr}
	if err := c.AddSet(set, addrElements(r.Sources)); err != nil {
		return fmt.Errorf("netguard: redirect set: %w", err)
	}
	open := &nftables.Set{Table: t, Name: setOpen, KeyType: nftables.TypeIPAddr}
	if err := c.AddSet(open, addrElements(r.Open)); err != nil {
		return fmt.Errorf("netguard: redirect set: %w", err)
	}
	policy := nftables.ChainPolicyAccept
	ch := c.AddChain(&nftables.Chain{Name: "prerouting", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookPrerouting, Priority: nftables.ChainPriorityNATDest, Policy: &policy})
	mine := cat(meta(expr.MetaKeyIIFNAME, ifname(r.Bridge)), nfproto(unix.NFPROTO_IPV4),
		[]expr.Any{&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
			&expr.Lookup{SourceRegister: 1, SetName: set.Name, SetID: set.ID}})
	v4, _ := DeniedPrefixes()
	denied := &nftables.Set{Table: t, Name: "denied4", KeyType: nftables.TypeIPAddr, Interval: true, Constant: true}
	if err := c.AddSet(denied, elements(spans(v4))); err != nil {
		return fmt.Errorf("netguard: redirect set: %w", err)
	}
	ret := []expr.Any{&expr.Verdict{Kind: expr.VerdictReturn}}
	for _, rule := range [][]expr.Any{
		cat(mine, l4(unix.IPPROTO_UDP), dport(53), redirect(r.DNSPort)),
		cat(mine, l4(unix.IPPROTO_TCP), dport(53), redirect(r.DNSPort)),
		// Private destinations and this host's own addresses are not
		// redirected: the guard drops them in the kernel, so the sandbox
		// sees them blocked (a proxy would accept first and close after).
		cat(mine, daddr4(), []expr.Any{&expr.Lookup{SourceRegister: 1, SetName: denied.Name, SetID: denied.ID}}, ret),
		cat(mine, []expr.Any{
			&expr.Fib{Register: 1, FlagDADDR: true, ResultADDRTYPE: true},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(unix.RTN_LOCAL)},
		}, ret),
		cat(mine, l4(unix.IPPROTO_TCP), redirect(r.ProxyPort)),
	} {
		c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: rule})
	}
	// Before the guard's forward chain: mark what open sandboxes route,
	// and drop the rest of this worker's sandboxes' traffic that is not
	// TCP (redirected TCP and DNS never get here) whatever the guard
	// installed says (a guard of an older version, during an upgrade).
	mark := c.AddChain(&nftables.Chain{Name: "mark", Table: t, Type: nftables.ChainTypeFilter,
		Hooknum: nftables.ChainHookForward, Priority: nftables.ChainPriorityRef(Priority - 5), Policy: &policy})
	from := func(s *nftables.Set) []expr.Any {
		return cat(meta(expr.MetaKeyIIFNAME, ifname(r.Bridge)), nfproto(unix.NFPROTO_IPV4),
			[]expr.Any{&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 12, Len: 4},
				&expr.Lookup{SourceRegister: 1, SetName: s.Name, SetID: s.ID}})
	}
	c.AddRule(&nftables.Rule{Table: t, Chain: mark, Exprs: cat(from(open), markSet(OpenMark), verdict(expr.VerdictAccept))})
	c.AddRule(&nftables.Rule{Table: t, Chain: mark, Exprs: cat(from(set), []expr.Any{
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: []byte{unix.IPPROTO_TCP}},
	}, drop())})
	if err := c.Flush(); err != nil {
		return fmt.Errorf("netguard: install the redirect table %s: %w", r.Table, err)
	}
	return nil
}

// addrElements are the IPv4 addresses of as, as set elements.
func addrElements(as []netip.Addr) []nftables.SetElement {
	var elems []nftables.SetElement
	for _, a := range as {
		if a = a.Unmap(); a.Is4() {
			elems = append(elems, nftables.SetElement{Key: a.AsSlice()})
		}
	}
	return elems
}

// UpdateSources replaces only the sources and open sets of an installed
// table, in one transaction: what a boot or a stop changes. Rebuilding the
// whole table (its interval set of denied prefixes, its NAT chain) took
// 7-20 ms of every warm boot. It fails when the table or a set is missing
// (removed by someone, never installed): then Install. Whether the
// installed table is otherwise r's (bridge, ports) is the caller's to know.
func (r Redirect) UpdateSources() error {
	if !strings.HasPrefix(r.Table, RedirectPrefix) {
		return fmt.Errorf("netguard: bad redirect table %q", r.Table)
	}
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("netguard: nftables: %w", err)
	}
	defer c.CloseLasting()
	t := &nftables.Table{Name: r.Table, Family: nftables.TableFamilyINet}
	for _, s := range []struct {
		name  string
		addrs []netip.Addr
	}{{setSources, r.Sources}, {setOpen, r.Open}} {
		set := &nftables.Set{Table: t, Name: s.name, KeyType: nftables.TypeIPAddr}
		c.FlushSet(set)
		if elems := addrElements(s.addrs); len(elems) > 0 {
			if err := c.SetAddElements(set, elems); err != nil {
				return fmt.Errorf("netguard: redirect set %s: %w", s.name, err)
			}
		}
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("netguard: update the redirect table %s: %w", r.Table, err)
	}
	return nil
}

// RemoveRedirect deletes a worker's redirect table (a worker stopping);
// a missing one is not an error.
func RemoveRedirect(table string) error {
	c, err := nftables.New()
	if err != nil {
		return err
	}
	defer c.CloseLasting()
	t := &nftables.Table{Name: table, Family: nftables.TableFamilyINet}
	c.AddTable(t)
	c.DelTable(t)
	return c.Flush()
}

// Claim removes addr from every other worker's redirect table: the
// address now belongs to a sandbox of table's worker (Docker reuses the
// addresses of removed containers; a worker that died kept its table).
func Claim(table string, addr netip.Addr) error {
	addr = addr.Unmap()
	if !addr.Is4() {
		return nil
	}
	c, err := nftables.New()
	if err != nil {
		return err
	}
	defer c.CloseLasting()
	tables, err := c.ListTablesOfFamily(nftables.TableFamilyINet)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if t.Name == table || !strings.HasPrefix(t.Name, RedirectPrefix) {
			continue
		}
		for _, name := range []string{setSources, setOpen} {
			set, err := c.GetSetByName(t, name)
			if err != nil {
				continue
			}
			elems, err := c.GetSetElements(set)
			if err != nil {
				continue
			}
			for _, e := range elems {
				if a, ok := netip.AddrFromSlice(e.Key); ok && a == addr {
					if err := c.SetDeleteElements(set, []nftables.SetElement{{Key: addr.AsSlice()}}); err != nil {
						return err
					}
				}
			}
		}
	}
	return c.Flush()
}
