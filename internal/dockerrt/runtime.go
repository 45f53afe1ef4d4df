// Package dockerrt is Berth's thin layer over the Docker Engine API: the
// sandbox network, workspace volumes and sandbox containers, all labelled
// io.berth.* so they can be found (and cleaned up) by label.
package dockerrt

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
	"golang.org/x/sync/singleflight"
)

// Labels every Berth object carries.
const (
	LabelManaged  = "io.berth.managed"
	LabelSandbox  = "io.berth.sandbox"
	LabelBoot     = "io.berth.boot"
	LabelHost     = "io.berth.host"
	LabelVersion  = "io.berth.version"
	LabelWorkload = "io.berth.role"
	// LabelPool marks a warm container and its volume, made before any
	// sandbox claimed it; its value is the instance type.
	LabelPool = "io.berth.pool"
	// LabelNamespace names the Temporal namespace whose sandbox owns the
	// object: a worker reconciling its host never judges another's objects.
	LabelNamespace = "io.berth.namespace"
)

// NetworkName is the bridge network sandboxes live on. Inter-container
// traffic is disabled on it, and the worker's network guard
// (internal/netguard) keeps sandboxes off the host and private networks.
const NetworkName = "berth-sandboxes"

// BridgeName is the host interface of the sandbox network when this
// worker created it: a fixed name, so the guard's rules still match a
// network that was removed and created again.
const BridgeName = "berth0"

// bridgeNameOption is Docker's network option naming the bridge interface.
const bridgeNameOption = "com.docker.network.bridge.name"

// Runtime talks to one Docker engine.
type Runtime struct {
	cli       *client.Client
	diskDir   string      // where sandbox disks live; "" until EnableDisks
	diskLocks sync.Map    // disk root -> *sync.Mutex
	spareBusy sync.Map    // disk size -> a spare image is being made (disk_spare.go)
	addrs     addrBook    // sandbox-network addresses (netattach.go)
	ending    endingSet   // containers stopped or removed here (ending.go)
	freezers  freezerBook // each container's cgroup freezer (freezer.go)
	hub       eventHub    // the one Docker events subscription (events.go)
	// netName and bridgeName replace NetworkName and BridgeName for the
	// sandbox network's lookup and creation, in tests only.
	netName, bridgeName string

	rootMu    sync.Mutex
	rootKnown bool
	root      RootBound
	// layerProven: a file put into a container through Docker showed up
	// in its layer on the disk, so dockerd sees the worker's mounts.
	layerProven atomic.Bool

	pulls      singleflight.Group // image -> its one pull at a time (images.go)
	pullsByRef sync.Map           // image -> *pullState
}

// New connects using the standard DOCKER_* environment.
func New() (*Runtime, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Runtime{cli: cli}, nil
}

// Close releases the client's connections.
func (r *Runtime) Close() error { return r.cli.Close() }

// IsNotFound reports a missing container, volume, network or image.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// EnsureNetwork creates the sandbox network once per engine, and brings
// back the sandboxes of a network removed behind the worker's back (see
// rejoinPorts).
func (r *Runtime) EnsureNetwork(ctx context.Context) error {
	n, err := r.sandboxNetwork(ctx, true)
	if err != nil {
		return err
	}
	return r.rejoinPorts(n)
}

// networkLookups and networkLookupPause bound how long a worker whose
// network create failed looks for another worker's network: about a second.
const (
	networkLookups     = 20
	networkLookupPause = 50 * time.Millisecond
)

// sandboxNetwork finds the sandbox network, creating it when create is set
// and it is missing. Workers starting together can each create one (an
// engine's duplicate-name check is not atomic), and then no name lookup
// works: the oldest is kept and the unused others removed. Or one
// worker's create fails on the other's (Docker refuses a second network
// with the same bridge name, with no error class to tell): any failed
// create is followed by a lookup, and only a network still missing fails.
func (r *Runtime) sandboxNetwork(ctx context.Context, create bool) (network.Summary, error) {
	name, bridge := NetworkName, BridgeName
	if r.netName != "" {
		name, bridge = r.netName, r.bridgeName
	}
	var createErr error
	for attempt := 0; ; attempt++ {
		list, err := r.cli.NetworkList(ctx, network.ListOptions{Filters: filters.NewArgs(filters.Arg("name", name))})
		if err != nil {
			return network.Summary{}, err
		}
		list = slices.DeleteFunc(list, func(n network.Summary) bool { return n.Name != name }) // the filter matches substrings
		if len(list) > 0 {
			slices.SortFunc(list, func(a, b network.Summary) int {
				if c := a.Created.Compare(b.Created); c != 0 {
					return c
				}
				return strings.Compare(a.ID, b.ID)
			})
			for _, dup := range list[1:] {
				if dup.Labels[LabelManaged] == "true" {
					_ = r.cli.NetworkRemove(ctx, dup.ID) // in use: Docker refuses, and it stays
				}
			}
			r.rememberIPAM(list[0])
			return list[0], nil
		}
		if !create {
			return network.Summary{}, cerrdefs.ErrNotFound.WithMessage("network " + name + " not found")
		}
		if createErr != nil {
			// The create may have failed on another worker's network that
			// the engine does not list yet (a CI run saw "networks have
			// same bridge name" and then an empty list): look again for a
			// moment before failing.
			if attempt >= networkLookups {
				return network.Summary{}, createErr
			}
			time.Sleep(networkLookupPause)
			continue
		}
		if attempt > 0 {
			return network.Summary{}, fmt.Errorf("network %s vanished after it was created", name)
		}
		opts := network.CreateOptions{
			Driver: "bridge",
			Labels: map[string]string{LabelManaged: "true"},
			Options: map[string]string{
				"com.docker.network.bridge.enable_icc": "false",
				bridgeNameOption:                       bridge,
			},
			IPAM: r.knownIPAM(),
		}
		_, err = r.cli.NetworkCreate(ctx, name, opts)
		if err != nil && opts.IPAM != nil && !cerrdefs.IsConflict(err) && !cerrdefs.IsAlreadyExists(err) {
			// The old subnet is another network's by now: a new one.
			opts.IPAM = nil
			_, err = r.cli.NetworkCreate(ctx, name, opts)
		}
		if err != nil && !cerrdefs.IsConflict(err) && !cerrdefs.IsAlreadyExists(err) {
			createErr = err
		} // made here or by a concurrent worker, or failed: list again
	}
}

// rememberIPAM keeps a network's IPv4 subnet and gateway for knownIPAM.
func (r *Runtime) rememberIPAM(n network.Summary) {
	for _, c := range n.IPAM.Config {
		if p, err := netip.ParsePrefix(c.Subnet); err == nil && p.Addr().Is4() && c.Gateway != "" {
			r.addrs.seen.Store(&network.IPAM{Config: []network.IPAMConfig{{Subnet: c.Subnet, Gateway: c.Gateway}}})
			return
		}
	}
}

// SandboxBridge names the sandbox network's bridge interface on this host
// and its subnets. A network created without a bridge name (by an older
// worker) has Docker's default one, br-<first 12 hex digits of its id>.
func (r *Runtime) SandboxBridge(ctx context.Context) (string, []netip.Prefix, error) {
	n, err := r.sandboxNetwork(ctx, false)
	if err != nil {
		return "", nil, err
	}
	var subnets []netip.Prefix
	for _, c := range n.IPAM.Config {
		if p, err := netip.ParsePrefix(c.Subnet); err == nil {
			subnets = append(subnets, p)
		}
	}
	name := bridgeOf(n)
	if name == "" {
		return "", nil, fmt.Errorf("network %s has no id", NetworkName)
	}
	return name, subnets, nil
}

// bridgeOf names a network's bridge interface: the name it was given, or
// Docker's default br-<first 12 hex digits of its id> ("" without an id).
func bridgeOf(n network.Summary) string {
	if name := n.Options[bridgeNameOption]; name != "" {
		return name
	}
	if len(n.ID) < 12 {
		return ""
	}
	return "br-" + n.ID[:12]
}

// EnsureVolume creates the named volume if it does not exist and reports
// whether it was created now. A volume labelled LabelDisk gets a disk of
// that many bytes when disks are enabled; an existing one has its disk
// mounted again (after a host reboot, say).
func (r *Runtime) EnsureVolume(ctx context.Context, name string, labels map[string]string) (created bool, err error) {
	if v, err := r.cli.VolumeInspect(ctx, name); err == nil {
		if d, ok := diskOfVolume(v); ok {
			return false, r.ensureDisk(ctx, d, 0, false)
		}
		return false, nil
	} else if !IsNotFound(err) {
		return false, err
	}
	opts := volume.CreateOptions{Name: name, Labels: labels}
	if size, _ := strconv.ParseInt(labels[LabelDisk], 10, 64); size > 0 && r.DisksEnabled() {
		d := r.diskOf(name)
		if err := r.ensureDisk(ctx, d, size, true); err != nil {
			return false, err
		}
		opts.Driver = "local"
		opts.DriverOpts = map[string]string{"type": "none", "o": "bind", "device": d.workspace()}
	} else {
		delete(opts.Labels, LabelDisk) // not bounded: do not claim it
	}
	_, err = r.cli.VolumeCreate(ctx, opts)
	return err == nil, err
}

// diskOfVolume is the disk behind a volume made by EnsureVolume.
func diskOfVolume(v volume.Volume) (disk, bool) {
	if v.Labels[LabelDisk] == "" || v.Options["o"] != "bind" {
		return disk{}, false
	}
	return diskOfDevice(v.Name, v.Options["device"])
}

// volumeDisk is the disk behind the named volume, if any.
func (r *Runtime) volumeDisk(ctx context.Context, name string) (disk, bool) {
	if to, ok := r.handedOver(name); ok {
		return r.diskOf(to), true // a warm volume whose disk a sandbox took
	}
	v, err := r.cli.VolumeInspect(ctx, name)
	if err != nil {
		return disk{}, false
	}
	return diskOfVolume(v)
}

// VolumeExists reports whether the named volume exists on this engine.
func (r *Runtime) VolumeExists(ctx context.Context, name string) (bool, error) {
	_, exists, err := r.VolumeLabels(ctx, name)
	return exists, err
}

// VolumeLabels returns the named volume's labels; exists false (and no
// error) when there is no such volume on this engine.
func (r *Runtime) VolumeLabels(ctx context.Context, name string) (labels map[string]string, exists bool, err error) {
	v, err := r.cli.VolumeInspect(ctx, name)
	if IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v.Labels, true, nil
}

// VolumeMountpoint is the host directory holding the volume's data; a
// volume on a disk has its disk mounted first.
func (r *Runtime) VolumeMountpoint(ctx context.Context, name string) (string, error) {
	v, err := r.cli.VolumeInspect(ctx, name)
	if err != nil {
		return "", err
	}
	if d, ok := diskOfVolume(v); ok {
		if err := r.ensureDisk(ctx, d, 0, false); err != nil {
			return "", err
		}
		return d.workspace(), nil
	}
	return v.Mountpoint, nil
}

// RemoveVolume deletes a volume and its disk; a missing one is not an
// error.
func (r *Runtime) RemoveVolume(ctx context.Context, name string) error {
	v, err := r.cli.VolumeInspect(ctx, name)
	if IsNotFound(err) {
		if _, ok := r.handedOver(name); ok {
			r.forgetHandOver(name)
			return nil
		}
		return r.RemoveDisk(name) // a disk whose volume was never made
	}
	if err != nil {
		return err
	}
	if err := r.cli.VolumeRemove(ctx, name, true); err != nil && !IsNotFound(err) {
		return err
	}
	if _, ok := r.handedOver(name); ok {
		r.forgetHandOver(name) // its disk is another volume's now
		return nil
	}
	if d, ok := diskOfVolume(v); ok {
		if err := r.removeDisk(d); err != nil {
			return fmt.Errorf("remove the disk of volume %s: %w", name, err)
		}
	}
	return nil
}

// Inspect returns the container, or nil when there is none by that name.
func (r *Runtime) Inspect(ctx context.Context, name string) (*container.InspectResponse, error) {
	c, err := r.cli.ContainerInspect(ctx, name)
	if IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// RemoveContainer force-removes a container (keeping its named volumes)
// and its writable layer on the sandbox disk; a missing one is not an
// error.
func (r *Runtime) RemoveContainer(ctx context.Context, name string) error {
	c, err := r.Inspect(ctx, name)
	if err != nil || c == nil {
		return err
	}
	if c.State != nil && c.State.Running {
		r.ending.add(c.ID)
		// A container frozen through its freezer would not die of
		// Docker's SIGKILL until thawed: thaw it first.
		if _, err := r.Thaw(ctx, c.ID); err != nil {
			return err
		}
	}
	// RemoveVolumes: the anonymous volumes Docker made for the image's
	// own VOLUME paths go with the container (the named workspace stays).
	err = r.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	r.freezers.drop(c.ID)
	if IsNotFound(err) || cerrdefs.IsConflict(err) && isRemovalInProgress(err) {
		err = nil
	}
	if err != nil {
		return err
	}
	if d, ok := r.diskOfContainer(ctx, c); ok {
		// Docker has unmounted the layer from its own directory.
		if err := os.RemoveAll(filepath.Join(d.layers(), c.ID)); err != nil {
			return fmt.Errorf("remove the writable layer of %s: %w", name, err)
		}
		r.releaseDisk(d)
	}
	return nil
}

// isRemovalInProgress: a concurrent remove of the same container is success.
func isRemovalInProgress(err error) bool {
	return strings.Contains(err.Error(), "is already in progress")
}
