package dockerrt

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/internal/faults"
)

// Sandboxes join the sandbox network through the worker, not through
// Docker. Docker starts its embedded DNS resolver for every container on a
// user-defined network (it re-executes dockerd inside the container's
// network namespace to install NAT rules there): 150–300 ms of every start
// on two cores, which kept a boot at 1.19× `docker run` on the default
// bridge. A container made with network "none" starts without it, and the
// worker gives it its interface itself, in about a millisecond: a veth pair
// whose host end is a port of the same bridge, an address of the same
// subnet, so the same guard rules, the same isolation.
//
// Each host end is an isolated bridge port (IFLA_BRPORT_ISOLATED): the
// bridge forwards nothing from one isolated port to another, whatever the
// frame (ARP, IPv6 link-local, broadcast, multicast) and whether or not
// br_netfilter hands bridged frames to the guard's IP rules; a sandbox
// reaches only the bridge itself, the host, where the guard decides.
// IPv6 is off inside (the egress proxy speaks IPv4 only): see Spec's
// sysctls in container.go. Its resolv.conf is
// the host's upstream nameservers, which the embedded resolver forwarded
// to anyway.
//
// Addresses are taken from the top of the network's subnet down; Docker's
// own allocator (for containers an older worker attached) hands out the
// lowest free one, so the two meet only in a full subnet. The address is
// chosen before the container is made, to label it (LabelAddr: everything
// that reads a sandbox's address reads it from an inspect), and claimed
// when the pair is made, its host end named after the address (VethPrefix). The pair
// lives as long as the container's network namespace, so an address is
// free again once its container has stopped, whatever happened to the
// worker. MACs derive from addresses as Docker's do, so a neighbour's ARP
// entry stays right when an address is reused.
//
// Workers sharing a host (a rolling upgrade runs two) must never choose
// the same address: between one's choice and its claim, the other's
// egress proxy would take the address for its own sandbox's. So each
// worker leases a slice of the subnet (addrSlices of them, a lock file
// each, held while the process lives) and chooses in its own. Only when
// every slice is leased, or its own is full, does a worker choose in the
// whole subnet, and then a claim that finds the name taken makes the
// container again (errAddrTaken).

// LabelAddr is the sandbox-network address the worker gave a container.
const LabelAddr = "io.berth.addr"

// VethPrefix starts the host end's name: "berthv" and the address in hex.
// The network guard drops whatever comes in on such an interface when it
// is not a port of the bridge (netguard.Spec.Ports).
const VethPrefix = "berthv"

// errAddrTaken: another worker on this host claimed the address between
// the choice and the claim; the container is made again with another.
var errAddrTaken = errors.New("sandbox address taken by another worker")

// attachNet is the sandbox network as attaching needs it.
type attachNet struct {
	// id is Docker's network id: the workers sharing one (one engine, one
	// bridge) share its slices; another host's engine on this machine
	// (a test host in a network namespace) has its own.
	id      string
	bridge  string // its interface, looked up at each attach (dockerd may make it anew)
	subnet  netip.Prefix
	gateway netip.Addr
}

// attachNetwork looks up the bridge, subnet and gateway in Docker once,
// and again whenever the bridge on this host no longer carries the
// gateway address it had: the network was made anew (by a worker after
// someone removed it), perhaps on another subnet. A sandbox given an
// address of the old subnet would be unreachable, and the host would
// route its traffic elsewhere.
func (r *Runtime) attachNetwork(ctx context.Context) (*attachNet, error) {
	b := &r.addrs
	b.mu.Lock()
	cached := b.net
	b.mu.Unlock()
	if cached != nil && cached.current() {
		return cached, nil
	}
	n, err := r.sandboxNetwork(ctx, false)
	if err != nil {
		return nil, err
	}
	an, err := newAttachNet(n)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.net == cached {
		b.net = an
	}
	return b.net, nil
}

// SandboxBridgeName is the sandbox network's bridge interface as attaching
// knows it: cached, and asked of Docker again only once the bridge on this
// host no longer carries the network's gateway (attachNetwork), where
// SandboxBridge asks Docker each time (2-5 ms).
func (r *Runtime) SandboxBridgeName(ctx context.Context) (string, error) {
	an, err := r.attachNetwork(ctx)
	if err != nil {
		return "", err
	}
	return an.bridge, nil
}

// current: the bridge exists and carries the gateway address on the
// subnet's prefix.
func (an *attachNet) current() bool {
	br, err := netlink.LinkByName(an.bridge)
	if err != nil {
		return false
	}
	addrs, err := netlink.AddrList(br, netlink.FAMILY_V4)
	if err != nil {
		return false
	}
	for _, a := range addrs {
		ones, _ := a.Mask.Size()
		if ip, ok := netip.AddrFromSlice(a.IP); ok && ip.Unmap() == an.gateway && ones == an.subnet.Bits() {
			return true
		}
	}
	return false
}

// knownIPAM is the subnet and gateway of the sandbox network this worker
// has attached sandboxes to, or else last looked up, for making the
// network anew on the same subnet: removing a network whose containers
// Docker did not attach is not refused (`docker network prune` does it),
// and those sandboxes keep their addresses. Any worker on the engine may
// be first to make it again (a CI run saw another worker's stack, which
// had attached nothing, move it to a new subnet). nil before the first
// lookup.
func (r *Runtime) knownIPAM() *network.IPAM {
	r.addrs.mu.Lock()
	an := r.addrs.net
	r.addrs.mu.Unlock()
	if an == nil {
		return r.addrs.seen.Load()
	}
	return &network.IPAM{Config: []network.IPAMConfig{{Subnet: an.subnet.String(), Gateway: an.gateway.String()}}}
}

// rejoinPorts makes every sandbox interface on this host a port of the
// sandbox bridge again, once per bridge (a bridge made anew, or the first
// check of a worker). Removing the network deletes its bridge, and with
// it every port's membership; the sandboxes stay cut off (the guard drops
// what their interfaces carry outside a bridge) until they join the new
// one.
func (r *Runtime) rejoinPorts(n network.Summary) error {
	name := bridgeOf(n)
	br, err := netlink.LinkByName(name)
	if err != nil {
		return fmt.Errorf("bridge %s of network %s: %w", name, NetworkName, err)
	}
	if r.addrs.joined.Swap(int64(br.Attrs().Index)) == int64(br.Attrs().Index) {
		return nil
	}
	links, err := netlink.LinkList()
	if err != nil {
		return err
	}
	var errs []error
	for _, l := range links {
		a := l.Attrs()
		if l.Type() != "veth" || !strings.HasPrefix(a.Name, VethPrefix) {
			continue
		}
		// Only ports that lost their bridge (deleting a bridge frees its
		// ports) join: one that is a port of another live bridge is not
		// this network's (a CI run saw a worker take a test network's).
		if a.MasterIndex == 0 {
			if err := netlink.LinkSetMaster(l, br); err != nil {
				errs = append(errs, fmt.Errorf("%s joins %s: %w", a.Name, name, err))
				continue
			}
			errs = append(errs, netlink.LinkSetUp(l))
		}
		// Ports an older worker attached were not isolated.
		if a.MasterIndex == 0 || a.MasterIndex == br.Attrs().Index {
			errs = append(errs, netlink.LinkSetIsolated(l, true))
		}
	}
	if err := errors.Join(errs...); err != nil {
		r.addrs.joined.Store(0) // try again at the next check
		return err
	}
	return nil
}

func (r *Runtime) forgetNetwork() {
	r.addrs.mu.Lock()
	r.addrs.net = nil
	r.addrs.mu.Unlock()
}

func newAttachNet(n network.Summary) (*attachNet, error) {
	an := &attachNet{id: n.ID}
	for _, c := range n.IPAM.Config {
		p, err := netip.ParsePrefix(c.Subnet)
		if err != nil || !p.Addr().Is4() {
			continue
		}
		gw, err := netip.ParseAddr(c.Gateway)
		if err != nil || !p.Contains(gw) {
			return nil, fmt.Errorf("network %s: subnet %s has no usable gateway (%q)", NetworkName, c.Subnet, c.Gateway)
		}
		if p.Bits() > 28 {
			return nil, fmt.Errorf("network %s: subnet %s is too small for sandboxes", NetworkName, c.Subnet)
		}
		an.subnet, an.gateway = p.Masked(), gw
		break
	}
	if !an.subnet.IsValid() {
		return nil, fmt.Errorf("network %s has no IPv4 subnet", NetworkName)
	}
	an.bridge = bridgeOf(n)
	return an, nil
}

// attach gives the started container c its interface on the sandbox
// network with address a. errAddrTaken: another worker got there first.
func (r *Runtime) attach(ctx context.Context, c *container.InspectResponse, a netip.Addr) error {
	an, err := r.attachNetwork(ctx)
	if err != nil {
		return err
	}
	err = attachTo(an, c, a)
	if err != nil && !errors.Is(err, errAddrTaken) {
		r.forgetNetwork()
	}
	return err
}

func attachTo(an *attachNet, c *container.InspectResponse, a netip.Addr) error {
	br, err := netlink.LinkByName(an.bridge)
	if err != nil {
		return fmt.Errorf("bridge %s of network %s: %w", an.bridge, NetworkName, err)
	}
	if c.NetworkSettings == nil || c.NetworkSettings.SandboxKey == "" {
		return fmt.Errorf("container %s has no network namespace", c.Name)
	}
	// The namespace's file, not the init's pid: it names this container's
	// namespace even if the container has already died.
	ns, err := netns.GetFromPath(c.NetworkSettings.SandboxKey)
	if err != nil {
		return fmt.Errorf("network namespace of %s: %w", c.Name, err)
	}
	defer ns.Close()
	mac := macOf(a)
	veth := &netlink.Veth{
		LinkAttrs: netlink.LinkAttrs{
			Name: vethName(a), MasterIndex: br.Attrs().Index, MTU: br.Attrs().MTU,
		},
		PeerName: "eth0", PeerHardwareAddr: mac, PeerNamespace: netlink.NsFd(ns),
	}
	if err := netlink.LinkAdd(veth); err != nil {
		if errors.Is(err, unix.EEXIST) {
			return errAddrTaken
		}
		return fmt.Errorf("make the interface of %s: %w", c.Name, err)
	}
	if err := netlink.LinkSetIsolated(veth, true); err != nil {
		_ = netlink.LinkDel(veth)
		return fmt.Errorf("isolate the bridge port of %s: %w", c.Name, err)
	}
	if err := configureInside(ns, a, an); err != nil {
		_ = netlink.LinkDel(veth) // its peer goes with it
		return fmt.Errorf("configure the interface of %s: %w", c.Name, err)
	}
	if err := netlink.LinkSetUp(veth); err != nil {
		_ = netlink.LinkDel(veth)
		return fmt.Errorf("bring up %s: %w", veth.Name, err)
	}
	return nil
}

// configureInside addresses eth0 in the container's namespace, brings it
// up and routes through the bridge's gateway.
func configureInside(ns netns.NsHandle, a netip.Addr, an *attachNet) error {
	h, err := netlink.NewHandleAt(ns)
	if err != nil {
		return err
	}
	defer h.Close()
	eth0, err := h.LinkByName("eth0")
	if err != nil {
		return err
	}
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: a.AsSlice(), Mask: net.CIDRMask(an.subnet.Bits(), 32)}}
	if err := h.AddrAdd(eth0, addr); err != nil {
		return err
	}
	if err := h.LinkSetUp(eth0); err != nil {
		return err
	}
	return h.RouteAdd(&netlink.Route{LinkIndex: eth0.Attrs().Index, Gw: an.gateway.AsSlice()})
}

// Attached reports whether a running container is on the sandbox network:
// Docker attached it, or this host has the interface of its address and
// that interface's other end is in the container's namespace. A worker
// that died between a container's start and its attach left it without,
// and so does a restart behind Berth's back (a new namespace); such a
// container is of no use (nothing reaches its supervisor).
func Attached(c *container.InspectResponse) bool { return ContainerIP(c) != "" }

// Adopt returns the address of a running container, attaching it first if
// it has none yet: its worker died between the container's start and its
// attach, or Docker restarted it behind Berth's back (a new namespace).
// Adopting rather than removing it matters: its death would reach the
// sandbox's workflow as the death of its current boot. errAddrTaken: the
// address on its label is another container's by now.
func (r *Runtime) Adopt(ctx context.Context, c *container.InspectResponse) (string, error) {
	if ip := ContainerIP(c); ip != "" {
		return ip, nil
	}
	if c.State == nil || !c.State.Running || c.Config == nil {
		return "", fmt.Errorf("container %s is not running", c.Name)
	}
	a, err := netip.ParseAddr(c.Config.Labels[LabelAddr])
	if err != nil || !a.Is4() {
		return "", fmt.Errorf("container %s has no sandbox address", c.Name)
	}
	if err := r.attach(ctx, c, a); err != nil {
		return "", err
	}
	return a.String(), nil
}

// faultAttachCrash is fault injection for tests only
// (BERTH_FAULT_ATTACH_CRASH, a file path): when that file exists, the
// worker removes it and exits between a container's start and its attach,
// as a crash there would.
func faultAttachCrash() {
	if p := faults.Get("ATTACH_CRASH"); p != "" && os.Remove(p) == nil {
		os.Exit(3)
	}
}

// attachedAt: the interface named for a has its other end in c's
// network namespace.
func attachedAt(c *container.InspectResponse, a netip.Addr) bool {
	if c.NetworkSettings == nil || c.NetworkSettings.SandboxKey == "" {
		return false
	}
	l, err := netlink.LinkByName(vethName(a))
	if err != nil {
		return false
	}
	ns, err := netns.GetFromPath(c.NetworkSettings.SandboxKey)
	if err != nil {
		return false
	}
	defer ns.Close()
	id, err := netlink.GetNetNsIdByFd(int(ns))
	return err == nil && id >= 0 && l.Attrs().NetNsID == id
}

// vethName is the host end's name for address a (14 characters; an
// interface name holds 15).
func vethName(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("%s%02x%02x%02x%02x", VethPrefix, b[0], b[1], b[2], b[3])
}

// macOf is Docker's MAC for an address: 02:42 and the address's bytes.
func macOf(a netip.Addr) net.HardwareAddr {
	b := a.As4()
	return net.HardwareAddr{0x02, 0x42, b[0], b[1], b[2], b[3]}
}

func isLinkNotFound(err error) bool {
	var nf netlink.LinkNotFoundError
	return errors.As(err, &nf) || errors.Is(err, os.ErrNotExist) || errors.Is(err, unix.ENODEV)
}
