// Package clustertest runs the production layout of deploy/temporal for
// tests: PostgreSQL, three Temporal nodes, a worker and two gateways, every
// process a child of the test (tests/cluster, and the chaos run against the
// cluster in tests/chaos).
package clustertest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/berthdev/berth/internal/childproc"
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/internal/supervisorbin"
	"github.com/berthdev/berth/internal/temporalconn"
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

// child is one process and the channel its exit closes.
type child struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func (c *child) alive() bool {
	select {
	case <-c.done:
		return false
	default:
		return true
	}
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

// testDynamicConfig is appended to deploy/temporal/config/dynamicconfig.yaml
// for the test cluster only. Temporal refuses a local namespace retention
// under an hour and spreads the deletion of each closed run over the 30
// minutes after its retention ends; with these a test can watch retention
// delete runs within a couple of minutes (tests/cluster/retention_test.go). They change
// nothing until a test lowers the namespace's retention.
const testDynamicConfig = `
# --- test cluster only (internal/clustertest/cluster.go) ---
system.namespaceMinRetentionLocal:
  - value: 10s
history.retentionTimerJitterDuration:
  - value: 1s
`

// writeDynamicConfig writes the nodes' dynamic config file: production's,
// then the test-only keys (a key in both would make the YAML invalid, and
// the nodes refuse to start, so a clash cannot pass unnoticed).
func (c *Cluster) writeDynamicConfig() error {
	prod, err := os.ReadFile(filepath.Join(c.Root, "deploy/temporal/config/dynamicconfig.yaml"))
	if err != nil {
		return err
	}
	c.DynamicConfig = filepath.Join(c.Dir, "dynamicconfig.yaml")
	return os.WriteFile(c.DynamicConfig, append(prod, testDynamicConfig...), 0o644)
}

// freeOffset finds a port offset at which every Temporal port is free on
// every node address (several clusters and `task cluster` may run at once).
func freeOffset() (int, error) {
	for try := 0; try < 50; try++ {
		var b [2]byte
		_, _ = rand.Read(b[:])
		off := 1000 + int(b[0])<<4 + int(b[1]&0xf)*10 // 1000..5000, leaves 7233+off < 12500
		if portsFree(off) {
			return off, nil
		}
	}
	return 0, errors.New("no free block of Temporal ports on 127.0.0.2-4")
}

func portsFree(off int) bool {
	for _, ip := range NodeIPs {
		for _, p := range []int{6933, 6934, 6935, 6939, 7233, 7234, 7235, 7239} {
			l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p+off)))
			if err != nil {
				return false
			}
			l.Close()
		}
	}
	return true
}

// Frontends is TEMPORAL_ADDRESS for the whole cluster.
func (c *Cluster) Frontends() string {
	var a []string
	for _, ip := range NodeIPs {
		a = append(a, c.Frontend(ip))
	}
	return strings.Join(a, ",")
}

// Frontend is the frontend address of the node on ip.
func (c *Cluster) Frontend(ip string) string {
	return net.JoinHostPort(ip, strconv.Itoa(7233+c.Offset))
}

// Certs is the path of a file certs.sh made.
func (c *Cluster) Certs(name string) string { return filepath.Join(c.Dir, "certs", name) }

// ClientEnv is how a client holding role's certificate reaches Temporal.
func (c *Cluster) ClientEnv(role string) []string {
	return []string{
		"TEMPORAL_ADDRESS=" + c.Frontends(),
		"TEMPORAL_TLS_CERT=" + c.Certs(role+".pem"), "TEMPORAL_TLS_KEY=" + c.Certs(role+".key"),
		"TEMPORAL_TLS_CA=" + c.Certs("ca.pem"), "TEMPORAL_TLS_SERVER_NAME=temporal",
	}
}

// PGEnv is how deploy/temporal's scripts reach PostgreSQL.
func (c *Cluster) PGEnv() []string {
	return []string{
		"POSTGRES_ADDR=127.0.0.1:" + strconv.Itoa(c.PGPort), "POSTGRES_PASSWORD=" + c.PGPassword,
		"TEMPORAL_SQL_TOOL=" + filepath.Join(c.Tools, "temporal-sql-tool"),
	}
}

// Script runs one of deploy/temporal's scripts.
func (c *Cluster) Script(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(c.Root, "deploy", "temporal", name), args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// spawn starts a child in its own process group that dies with the test.
func (c *Cluster) spawn(name string, env []string, path string, args ...string) (*child, error) {
	logf, err := os.OpenFile(filepath.Join(c.Dir, name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return c.startChild(cmd, logf)
}

func (c *Cluster) startChild(cmd *exec.Cmd, logf *os.File) (*child, error) {
	if err := childproc.Start(cmd); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", cmd.Path, err)
	}
	ch := &child{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); logf.Close(); close(ch.done) }()
	return ch, nil
}

// StartPostgres runs the postmaster in the foreground as a child, as the
// postgres user, on the data dir postgres.sh initialised.
func (c *Cluster) StartPostgres(ctx context.Context) error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return err
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	logf, err := os.OpenFile(filepath.Join(c.Dir, "postgres.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(c.PGBin, "postgres"), "-D", filepath.Join(c.Dir, "pgdata"))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	ch, err := c.startChild(cmd, logf)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.pg = ch
	c.mu.Unlock()
	return waitListen(net.JoinHostPort("127.0.0.1", strconv.Itoa(c.PGPort)), 60*time.Second, ch)
}

// StopPostgres ends PostgreSQL with sig (SIGKILL of the postmaster leaves
// its backends; SIGQUIT is an immediate shutdown, as a crash) and waits.
func (c *Cluster) StopPostgres(sig syscall.Signal) {
	c.mu.Lock()
	pg := c.pg
	c.mu.Unlock()
	if pg == nil {
		return
	}
	_ = pg.cmd.Process.Signal(sig)
	select {
	case <-pg.done:
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-pg.cmd.Process.Pid, syscall.SIGKILL)
		<-pg.done
	}
}

// StartNode starts Temporal node i (0-2) with the shared config file.
func (c *Cluster) StartNode(ctx context.Context, i int) error {
	ip := NodeIPs[i]
	env := []string{
		"TEMPORAL_BIND_IP=" + ip, "TEMPORAL_PORT_OFFSET=" + strconv.Itoa(c.Offset),
		"TEMPORAL_CERTS_DIR=" + filepath.Join(c.Dir, "certs"),
		"TEMPORAL_DYNAMIC_CONFIG=" + c.DynamicConfig,
		"POSTGRES_ADDR=127.0.0.1:" + strconv.Itoa(c.PGPort), "POSTGRES_PASSWORD=" + c.PGPassword,
		// Info logs say when membership changed and when a node acquired
		// a shard: the failover benchmark's timeline reads them.
		"TEMPORAL_LOG_LEVEL=info",
	}
	ch, err := c.spawn(fmt.Sprintf("node%d", i+1), env, filepath.Join(c.Tools, "temporal-server"),
		"--config-file", filepath.Join(c.Root, "deploy/temporal/config/temporal.yaml"), "start")
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.nodes[i] = ch
	c.mu.Unlock()
	if err := waitListen(c.Frontend(ip), 120*time.Second, ch); err != nil {
		return fmt.Errorf("temporal node %d: %w\n%s", i+1, err, c.LogTail(fmt.Sprintf("node%d", i+1)))
	}
	return nil
}

// KillNode SIGKILLs Temporal node i, as a crash or a lost host would.
func (c *Cluster) KillNode(i int) {
	c.mu.Lock()
	n := c.nodes[i]
	c.mu.Unlock()
	if n == nil {
		return
	}
	_ = n.cmd.Process.Kill()
	<-n.done
}

func (c *Cluster) build(ctx context.Context) error {
	c.Bin, c.Supervisor = filepath.Join(c.Dir, "berth"), filepath.Join(c.Dir, "berth-supervisor")
	return stacktest.Build(ctx, c.Root, c.Bin, c.Supervisor)
}

func waitListen(addr string, limit time.Duration, ch *child) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if !ch.alive() {
			return fmt.Errorf("exited before listening on %s", addr)
		}
		if conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			conn.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("did not listen on %s within %s", addr, limit)
}

// LogTail is the end of a process's log, for failure messages.
func (c *Cluster) LogTail(name string) string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, name+".log"))
	if len(b) > 6000 {
		b = b[len(b)-6000:]
	}
	return "--- " + name + ".log ---\n" + string(b)
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

// NodeUp reports whether Temporal node i's process runs.
func (c *Cluster) NodeUp(i int) bool {
	c.mu.Lock()
	n := c.nodes[i]
	c.mu.Unlock()
	return n != nil && n.alive()
}

// Dial is a Temporal client of the whole cluster, dialled as Berth dials
// (internal/temporalconn), with the admin certificate.
func (c *Cluster) Dial(ctx context.Context) (client.Client, error) {
	cfg := config.Config{TemporalAddress: c.Frontends(), Namespace: "default", TemporalTLS: config.TemporalTLS{
		CertFile: c.Certs("admin.pem"), KeyFile: c.Certs("admin.key"), CAFile: c.Certs("ca.pem"), ServerName: "temporal"}}
	opts, dial, err := temporalconn.Options(cfg)
	if err != nil {
		return nil, err
	}
	opts.ConnectionOptions.DialOptions = dial
	return client.DialContext(ctx, opts)
}
