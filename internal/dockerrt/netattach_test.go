package dockerrt

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/stretchr/testify/require"
	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

const testImage = "berth/test:latest"

// A container made with network "none" and attached by the worker is on
// the bridge with the address it was labelled with, routes through the
// gateway and has Docker's MAC for that address; two workers on one host
// choose in different slices; an address another process claimed between
// choice and claim is refused as taken; the address is free again once its
// container stops.
func TestWorkerAttachesContainers(t *testing.T) {
	r, an := attachTestNetwork(t)
	ctx := context.Background()

	a1, err := r.chooseAddr(ctx)
	require.NoError(t, err)
	require.True(t, an.subnet.Contains(a1), "%s outside %s", a1, an.subnet)
	c1 := startUnattached(t, r, a1)
	require.False(t, Attached(c1), "attached before attach")
	require.Empty(t, ContainerIP(c1), "an address before the attach")
	require.NoError(t, r.attach(ctx, c1, a1))
	r.releaseAddr(a1)
	require.True(t, Attached(c1))
	require.Equal(t, a1.String(), ContainerIP(c1))

	inside := dockerExec(t, c1.ID, "ip", "-4", "addr", "show", "eth0")
	require.Contains(t, inside, fmt.Sprintf("inet %s/%d", a1, an.subnet.Bits()))
	require.Contains(t, dockerExec(t, c1.ID, "ip", "link", "show", "eth0"), macOf(a1).String())
	require.Contains(t, dockerExec(t, c1.ID, "ip", "route"), "default via "+an.gateway.String())
	host, err := netlink.LinkByName(vethName(a1))
	require.NoError(t, err)
	br, err := netlink.LinkByName(an.bridge)
	require.NoError(t, err)
	require.Equal(t, br.Attrs().Index, host.Attrs().MasterIndex, "the host end is a port of the sandbox bridge")
	require.Equal(t, "up", host.Attrs().OperState.String())

	// A second worker on the host chooses from a slice of its own.
	r2 := &Runtime{cli: r.cli}
	r2.addrs.net = an
	a2, err := r2.chooseAddr(ctx)
	require.NoError(t, err)
	r2.releaseAddr(a2)
	t.Cleanup(func() { r2.addrs.lease.Close() })
	require.True(t, a2.Less(r.addrs.lo), "worker 2 chose %s inside worker 1's slice %s..%s", a2, r.addrs.lo, r.addrs.hi)

	// Chosen here, claimed by someone else before the attach.
	a3, err := r.chooseAddr(ctx)
	require.NoError(t, err)
	require.NotEqual(t, a1, a3)
	squatter := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: vethName(a3)}, PeerName: fmt.Sprintf("bsq%d", os.Getpid()%100000)}
	require.NoError(t, netlink.LinkAdd(squatter))
	t.Cleanup(func() { _ = netlink.LinkDel(squatter) })
	c3 := startUnattached(t, r, a3)
	require.ErrorIs(t, r.attach(ctx, c3, a3), errAddrTaken)
	require.False(t, Attached(c3), "a container whose address is another's interface is not attached")
	require.Empty(t, ContainerIP(c3), "it would name another's address")
	_, err = r.Adopt(ctx, c3)
	require.ErrorIs(t, err, errAddrTaken, "adopted onto another's address")
	r.releaseAddr(a3)

	// A container left unattached (its worker died after the start) is
	// attached by whoever adopts it, on the address of its label.
	a4, err := r.chooseAddr(ctx)
	require.NoError(t, err)
	r.releaseAddr(a4)
	c4 := startUnattached(t, r, a4)
	ip, err := r.Adopt(ctx, c4)
	require.NoError(t, err)
	require.Equal(t, a4.String(), ip)
	require.True(t, Attached(c4))
	ip, err = r.Adopt(ctx, c4)
	require.NoError(t, err, "adopting an attached container again")
	require.Equal(t, a4.String(), ip)

	// The address is free again once its container stops.
	require.NoError(t, r.cli.ContainerKill(ctx, c1.ID, "KILL"))
	require.Eventually(t, func() bool {
		_, err := netlink.LinkByName(vethName(a1))
		return isLinkNotFound(err)
	}, 10*time.Second, 20*time.Millisecond, "the interface outlived its container")
}

// attachTestNetwork makes a bridge network of the test's own, and a
// runtime attaching to it with leases in a directory of the test's own.
func attachTestNetwork(t *testing.T) (*Runtime, *attachNet) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (network namespaces)")
	}
	r, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	if _, err := r.cli.ImageInspect(ctx, testImage); err != nil {
		t.Skipf("needs %s (task image:test): %v", testImage, err)
	}
	name := fmt.Sprintf("berth-test-attach-%d", time.Now().UnixNano())
	created, err := r.cli.NetworkCreate(ctx, name, network.CreateOptions{
		Driver: "bridge", Labels: map[string]string{"io.berth.test": "attach"},
		Options: map[string]string{"com.docker.network.bridge.enable_icc": "false"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.cli.NetworkRemove(context.Background(), created.ID) })
	n, err := r.cli.NetworkInspect(ctx, created.ID, network.InspectOptions{})
	require.NoError(t, err)
	an, err := newAttachNet(n)
	require.NoError(t, err)
	addrLeaseDir = t.TempDir()
	r.addrs.net = an
	t.Cleanup(func() {
		if r.addrs.lease != nil {
			r.addrs.lease.Close()
		}
	})
	return r, an
}

// startUnattached runs a container as Run does before its attach.
func startUnattached(t *testing.T, r *Runtime, a netip.Addr) *container.InspectResponse {
	t.Helper()
	ctx := context.Background()
	c, err := r.cli.ContainerCreate(ctx,
		&container.Config{Image: testImage, Cmd: []string{"sleep", "300"}, Labels: map[string]string{"io.berth.test": "attach", LabelAddr: a.String()}},
		&container.HostConfig{NetworkMode: network.NetworkNone}, nil, nil, "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.cli.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true}) })
	require.NoError(t, r.cli.ContainerStart(ctx, c.ID, container.StartOptions{}))
	info, err := r.cli.ContainerInspect(ctx, c.ID)
	require.NoError(t, err)
	return &info
}

func dockerExec(t *testing.T, id string, argv ...string) string {
	t.Helper()
	out, err := exec.Command("docker", append([]string{"exec", id}, argv...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

// A worker chooses in its own quarter of the subnet, the second worker in
// the next; one whose quarter is full chooses elsewhere in the subnet
// rather than fail, and never the gateway.
func TestAddressSlices(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (a bridge of its own)")
	}
	addrLeaseDir = t.TempDir()
	an := &attachNet{id: "test", bridge: "berthtest-as", subnet: netip.MustParsePrefix("10.99.7.0/24"), gateway: netip.MustParseAddr("10.99.7.1")}
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: an.bridge}}
	require.NoError(t, netlink.LinkAdd(br))
	t.Cleanup(func() { _ = netlink.LinkDel(br) })
	gw, err := netlink.ParseAddr("10.99.7.1/24")
	require.NoError(t, err)
	require.NoError(t, netlink.AddrAdd(br, gw))
	require.True(t, an.current())
	t.Cleanup(func() {
		// A bridge made anew on another subnet: the worker looks again.
		require.NoError(t, netlink.AddrDel(br, gw))
		require.False(t, an.current(), "a bridge without the gateway address is taken for current")
	})
	var w1, w2 Runtime
	w1.addrs.net, w2.addrs.net = an, an
	t.Cleanup(func() { w1.addrs.lease.Close(); w2.addrs.lease.Close() })
	ctx := context.Background()
	// Leases of a network made anew since: one no worker holds any more,
	// one a worker of the old network still holds.
	stale, held := filepath.Join(addrLeaseDir, "old-10-99-7-0_24.0"), filepath.Join(addrLeaseDir, "old-10-99-7-0_24.1")
	require.NoError(t, os.WriteFile(stale, nil, 0o600))
	h, err := os.OpenFile(held, os.O_CREATE|os.O_RDWR, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { h.Close() })
	require.NoError(t, unix.Flock(int(h.Fd()), unix.LOCK_EX|unix.LOCK_NB))

	a, err := w1.chooseAddr(ctx)
	require.NoError(t, err)
	require.Equal(t, "10.99.7.254", a.String(), "the top host address first")
	require.Equal(t, "10.99.7.192", w1.addrs.lo.String())
	b, err := w2.chooseAddr(ctx)
	require.NoError(t, err)
	require.Equal(t, "10.99.7.191", b.String(), "the second worker's slice is the next quarter down")
	require.NoFileExists(t, stale, "a lease of a gone network was left behind")
	require.FileExists(t, held, "a held lease was removed")

	for range 63 { // the rest of w1's quarter
		_, err := w1.chooseAddr(ctx)
		require.NoError(t, err)
	}
	c, err := w1.chooseAddr(ctx)
	require.NoError(t, err)
	require.True(t, c.Less(w1.addrs.lo), "a full slice spills into the subnet, got %s", c)
	require.False(t, c.Less(netip.MustParseAddr("10.99.7.128")), "the spill starts at the top, got %s", c)
	for range 256 {
		a, err := w1.chooseAddr(ctx)
		if err != nil {
			require.ErrorContains(t, err, "no free address")
			return
		}
		require.NotEqual(t, an.gateway, a)
	}
	t.Fatal("a full subnet still gave out addresses")
}

// Workers starting together on a host without the sandbox network each
// try to make it; Docker makes one and refuses the others (same bridge
// name), and every worker goes on with the one that was made.
func TestWorkersStartingTogetherShareOneNetwork(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root (bridges)")
	}
	r, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	ctx := context.Background()
	name := fmt.Sprintf("berth-test-race-%d", time.Now().UnixNano())
	t.Cleanup(func() {
		list, _ := r.cli.NetworkList(context.Background(), network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", name))})
		for _, n := range list {
			_ = r.cli.NetworkRemove(context.Background(), n.ID)
		}
	})
	const workers = 6
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		ids   [workers]string
		errs  [workers]error
	)
	for i := range workers {
		wg.Go(func() {
			w := &Runtime{cli: r.cli, netName: name, bridgeName: "berthtest-race"}
			<-start
			n, err := w.sandboxNetwork(ctx, true)
			ids[i], errs[i] = n.ID, err
		})
	}
	close(start)
	wg.Wait()
	for i := range workers {
		require.NoError(t, errs[i], "worker %d", i)
		require.Equal(t, ids[0], ids[i], "worker %d went on with another network", i)
	}
	list, err := r.cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", name))})
	require.NoError(t, err)
	require.Len(t, list, 1)
}

// An address on the label of a container a dead worker started but never
// attached has no interface to show it is in use: the worker that leases
// that slice next skips it, so the container's adoption finds it free.
func TestScanSkipsAddressesOnContainerLabels(t *testing.T) {
	an := &attachNet{id: "test", subnet: netip.MustParsePrefix("10.99.8.0/24"), gateway: netip.MustParseAddr("10.99.8.1")}
	lo, hi := netip.MustParseAddr("10.99.8.192"), netip.MustParseAddr("10.99.8.254")
	b := &addrBook{pending: map[netip.Addr]bool{}}
	a, _, err := b.scan(an, lo, hi, hi)
	require.NoError(t, err)
	require.Equal(t, hi, a, "the top of the slice first")
	b.labelled = map[netip.Addr]bool{hi: true}
	a, _, err = b.scan(an, lo, hi, hi)
	require.NoError(t, err)
	require.Equal(t, "10.99.8.253", a.String(), "a labelled address was handed out")
}
