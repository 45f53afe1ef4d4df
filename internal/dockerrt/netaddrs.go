package dockerrt

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// The addresses the worker gives sandboxes: see netattach.go for why each
// worker chooses inside a slice of the subnet it leases.

// addrBook hands out sandbox addresses. Addresses this worker chose and
// has not yet claimed are held in pending; a cursor walks down the
// worker's slice so an address just freed is not the next one reused.
type addrBook struct {
	mu      sync.Mutex
	net     *attachNet
	lo, hi  netip.Addr // the slice: lo..hi inclusive
	lease   *os.File   // the slice's lock; nil when sharing the subnet
	sliceOf *attachNet // the network lo..hi and lease belong to
	cursor  netip.Addr
	pending map[netip.Addr]bool
	// labelled are the addresses on the labels of containers that existed
	// when the slice was leased: a worker that died between a container's
	// start and its attach left no interface to show the address is in
	// use, and the worker that leases its slice next must not hand it out
	// before the container is adopted (seen in CI: the adoption then
	// found its address taken and replaced the container).
	labelled map[netip.Addr]bool
	joined   atomic.Int64 // the bridge's index when its ports were last joined (rejoinPorts)
	// seen is the sandbox network's address config as last looked up:
	// every worker on the engine makes the network anew on the subnet it
	// last saw, whether or not it attached a sandbox to it (knownIPAM).
	seen atomic.Pointer[network.IPAM]
}

// addrSlices is how many workers on one host get addresses of their own
// (a rolling upgrade runs two); each slice is a quarter of the subnet, 16k
// addresses of Docker's usual /16, 64 of a /24.
const addrSlices = 4

// addrLeaseDir holds the slices' lock files; /run is per boot of the host,
// like the leases.
var addrLeaseDir = "/run/berth/addr"

// chooseAddr picks a free address for a container about to be made; the
// caller claims it (attach) and then lets it go (releaseAddr).
func (r *Runtime) chooseAddr(ctx context.Context) (netip.Addr, error) {
	an, err := r.attachNetwork(ctx)
	if err != nil {
		return netip.Addr{}, err
	}
	b := &r.addrs
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[netip.Addr]bool{}
	}
	if b.sliceOf != an { // first use, or a network made anew
		b.leaseSlice(an)
		b.sliceOf, b.cursor = an, b.hi
		b.labelled = r.labelledAddrs(ctx)
	}
	a, next, err := b.scan(an, b.lo, b.hi, b.cursor)
	if err == nil && !a.IsValid() && b.lease != nil {
		// The slice is full: share the rest of the subnet (a claim that
		// meets another worker's is then refused as taken, see attach).
		first, last := an.subnet.Addr().Next(), lastHost(an.subnet)
		a, _, err = b.scan(an, first, last, last)
		next = b.cursor
	}
	if err != nil {
		return netip.Addr{}, err
	}
	if !a.IsValid() {
		return netip.Addr{}, fmt.Errorf("network %s: no free address in %s", NetworkName, an.subnet)
	}
	b.pending[a], b.cursor = true, next
	return a, nil
}

// scan walks down lo..hi from start (wrapping once) to the first address
// that is neither the gateway, nor chosen here, nor a running sandbox's;
// next is where the following walk starts. No address: a is invalid.
func (b *addrBook) scan(an *attachNet, lo, hi, start netip.Addr) (a, next netip.Addr, err error) {
	for a = start; ; {
		next = a.Prev()
		if a == lo {
			next = hi
		}
		if a != an.gateway && !b.pending[a] && !b.labelled[a] {
			_, err := netlink.LinkByName(vethName(a))
			if isLinkNotFound(err) {
				return a, next, nil
			}
			if err != nil {
				return netip.Addr{}, next, fmt.Errorf("look up %s: %w", vethName(a), err)
			} // else a running sandbox's
		}
		if a = next; a == start {
			return netip.Addr{}, next, nil
		}
	}
}

// leaseSlice takes the first slice of the subnet no other process on this
// host holds, or the whole subnet when all are held (or locks cannot be
// made). b.mu is held.
func (b *addrBook) leaseSlice(an *attachNet) {
	first, last := an.subnet.Addr().Next(), lastHost(an.subnet)
	b.lo, b.hi = first, last
	size := uint32(1) << (32 - an.subnet.Bits()) / addrSlices
	if b.lease != nil { // of a network made anew since
		b.lease.Close()
		b.lease = nil
	}
	if size < 8 || os.MkdirAll(addrLeaseDir, 0o700) != nil {
		return
	}
	key := strings.NewReplacer("/", "_", ".", "-").Replace(an.id + "." + an.subnet.String())
	defer dropStaleLeases(key + ".")
	for i := range uint32(addrSlices) {
		f, err := os.OpenFile(filepath.Join(addrLeaseDir, fmt.Sprintf("%s.%d", key, i)), os.O_CREATE|os.O_RDWR|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
			f.Close()
			continue
		}
		// Slice i is the i-th from the top: Docker allocates from the
		// bottom.
		top := addAddr(an.subnet.Addr(), (addrSlices-i)*size-1)
		b.lease, b.hi, b.lo = f, min4(top, last), addAddr(top, -(size-1))
		if b.lo.Compare(first) < 0 {
			b.lo = first
		}
		return
	}
}

// dropStaleLeases removes the lease files of networks other than the one
// whose files start with current (networks removed and made anew leave
// theirs behind), except those a worker still holds.
func dropStaleLeases(current string) {
	ents, err := os.ReadDir(addrLeaseDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), current) {
			continue
		}
		p := filepath.Join(addrLeaseDir, e.Name())
		f, err := os.OpenFile(p, os.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			_ = os.Remove(p)
		}
		f.Close()
	}
}

// releaseAddr forgets a chosen address: claimed (its pair exists) or
// never to be.
func (r *Runtime) releaseAddr(a netip.Addr) {
	r.addrs.mu.Lock()
	delete(r.addrs.pending, a)
	r.addrs.mu.Unlock()
}

// addAddr is a+n (n may be negative, as two's complement).
func addAddr(a netip.Addr, n uint32) netip.Addr {
	v := u32(a) + n
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

func u32(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

func min4(a, b netip.Addr) netip.Addr {
	if a.Compare(b) < 0 {
		return a
	}
	return b
}

// lastHost is the highest address of p below its broadcast address.
func lastHost(p netip.Prefix) netip.Addr {
	return addAddr(p.Addr(), uint32(1)<<(32-p.Bits())-2)
}

// labelledAddrs lists the sandbox addresses on the labels of this
// engine's containers that have not exited (nil when they cannot be
// listed: the veth check still guards attached ones).
func (r *Runtime) labelledAddrs(ctx context.Context) map[netip.Addr]bool {
	if r.cli == nil {
		return nil
	}
	cs, err := r.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: filters.NewArgs(filters.Arg("label", LabelAddr))})
	if err != nil {
		return nil
	}
	out := map[netip.Addr]bool{}
	for _, c := range cs {
		if c.State == "exited" || c.State == "dead" {
			continue
		}
		if a, err := netip.ParseAddr(c.Labels[LabelAddr]); err == nil {
			out[a] = true
		}
	}
	return out
}
