// Package imagetest builds sandbox images of the shapes people bring (no
// /workspace, VOLUME /workspace or another path, content baked into /workspace, whiteouts
// and opaque directories, a non-root USER with and without a passwd entry,
// ENTRYPOINT/CMD, WORKDIR and ENV, a symlinked or regular-file /workspace,
// many layers) with `docker build`, from Debian's static busybox and no
// registry, for the tests of any Docker host.
package imagetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Shape names; the image of shape S is Tag(S).
const (
	NoWorkspace = "no-workspace" // FROM scratch + busybox, CMD ["/bin/sh"]; the base of the rest
	Volume      = "volume"       // VOLUME /workspace
	Baked       = "baked"        // /workspace/src/hello.txt = "seeded\n", owned by 0:0
	Whiteouts   = "whiteouts"    // /opt/a replaced (opaque), /opt/gone removed (whiteout)
	UserNamed   = "user-named"   // USER app (1000:1000 in /etc/passwd, home /home/app)
	UserNumeric = "user-numeric" // USER 1234:1234, no passwd entry
	Entrypoint  = "entrypoint"   // ENTRYPOINT ["/bin/false"], CMD ["never"]
	WorkdirEnv  = "workdir-env"  // WORKDIR /app, ENV FROM_IMAGE=image SHARED=image
	Symlink     = "symlink"      // /workspace -> /data
	RegularFile = "regular-file" // /workspace is a regular file: unsupported
	ManyLayers  = "many-layers"  // 30 more layers, each adding /layers/N holding "N\n"
	ManyLayersN = 30
	DataVolume  = "data-volume" // VOLUME /data holding DataVolumeSeed from the image
	// DataVolumeSeed is the file the data-volume image has in /data: it
	// marks the anonymous volumes Docker makes for that path.
	DataVolumeSeed = "/data/berth-shape-seed"
	tagPrefix      = "berth/shape-"
	busyboxSource  = "/bin/busybox"
)

// All is every shape, base first.
var All = []string{NoWorkspace, Volume, Baked, Whiteouts, UserNamed, UserNumeric, Entrypoint, WorkdirEnv, Symlink, RegularFile, ManyLayers, DataVolume}

// Tag is the image tag of a shape.
func Tag(shape string) string { return tagPrefix + shape + ":latest" }

// dockerfiles are the shapes' Dockerfiles; every one but the base starts
// FROM the base.
func dockerfile(shape string) string {
	from := "FROM " + Tag(NoWorkspace) + "\n"
	switch shape {
	case NoWorkspace:
		return "FROM scratch\nCOPY busybox /bin/busybox\n" +
			"RUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n" +
			"RUN mkdir -p /etc /tmp /root && chmod 1777 /tmp && echo 'root:x:0:0:root:/root:/bin/sh' > /etc/passwd && echo 'root:x:0:' > /etc/group\n" +
			"ENV PATH=/bin\nCMD [\"/bin/sh\"]\n"
	case Volume:
		return from + "VOLUME /workspace\n"
	case Baked:
		return from + "RUN mkdir -p /workspace/src && echo seeded > /workspace/src/hello.txt\n"
	case Whiteouts:
		return from + "RUN mkdir -p /opt/a/old /opt/gone && echo old > /opt/a/old/f && echo x > /opt/gone/f\n" +
			"RUN rm -rf /opt/gone && rm -rf /opt/a && mkdir /opt/a && echo new > /opt/a/new\n"
	case UserNamed:
		return from + "RUN echo 'app:x:1000:1000:app:/home/app:/bin/sh' >> /etc/passwd && echo 'app:x:1000:' >> /etc/group && mkdir -p /home/app && chown 1000:1000 /home/app\nUSER app\n"
	case UserNumeric:
		return from + "USER 1234:1234\n"
	case Entrypoint:
		return from + "ENTRYPOINT [\"/bin/false\"]\nCMD [\"never\"]\n"
	case WorkdirEnv:
		return from + "RUN mkdir /app\nWORKDIR /app\nENV FROM_IMAGE=image SHARED=image\n"
	case Symlink:
		return from + "RUN mkdir /data && ln -s /data /workspace\n"
	case RegularFile:
		return from + "RUN echo not-a-directory > /workspace\n"
	case DataVolume:
		return from + "RUN mkdir /data && echo image > " + DataVolumeSeed + "\nVOLUME /data\n"
	case ManyLayers:
		var b strings.Builder
		b.WriteString(from)
		for i := 0; i < ManyLayersN; i++ { // COPY: a layer each, no container to run
			fmt.Fprintf(&b, "COPY %d /layers/%d\n", i, i)
		}
		return b.String()
	}
	panic("unknown shape " + shape)
}

// Build builds every shape on the Docker daemon the docker CLI reaches
// with dockerHost ("" for the default), skipping images already there.
func Build(ctx context.Context, dockerHost string) error {
	// Test packages build them side by side: one at a time on a machine,
	// so that a tag never moves under another package's feet.
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "berth-imagetest.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	for _, shape := range All {
		if err := build(ctx, dockerHost, shape); err != nil {
			return err
		}
	}
	return nil
}

func build(ctx context.Context, dockerHost, shape string) error {
	docker := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, "docker", args...)
		cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=0") // the classic builder needs no registry for FROM scratch
		if dockerHost != "" {
			cmd.Env = append(cmd.Env, "DOCKER_HOST="+dockerHost)
		}
		return cmd
	}
	if docker("image", "inspect", Tag(shape)).Run() == nil {
		return nil
	}
	dir, err := os.MkdirTemp("", "berth-shape-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if shape == NoWorkspace {
		bb, err := os.ReadFile(busyboxSource)
		if err != nil {
			return fmt.Errorf("the image shapes need a static busybox (Debian's busybox-static): %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "busybox"), bb, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte(dockerfile(shape)), 0o644); err != nil {
		return err
	}
	if shape == ManyLayers {
		for i := 0; i < ManyLayersN; i++ {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(i)), []byte(fmt.Sprintln(i)), 0o644); err != nil {
				return err
			}
		}
	}
	cmd := docker("build", "-q", "--label", "io.berth.test=image-shape", "-t", Tag(shape), dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("docker build %s: %v\n%s", Tag(shape), err, out)
	}
	return nil
}
