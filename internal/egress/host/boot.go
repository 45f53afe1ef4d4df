package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"

	"go.uber.org/zap"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/egress/ca"
	"github.com/berthdev/berth/internal/egress/policy"
	"github.com/berthdev/berth/internal/netguard"
	"github.com/berthdev/berth/workflows/contract"
)

// trustDir is where a sandbox finds its egress CA (ca.pem) and the trust
// bundle (bundle.pem: the image's roots and the CA), mounted read-only.
const trustDir = "/etc/berth-egress"

// trustEnv names the bundle for the usual clients: OpenSSL and Go
// (SSL_CERT_FILE), Python requests, git, curl; Node adds NODE_EXTRA_CA_CERTS
// to its own roots, so it gets the CA alone.
var trustEnv = []string{
	"SSL_CERT_FILE=" + trustDir + "/bundle.pem",
	"REQUESTS_CA_BUNDLE=" + trustDir + "/bundle.pem",
	"GIT_SSL_CAINFO=" + trustDir + "/bundle.pem",
	"CURL_CA_BUNDLE=" + trustDir + "/bundle.pem",
	"NODE_EXTRA_CA_CERTS=" + trustDir + "/ca.pem",
}

// systemBundles are where images keep their roots (Debian and Alpine,
// RHEL, the OpenSSL default); the first one found is used.
var systemBundles = []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"}

// egressState is what the worker keeps on disk about a sandbox's egress
// (the policy may change after boot; a restarted worker needs it). No key
// and no secret value is in it.
type egressState struct {
	BootID    string        `json:"bootId"`
	Container string        `json:"container,omitempty"`
	Policy    policy.Policy `json:"policy"`
	Secrets   []string      `json:"secrets,omitempty"` // names the boot env references
}

// PrepareBoot makes this boot's CA (kept in memory; a retried boot in the
// same process reuses it) and the container's trust directory.
func (h *egressHost) PrepareBoot(ctx context.Context, in contract.BootInput, image string) (activities.EgressBoot, error) {
	b, dir, err := h.prepareTrust(in)
	if err != nil {
		return activities.EgressBoot{}, err
	}
	// The image's own roots, then the CA: what the sandbox trusted
	// before, plus its interception.
	bundle := func(roots []byte) error {
		return writeFile(filepath.Join(dir, "bundle.pem"), append(roots, b.ca.CertPEM()...))
	}
	eb := activities.EgressBoot{Env: trustEnv, ReadOnly: []dockerrt.Bind{{Source: dir, Target: trustDir}}}
	if roots, ok := h.knownRoots(image); ok {
		return eb, bundle(roots)
	}
	eb.BeforeStart = func(ctx context.Context, id string) error { return bundle(h.imageRoots(ctx, id, image)) }
	return eb, nil
}

// prepareTrust makes (or reuses) the boot's CA, records the boot's egress
// state and puts the CA in the sandbox's trust directory, which it returns.
func (h *egressHost) prepareTrust(in contract.BootInput) (bootCA, string, error) {
	h.mu.Lock()
	b, ok := h.cas[in.Sandbox]
	if !ok || b.bootID != in.BootID {
		c, err := ca.New(in.Sandbox)
		if err != nil {
			h.mu.Unlock()
			return bootCA{}, "", err
		}
		b = bootCA{in.BootID, c}
		h.cas[in.Sandbox] = b
		h.mu.Unlock()
		h.saveCA(in.Sandbox, in.BootID, c)
	} else {
		h.mu.Unlock()
	}
	st := egressState{BootID: in.BootID, Policy: defaultPolicy(in.Egress), Secrets: secretNames(in.Env)}
	if err := h.writeState(in.Sandbox, st); err != nil {
		return bootCA{}, "", err
	}
	dir := filepath.Join(h.dir, "trust", in.Sandbox)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return bootCA{}, "", err
	}
	if err := writeFile(filepath.Join(dir, "ca.pem"), b.ca.CertPEM()); err != nil {
		return bootCA{}, "", err
	}
	return b, dir, nil
}

// imageRoots reads the root certificates of a created container of image
// (an image id; none when it has no bundle where images keep one). An
// image's files never change, so they are read once per image id (see
// knownRoots): reading them out of a container through Docker took
// ~20 ms of every boot.
func (h *egressHost) imageRoots(ctx context.Context, id, image string) []byte {
	if r, ok := h.knownRoots(image); ok {
		return r
	}
	var roots []byte
	missing := 0
	for _, p := range systemBundles {
		r, err := h.docker.ReadFile(ctx, id, p, 4<<20)
		if err == nil {
			roots = append(r, '\n')
			break
		}
		if dockerrt.IsNotFound(err) {
			missing++
		}
	}
	// An image with no bundle where images keep one (every path answered
	// not found: a busybox or scratch image) is known for good too; each
	// boot of it paid ~40 ms for three reads. Any other failure is tried
	// again next boot.
	if image != "" && (roots != nil || missing == len(systemBundles)) {
		h.roots.Store(image, roots)
	}
	return roots
}

// knownRoots are the roots of image (an id) read from an earlier container.
func (h *egressHost) knownRoots(image string) ([]byte, bool) {
	if image == "" {
		return nil, false
	}
	r, ok := h.roots.Load(image)
	if !ok {
		return nil, false
	}
	return r.([]byte), true
}

// Started registers the container's address: from now on its connections
// meet its policy.
func (h *egressHost) Started(ctx context.Context, in contract.BootInput, containerID, ip string) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return fmt.Errorf("container address %q: %w", ip, err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	st, err := h.readState(in.Sandbox)
	if err != nil || st.BootID != in.BootID {
		st = egressState{BootID: in.BootID, Policy: defaultPolicy(in.Egress), Secrets: secretNames(in.Env)}
	}
	st.Container = containerID
	if err := h.writeState(in.Sandbox, st); err != nil {
		return err
	}
	return h.track(in.Sandbox, containerID, addr, st)
}

// track registers a running container and redirects its address here;
// the caller holds mu.
func (h *egressHost) track(sandbox, container string, addr netip.Addr, st egressState) error {
	if old, ok := h.live[sandbox]; ok && old.ip != addr {
		h.reg.Remove(old.ip)
	}
	for other, l := range h.live {
		if other != sandbox && l.ip == addr { // the address was reused
			h.reg.Remove(addr)
			delete(h.live, other)
		}
	}
	if err := h.register(sandbox, addr, st); err != nil {
		return err
	}
	h.live[sandbox] = liveSandbox{container: container, bootID: st.BootID, ip: addr}
	if err := netguard.Claim(h.table, addr); err != nil {
		return fmt.Errorf("claim %s from other workers' redirect tables: %w", addr, err)
	}
	return h.syncRedirect(context.Background())
}

// forget drops a container that stopped; the caller holds mu.
func (h *egressHost) forget(sandbox, container string) {
	l, ok := h.live[sandbox]
	if !ok || (container != "" && l.container != container) {
		return
	}
	h.reg.Remove(l.ip)
	h.res.Forget(sandbox)
	delete(h.live, sandbox)
	// The boot's CA dies with its container: the next boot makes its own.
	// A newer boot's CA (prepared before this container's death was
	// seen) stays.
	if c, ok := h.cas[sandbox]; ok && c.bootID == l.bootID {
		delete(h.cas, sandbox)
		go h.dropCA(sandbox, l.bootID) // a blob store call: not under mu
	}
	if err := h.syncRedirect(context.Background()); err != nil {
		h.log.Warn("egress redirect table", zap.Error(err))
	}
}

// syncRedirect brings the redirect table up to the running sandboxes; the
// caller holds mu. A table this worker installed for the same bridge only
// has its sets replaced (netguard.Redirect.UpdateSources, ~1 ms on a boot's
// path instead of 7-20); a first install, a new bridge, or a table that
// is gone (the update fails) is installed whole.
func (h *egressHost) syncRedirect(ctx context.Context) error { return h.applyRedirect(ctx, false) }

// repairRedirect installs the whole table whatever this worker installed
// last: the periodic check puts back a table someone removed or changed.
// The caller holds mu.
func (h *egressHost) repairRedirect(ctx context.Context) error { return h.applyRedirect(ctx, true) }

func (h *egressHost) applyRedirect(ctx context.Context, whole bool) error {
	bridge, err := h.docker.SandboxBridgeName(ctx)
	if err != nil {
		return err
	}
	var srcs, open []netip.Addr
	for _, l := range h.live {
		srcs = append(srcs, l.ip)
		if sb, ok := h.reg.Lookup(l.ip); ok && sb.Policy.Mode == policy.Open {
			open = append(open, l.ip)
		}
	}
	slices.SortFunc(srcs, netip.Addr.Compare)
	slices.SortFunc(open, netip.Addr.Compare)
	r := netguard.Redirect{Table: h.table, Bridge: bridge, ProxyPort: h.ports[0], DNSPort: h.ports[1], Sources: srcs, Open: open}
	if !whole && bridge == h.installedFor && r.UpdateSources() == nil {
		return nil
	}
	h.installedFor = ""
	if err := r.Install(); err != nil {
		return err
	}
	h.installedFor = bridge
	return nil
}

func (h *egressHost) statePath(sandbox string) string {
	return filepath.Join(h.dir, "sandboxes", sandbox+".json")
}

func (h *egressHost) readState(sandbox string) (egressState, error) {
	var st egressState
	b, err := os.ReadFile(h.statePath(sandbox))
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

func (h *egressHost) writeState(sandbox string, st egressState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(h.statePath(sandbox)), 0o700); err != nil {
		return err
	}
	return writeFile(h.statePath(sandbox), b)
}

// writeFile replaces a file atomically (a reader never sees half of it).
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// secretNames lists the secrets the env references: a sandbox using any
// has all its HTTPS intercepted, so placeholders are substituted for bound
// hosts and refused elsewhere.
func secretNames(env map[string]string) []string {
	var out []string
	for _, v := range env {
		for _, n := range api.PlaceholderNames(v) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}
