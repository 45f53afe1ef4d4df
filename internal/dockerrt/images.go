package dockerrt

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/distribution/reference"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/api/types/registry"
	"github.com/docker/docker/pkg/jsonmessage"
)

// Image errors, by what the caller should do: a ref no registry knows
// (ErrImageNotFound), credentials a registry refused (ErrImageAuth), and
// a registry that could not be reached or failed (ErrImagePull, worth a
// retry).
var (
	ErrImageNotFound = errors.New("image not found")
	ErrImageAuth     = errors.New("registry refused the credentials")
	ErrImagePull     = errors.New("image pull failed")
)

// RegistryAuth holds registry credentials by registry host, as a Docker
// config.json's "auths" does (BERTH_REGISTRY_AUTH).
type RegistryAuth map[string]registry.AuthConfig

// LoadRegistryAuth reads a Docker config.json; "" is no credentials.
func LoadRegistryAuth(path string) (RegistryAuth, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("registry credentials: %w", err)
	}
	var cfg struct {
		Auths map[string]registry.AuthConfig `json:"auths"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("registry credentials %s: not a Docker config.json: %w", path, err)
	}
	out := RegistryAuth{}
	for host, a := range cfg.Auths {
		if a.Auth != "" && a.Username == "" {
			raw, err := base64.StdEncoding.DecodeString(a.Auth)
			user, pass, ok := strings.Cut(string(raw), ":")
			if err != nil || !ok {
				return nil, fmt.Errorf("registry credentials %s: the auth of %s is not base64 of user:password", path, host)
			}
			a.Username, a.Password, a.Auth = user, pass, ""
		}
		a.ServerAddress = host
		out[registryHost(host)] = a
	}
	return out, nil
}

// registryHost reduces a config.json key ("https://index.docker.io/v1/",
// "ghcr.io") to a registry host as reference.Domain spells it.
func registryHost(key string) string {
	key = strings.TrimPrefix(strings.TrimPrefix(key, "https://"), "http://")
	key, _, _ = strings.Cut(key, "/")
	if key == "index.docker.io" || key == "registry-1.docker.io" {
		return "docker.io"
	}
	return key
}

// encoded is the X-Registry-Auth header for the registry of ref.
func (a RegistryAuth) encoded(ref reference.Named) string {
	c, ok := a[reference.Domain(ref)]
	if !ok {
		return ""
	}
	s, _ := registry.EncodeAuthConfig(c)
	return s
}

// ResolvedImage is an image ref fixed to what it names now.
type ResolvedImage struct {
	// Digest is what every later boot runs: name@sha256:… (the manifest a
	// registry serves, pullable on any host), or the image id sha256:…
	// of an image only this host has (built or loaded here).
	Digest string
	Local  bool // this host has it
}

// ResolveImage fixes ref to a digest: an image this host has is taken as
// it is here (its registry digest when it came from one), else the
// registry is asked what the ref names now.
func (r *Runtime) ResolveImage(ctx context.Context, ref string, auth RegistryAuth) (ResolvedImage, error) {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ResolvedImage{}, fmt.Errorf("%w: %q is not an image reference: %v", ErrImageNotFound, ref, err)
	}
	if info, err := r.cli.ImageInspect(ctx, ref); err == nil {
		for _, rd := range info.RepoDigests {
			if d, err := reference.ParseNormalizedNamed(rd); err == nil && d.Name() == named.Name() {
				return ResolvedImage{Digest: rd, Local: true}, nil
			}
		}
		return ResolvedImage{Digest: info.ID, Local: true}, nil
	} else if !IsNotFound(err) {
		return ResolvedImage{}, err
	}
	if strings.HasPrefix(ref, "sha256:") {
		return ResolvedImage{}, fmt.Errorf("%w: image id %s is not on this host", ErrImageNotFound, ref)
	}
	dist, err := r.cli.DistributionInspect(ctx, named.String(), auth.encoded(named))
	if err != nil {
		return ResolvedImage{}, classifyPull(reference.Domain(named), err)
	}
	canonical, err := reference.WithDigest(reference.TrimNamed(named), dist.Descriptor.Digest)
	if err != nil {
		return ResolvedImage{}, err
	}
	return ResolvedImage{Digest: canonical.String()}, nil
}

// classifyPull sorts a registry error into the image errors.
func classifyPull(domain string, err error) error {
	msg := err.Error()
	low := strings.ToLower(msg)
	switch {
	case strings.Contains(low, "unauthorized") || strings.Contains(low, "authentication required") ||
		strings.Contains(low, "no basic auth credentials") || strings.Contains(low, "incorrect username or password"):
		return fmt.Errorf("%w: registry %s: %s", ErrImageAuth, domain, msg)
	case strings.Contains(low, "manifest unknown") || strings.Contains(low, "not found") ||
		strings.Contains(low, "name unknown") || strings.Contains(low, "does not exist"):
		return fmt.Errorf("%w: %s", ErrImageNotFound, msg)
	}
	return fmt.Errorf("%w: registry %s: %s", ErrImagePull, domain, msg)
}

// PullProgress reports a pull's bytes so far (done) of its layers' total;
// total is 0 until the registry told the sizes.
type PullProgress func(done, total int64)

// EnsureImage makes sure this host has image (a digest from ResolveImage),
// pulling it when missing. Concurrent calls for one image share one pull;
// each caller gets the progress of that pull.
func (r *Runtime) EnsureImage(ctx context.Context, img string, auth RegistryAuth, progress PullProgress) error {
	if _, err := r.cli.ImageInspect(ctx, img); err == nil {
		return nil
	} else if !IsNotFound(err) {
		return err
	}
	named, err := reference.ParseNormalizedNamed(img)
	if err != nil || strings.HasPrefix(img, "sha256:") {
		return fmt.Errorf("%w: image %s is not on this host and names no registry to pull it from", ErrImageNotFound, img)
	}
	p := r.pullOf(img)
	if progress != nil {
		defer p.unwatch(p.watch(progress))
	}
	ch := r.pulls.DoChan(img, func() (any, error) {
		// Not the caller's context: another boot may be waiting for it.
		return nil, r.pull(context.WithoutCancel(ctx), named, auth, p)
	})
	select {
	case res := <-ch:
		return res.Err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *Runtime) pull(ctx context.Context, named reference.Named, auth RegistryAuth, p *pullState) error {
	defer r.pullsByRef.Delete(named.String())
	rc, err := r.cli.ImagePull(ctx, named.String(), image.PullOptions{RegistryAuth: auth.encoded(named)})
	if err != nil {
		return classifyPull(reference.Domain(named), err)
	}
	defer rc.Close()
	dec := json.NewDecoder(rc)
	for {
		var m jsonmessage.JSONMessage
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: reading the pull of %s: %v", ErrImagePull, named, err)
		}
		if m.Error != nil {
			return classifyPull(reference.Domain(named), errors.New(m.Error.Message))
		}
		if m.Progress != nil && m.ID != "" && (m.Status == "Downloading" || m.Status == "Download complete") {
			p.layer(m.ID, m.Progress.Current, m.Progress.Total, m.Status == "Download complete")
		}
	}
}

// pullOf is the shared state of the pull of img.
func (r *Runtime) pullOf(img string) *pullState {
	v, _ := r.pullsByRef.LoadOrStore(img, &pullState{layers: map[string][2]int64{}, watchers: map[int]PullProgress{}})
	return v.(*pullState)
}

// pullState sums a pull's layers for everyone watching it.
type pullState struct {
	mu       sync.Mutex
	layers   map[string][2]int64 // id -> done, total
	watchers map[int]PullProgress
	next     int
}

func (p *pullState) watch(f PullProgress) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.watchers[p.next] = f
	return p.next
}

func (p *pullState) unwatch(id int) {
	p.mu.Lock()
	delete(p.watchers, id)
	p.mu.Unlock()
}

func (p *pullState) layer(id string, done, total int64, complete bool) {
	p.mu.Lock()
	l := p.layers[id]
	if total > 0 {
		l[1] = total
	}
	l[0] = done
	if complete {
		l[0] = l[1]
	}
	p.layers[id] = l
	var sumDone, sumTotal int64
	for _, l := range p.layers {
		sumDone += l[0]
		sumTotal += l[1]
	}
	ws := make([]PullProgress, 0, len(p.watchers))
	for _, w := range p.watchers {
		ws = append(ws, w)
	}
	p.mu.Unlock()
	for _, w := range ws {
		w(sumDone, sumTotal)
	}
}

// PathKind says what path is in image ("" when absent): "dir",
// "symlink", "file" or another file type, read from a created (never
// started) container that is removed at once.
func (r *Runtime) PathKind(ctx context.Context, img, path string) (string, error) {
	c, err := r.cli.ContainerCreate(ctx, &container.Config{Image: img, Entrypoint: []string{"/"}, Labels: map[string]string{LabelManaged: "true"}},
		&container.HostConfig{NetworkMode: "none"}, nil, nil, "")
	if err != nil {
		return "", fmt.Errorf("inspect the files of %s: %w", img, err)
	}
	// RemoveVolumes: creating it made an anonymous volume for each of the
	// image's VOLUME paths.
	defer r.cli.ContainerRemove(context.WithoutCancel(ctx), c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
	st, err := r.cli.ContainerStatPath(ctx, c.ID, path)
	if err != nil {
		if IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("inspect %s in %s: %w", path, img, err)
	}
	switch m := st.Mode; {
	case m.IsDir():
		return "dir", nil
	case m&os.ModeSymlink != 0:
		return "symlink", nil
	case m.IsRegular():
		return "file", nil
	default:
		return m.Type().String(), nil
	}
}
