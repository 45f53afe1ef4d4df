package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/filters"
	"github.com/docker/docker/api/types/image"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/internal/supervisorbin"
)

// devRun is one real `berth dev` process (the binary built from this tree)
// with its own data dir, config dir, ports and host id.
type devRun struct {
	cmd       *exec.Cmd
	dataDir   string
	configDir string // XDG_CONFIG_HOME
	hostID    string
	api       *stacktest.Stack // URL and token of its gateway, for Do/Must
	done      chan struct{}    // closed when the process has exited
	exitCode  int

	mu     sync.Mutex
	output strings.Builder
}

// startDev runs `berth dev` with the given default image and waits (up to
// ready) until its gateway answers /healthz. Its output goes to the test log
// as it comes, so a long first run (an image build) shows its progress.
func startDev(t *testing.T, defaultImage string, ready time.Duration, env ...string) *devRun {
	t.Helper()
	root, err := supervisorbin.ModuleRoot()
	require.NoError(t, err)
	free := func() string {
		p, err := devserver.FreePort("127.0.0.1")
		require.NoError(t, err)
		return strconv.Itoa(p)
	}
	d := &devRun{dataDir: t.TempDir(), configDir: t.TempDir(), hostID: "d" + randSuffix(), done: make(chan struct{})}
	listen := "127.0.0.1:" + free()
	// Port 0: the dev server picks its ports when it starts (and new ones
	// if it cannot bind them). Ports picked here could be taken by then,
	// after a build of the image that takes minutes, by another test
	// package's servers: CI saw all three launches exit at once.
	d.cmd = exec.Command(stack.Bin, "dev", "--listen", listen, "--temporal-port", "0", "--ui-port", "0")
	d.cmd.Dir = root // builds the image from the source tree it runs in
	d.cmd.Env = append(os.Environ(),
		"BERTH_DATA_DIR="+d.dataDir, "XDG_CONFIG_HOME="+d.configDir, "BERTH_HOST_ID="+d.hostID,
		"BERTH_DEFAULT_IMAGE="+defaultImage, "BERTH_SUPERVISOR="+stack.Supervisor, "BERTH_LOG_LEVEL=info",
		"BERTH_TOKEN=", "BERTH_SECRET=", "BERTH_URL=", "TEMPORAL_ADDRESS=", "BERTH_BACKUP_URL=")
	d.cmd.Env = append(d.cmd.Env, env...)
	if os.Getenv("BERTH_TEMPORAL_CLI") == "" {
		d.cmd.Env = append(d.cmd.Env, "BERTH_TEMPORAL_CLI="+filepath.Join(root, ".berth", "bin", "temporal"))
	}
	pr, pw := io.Pipe()
	d.cmd.Stdout, d.cmd.Stderr = pw, pw
	// childproc forks from a thread that never exits: a parent-death
	// signal follows the forking thread, which a parallel test's netns
	// work can retire (berth dev was SIGKILLed mid-start in CI).
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, childproc.Start(d.cmd))
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			d.mu.Lock()
			d.output.WriteString(sc.Text() + "\n")
			d.mu.Unlock()
			t.Log("berth dev: " + sc.Text())
		}
	}()
	go func() {
		_ = d.cmd.Wait()
		d.exitCode = d.cmd.ProcessState.ExitCode()
		pw.Close()
		<-logged
		close(d.done)
	}()
	t.Cleanup(func() { d.stop(t) })

	url := "http://" + listen
	deadline := time.Now().Add(ready)
	for {
		select {
		case <-d.done:
			t.Fatalf("berth dev exited (%d) before its gateway answered", d.exitCode)
		default:
		}
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		require.True(t, time.Now().Before(deadline), "berth dev's gateway did not answer within %s", ready)
		time.Sleep(200 * time.Millisecond)
	}
	var cfg struct{ URL, Token string }
	b, err := os.ReadFile(filepath.Join(d.dataDir, "client.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cfg))
	require.Equal(t, url, cfg.URL)
	d.api = &stacktest.Stack{URL: cfg.URL, Token: cfg.Token}
	return d
}

// Output is what berth dev printed so far.
func (d *devRun) Output() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.output.String()
}

// interrupt sends Ctrl-C and waits for berth dev to exit.
func (d *devRun) interrupt(t *testing.T, limit time.Duration) {
	t.Helper()
	_ = d.cmd.Process.Signal(os.Interrupt)
	select {
	case <-d.done:
	case <-time.After(limit):
		t.Fatalf("berth dev did not exit within %s of Ctrl-C", limit)
	}
}

// stop ends berth dev if it still runs and removes what it left in Docker.
func (d *devRun) stop(t *testing.T) {
	select {
	case <-d.done:
	default:
		_ = d.cmd.Process.Signal(os.Interrupt)
		select {
		case <-d.done:
		case <-time.After(90 * time.Second):
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-d.done
		}
	}
	stacktest.RemoveHostObjects(context.Background(), stack.Docker, d.hostID)
}

// temporalPID is the dev server child of berth dev, from the pid file it
// keeps; it checks that the process is alive and berth dev's child.
func (d *devRun) temporalPID(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(d.dataDir, "temporal", "temporal.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.Equal(t, d.cmd.Process.Pid, parentPID(t, pid), "pid %d is not berth dev's child", pid)
	return pid
}

// parentPID reads a live process's parent from /proc (0 if it is gone).
func parentPID(t *testing.T, pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces, so split after ')'.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 || f[0] == "Z" {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// `berth dev` writes the client config to the user's config directory too
// (0700 dir, 0600 file), so the CLI finds the gateway from any directory.
func TestDevWritesUserClientConfig(t *testing.T) {
	t.Parallel()
	d := startDev(t, stacktest.TestImage, 2*time.Minute)
	dir := filepath.Join(d.configDir, "berth")
	path := filepath.Join(dir, "client.json")
	st, err := os.Stat(dir)
	require.NoError(t, err, "berth dev wrote no %s", path)
	require.Equal(t, os.FileMode(0o700), st.Mode().Perm(), "config dir mode")
	st, err = os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "client.json mode")
	var cfg struct{ URL, Token string }
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &cfg))
	require.Equal(t, d.api.URL, cfg.URL)
	require.Equal(t, d.api.Token, cfg.Token)
	// The token in it opens the gateway.
	d.api.Must(t, 200, "GET", "/v1/sandboxes", nil)
}

// With its Temporal dev server SIGKILLed, `berth dev` restarts it on the
// same database and ports: the sandbox created before is still there and
// lifecycle calls work; Ctrl-C then stops everything for good.
func TestDevRestartsKilledTemporal(t *testing.T) {
	t.Parallel()
	d := startDev(t, stacktest.TestImage, 2*time.Minute)
	n := name(t, "devheal")
	sb := d.api.Client().Sandbox(n)
	ctx := testCtx(t, 2*time.Minute)
	d.api.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	// A start needs the worker: it is polling before Temporal goes.
	d.api.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	require.Equal(t, "before\n", string(run(t, ctx, sb, "sh", "-c", "echo before > /workspace/f; cat /workspace/f").Stdout))
	db := filepath.Join(d.dataDir, "temporal", "temporal.db")
	before, err := os.Stat(db)
	require.NoError(t, err)

	first := d.temporalPID(t)
	require.NoError(t, syscall.Kill(first, syscall.SIGKILL))
	killed := time.Now()
	stacktest.WaitFor(t, 60*time.Second, "berth dev to restart Temporal and list the sandbox", func() (bool, string) {
		r := d.api.Do(t, "GET", "/v1/sandboxes", nil)
		return r.Status == 200 && strings.Contains(string(r.Body), `"`+n+`"`), fmt.Sprintf("%d %s", r.Status, r.Body)
	})
	t.Logf("sandbox listed again %.1fs after the SIGKILL", time.Since(killed).Seconds())
	second := d.temporalPID(t)
	require.NotEqual(t, first, second, "a new dev server process")
	after, err := os.Stat(db)
	require.NoError(t, err)
	require.True(t, os.SameFile(before, after), "the restarted server uses the same SQLite file")
	require.Contains(t, d.Output(), "restarting it on the same database")

	// Lifecycle calls go through the worker and the restarted Temporal.
	var v struct{ Status string }
	d.api.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil).JSON(t, &v)
	require.Equal(t, "stopped", v.Status)
	d.api.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil).JSON(t, &v)
	require.Equal(t, "running", v.Status)
	require.Equal(t, "before\n", string(run(t, ctx, sb, "cat", "/workspace/f").Stdout))
	d.api.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)

	// Ctrl-C stops berth dev and its Temporal, which is not restarted.
	d.interrupt(t, 60*time.Second)
	require.Equal(t, 0, d.exitCode, "berth dev's exit status")
	require.Zero(t, parentPID(t, second), "the dev server outlived berth dev")
	_, err = os.Stat(filepath.Join(d.dataDir, "temporal", "temporal.pid"))
	require.True(t, os.IsNotExist(err), "pid file left behind: %v", err)
}

// On a Docker without the configured default image, `berth dev` builds it
// with deploy/images/build.sh (debootstrap, about a minute), comes up, and a
// sandbox on that image runs a command. The image gets a fresh tag so the
// shared berth/sandbox:latest is never touched.
func TestDevBuildsMissingImage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds a Debian image (about a minute)")
	}
	tag := "berth/sandbox:t-" + randSuffix()
	ctx := context.Background()
	_, err := stack.DockerAPI.ImageInspect(ctx, tag)
	require.True(t, dockerrt.IsNotFound(err), "image %s exists already: %v", tag, err)
	t.Cleanup(func() {
		_, _ = stack.DockerAPI.ImageRemove(context.Background(), tag, image.RemoveOptions{Force: true, PruneChildren: true})
	})
	t.Logf("berth dev builds %s (about a minute)...", tag)
	start := time.Now()
	d := startDev(t, tag, 10*time.Minute)
	t.Logf("berth dev came up %.0fs after it started", time.Since(start).Seconds())
	require.Contains(t, d.Output(), "image "+tag+" is missing; building it")
	img, err := stack.DockerAPI.ImageInspect(ctx, tag)
	require.NoError(t, err, "berth dev did not build %s", tag)
	require.Equal(t, "sandbox", img.Config.Labels["io.berth.image"])

	n := name(t, "devimg")
	d.api.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	sb := d.api.Client().Sandbox(n)
	out := run(t, testCtx(t, 2*time.Minute), sb, "python3", "-c", "print('on debian')")
	require.Equal(t, "on debian\n", string(out.Stdout))
	d.api.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	d.interrupt(t, 60*time.Second)
	require.Equal(t, 0, d.exitCode)
}

// `berth dev` with a warm pool fills it, and Ctrl-C leaves none of its
// warm containers or volumes behind (a `berth worker` keeps them for the
// next worker to adopt).
func TestDevDropsItsWarmPoolOnExit(t *testing.T) {
	t.Parallel()
	d := startDev(t, stacktest.TestImage, 2*time.Minute, "BERTH_WARM_POOL=basic=1")
	ctx := context.Background()
	docker, err := dockerrt.New()
	require.NoError(t, err)
	defer docker.Close()
	ours := filters.NewArgs(filters.Arg("label", dockerrt.LabelPool), filters.Arg("label", dockerrt.LabelHost+"="+d.hostID))
	require.Eventually(t, func() bool {
		cs, err := docker.Containers(ctx, ours, false)
		return err == nil && len(cs) == 1
	}, time.Minute, 200*time.Millisecond, "berth dev made no warm container")

	// A sandbox that claimed a warm container, running when Ctrl-C puts it
	// to sleep: the name of its warm volume goes too.
	d.api.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": "warm-dev", "start": true})
	require.Eventually(t, func() bool {
		var v struct{ Status string }
		d.api.Must(t, 200, "GET", "/v1/sandboxes/warm-dev", nil).JSON(t, &v)
		return v.Status == "running"
	}, time.Minute, 100*time.Millisecond)

	d.interrupt(t, 2*time.Minute)
	cs, err := docker.Containers(ctx, ours, true)
	require.NoError(t, err)
	require.Empty(t, cs, "warm containers outlived berth dev")
	vs, err := docker.Volumes(ctx, ours)
	require.NoError(t, err)
	require.Empty(t, vs, "warm volumes outlived berth dev")
}

// Ctrl-C sleeps a dozing sandbox too: its frozen container must not
// outlive berth dev (it did: only running ones were put to sleep).
func TestDevSleepsDozingSandboxesOnExit(t *testing.T) {
	t.Parallel()
	d := startDev(t, stacktest.TestImage, 2*time.Minute)
	ctx := context.Background()
	docker, err := dockerrt.New()
	require.NoError(t, err)
	defer docker.Close()
	d.api.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": "dozy-dev", "start": true, "dozeAfter": "1s"})
	require.Eventually(t, func() bool {
		var v struct{ Status string }
		d.api.Must(t, 200, "GET", "/v1/sandboxes/dozy-dev", nil).JSON(t, &v)
		return v.Status == "dozing"
	}, time.Minute, 200*time.Millisecond, "the sandbox never dozed")

	d.interrupt(t, 2*time.Minute)
	require.Equal(t, 0, d.exitCode)
	cs, err := docker.Containers(ctx, filters.NewArgs(filters.Arg("label", dockerrt.LabelSandbox+"=dozy-dev"),
		filters.Arg("label", dockerrt.LabelHost+"="+d.hostID)), true)
	require.NoError(t, err)
	require.Empty(t, cs, "a dozing sandbox's container outlived berth dev")
}
