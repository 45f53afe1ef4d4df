package host

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/workflows/contract"
)

// Warm containers (activities/warm.go) get their trust directory before
// any sandbox exists: an empty one of their own under trust/.pool (no
// sandbox name starts with a dot), plus the image's roots, read once when
// the container is made. A claim moves the directory to the sandbox's
// place (the container's mount follows it) and writes the boot's CA and
// bundle into it, with no Docker call on the claim's path.

func (h *egressHost) poolTrustDir(name string) string {
	return filepath.Join(h.dir, "trust", ".pool", name)
}

// rootsFile holds a warm container's image roots until its claim.
const rootsFile = "image-roots.pem"

// PoolBoot makes warm container name's trust directory.
func (h *egressHost) PoolBoot(name, image string) (activities.EgressBoot, error) {
	dir := h.poolTrustDir(name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return activities.EgressBoot{}, err
	}
	return activities.EgressBoot{
		Env:      trustEnv,
		ReadOnly: []dockerrt.Bind{{Source: dir, Target: trustDir}},
		BeforeStart: func(ctx context.Context, id string) error {
			return writeFile(filepath.Join(dir, rootsFile), h.imageRoots(ctx, id, image))
		},
	}, nil
}

// ClaimBoot hands warm container name's trust directory to in.Sandbox
// and fills it for boot in.BootID; a retry finds it moved and fills it
// again.
func (h *egressHost) ClaimBoot(ctx context.Context, in contract.BootInput, name, containerID string) error {
	from, to := h.poolTrustDir(name), filepath.Join(h.dir, "trust", in.Sandbox)
	if _, err := os.Stat(from); err == nil {
		// What an earlier boot of the sandbox left here; its container
		// is gone (the boot removed it before claiming).
		if err := os.RemoveAll(to); err != nil {
			return err
		}
		if err := os.Rename(from, to); err != nil {
			return fmt.Errorf("hand over the trust directory: %w", err)
		}
	}
	roots, err := os.ReadFile(filepath.Join(to, rootsFile))
	if err != nil {
		return fmt.Errorf("the warm container's trust directory: %w", err)
	}
	b, _, err := h.prepareTrust(in)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(to, "bundle.pem"), append(roots, b.ca.CertPEM()...))
}

// DropPool removes the trust directory of a warm container that is gone.
func (h *egressHost) DropPool(name string) {
	if err := os.RemoveAll(h.poolTrustDir(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		h.log.Sugar().Warnw("remove a warm trust directory", "container", name, "error", err)
	}
}
