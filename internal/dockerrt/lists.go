package dockerrt

import (
	"context"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/volume"
)

// Reads of the engine's state that Berth's parts make beside the
// lifecycle calls: they go through here so that no caller holds the Engine
// API client itself.

// Containers lists the containers f matches: running ones, and stopped
// ones too when all is set.
func (r *Runtime) Containers(ctx context.Context, f filters.Args, all bool) ([]container.Summary, error) {
	return r.cli.ContainerList(ctx, container.ListOptions{All: all, Filters: f})
}

// Volumes lists the volumes f matches.
func (r *Runtime) Volumes(ctx context.Context, f filters.Args) ([]*volume.Volume, error) {
	vs, err := r.cli.VolumeList(ctx, volume.ListOptions{Filters: f})
	return vs.Volumes, err
}

// Volume inspects one volume.
func (r *Runtime) Volume(ctx context.Context, name string) (volume.Volume, error) {
	return r.cli.VolumeInspect(ctx, name)
}

// Image inspects a local image (IsNotFound when the host lacks it).
func (r *Runtime) Image(ctx context.Context, ref string) (image.InspectResponse, error) {
	return r.cli.ImageInspect(ctx, ref)
}

// HostResources are the engine host's CPUs and memory (bytes).
func (r *Runtime) HostResources(ctx context.Context) (cpus int, memory int64, err error) {
	info, err := r.cli.Info(ctx)
	if err != nil {
		return 0, 0, err
	}
	return info.NCPU, info.MemTotal, nil
}
