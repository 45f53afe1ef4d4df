package netguard

import (
	"fmt"
	"net/netip"
	"sync"

	"github.com/google/nftables"
	"github.com/google/nftables/expr"
	"github.com/google/nftables/userdata"
)

// Guard installs the rule set and keeps it as the spec wants. It is safe
// for concurrent use; every install is one atomic nftables transaction, so
// no packet ever sees a half-built rule set.
type Guard struct {
	// Table names the tables; "" is TableName. Tests use their own.
	Table string
	mu    sync.Mutex
}

func (g *Guard) table() string {
	if g.Table == "" {
		return TableName
	}
	return g.Table
}

// Ensure checks the installed tables against spec and replaces them when
// they differ (missing, flushed by someone, another bridge, an older
// version). It reports whether it had to install them. The check is a few
// netlink reads; an install replaces both tables in one transaction.
func (g *Guard) Ensure(s Spec) (installed bool, err error) {
	if err := s.Validate(); err != nil {
		return false, err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := nftables.New()
	if err != nil {
		return false, fmt.Errorf("netguard: nftables: %w", err)
	}
	defer c.CloseLasting()
	fp := s.fingerprint()
	defs := chains(s)
	if current(c, g.table(), defs, fp) {
		return false, nil
	}
	// Another worker on this host (tests run several; an upgrade briefly
	// runs two versions) may replace the tables between the install and
	// the read-back: try again a few times.
	for range 3 {
		if err := install(c, g.table(), defs, fp); err != nil {
			return false, fmt.Errorf("netguard: install the nftables rules: %w", err)
		}
		if current(c, g.table(), defs, fp) {
			return true, nil
		}
	}
	return false, fmt.Errorf("netguard: the installed rules do not read back as written")
}

// current reports whether every chain is installed with this fingerprint
// and its full count of rules.
func current(c *nftables.Conn, name string, defs []chainDef, fp string) bool {
	for _, d := range defs {
		t := &nftables.Table{Name: name, Family: d.family}
		rules, err := c.GetRules(t, &nftables.Chain{Name: d.name, Table: t})
		if err != nil || len(rules) != len(d.rules) {
			return false
		}
		if got, _ := userdata.GetString(rules[0].UserData, userdata.TypeComment); got != fp {
			return false
		}
	}
	return true
}

// install replaces Berth's tables in one transaction: add (so the delete
// cannot fail on a missing table), delete, then build anew.
func install(c *nftables.Conn, name string, defs []chainDef, fp string) error {
	tables := map[nftables.TableFamily]*nftables.Table{}
	for _, d := range defs {
		if tables[d.family] == nil {
			t := &nftables.Table{Name: name, Family: d.family}
			c.AddTable(t)
			c.DelTable(t)
			tables[d.family] = c.AddTable(&nftables.Table{Name: name, Family: d.family})
		}
	}
	sets, err := addSets(c, tables[nftables.TableFamilyINet])
	if err != nil {
		return err
	}
	policy := nftables.ChainPolicyAccept
	for _, d := range defs {
		t := tables[d.family]
		typ, prio := d.typ, d.prio
		if typ == "" {
			typ, prio = nftables.ChainTypeFilter, nftables.ChainPriorityRef(Priority)
		}
		ch := c.AddChain(&nftables.Chain{
			Name: d.name, Table: t, Type: typ,
			Hooknum: d.hook, Priority: prio, Policy: &policy,
		})
		for i, r := range d.rules {
			exprs := make([]expr.Any, len(r.exprs))
			for j, e := range r.exprs {
				if l, ok := e.(*expr.Lookup); ok {
					bound := *l
					bound.SetID = sets[l.SetName].ID
					e = &bound
				}
				exprs[j] = e
			}
			comment := r.why
			if i == 0 {
				comment = fp
			}
			c.AddRule(&nftables.Rule{Table: t, Chain: ch, Exprs: exprs,
				UserData: userdata.AppendString(nil, userdata.TypeComment, comment)})
		}
	}
	return c.Flush()
}

// addSets creates the interval sets of denied destinations.
func addSets(c *nftables.Conn, t *nftables.Table) (map[string]*nftables.Set, error) {
	v4, v6 := DeniedPrefixes()
	out := map[string]*nftables.Set{}
	for _, s := range []struct {
		name string
		typ  nftables.SetDatatype
		ps   []netip.Prefix
	}{{set4, nftables.TypeIPAddr, v4}, {set6, nftables.TypeIP6Addr, v6}} {
		set := &nftables.Set{Table: t, Name: s.name, KeyType: s.typ, Interval: true, Constant: true}
		if err := c.AddSet(set, elements(spans(s.ps))); err != nil {
			return nil, fmt.Errorf("set %s: %w", s.name, err)
		}
		out[s.name] = set
	}
	return out, nil
}

// elements encodes ranges the way nft does for an interval set: a start
// element, and an interval-end element at the first address past the
// range (none for a range that runs to the end of the address space).
func elements(ss []span) []nftables.SetElement {
	var out []nftables.SetElement
	for _, s := range ss {
		out = append(out, nftables.SetElement{Key: s.from.AsSlice()})
		if s.to.IsValid() {
			out = append(out, nftables.SetElement{Key: s.to.AsSlice(), IntervalEnd: true})
		}
	}
	return out
}

// Remove deletes the guard's tables (tests, and an operator turning the
// guard off); missing tables are not an error.
func (g *Guard) Remove() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err := nftables.New()
	if err != nil {
		return err
	}
	defer c.CloseLasting()
	for _, f := range []nftables.TableFamily{nftables.TableFamilyINet, nftables.TableFamilyBridge} {
		t := &nftables.Table{Name: g.table(), Family: f}
		c.AddTable(t)
		c.DelTable(t)
	}
	return c.Flush()
}
