// Package clustertest runs the production layout of deploy/temporal for
// tests: PostgreSQL, three Temporal nodes, a worker and two gateways, every
// process a child of the test (tests/cluster, and the chaos run against the
// cluster in tests/chaos).
package clustertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/internal/supervisorbin"
)

// NodeIPs are the loopback addresses of the three Temporal nodes: each
// binds every service on its own address, with the same ports.
var NodeIPs = []string{"127.0.0.2", "127.0.0.3", "127.0.0.4"}

// Cluster is the whole production layout of deploy/temporal, every process
// a child of the test (it dies with the test, and the test can SIGKILL one
// by pid): PostgreSQL, three Temporal nodes, a worker and two gateways,
// with mutual TLS between Berth and Temporal. The install steps are the
// deploy/temporal scripts an operator runs.
type Cluster struct {
	Root, Dir, Tools, PGBin string
	DynamicConfig           string // deploy/temporal's file plus testDynamicConfig
	PGPort, Offset          int
	PGPassword              string
	Token, Secret, HostID   string
	SecretsKey              string
	Bin, Supervisor         string
	Docker                  *dockerrt.Runtime
	GatewayURLs             []string // the gateways' base URLs

	mu       sync.Mutex
	pg       *child
	nodes    [3]*child
	worker   *child
	gateways []*child
}

// FindTools finds the tools the cluster needs; missing says what is absent.
func FindTools() (root, tools, pgBin string, missing []string) {
	root, err := supervisorbin.ModuleRoot()
	if err != nil {
		return "", "", "", []string{err.Error()}
	}
	tools = os.Getenv("BERTH_TOOLS")
	if tools == "" {
		tools = filepath.Join(root, ".berth", "bin")
	}
	for _, t := range []struct{ bin, task string }{{"temporal-server", "temporal:build"}, {"temporal-sql-tool", "temporal:build"}, {"temporal", "tools"}} {
		if _, err := os.Stat(filepath.Join(tools, t.bin)); err != nil {
			missing = append(missing, filepath.Join(tools, t.bin)+" (task "+t.task+")")
		}
	}
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(bins) == 0 {
		missing = append(missing, "PostgreSQL server binaries (apt-get install -y postgresql)")
	} else {
		pgBin = filepath.Dir(bins[len(bins)-1])
	}
	if _, err := user.Lookup("postgres"); err != nil {
		missing = append(missing, "the postgres user")
	}
	if os.Geteuid() != 0 {
		missing = append(missing, "root (the worker and PostgreSQL's own user)")
	}
	return root, tools, pgBin, missing
}

// Start installs and starts everything; extraEnv is extra
// environment for the worker and the gateways.
func Start(ctx context.Context, root, tools, pgBin string, extraEnv ...string) (*Cluster, error) {
	dir, err := os.MkdirTemp("", "berth-cluster-")
	if err != nil {
		return nil, err
	}
	// PostgreSQL runs as its own user and must reach its data dir.
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	c := &Cluster{Root: root, Dir: dir, Tools: tools, PGBin: pgBin,
		Token: randHex(16), Secret: randHex(32), SecretsKey: randHex(32), HostID: "c" + randHex(4)}
	ok := false
	defer func() {
		if !ok {
			c.Close()
		}
	}()
	if c.PGPort, err = devserver.FreePort("127.0.0.1"); err != nil {
		return nil, err
	}
	if c.Offset, err = freeOffset(); err != nil {
		return nil, err
	}
	if err := c.Script(ctx, nil, "certs.sh", filepath.Join(dir, "certs"), "temporal"); err != nil {
		return nil, err
	}
	if err := c.Script(ctx, nil, "postgres.sh", "init", dir, strconv.Itoa(c.PGPort)); err != nil {
		return nil, err
	}
	pw, err := os.ReadFile(filepath.Join(dir, "postgres.password"))
	if err != nil {
		return nil, err
	}
	c.PGPassword = strings.TrimSpace(string(pw))
	if err := c.StartPostgres(ctx); err != nil {
		return nil, err
	}
	if err := c.writeDynamicConfig(); err != nil {
		return nil, err
	}
	if err := c.Script(ctx, c.PGEnv(), "schema.sh"); err != nil {
		return nil, err
	}
	for i := range c.nodes {
		if err := c.StartNode(ctx, i); err != nil {
			return nil, err
		}
	}
	if err := c.Script(ctx, append(c.ClientEnv("admin"), "TEMPORAL_CLI="+filepath.Join(tools, "temporal"), "TEMPORAL_RETENTION=72h"), "namespace.sh"); err != nil {
		return nil, err
	}
	if err := c.build(ctx); err != nil {
		return nil, err
	}
	if c.Docker, err = dockerrt.New(); err != nil {
		return nil, err
	}
	common := []string{"BERTH_SECRET=" + c.Secret, "BERTH_SECRETS_KEY=" + c.SecretsKey, "BERTH_TOKEN=" + c.Token, "BERTH_HOST_ID=" + c.HostID,
		"BERTH_SUPERVISOR=" + c.Supervisor, "BERTH_DEFAULT_IMAGE=" + stacktest.TestImage,
		"BERTH_DATA_DIR=" + filepath.Join(dir, "berth-data"), "BERTH_LOG_LEVEL=warn"}
	common = append(common, extraEnv...)
	if c.worker, err = c.spawn("worker", append(append([]string{}, common...), c.ClientEnv("worker")...), c.Bin, "worker"); err != nil {
		return nil, err
	}
	for i := 0; i < 2; i++ {
		port, err := devserver.FreePort("127.0.0.1")
		if err != nil {
			return nil, err
		}
		listen := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		env := append(append(append([]string{}, common...), c.ClientEnv("gateway")...), "BERTH_LISTEN="+listen)
		gw, err := c.spawn(fmt.Sprintf("gateway%d", i+1), env, c.Bin, "gateway")
		if err != nil {
			return nil, err
		}
		if err := waitListen(listen, 60*time.Second, gw); err != nil {
			return nil, fmt.Errorf("gateway %d: %w\n%s", i+1, err, c.LogTail(fmt.Sprintf("gateway%d", i+1)))
		}
		c.gateways = append(c.gateways, gw)
		c.GatewayURLs = append(c.GatewayURLs, "http://"+listen)
	}
	ok = true
	return c, nil
}

func (c *Cluster) build(ctx context.Context) error {
	c.Bin, c.Supervisor = filepath.Join(c.Dir, "berth"), filepath.Join(c.Dir, "berth-supervisor")
	return stacktest.Build(ctx, c.Root, c.Bin, c.Supervisor)
}

// Close stops every child (Berth first, PostgreSQL last) and removes the
// containers and volumes of this cluster's host id.
func (c *Cluster) Close() {
	stopChild := func(ch *child) {
		if ch == nil || !ch.alive() {
			return
		}
		_ = ch.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ch.done:
		case <-time.After(15 * time.Second):
			_ = ch.cmd.Process.Kill()
			<-ch.done
		}
	}
	for _, g := range c.gateways {
		stopChild(g)
	}
	stopChild(c.worker)
	for _, n := range c.nodes {
		stopChild(n)
	}
	stopChild(c.pg)
	if c.Docker != nil {
		stacktest.RemoveHostObjects(context.Background(), c.Docker, c.HostID)
		c.Docker.Close()
	}
	if os.Getenv("BERTH_TEST_CLUSTER_KEEP") == "" {
		os.RemoveAll(c.Dir)
	}
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
