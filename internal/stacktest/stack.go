// Package stacktest runs a whole Berth for integration tests: a real
// Temporal dev server, `berth worker` and `berth gateway` as real child
// processes (so tests can SIGKILL and restart them), real Docker. Everything
// it creates carries io.berth.host=<a per-run host id> and is removed on Close.
package stacktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/docker/docker/api/types/filters"
	dockerclient "github.com/docker/docker/client"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/netguard"
	"github.com/berthdev/berth/internal/supervisorbin"
)

// TestImage is the minimal busybox image `deploy/images/build.sh test` builds.
const TestImage = "berth/test:latest"

// Options tune a stack.
type Options struct {
	Env []string // extra environment for worker and gateway
	// ListenIP is where Temporal's frontend and the gateway listen;
	// default 127.0.0.1. "0.0.0.0" is the production layout, where workers
	// reach Temporal over the network.
	ListenIP string
	// Hosts prepares the stack for AddHost (hosts.go): a network for the
	// hosts, Temporal's frontend reachable on it, backups in one store all
	// hosts share (a directory here, as S3 would be).
	Hosts bool
}

// Stack is one running Berth.
type Stack struct {
	Dir, Bin, Supervisor string
	Token, Secret        string
	SecretsKey           string // BERTH_SECRETS_KEY of every worker and gateway
	HostID               string
	URL                  string
	listen               string
	metrics              map[string]string // role: its BERTH_METRICS_LISTEN
	env                  []string
	root                 string
	cli                  string // the Temporal CLI
	temporal             *devserver.Server
	worker, gateway      *exec.Cmd
	Temporal             client.Client
	Docker               *dockerrt.Runtime
	// DockerAPI is the Engine API itself, for tests that act behind
	// Berth's back (kill, pause, list what is there).
	DockerAPI *dockerclient.Client

	net           *hostNet // Options.Hosts
	temporalRelay string   // Temporal's frontend on the hosts' network
	hosts         []*Host

	checkedOnce sync.Once
	checked     *http.Server // see CheckedURL
	checkedURL  string

	holdsBuilt bool     // see build
	alive      *os.File // see liveStacks
}

// Start builds the binaries and the test image if needed and starts
// Temporal, a worker and a gateway.
func Start(ctx context.Context, o Options) (*Stack, error) {
	root, err := supervisorbin.ModuleRoot()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "berth-stack-")
	if err != nil {
		return nil, err
	}
	s := &Stack{Dir: dir, root: root, Token: randHex(16), Secret: randHex(32), SecretsKey: randHex(32), HostID: "t" + randHex(4)}
	s.Bin, s.Supervisor = filepath.Join(dir, "berth"), filepath.Join(dir, "berth-supervisor")
	if err := s.build(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.holdsBuilt = true
	s.alive = liveStacks()
	if s.Docker, err = dockerrt.New(); err != nil {
		s.Close()
		return nil, err
	}
	if s.DockerAPI, err = dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation()); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.ensureImage(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if s.cli, err = temporalCLI(root); err != nil {
		s.Close()
		return nil, err
	}
	ip := o.ListenIP
	if ip == "" {
		ip = "127.0.0.1"
	}
	if s.temporal, err = devserver.Start(ctx, devserver.Options{CLI: s.cli, Dir: filepath.Join(dir, "temporal"), IP: ip, UIPort: -1}); err != nil {
		s.Close()
		return nil, err
	}
	var hostsEnv []string
	if o.Hosts {
		if err := s.prepareHosts(); err != nil {
			s.Close()
			return nil, err
		}
		hostsEnv = []string{"BERTH_BACKUP_URL=file://" + filepath.Join(dir, "data", "backups")}
	}
	if s.Temporal, err = client.Dial(client.Options{HostPort: s.temporal.Address()}); err != nil {
		s.Close()
		return nil, err
	}
	port, err := devserver.FreePort(ip)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.listen = net.JoinHostPort(ip, strconv.Itoa(port))
	// Each role its own metrics port: the defaults would collide between
	// the worker and the gateway, and between stacks.
	s.metrics = map[string]string{}
	for _, role := range []string{"worker", "gateway"} {
		p, err := devserver.FreePort("127.0.0.1")
		if err != nil {
			s.Close()
			return nil, err
		}
		s.metrics[role] = net.JoinHostPort("127.0.0.1", strconv.Itoa(p))
	}
	s.URL = "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	s.env = append([]string{
		"TEMPORAL_ADDRESS=" + s.temporal.Address(), "BERTH_SECRET=" + s.Secret, "BERTH_SECRETS_KEY=" + s.SecretsKey, "BERTH_TOKEN=" + s.Token,
		"BERTH_HOST_ID=" + s.HostID, "BERTH_SUPERVISOR=" + s.Supervisor, "BERTH_DEFAULT_IMAGE=" + TestImage,
		"BERTH_DATA_DIR=" + filepath.Join(dir, "data"), "BERTH_LISTEN=" + s.listen, "BERTH_LOG_LEVEL=warn",
	}, append(hostsEnv, o.Env...)...)
	if err := s.StartWorker(); err != nil {
		s.Close()
		return nil, err
	}
	if err := s.StartGateway(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// TemporalAddress is the dev server's frontend.
func (s *Stack) TemporalAddress() string { return s.temporal.Address() }

// KillTemporal SIGKILLs the Temporal dev server (an outage) and waits until
// it is gone. The worker and the gateway keep running.
func (s *Stack) KillTemporal() {
	_ = syscall.Kill(s.temporal.PID(), syscall.SIGKILL)
	<-s.temporal.Done()
}

// TemporalDown reports whether the dev server is gone (after KillTemporal).
func (s *Stack) TemporalDown() bool {
	select {
	case <-s.temporal.Done():
		return true
	default:
		return false
	}
}

// StartTemporal starts the dev server again on the same database and port,
// where the worker and the gateway reconnect to it.
func (s *Stack) StartTemporal(ctx context.Context) error {
	_, port, _ := net.SplitHostPort(s.temporal.Address())
	p, _ := strconv.Atoi(port)
	srv, err := devserver.Start(ctx, devserver.Options{CLI: s.cli, Dir: filepath.Join(s.Dir, "temporal"), Port: p, UIPort: -1})
	if err != nil {
		return err
	}
	s.temporal = srv
	return nil
}

// RemoveHostObjects removes the containers and volumes a test host made
// (labelled with its host id), whatever state they are in, and its
// worker's egress redirect table.
func RemoveHostObjects(ctx context.Context, d *dockerrt.Runtime, hostID string) {
	// A worker removes its redirect table when it stops; one a test killed
	// cannot, and no later worker has its (random) host id to replace it.
	// Missing (a worker that stopped, or ran in a network namespace of its
	// own) is not an error.
	_ = netguard.RemoveRedirect(netguard.RedirectTable(hostID))
	f := filters.NewArgs(filters.Arg("label", dockerrt.LabelHost+"="+hostID))
	cs, _ := d.Containers(ctx, f, true)
	for _, c := range cs {
		_ = d.RemoveContainer(ctx, c.ID)
	}
	vs, _ := d.Volumes(ctx, f)
	for _, v := range vs {
		_ = d.RemoveVolume(ctx, v.Name)
	}
}

func (s *Stack) build(ctx context.Context) error {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.dir == "" || built.root != s.root {
		dir, err := os.MkdirTemp("", "berth-stacktest-bin-")
		if err != nil {
			return err
		}
		bin, sup := filepath.Join(dir, "berth"), filepath.Join(dir, "berth-supervisor")
		if err := Build(ctx, s.root, bin, sup); err != nil {
			os.RemoveAll(dir)
			return err
		}
		if built.dir != "" {
			os.RemoveAll(built.dir)
		}
		built.dir, built.root, built.bin, built.sup = dir, s.root, bin, sup
	}
	built.stacks++
	for _, c := range [][2]string{{built.bin, s.Bin}, {built.sup, s.Supervisor}} {
		if err := copyFile(c[0], c[1]); err != nil {
			return err
		}
	}
	return nil
}

// built holds the binaries the first stack of a test process built; later
// stacks of the same process copy them (a link of berth takes seconds on a
// small machine, and a package's stacks all run the same source). The
// copies are the stacks' own: a test may replace its stack's supervisor.
// The directory goes when the last stack closes.
var built struct {
	mu                  sync.Mutex
	dir, root, bin, sup string
	stacks              int
}

// releaseBuilt is Close's half of build.
func releaseBuilt() {
	built.mu.Lock()
	defer built.mu.Unlock()
	if built.stacks--; built.stacks <= 0 && built.dir != "" {
		os.RemoveAll(built.dir)
		built.dir, built.stacks = "", 0
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}

// Build builds berth into bin and berth-supervisor into supervisor from
// the module at root, the way every test stack runs them: berth with the
// fault switches (BERTH_FAULT_*, internal/faults) that production builds
// leave out.
func Build(ctx context.Context, root, bin, supervisor string) error {
	for _, b := range []struct{ out, pkg string }{{bin, "./cmd/berth"}, {supervisor, "./cmd/berth-supervisor"}} {
		cmd := exec.CommandContext(ctx, "go", "build", "-tags", "faults", "-o", b.out, b.pkg)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
		}
	}
	return nil
}

func (s *Stack) ensureImage(ctx context.Context) error {
	if _, err := s.Docker.Image(ctx, TestImage); err == nil {
		return nil
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.root, "deploy/images/build.sh"), "test", TestImage)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %v\n%s", TestImage, err, out)
	}
	return nil
}

// temporalCLI finds the Temporal CLI the way `berth dev` does, building it
// into the repository's .berth/bin (shared across runs) when missing.
func temporalCLI(root string) (string, error) {
	if p := os.Getenv("BERTH_TEMPORAL_CLI"); p != "" {
		return p, nil
	}
	return devserver.FindTemporalCLI(context.Background(), "", filepath.Join(root, ".berth"), os.Stderr)
}

// Close stops everything and removes this stack's containers and volumes.
func (s *Stack) Close() {
	if s.checked != nil {
		s.checked.Close()
	}
	// Hosts first, while Temporal still answers their workers' goodbyes.
	for _, h := range s.hosts {
		h.close()
	}
	if s.net != nil {
		s.net.remove()
	}
	s.StopGateway(syscall.SIGTERM)
	s.StopWorker(syscall.SIGTERM)
	if s.Temporal != nil {
		s.Temporal.Close()
	}
	if s.temporal != nil {
		s.temporal.Stop()
	}
	if s.Docker != nil {
		s.removeDockerObjects()
		s.Docker.Close()
	}
	if s.DockerAPI != nil {
		s.DockerAPI.Close()
	}
	os.RemoveAll(s.Dir)
	if s.alive != nil {
		s.alive.Close()
		s.alive = nil
	}
	if s.holdsBuilt {
		s.holdsBuilt = false
		releaseBuilt()
	}
}

func (s *Stack) removeDockerObjects() {
	ctx := context.Background()
	RemoveHostObjects(ctx, s.Docker, s.HostID)
	// The sandbox network is shared by every Berth on this engine: only
	// the last stack alive on the machine removes it, and only when no
	// sandbox is left on it (Docker cannot tell: the workers attach
	// sandboxes themselves). Removed under another package's running
	// stack, it broke that stack's sandboxes until a worker made it anew
	// (CI: an isolation probe lost, an egress table missing its network).
	if !s.lastAlive() {
		return
	}
	running, err := s.Docker.Containers(ctx, filters.NewArgs(filters.Arg("label", dockerrt.LabelAddr)), false)
	if err == nil && len(running) == 0 {
		_ = s.DockerAPI.NetworkRemove(ctx, dockerrt.NetworkName)
	}
}

// liveStacksLock is held shared by every stack alive on this machine,
// whatever its process (each test package runs in its own).
var liveStacksLock = filepath.Join(os.TempDir(), "berth-stacks.lock")

// liveStacks takes a shared hold on liveStacksLock for the stack's life
// (nil when the lock cannot be made: the stack then never counts as the
// last).
func liveStacks() *os.File {
	f, err := os.OpenFile(liveStacksLock, os.O_CREATE|os.O_RDWR|syscall.O_CLOEXEC, 0o666)
	if err != nil {
		return nil
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH) != nil {
		f.Close()
		return nil
	}
	return f
}

// lastAlive reports whether no other stack holds liveStacksLock: the
// stack's own hold turns exclusive only then (holds are per open file,
// so other stacks of this process count too).
func (s *Stack) lastAlive() bool {
	return s.alive != nil && syscall.Flock(int(s.alive.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// GatewayPID is the pid of the running `berth gateway` child (0 if none).
func (s *Stack) GatewayPID() int {
	if s.gateway == nil || s.gateway.Process == nil {
		return 0
	}
	return s.gateway.Process.Pid
}
