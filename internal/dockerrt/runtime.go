// Package dockerrt is Berth's thin layer over the Docker Engine API: the
// sandbox network, workspace volumes and sandbox containers, all labelled
// io.berth.* so they can be found (and cleaned up) by label.
package dockerrt

import (
	"context"
	"fmt"
	"strings"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/network"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/client"
)

// Labels every Berth object carries.
const (
	LabelManaged  = "io.berth.managed"
	LabelSandbox  = "io.berth.sandbox"
	LabelBoot     = "io.berth.boot"
	LabelHost     = "io.berth.host"
	LabelVersion  = "io.berth.version"
	LabelWorkload = "io.berth.role"
)

// NetworkName is the bridge network sandboxes live on. Inter-container
// traffic is disabled on it: sandboxes cannot reach each other, only the host.
const NetworkName = "berth-sandboxes"

// Runtime talks to one Docker engine.
type Runtime struct {
	cli *client.Client
}

// New connects using the standard DOCKER_* environment.
func New() (*Runtime, error) {
	cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	if err != nil {
		return nil, fmt.Errorf("docker client: %w", err)
	}
	return &Runtime{cli: cli}, nil
}

// Client exposes the Engine API client for callers that need more.
func (r *Runtime) Client() *client.Client { return r.cli }

// Close releases the client's connections.
func (r *Runtime) Close() error { return r.cli.Close() }

// IsNotFound reports a missing container, volume, network or image.
func IsNotFound(err error) bool { return cerrdefs.IsNotFound(err) }

// EnsureNetwork creates the sandbox network once per engine.
func (r *Runtime) EnsureNetwork(ctx context.Context) error {
	if _, err := r.cli.NetworkInspect(ctx, NetworkName, network.InspectOptions{}); err == nil {
		return nil
	} else if !IsNotFound(err) {
		return err
	}
	_, err := r.cli.NetworkCreate(ctx, NetworkName, network.CreateOptions{
		Driver: "bridge",
		Labels: map[string]string{LabelManaged: "true"},
		Options: map[string]string{
			"com.docker.network.bridge.enable_icc": "false",
		},
	})
	if cerrdefs.IsConflict(err) || cerrdefs.IsAlreadyExists(err) {
		return nil // a concurrent worker won the race
	}
	return err
}

// EnsureVolume creates the named volume if it does not exist and reports
// whether it was created now.
func (r *Runtime) EnsureVolume(ctx context.Context, name string, labels map[string]string) (created bool, err error) {
	if _, err := r.cli.VolumeInspect(ctx, name); err == nil {
		return false, nil
	} else if !IsNotFound(err) {
		return false, err
	}
	_, err = r.cli.VolumeCreate(ctx, volume.CreateOptions{Name: name, Labels: labels})
	return err == nil, err
}

// VolumeExists reports whether the named volume exists on this engine.
func (r *Runtime) VolumeExists(ctx context.Context, name string) (bool, error) {
	_, err := r.cli.VolumeInspect(ctx, name)
	if IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// VolumeMountpoint is the host directory holding the volume's data.
func (r *Runtime) VolumeMountpoint(ctx context.Context, name string) (string, error) {
	v, err := r.cli.VolumeInspect(ctx, name)
	if err != nil {
		return "", err
	}
	return v.Mountpoint, nil
}

// RemoveVolume deletes a volume; a missing one is not an error.
func (r *Runtime) RemoveVolume(ctx context.Context, name string) error {
	err := r.cli.VolumeRemove(ctx, name, true)
	if IsNotFound(err) {
		return nil
	}
	return err
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

// RemoveContainer force-removes a container (keeping its named volumes); a
// missing one is not an error.
func (r *Runtime) RemoveContainer(ctx context.Context, name string) error {
	err := r.cli.ContainerRemove(ctx, name, container.RemoveOptions{Force: true})
	if IsNotFound(err) || cerrdefs.IsConflict(err) && isRemovalInProgress(err) {
		return nil
	}
	return err
}

// isRemovalInProgress: a concurrent remove of the same container is success.
func isRemovalInProgress(err error) bool {
	return strings.Contains(err.Error(), "is already in progress")
}
