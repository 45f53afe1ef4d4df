package dockerrt

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/netip"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/pkg/stdcopy"
)

// SupervisorPath is where the supervisor binary is mounted (read-only) in
// every sandbox; it is the container's entrypoint, so any image works.
const SupervisorPath = "/.berth/supervisor"

// WorkspacePath is where the workspace volume is mounted.
const WorkspacePath = "/workspace"

// Spec describes one sandbox container.
type Spec struct {
	Name   string // container name, deterministic per sandbox
	Image  string
	Volume string // workspace volume name
	// SeedWorkspace lets Docker copy the image's /workspace into the
	// volume (a fresh one only: Docker copies into an empty volume).
	SeedWorkspace  bool
	SupervisorHost string // host path of the supervisor binary
	Env            []string
	Labels         map[string]string
	NanoCPUs       int64
	MemoryBytes    int64
	Pids           int64
	// DiskBytes bounds the root file system where the storage driver
	// has quotas; elsewhere the root's writes go to the volume's disk.
	DiskBytes int64
	// Files are put into the container before it starts, owned by root
	// (the supervisor's token: never in its environment).
	Files []File
	// ReadOnly are host directories mounted read-only (a sandbox's egress
	// CA certificate and trust bundle): root in the container cannot
	// change them.
	ReadOnly []Bind
	// BeforeStart runs once the container is created and its Files are in
	// place, before it starts (to read files from the image).
	BeforeStart func(ctx context.Context, id string) error
}

// Bind is a host directory mounted into a container.
type Bind struct {
	Source string // host path
	Target string // path in the container
}

// File is one file put into a container before it starts; its parent
// directories are made with mode 0700.
type File struct {
	Path string // absolute
	Mode int64
	Data []byte
}

// capabilities a sandbox keeps: enough for package managers and ordinary
// root-in-container work, nothing that reaches the host (no SYS_ADMIN,
// NET_ADMIN, SYS_PTRACE, MKNOD, NET_RAW...).
var keptCapabilities = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "AUDIT_WRITE"}

// Run creates and starts the container and returns its id and its IP on the
// sandbox network. Before the start, the container's root file system is
// bounded (see RootBound) and its Files are put in place; after it, the
// worker attaches it to the sandbox network (netattach.go).
func (r *Runtime) Run(ctx context.Context, s Spec) (id, ip string, err error) {
	for attempt := 1; ; attempt++ {
		id, ip, err = r.runOnce(ctx, s)
		if !errors.Is(err, errAddrTaken) || attempt == 3 {
			return id, ip, err
		}
		// Another worker on this host claimed the address first: a
		// container carries its address in a label, so make it again.
		if err := r.RemoveContainer(context.WithoutCancel(ctx), id); err != nil {
			return id, "", err
		}
	}
}

func (r *Runtime) runOnce(ctx context.Context, s Spec) (id, ip string, err error) {
	addr, err := r.chooseAddr(ctx)
	if err != nil {
		return "", "", err
	}
	defer r.releaseAddr(addr)
	labels := maps.Clone(s.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[LabelAddr] = addr.String()
	pids := s.Pids
	cfg := &container.Config{
		Image:      s.Image,
		Entrypoint: []string{SupervisorPath},
		Cmd:        []string{},
		Env:        s.Env,
		Labels:     labels,
		WorkingDir: WorkspacePath,
		Hostname:   "sandbox",
		// The supervisor runs as root whatever the image's USER, which it
		// runs the sandbox's commands as (BERTH_RUN_AS); Docker resolving
		// that user here would fail for a uid without a passwd entry.
		User: "0:0",
	}
	host := &container.HostConfig{
		Mounts: []mount.Mount{
			{Type: mount.TypeVolume, Source: s.Volume, Target: WorkspacePath, VolumeOptions: &mount.VolumeOptions{NoCopy: !s.SeedWorkspace}},
			{Type: mount.TypeBind, Source: s.SupervisorHost, Target: SupervisorPath, ReadOnly: true},
		},
		NetworkMode:   network.NetworkNone, // attached by the worker: see netattach.go
		RestartPolicy: container.RestartPolicy{Name: container.RestartPolicyDisabled},
		CapDrop:       []string{"ALL"},
		CapAdd:        keptCapabilities,
		SecurityOpt:   []string{"no-new-privileges:true"},
		// No IPv6 in the sandbox's namespace (the interface the worker
		// adds later takes "default"): the egress proxy and its guard
		// speak IPv4, and an IPv6 link-local address is a way around them.
		Sysctls: noIPv6(),
		Resources: container.Resources{
			NanoCPUs:   s.NanoCPUs,
			Memory:     s.MemoryBytes,
			MemorySwap: s.MemoryBytes, // no swap beyond the memory limit
			PidsLimit:  &pids,
		},
	}
	for _, b := range s.ReadOnly {
		host.Mounts = append(host.Mounts, mount.Mount{Type: mount.TypeBind, Source: b.Source, Target: b.Target, ReadOnly: true})
	}
	bound, err := r.RootBound(ctx)
	if err != nil {
		return "", "", err
	}
	if bound == RootQuota && s.DiskBytes > 0 {
		host.StorageOpt = map[string]string{"size": strconv.FormatInt(s.DiskBytes, 10)}
	}
	created, err := r.cli.ContainerCreate(ctx, cfg, host, &network.NetworkingConfig{}, nil, s.Name)
	if err != nil && host.StorageOpt != nil && isQuotaUnsupported(err) {
		r.noQuota() // xfs without pquota: the disk bounds the root instead
		bound, host.StorageOpt = RootOnDisk, nil
		created, err = r.cli.ContainerCreate(ctx, cfg, host, &network.NetworkingConfig{}, nil, s.Name)
	}
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled while Docker may have created it anyway: then no
			// id came back to remove it by, so remove it by name (a warm
			// pool's fill cut short by the worker's exit left one).
			_ = r.cli.ContainerRemove(context.WithoutCancel(ctx), s.Name, container.RemoveOptions{Force: true, RemoveVolumes: true})
		}
		return "", "", fmt.Errorf("create container %s: %w", s.Name, err)
	}
	upper := ""
	if d, ok := r.volumeDisk(ctx, s.Volume); ok && bound == RootOnDisk {
		r.dropLayers(ctx, d, created.ID)
		if upper, err = r.bindLayer(ctx, created.ID, d); err != nil {
			return created.ID, "", err
		}
	}
	if upper != "" && r.layerProven.Load() {
		// Docker has been seen writing through the move: skip its
		// mount-copy-unmount of the root file system (~50 ms a boot).
		err = writeLayerFiles(upper, s.Files)
	} else {
		err = r.putFiles(ctx, created.ID, s.Files, upper)
	}
	if err != nil {
		return created.ID, "", err
	}
	if s.BeforeStart != nil {
		if err := s.BeforeStart(ctx, created.ID); err != nil {
			return created.ID, "", err
		}
	}
	if err := r.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return created.ID, "", fmt.Errorf("start container %s: %w", s.Name, err)
	}
	info, err := r.cli.ContainerInspect(ctx, created.ID)
	if err != nil {
		return created.ID, "", err
	}
	faultAttachCrash()
	if err := r.attach(ctx, &info, addr); err != nil {
		return created.ID, "", err
	}
	return created.ID, addr.String(), nil
}

// putFiles copies files into a created container, owned by root. When
// the writable layer was moved onto a disk (upper is its directory there),
// it also proves that Docker writes through the move: a worker outside
// dockerd's mount namespace would leave the root unbounded.
func (r *Runtime) putFiles(ctx context.Context, id string, files []File, upper string) error {
	if len(files) == 0 {
		return nil
	}
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	for _, f := range files {
		rel := strings.TrimPrefix(path.Clean(f.Path), "/")
		var parents []string // outermost first
		for dir := path.Dir(rel); dir != "." && !dirs[dir]; dir = path.Dir(dir) {
			dirs[dir] = true
			parents = append([]string{dir}, parents...)
		}
		for _, dir := range parents {
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o700}); err != nil {
				return err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: f.Mode, Size: int64(len(f.Data))}); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	// Root's, as the supervisor that reads them (CopyUIDGID would have
	// Docker look the user up in the image's passwd, which may not exist).
	if err := r.cli.CopyToContainer(ctx, id, "/", &buf, container.CopyToContainerOptions{}); err != nil {
		return fmt.Errorf("put files into container: %w", err)
	}
	if upper != "" {
		if _, err := os.Lstat(filepath.Join(upper, files[0].Path)); err != nil {
			return fmt.Errorf("the container's writable layer is not on the sandbox disk (%v): run the worker in dockerd's mount namespace", err)
		}
		r.layerProven.Store(true)
	}
	return nil
}

// ContainerIP is the address of a running container on the sandbox
// network: Docker's, for a container an older worker had Docker attach,
// or the one the worker gave it (LabelAddr) while that is attached (see
// Attached). "" otherwise: a container stopped, restarted behind Berth's
// back or never attached has no address, since its label may name an
// address another sandbox holds by now.
func ContainerIP(c *container.InspectResponse) string {
	if c.NetworkSettings != nil {
		if ep, ok := c.NetworkSettings.Networks[NetworkName]; ok && ep != nil && ep.IPAddress != "" {
			return ep.IPAddress
		}
	}
	if c.State == nil || !c.State.Running || c.Config == nil {
		return ""
	}
	a, err := netip.ParseAddr(c.Config.Labels[LabelAddr])
	if err != nil || !a.Is4() || !attachedAt(c, a) {
		return ""
	}
	return a.String()
}

// Wait blocks until the container is no longer running and returns its exit
// code; a missing container counts as exited.
func (r *Runtime) Wait(ctx context.Context, id string) (int64, error) {
	okCh, errCh := r.cli.ContainerWait(ctx, id, container.WaitConditionNotRunning)
	select {
	case res := <-okCh:
		return res.StatusCode, nil
	case err := <-errCh:
		if IsNotFound(err) {
			return -1, nil
		}
		return 0, err
	}
}

// Stop asks the container c (as the caller inspected it; nil: none) to
// stop (SIGTERM to the supervisor, which ends every process group) and
// kills it after grace; a missing or already stopped container is not an
// error. A frozen container is thawed first: frozen, its processes would
// take neither signal (see freezer.go).
func (r *Runtime) Stop(ctx context.Context, c *container.InspectResponse, grace time.Duration) error {
	if c == nil {
		return nil
	}
	if c.State != nil && c.State.Running {
		r.ending.add(c.ID)
		if _, err := r.Thaw(ctx, c.ID); err != nil {
			return err
		}
	}
	secs := int(grace.Seconds())
	err := r.cli.ContainerStop(ctx, c.ID, container.StopOptions{Timeout: &secs})
	if IsNotFound(err) {
		return nil
	}
	return err
}

// LogTail is the last lines a container wrote to stdout and stderr, joined
// by "; " (for error messages); "" when there are none.
func (r *Runtime) LogTail(ctx context.Context, id string, lines int) string {
	rc, err := r.cli.ContainerLogs(ctx, id, container.LogsOptions{ShowStdout: true, ShowStderr: true, Tail: strconv.Itoa(lines)})
	if err != nil {
		return ""
	}
	defer rc.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, io.LimitReader(rc, 64<<10)); err != nil && out.Len() == 0 {
		return ""
	}
	return strings.Join(strings.Split(strings.TrimSpace(out.String()), "\n"), "; ")
}

// noIPv6 are the sysctls that turn IPv6 off in a container's namespace;
// none on a kernel without IPv6 (ipv6.disable=1), where setting them would
// fail every start.
func noIPv6() map[string]string {
	if _, err := os.Stat("/proc/sys/net/ipv6"); err != nil {
		return nil
	}
	return map[string]string{"net.ipv6.conf.all.disable_ipv6": "1", "net.ipv6.conf.default.disable_ipv6": "1"}
}
