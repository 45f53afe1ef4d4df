// Package host runs a worker's egress: the proxy and resolver of
// internal/egress on the sandbox bridge, each sandbox's policy, CA and
// trust directory, and the redirect table (internal/netguard) that sends
// its sandboxes' traffic there.
package host

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/egress"
	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/egress/secrets"
	"github.com/berthdev/berth/internal/netguard"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/workflows/contract"
)

// egressHost runs this worker's egress proxy and policy resolver and keeps
// its redirect table (netguard.Redirect) listing its running sandboxes. It
// is the activities' EgressController and EgressBooter.
//
// The listeners are on the sandbox bridge's own address (where `redirect`
// delivers), on ports the kernel picks: nothing else on the host or its
// networks reaches them through the guard, and several workers can share
// a Docker host. The CA of a boot lives in this process and, sealed with
// the secret store's key, in the shared blob store, so a restarted worker
// loads it for the containers it finds running (ca.go); its key is
// never in a container, history or a log.
type egressHost struct {
	docker *dockerrt.Runtime
	dir    string // <data dir>/egress
	table  string
	log    *zap.Logger

	reg   *egress.Registry
	res   *egress.Resolutions
	proxy *egress.Proxy
	dns   *egress.DNSServer
	ports [2]uint16 // proxy, resolver

	mu   sync.Mutex
	cas  map[string]bootCA // by sandbox
	live map[string]liveSandbox
	// installedFor is the bridge this worker last installed its whole
	// redirect table for ("": none yet, or the last install failed).
	installedFor string

	roots sync.Map // image id -> its root certificates ([]byte); see imageRoots

	temporal atomic.Pointer[client.Client] // where refusals are reported (refusals.go)
	sealed   *secrets.BlobStore            // keeps boots' CAs for restarted workers (ca.go); nil: none
}

type bootCA struct {
	bootID string
	ca     *ca.CA
}

// liveSandbox is a running container the registry knows, by sandbox.
type liveSandbox struct {
	container string
	bootID    string
	ip        netip.Addr
}

// newEgressHost listens on the sandbox bridge and serves until ctx ends;
// then its redirect table is removed (the guard then drops its sandboxes'
// TCP: fail closed).
func newEgressHost(ctx context.Context, cfg config.Config, docker *dockerrt.Runtime, store secrets.Store, log *zap.Logger) (*egressHost, error) {
	roots, err := upstreamRoots(cfg.EgressExtraCA)
	if err != nil {
		return nil, err
	}
	upstream := cfg.EgressDNS
	if upstream == "" {
		if upstream, err = hostNameserver(); err != nil {
			return nil, err
		}
	}
	if err := docker.EnsureNetwork(ctx); err != nil {
		return nil, fmt.Errorf("sandbox network: %w", err)
	}
	gw, err := docker.SandboxGateway(ctx)
	if err != nil {
		return nil, err
	}
	h := &egressHost{
		docker: docker, dir: filepath.Join(cfg.DataDir, "egress"), table: netguard.RedirectTable(cfg.HostID), log: log,
		reg: egress.NewRegistry(), res: egress.NewResolutions(),
		cas: map[string]bootCA{}, live: map[string]liveSandbox{},
	}
	// One list of unreachable addresses on this host: the guard's (so a
	// destination the guard lets through is one the proxy does too).
	h.reg.Forbidden = netguard.Denied
	var sec secrets.Resolver
	if store != nil {
		sec = store
	}
	refusals := h.newRefusalBatcher()
	h.proxy = &egress.Proxy{Registry: h.reg, Resolutions: h.res, Secrets: sec, RootCAs: roots, Log: log, Dial: dialNotLocal, OnRefusal: refusals.Add}
	if bs, ok := store.(*secrets.BlobStore); ok {
		h.sealed = bs
		h.proxy.Bound = newBoundHosts(bs, log).Match
	}
	// Every name's resolutions are kept (bounded per sandbox and swept),
	// not only those of hosts a secret is bound to: the bound hosts are a
	// snapshot refreshed in the background, so a secret set just before a
	// sandbox's lookup would leave that lookup unrecorded and its request
	// refused by the DNS pin (seen in CI).
	h.dns = &egress.DNSServer{Registry: h.reg, Resolutions: h.res, Upstream: upstream, Log: log, OnRefusal: refusals.Add}
	ln, err := net.Listen("tcp4", net.JoinHostPort(gw, "0"))
	if err != nil {
		return nil, fmt.Errorf("egress proxy: listen on the sandbox bridge %s: %w", gw, err)
	}
	pc, dl, err := listenDNS(gw)
	if err != nil {
		ln.Close()
		return nil, err
	}
	h.ports = [2]uint16{uint16(ln.Addr().(*net.TCPAddr).Port), uint16(pc.LocalAddr().(*net.UDPAddr).Port)}
	go h.proxy.Serve(ln)
	if err := h.dns.Serve(pc, dl); err != nil {
		ln.Close()
		return nil, fmt.Errorf("egress resolver: %w", err)
	}
	go func() {
		<-ctx.Done()
		ln.Close()
		h.dns.Close()
		h.proxy.CloseIdle()
		if err := netguard.RemoveRedirect(h.table); err != nil {
			log.Warn("remove the egress redirect table", zap.Error(err))
		}
	}()
	log.Info("egress proxy and resolver", zap.String("address", gw), zap.Uint16("proxyPort", h.ports[0]),
		zap.Uint16("dnsPort", h.ports[1]), zap.String("upstreamDNS", upstream), zap.String("table", h.table))
	return h, nil
}

// listenDNS opens UDP and TCP on one port of addr.
func listenDNS(addr string) (net.PacketConn, net.Listener, error) {
	var last error
	for range 20 {
		pc, err := net.ListenPacket("udp4", net.JoinHostPort(addr, "0"))
		if err != nil {
			return nil, nil, fmt.Errorf("egress resolver: listen on %s: %w", addr, err)
		}
		port := pc.LocalAddr().(*net.UDPAddr).Port
		ln, err := net.Listen("tcp4", net.JoinHostPort(addr, fmt.Sprint(port)))
		if err == nil {
			return pc, ln, nil
		}
		pc.Close()
		last = err
	}
	return nil, nil, fmt.Errorf("egress resolver: no port free for both UDP and TCP: %w", last)
}

// Apply sets a running sandbox's policy, effective for its next
// connection (and next request on an open one). A sandbox not running
// here gets its policy from its next boot's input.
func (h *egressHost) Apply(ctx context.Context, in contract.EgressInput) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	l, ok := h.live[in.Sandbox]
	if !ok || (in.Container.ID != "" && in.Container.ID != l.container) {
		return nil
	}
	st, err := h.readState(in.Sandbox)
	if err != nil {
		return err
	}
	old := st
	st.Policy = in.Policy
	if err := h.writeState(in.Sandbox, st); err != nil {
		return err
	}
	if err := h.register(in.Sandbox, l.ip, st); err != nil {
		return err
	}
	// Whether its UDP may leave depends on the policy: the redirect
	// table's set of open sandboxes follows it. All or nothing: a table
	// that cannot follow puts the old policy back.
	if err := h.syncRedirect(ctx); err != nil {
		_ = h.writeState(in.Sandbox, old)
		_ = h.register(in.Sandbox, l.ip, old)
		return err
	}
	// A narrower policy applies to what is already open too.
	if n := h.proxy.Recheck(l.ip); n > 0 {
		h.log.Info("egress: closed connections the new policy refuses", sandboxlog.Of(in.Sandbox, in.Container.BootID), zap.Int("closed", n))
	}
	return nil
}

// register puts sandbox in the registry; the caller holds mu.
func (h *egressHost) register(sandbox string, ip netip.Addr, st egressState) error {
	var c *ca.CA
	if b, ok := h.cas[sandbox]; ok && b.bootID == st.BootID {
		c = b.ca
	}
	return h.reg.Set(ip, egress.Sandbox{ID: sandbox, Policy: st.Policy, CA: c, Secrets: len(st.Secrets) > 0, BootID: st.BootID})
}

// upstreamRoots is the system's pool plus the PEM file extra.
func upstreamRoots(extra string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if extra == "" {
		return pool, nil
	}
	b, err := os.ReadFile(extra)
	if err != nil {
		return nil, fmt.Errorf("BERTH_EGRESS_EXTRA_CA: %w", err)
	}
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("BERTH_EGRESS_EXTRA_CA: no certificate in %s", extra)
	}
	return pool, nil
}

// hostNameserver is the host's first nameserver that is not on loopback:
// from /etc/resolv.conf, or systemd-resolved's real list when that file
// names only its stub. A loopback stub (systemd-resolved, dnsmasq) answers
// from the host's own /etc/hosts and local zones, names a sandbox must not
// learn, so the resolver never forwards to one: with only a stub, the
// operator names an upstream in BERTH_EGRESS_DNS.
func hostNameserver() (string, error) {
	return firstUpstream(netguard.ResolvConfs)
}

func firstUpstream(paths []string) (string, error) {
	var stubs []string
	for _, a := range netguard.Nameservers(paths) {
		if !a.IsLoopback() {
			return netip.AddrPortFrom(a, 53).String(), nil
		}
		stubs = append(stubs, a.String())
	}
	if len(stubs) > 0 {
		return "", fmt.Errorf("egress resolver upstream: the host names only the loopback resolver %s, which answers with the host's own names; "+
			"set BERTH_EGRESS_DNS to an upstream resolver (host:port)", strings.Join(stubs, ", "))
	}
	return "", fmt.Errorf("egress resolver upstream: no nameserver in %s (set BERTH_EGRESS_DNS)", strings.Join(paths, " or "))
}

// defaultPolicy is what a boot without one gets: the public internet.
func defaultPolicy(p *policy.Policy) policy.Policy {
	if p == nil {
		return policy.Policy{Mode: policy.Open}
	}
	return *p
}

// dialNotLocal dials upstream unless the destination is one of this
// host's own addresses: the redirect rules never send those to the proxy
// (the guard drops them), and the proxy does not open them either.
func dialNotLocal(ctx context.Context, network, addr string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return nil, err
	}
	if ifs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range ifs {
			if n, ok := a.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == ap.Addr().Unmap() {
					return nil, fmt.Errorf("%s is an address of this host", ap.Addr())
				}
			}
		}
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, network, addr)
}
