// Package stacktest runs a whole Berth for integration tests: a real
// Temporal dev server, `berth worker` and `berth gateway` as real child
// processes (so tests can SIGKILL and restart them), real Docker. Everything
// it creates carries io.berth.host=<a per-run host id> and is removed on Close.
package stacktest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"

	dockerclient "github.com/docker/docker/client"
	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
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
