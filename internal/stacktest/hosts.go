package stacktest

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/client"

	"github.com/berthdev/berth/internal/hosttls"
)

// HostProxyPort is where every netns host's proxy listens (each host has
// its own network namespace, so they never collide).
const HostProxyPort = "7443"

// Host is one more Docker host of a stack, as another machine would be:
// its own network namespace (reaching the stack only through the hosts'
// network, see hostNet), its own dockerd (own data, exec root, containerd
// namespace, vfs storage unless AddHostWith says otherwise) and its own
// `berth worker` with a host proxy on BERTH_HOST_ADDR. Its sandboxes' bridge addresses are unreachable from the
// stack's namespace, as they would be from another machine: the gateway
// reaches them only through the route.
type Host struct {
	ID     string // BERTH_HOST_ID, also the io.berth.host label of its sandboxes
	Name   string
	IP     string // on the hosts' network
	Route  string // BERTH_HOST_ADDR: IP:HostProxyPort
	Docker *client.Client
	// Up is how long AddHost took (network, dockerd, image, worker, proxy).
	Up time.Duration

	s          *Stack
	ns, veth   string
	dir, sock  string
	cgroup     string // --cgroup-parent of its containers
	driver     HostDriver
	dockerd    *exec.Cmd
	worker     *exec.Cmd
	workerEnv  []string
	workerLogs string
}

// prepareHosts makes the hosts' network and the relay to Temporal on it.
func (s *Stack) prepareHosts() error {
	var err error
	if s.net, err = newHostNet(); err != nil {
		return err
	}
	s.temporalRelay, err = s.net.relay(s.temporal.Address())
	return err
}

// ExposeToHosts makes a service of this namespace (e.g. an S3 server on
// loopback) reachable from the hosts: it returns the address on the hosts'
// network that relays to addr, for a host worker's environment.
func (s *Stack) ExposeToHosts(addr string) (string, error) {
	if s.net == nil {
		return "", fmt.Errorf("the stack was started without Options.Hosts")
	}
	return s.net.relay(addr)
}

// AddHost brings up a host named name (a short [a-z0-9] word) on a stack
// started with Options.Hosts; env is added to its worker's (e.g. its
// capacity). The stack's Close removes it. Its dockerd uses vfs.
func (s *Stack) AddHost(ctx context.Context, name string, env ...string) (*Host, error) {
	return s.AddHostWith(ctx, name, HostDriver{}, env...)
}

// AddHostWith is AddHost with the host's storage driver and the file
// system under its data root (drivers.go).
func (s *Stack) AddHostWith(ctx context.Context, name string, d HostDriver, env ...string) (*Host, error) {
	if s.net == nil {
		return nil, fmt.Errorf("the stack was started without Options.Hosts")
	}
	start := time.Now()
	k := s.net.claim()
	h := &Host{ID: s.HostID + "-" + name, Name: name, IP: fmt.Sprintf("%s.%d", s.net.subnet, k+1), s: s,
		ns: fmt.Sprintf("%sn%d", s.net.prefix, k), veth: fmt.Sprintf("%sv%d", s.net.prefix, k),
		dir: filepath.Join(s.Dir, "h", name), cgroup: fmt.Sprintf("%sc%d", s.net.prefix, k), driver: d}
	h.Route = net.JoinHostPort(h.IP, HostProxyPort)
	h.sock = filepath.Join(h.dir, "docker.sock")
	h.workerLogs = filepath.Join(h.dir, "worker.log")
	s.hosts = append(s.hosts, h)
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return nil, err
	}
	if err := h.plug(); err != nil {
		return nil, err
	}
	if err := h.makeFS(); err != nil {
		return nil, err
	}
	if err := h.startDockerd(ctx); err != nil {
		return nil, err
	}
	if err := h.loadImage(ctx); err != nil {
		return nil, err
	}
	h.workerEnv = append(append([]string{}, s.env...),
		"TEMPORAL_ADDRESS="+s.temporalRelay, "BERTH_HOST_ID="+h.ID, "BERTH_HOST_ADDR="+h.Route, "DOCKER_HOST=unix://"+h.sock,
		"BERTH_DATA_DIR="+filepath.Join(h.dir, "data"),
		// Plain volumes: a disk is a loop mount in the one mount namespace
		// every host here shares, which a SIGKILLed host would leave behind.
		"BERTH_DISK_LIMITS=off")
	h.workerEnv = append(h.workerEnv, env...)
	if err := h.StartWorker(ctx); err != nil {
		return nil, err
	}
	h.Up = time.Since(start)
	return h, nil
}

// plug makes the namespace and its veth on the hosts' network.
func (h *Host) plug() error {
	peer := h.veth + "p"
	for _, c := range [][]string{
		{"ip", "netns", "add", h.ns},
		{"ip", "link", "add", h.veth, "type", "veth", "peer", "name", peer},
		{"ip", "link", "set", peer, "netns", h.ns},
		{"ip", "link", "set", h.veth, "master", h.s.net.bridge},
		{"ip", "link", "set", h.veth, "up"},
		{"ip", "-n", h.ns, "link", "set", peer, "name", "eth0"},
		{"ip", "-n", h.ns, "addr", "add", h.IP + "/24", "dev", "eth0"},
		{"ip", "-n", h.ns, "link", "set", "eth0", "up"},
		{"ip", "-n", h.ns, "link", "set", "lo", "up"},
		{"ip", "-n", h.ns, "route", "add", "default", "via", h.s.net.Gateway()},
	} {
		if err := run(c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

// inNS is argv run in the host's network namespace. nsenter, not `ip
// netns exec`, whose fresh /sys hides the cgroups from dockerd.
func (h *Host) inNS(argv ...string) []string {
	return append([]string{"nsenter", "--net=/var/run/netns/" + h.ns}, argv...)
}

func (h *Host) startDockerd(ctx context.Context) error {
	conf := filepath.Join(h.dir, "daemon.json")
	// Its own (empty) configuration: the machine's daemon.json names the
	// main daemon's data root and storage driver.
	if err := os.WriteFile(conf, []byte("{}\n"), 0o644); err != nil {
		return err
	}
	var err error
	h.dockerd, err = startLogged(filepath.Join(h.dir, "dockerd.log"), nil, h.inNS("dockerd",
		"--config-file", conf, "--data-root", h.dataRoot(), "--exec-root", filepath.Join(h.dir, "x"),
		"-H", "unix://"+h.sock, "--pidfile", filepath.Join(h.dir, "docker.pid"),
		"--containerd-namespace", h.ns, "--containerd-plugins-namespace", h.ns+"p",
		"--storage-driver="+h.driver.driver(), "--cgroup-parent=/"+h.cgroup)...)
	if err != nil {
		return err
	}
	if h.Docker == nil {
		if h.Docker, err = client.NewClientWithOpts(client.WithHost("unix://"+h.sock), client.WithAPIVersionNegotiation()); err != nil {
			return err
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		pctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err = h.Docker.Ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("dockerd of host %s did not answer: %v\n%s", h.Name, err, h.Logs("dockerd"))
}

// loadImage copies the test image from the machine's daemon: the host's
// daemon starts with none and reaches no registry.
func (h *Host) loadImage(ctx context.Context) error {
	rc, err := h.s.DockerAPI.ImageSave(ctx, []string{TestImage})
	if err != nil {
		return err
	}
	defer rc.Close()
	resp, err := h.Docker.ImageLoad(ctx, rc)
	if err != nil {
		return fmt.Errorf("load %s into host %s: %w", TestImage, h.Name, err)
	}
	defer resp.Body.Close()
	_, err = bytes.NewBuffer(nil).ReadFrom(resp.Body)
	return err
}

// StartWorker starts the host's worker and waits until its proxy answers
// on the route, from the stack's namespace (as a gateway would reach it).
func (h *Host) StartWorker(ctx context.Context) error {
	var err error
	if h.worker, err = startLogged(h.workerLogs, h.workerEnv, h.inNS(h.s.Bin, "worker")...); err != nil {
		return err
	}
	tc, err := hosttls.ClientConfig(h.s.Secret)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: time.Second, Transport: &http.Transport{TLSClientConfig: tc}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if resp, err := hc.Get("https://" + h.Route + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if !alive(h.worker) {
			return fmt.Errorf("the worker of host %s exited: %s", h.Name, h.Logs("worker"))
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("the host proxy of %s did not answer on %s: %s", h.Name, h.Route, h.Logs("worker"))
}

// RollWorker upgrades the host's worker the rolling way: a new one starts
// beside the running one (both poll the host's queue and listen on its
// address), then the old one gets SIGTERM.
func (h *Host) RollWorker(ctx context.Context) error {
	old := h.worker
	var err error
	if h.worker, err = startLogged(h.workerLogs, h.workerEnv, h.inNS(h.s.Bin, "worker")...); err != nil {
		return err
	}
	// The old one answers on the address until the new one listens too.
	deadline := time.Now().Add(60 * time.Second)
	for !listens(h.worker.Process.Pid, HostProxyPort) {
		if time.Now().After(deadline) || !alive(h.worker) {
			return fmt.Errorf("the new worker of host %s did not come up: %s", h.Name, h.Logs("worker"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop(old, syscall.SIGTERM)
	return nil
}

// listens: process pid holds a listening TCP socket on port (in its
// network namespace's table, one of the sockets among its descriptors).
func listens(pid int, port string) bool {
	p, _ := strconv.Atoi(port)
	want := fmt.Sprintf(":%04X ", p)
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/net/tcp", pid))
	if err != nil {
		return false
	}
	inodes := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		// local_address, state 0A (LISTEN), inode
		if len(f) > 9 && strings.HasSuffix(f[1]+" ", want) && f[3] == "0A" {
			inodes["socket:["+f[9]+"]"] = true
		}
	}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && inodes[l] {
			return true
		}
	}
	return false
}

// StopWorker ends the host's worker with sig (its daemon and sandboxes
// keep running).
func (h *Host) StopWorker(sig syscall.Signal) { stop(h.worker, sig) }

// WorkerPID is the pid of the host's worker (0 if none).
func (h *Host) WorkerPID() int { return pidOf(h.worker) }

// Logs returns the tail of the host's "worker" or "dockerd" log.
func (h *Host) Logs(role string) string { return logTail(filepath.Join(h.dir, role+".log")) }

// HostTLS is the TLS client configuration a gateway uses for routes (for
// tests that speak to a host proxy themselves).
func (s *Stack) HostTLS() (*tls.Config, error) { return hosttls.ClientConfig(s.Secret) }

// Hosts are the hosts AddHost brought up, in order.
func (s *Stack) Hosts() []*Host { return s.hosts }
