package imagetest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// Target is a Berth the shape suite runs against.
type Target struct {
	Client *client.Client
	// Create claims name for a sandbox that runs the image of shape with
	// env, and returns the create's error.
	Create func(ctx context.Context, name, shape string, env map[string]string) error
	// Name makes a fresh sandbox name from a suffix.
	Name func(suffix string) string
	// Shapes limits the run to these shapes (nil: All).
	Shapes []string
	// DockerHost is the daemon the sandboxes run on ("" the default), for
	// the checks whose answer is whatever `docker run` shows there: how a
	// driver built an image's layers is that driver's business (the
	// classic builder on fuse-overlayfs drops opaque markers, so an
	// "opaque" directory keeps its old entries there under docker run too).
	DockerHost string
}

// sameAsDocker marks a check whose expected output is docker run's.
const sameAsDocker = "\x00docker run"

// dockerRun is what a shell command prints in a plain `docker run` of image.
func dockerRun(ctx context.Context, host, image, cmd string) (string, error) {
	c := exec.CommandContext(ctx, "docker", "run", "--rm", "--label", "io.berth.test=image-shape", "--network", "none",
		"--user", "0", "--entrypoint", "/bin/sh", image, "-c", cmd)
	if host != "" {
		c.Env = append(os.Environ(), "DOCKER_HOST="+host)
	}
	out, err := c.CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// RunShapes runs, for every shape, what a user of such an image checks
// first: the sandbox boots, runs a command as the image's user in the
// image's WORKDIR with its ENV under the sandbox's, sees the image's
// files (whiteouts honoured), writes to /workspace, and finds it again
// after sleeping and waking; an image Berth cannot run is refused clearly.
func RunShapes(t *testing.T, tg Target) {
	shapes := tg.Shapes
	if shapes == nil {
		shapes = All
	}
	for _, shape := range shapes {
		t.Run(shape, func(t *testing.T) {
			t.Parallel()
			runShape(t, tg, shape)
		})
	}
}

// expect is what a shape's sandbox shows.
type expect struct {
	uid, gid, home, pwd string
	checks              [][2]string // a shell command and its expected output
}

func expectOf(shape string) expect {
	e := expect{uid: "0", gid: "0", home: "/root", pwd: "/workspace"}
	switch shape {
	case Whiteouts:
		e.checks = [][2]string{{"ls /opt/a", sameAsDocker}, {"ls /opt", "a"}, {"test -e /opt/gone && echo there || echo gone", "gone"}, {"cat /opt/a/new", "new"}}
	case Baked:
		e.checks = [][2]string{{"cat /workspace/src/hello.txt", "seeded"}}
	case UserNamed:
		e.uid, e.gid, e.home = "1000", "1000", "/home/app"
	case UserNumeric:
		e.uid, e.gid, e.home = "1234", "1234", "/"
	case WorkdirEnv:
		e.pwd = "/app"
		e.checks = [][2]string{{"echo $FROM_IMAGE $SHARED", "image sandbox"}}
	case ManyLayers:
		e.checks = [][2]string{{"cat /layers/0 /layers/29", "0\n29"}}
	case DataVolume:
		e.checks = [][2]string{{"cat " + DataVolumeSeed, "image"}}
	case Symlink:
		e.pwd = "/data" // the shell prints the physical directory
		e.checks = [][2]string{{"cat /data/marker", "kept"}}
	}
	return e
}

func runShape(t *testing.T, tg Target, shape string) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	name := tg.Name(strings.ReplaceAll(shape, "-", ""))
	t.Cleanup(func() { tg.Client.Destroy(context.WithoutCancel(ctx), name) })
	err := tg.Create(ctx, name, shape, map[string]string{"SHARED": "sandbox"})
	sb := tg.Client.Sandbox(name)
	if shape == RegularFile {
		if err == nil { // a target that cannot tell at create tells at the first boot
			_, err = sb.Run(ctx, []string{"true"}, client.RunOptions{})
		}
		if !errors.Is(err, api.CodeImageUnsupported) || !strings.Contains(err.Error(), "/workspace") {
			t.Fatalf("an image whose /workspace is a file: want IMAGE_UNSUPPORTED naming /workspace, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	e := expectOf(shape)
	sh := func(cmd string, o client.RunOptions) string {
		t.Helper()
		r, err := sb.Run(ctx, []string{"sh", "-c", cmd}, o)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if r.ExitCode != 0 {
			t.Fatalf("%s: exit %d: %s%s", cmd, r.ExitCode, r.Stdout, r.Stderr)
		}
		return strings.TrimSpace(string(r.Stdout))
	}
	if got, want := sh("echo $(id -u) $(id -g) $HOME $(pwd)", client.RunOptions{}), strings.Join([]string{e.uid, e.gid, e.home, e.pwd}, " "); got != want {
		t.Errorf("uid gid HOME cwd: got %q, want %q", got, want)
	}
	if got := sh("stat -c '%u:%g' /workspace/", client.RunOptions{}); got != e.uid+":"+e.gid {
		t.Errorf("/workspace belongs to %s, want the image's user %s:%s", got, e.uid, e.gid)
	}
	if shape == Symlink {
		sh("echo kept > /workspace/marker", client.RunOptions{})
	}
	for _, c := range e.checks {
		want := c[1]
		if want == sameAsDocker {
			var err error
			if want, err = dockerRun(ctx, tg.DockerHost, Tag(shape), c[0]); err != nil {
				t.Fatalf("docker run %s %s: %v: %s", Tag(shape), c[0], err, want)
			}
		}
		if got := sh(c[0], client.RunOptions{}); got != want {
			t.Errorf("%s: got %q, want %q", c[0], got, want)
		}
	}
	if e.uid != "0" {
		if got := sh("id -u", client.RunOptions{ExecOptions: client.ExecOptions{User: "root"}}); got != "0" {
			t.Errorf("user root: id -u = %q", got)
		}
	}
	// Written by a command and by the files API: both the user's, both kept.
	sh("mkdir -p /workspace/w && echo by-command > /workspace/w/cmd.txt", client.RunOptions{})
	if _, err := sb.WriteFile(ctx, "/workspace/w/api.txt", strings.NewReader("by-api\n"), client.WriteOptions{}); err != nil {
		t.Fatalf("write through the files API: %v", err)
	}
	if got := sh("stat -c '%u' /workspace/w/api.txt && echo more >> /workspace/w/api.txt && echo ok", client.RunOptions{}); got != e.uid+"\nok" {
		t.Errorf("a file the API wrote: owner and append as the image's user: %q", got)
	}
	if shape == Baked {
		sh("rm -r /workspace/src", client.RunOptions{})
	}
	if _, err := tg.Client.Sleep(ctx, name); err != nil {
		t.Fatalf("sleep: %v", err)
	}
	if shape == DataVolume {
		// Docker made an anonymous volume for the image's /data at the
		// create's check and at the boot: none may outlive its container.
		requireNoLeftoverSeededVolumes(t, ctx, tg.DockerHost)
	}
	want := "by-command\nby-api\nmore"
	if got := sh("cat /workspace/w/cmd.txt /workspace/w/api.txt", client.RunOptions{}); got != want {
		t.Errorf("after sleep and wake: %q, want %q", got, want)
	}
	if shape == Baked {
		// The image seeds the first boot only: what the user deleted stays deleted.
		if got := sh("test -e /workspace/src && echo reseeded || echo deleted", client.RunOptions{}); got != "deleted" {
			t.Errorf("the image's /workspace came back over the user's workspace after a wake: %s", got)
		}
	}
	if slices.Contains([]string{UserNamed, UserNumeric}, shape) {
		if got := sh("stat -c '%u' /workspace/w/cmd.txt", client.RunOptions{}); got != e.uid {
			t.Errorf("after a wake the user's file belongs to %s", got)
		}
	}
	// A fork runs its origin's image: the same user, the same files.
	origin, err := tg.Client.Get(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	fork := tg.Name(strings.ReplaceAll(shape, "-", "") + "fork")
	t.Cleanup(func() { tg.Client.Destroy(context.WithoutCancel(ctx), fork) })
	info, _, err := tg.Client.Fork(ctx, client.CreateRequest{Name: fork}, client.ForkFrom{Sandbox: name})
	if err != nil {
		t.Fatalf("fork: %v", err)
	}
	if info.ImageDigest != origin.ImageDigest {
		t.Errorf("the fork runs %q, its origin %q", info.ImageDigest, origin.ImageDigest)
	}
	r, err := tg.Client.Sandbox(fork).Run(ctx, []string{"sh", "-c", "id -u; cat /workspace/w/cmd.txt"}, client.RunOptions{})
	if err != nil {
		t.Fatalf("run in the fork: %v", err)
	}
	if got := strings.TrimSpace(string(r.Stdout)); got != e.uid+"\nby-command" {
		t.Errorf("in the fork: %q, want the image's user and the origin's file", got)
	}
}

// requireNoLeftoverSeededVolumes fails when a volume that no container
// uses holds DataVolumeSeed: an anonymous volume of the data-volume image
// left behind. A removal in flight (another test's) is given 10 s.
func requireNoLeftoverSeededVolumes(t *testing.T, ctx context.Context, host string) {
	t.Helper()
	docker := func(args ...string) (string, error) {
		c := exec.CommandContext(ctx, "docker", args...)
		if host != "" {
			c.Env = append(os.Environ(), "DOCKER_HOST="+host)
		}
		out, err := c.Output()
		return strings.TrimSpace(string(out)), err
	}
	var left []string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		left = left[:0]
		names, err := docker("volume", "ls", "-q", "--filter", "dangling=true")
		if err != nil {
			t.Fatalf("docker volume ls: %v", err)
		}
		if names != "" {
			// An error with some output: one went meanwhile; the rest count.
			out, _ := docker(append([]string{"volume", "inspect", "--format", "{{.Name}} {{.Mountpoint}}"}, strings.Fields(names)...)...)
			for _, l := range strings.Split(out, "\n") {
				name, mp, _ := strings.Cut(l, " ")
				if _, err := os.Stat(filepath.Join(mp, filepath.Base(DataVolumeSeed))); err == nil {
					left = append(left, name)
				}
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("anonymous volumes of the image's VOLUME /data outlived their containers: %v", left)
		}
	}
}
