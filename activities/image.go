package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// bootImage is the image a container runs, as this host has it, and what
// the supervisor must know of it: the supervisor is the container's
// entrypoint and runs as root, so the image's ENTRYPOINT and CMD are not
// run, and its USER and WORKDIR become the defaults of what the sandbox
// runs (docs/design/images.md).
type bootImage struct {
	Ref     string // what Docker is asked to run
	ID      string // the image id on this host
	User    string // the image's USER ("" for root)
	Workdir string // the image's WORKDIR ("" or "/" for none)
	seed    bool   // the image's /workspace content seeds the volume (see adoptOrRun)
}

// supervisorEnv tells the supervisor the image's user and working directory.
func (img bootImage) supervisorEnv() []string {
	var env []string
	if img.User != "" {
		env = append(env, supervisorapi.EnvRunAs+"="+img.User)
	}
	if img.Workdir != "" && img.Workdir != "/" {
		env = append(env, supervisorapi.EnvDefaultCwd+"="+img.Workdir)
	}
	return env
}

// instanceImage is a boot's instance type and image: the sandbox's own
// (fixed at create) or else its type's, which must be on this host.
func (a *Activities) instanceImage(ctx context.Context, in contract.BootInput) (config.InstanceType, bootImage, error) {
	it, ok := a.InstanceTypes[in.InstanceType]
	if !ok {
		return it, bootImage{}, temporal.NewNonRetryableApplicationError("unknown instance type "+in.InstanceType, "UNKNOWN_INSTANCE_TYPE", nil)
	}
	ref := in.Image
	if ref == "" {
		// The type's image may come from a registry too: a host that
		// lacks it pulls it (a warm pool's first fill pre-pulls it).
		ref = a.typeImage(it)
	}
	if err := a.Docker.EnsureImage(ctx, ref, a.RegistryAuth, a.pullProgress(ctx, in.Sandbox, ref)); err != nil {
		if in.Image == "" && errors.Is(err, dockerrt.ErrImageNotFound) {
			return it, bootImage{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
				"image %s of instance type %s is not on host %s and no registry has it (%v): build it with `task image` or set BERTH_DEFAULT_IMAGE",
				ref, it.Name, a.HostID, err), contract.ErrImageNotFound, nil)
		}
		return it, bootImage{}, imageError(ref, err)
	}
	img, err := a.localImage(ctx, ref)
	return it, img, err
}

// typeImage is the image of an instance type.
func (a *Activities) typeImage(it config.InstanceType) string {
	if it.Image != "" {
		return it.Image
	}
	return a.DefaultImage
}

// localImage inspects an image this host must have.
func (a *Activities) localImage(ctx context.Context, ref string) (bootImage, error) {
	info, err := a.Docker.Image(ctx, ref)
	if err != nil {
		if dockerrt.IsNotFound(err) {
			return bootImage{}, temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("image %s is not on host %s: build it with `task image` or set BERTH_DEFAULT_IMAGE", ref, a.HostID), "IMAGE_NOT_FOUND", nil)
		}
		return bootImage{}, err
	}
	img := bootImage{Ref: ref, ID: info.ID}
	if info.Config != nil {
		img.User, img.Workdir = info.Config.User, info.Config.WorkingDir
	}
	return img, nil
}

// imageRunError turns what an image's shape makes fail into a
// non-retryable IMAGE_UNSUPPORTED naming the path and the reason.
func imageRunError(img bootImage, err error) error {
	if err == nil {
		return nil
	}
	var lce *dockerrt.LayerCopyError
	if errors.As(err, &lce) {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("image %s: %v", img.Ref, err), contract.ErrImageUnsupported, err)
	}
	if msg := err.Error(); strings.Contains(msg, "/workspace") && strings.Contains(msg, "not a directory") {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("image %s: /workspace is not a directory in the image, so the workspace cannot be mounted there (%v)", img.Ref, err),
			contract.ErrImageUnsupported, err)
	}
	return err
}

// ResolveImage is contract.ActivityResolveImage: it fixes a create's
// image ref to a digest and, when this host has the image, refuses a shape
// Berth cannot run before the name is claimed.
func (a *Activities) ResolveImage(ctx context.Context, in contract.ResolveImageInput) (contract.ResolveImageResult, error) {
	if strings.Contains(in.Ref, "@sha256:") {
		a.prefetch(in.Ref) // already fixed: pull while the registry is asked about it
	}
	r, err := a.Docker.ResolveImage(ctx, in.Ref, a.RegistryAuth)
	if err != nil {
		return contract.ResolveImageResult{}, imageError(in.Ref, err)
	}
	if r.Local {
		if err := a.checkImageShape(ctx, r.Digest); err != nil {
			return contract.ResolveImageResult{}, err
		}
	} else {
		a.prefetch(r.Digest)
	}
	return contract.ResolveImageResult{Digest: r.Digest}, nil
}

// prefetch starts pulling an image in the background. Most sandboxes boot
// soon after their create, often on the host that resolved their image:
// a boot here joins the pull (one per image per host) instead of starting
// from nothing. A ref already here costs an inspect.
func (a *Activities) prefetch(image string) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), prefetchLimit)
		defer cancel()
		if err := a.Docker.EnsureImage(ctx, image, a.RegistryAuth, nil); err != nil {
			a.Log.Debug("prefetch an image at create", zap.String("image", image), zap.Error(err))
		}
	}()
}

// prefetchLimit bounds a pull started at create.
const prefetchLimit = 30 * time.Minute

// checkImageShape refuses an image whose /workspace is neither a directory
// nor a symlink (one to a directory works: Docker mounts where it points).
func (a *Activities) checkImageShape(ctx context.Context, ref string) error {
	kind, err := a.Docker.PathKind(ctx, ref, dockerrt.WorkspacePath)
	if err != nil {
		return err
	}
	switch kind {
	case "", "dir", "symlink":
		return nil
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("image %s: /workspace is a %s in the image; Berth mounts the workspace there, so it must be a directory or absent", ref, kind),
		contract.ErrImageUnsupported, nil)
}

// imageError maps the runtime's image errors to the API's codes. The
// registry's own words are kept (they name the registry and the ref,
// never the credentials).
func imageError(ref string, err error) error {
	switch {
	case errors.Is(err, dockerrt.ErrImageNotFound):
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrImageNotFound, nil)
	case errors.Is(err, dockerrt.ErrImageAuth):
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrImageAuthFailed, nil)
	case errors.Is(err, dockerrt.ErrImagePull):
		// Retryable for the caller (503 with Retry-After), not here: a boot
		// that retried a registry that is down would hold the start for
		// every attempt's backoff.
		return temporal.NewNonRetryableApplicationError(err.Error(), contract.ErrImagePullFailed, nil)
	}
	return fmt.Errorf("image %s: %w", ref, err)
}

// poolRuns reports whether the warm containers of a boot's instance type
// run the boot's image: a sandbox with an image of its own claims one only
// when that is the type's image too.
func (a *Activities) poolRuns(ctx context.Context, in contract.BootInput) bool {
	if in.Image == "" {
		return true
	}
	it, ok := a.InstanceTypes[in.InstanceType]
	if !ok {
		return false
	}
	own, err1 := a.Docker.Image(ctx, in.Image)
	pool, err2 := a.Docker.Image(ctx, a.typeImage(it))
	return err1 == nil && err2 == nil && own.ID == pool.ID
}
