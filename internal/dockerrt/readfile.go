package dockerrt

import (
	"archive/tar"
	"context"
	"fmt"
	"io"
	"net/netip"
	"path"
)

// ReadFile reads a regular file of a container (created or running) from
// its image and layers, following up to four symbolic links. It reads at
// most max bytes; a larger file is an error.
func (r *Runtime) ReadFile(ctx context.Context, id, name string, max int64) ([]byte, error) {
	for range 5 {
		rc, _, err := r.cli.CopyFromContainer(ctx, id, name)
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(rc)
		h, err := tr.Next()
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			rc.Close()
			if path.IsAbs(h.Linkname) {
				name = h.Linkname
			} else {
				name = path.Join(path.Dir(name), h.Linkname)
			}
			continue
		case tar.TypeReg:
		default:
			rc.Close()
			return nil, fmt.Errorf("%s is not a regular file", name)
		}
		if h.Size > max {
			rc.Close()
			return nil, fmt.Errorf("%s is larger than %d bytes", name, max)
		}
		b, err := io.ReadAll(io.LimitReader(tr, max))
		rc.Close()
		return b, err
	}
	return nil, fmt.Errorf("%s: too many symbolic links", name)
}

// SandboxGateway is the sandbox bridge's own IPv4 address on this host
// (the network's gateway): where connections redirected from sandboxes
// arrive.
func (r *Runtime) SandboxGateway(ctx context.Context) (string, error) {
	n, err := r.sandboxNetwork(ctx, false)
	if err != nil {
		return "", err
	}
	for _, c := range n.IPAM.Config {
		if a, err := netip.ParseAddr(c.Gateway); err == nil && a.Is4() {
			return a.String(), nil
		}
	}
	return "", fmt.Errorf("network %s has no IPv4 gateway", NetworkName)
}
