// The cluster's processes: PostgreSQL, the Temporal nodes, and how each starts, stops and is waited for.

package clustertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/berthdev/berth/internal/childproc"
)

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

// NodeUp reports whether Temporal node i's process runs.
func (c *Cluster) NodeUp(i int) bool {
	c.mu.Lock()
	n := c.nodes[i]
	c.mu.Unlock()
	return n != nil && n.alive()
}
