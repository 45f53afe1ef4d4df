package stacktest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docker/docker/api/types/container"

	"github.com/berthdev/berth/internal/blob"
	"github.com/berthdev/berth/internal/hosts"
)

// A host dying (Kill), coming back (Restart) and taken away for good
// (Remove, close): what each leaves running, and the cleanup of all of it.

// Kill is the machine dying: worker, dockerd, its containerd, every
// process of its containers and their shims, SIGKILLed by pid.
func (h *Host) Kill() {
	for _, c := range []*exec.Cmd{h.worker, h.dockerd} {
		if pid := pidOf(c); pid > 0 {
			_ = syscall.Kill(-pid, syscall.SIGKILL) // its process group: nsenter execs, so pid is the process
		}
	}
	stop(h.worker, syscall.SIGKILL)
	stop(h.dockerd, syscall.SIGKILL)
	// Again until none is left: a process may fork between a look and a
	// kill (a shim starting a task, a sandbox's child).
	var killed []int
	for range 100 {
		live := h.Processes()
		if len(live) == 0 {
			break
		}
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		killed = append(killed, live...)
		time.Sleep(20 * time.Millisecond)
	}
	reap(killed)
	// A dead containerd may linger as a zombie whose pid the restarted
	// daemon would take for a live one and wait on forever.
	_ = os.Remove(filepath.Join(h.dir, "x", "containerd", "containerd.pid"))
}

// reap collects the strays that were reparented to this process (no
// zombies left behind by a long test run).
func reap(pids []int) {
	for _, pid := range pids {
		for range 20 {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err != nil { // reaped, or not our child
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// Restart brings a killed host back: its daemon on the same data, then its
// worker.
func (h *Host) Restart(ctx context.Context) error {
	if err := h.startDockerd(ctx); err != nil {
		return err
	}
	return h.StartWorker(ctx)
}

// strays are the processes a host leaves when its daemon dies: its
// containerd (pid file in its exec root), the shims of its containerd
// namespace and what runs in its containers' cgroups.
func (h *Host) strays() []int {
	var pids []int
	if b, err := os.ReadFile(filepath.Join(h.dir, "x", "containerd", "containerd.pid")); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pids = append(pids, pid)
		}
	}
	tasks, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup/pids", h.cgroup, "*", "cgroup.procs"))
	for _, f := range tasks {
		pids = append(pids, readPids(f)...)
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	want := []byte("\x00-namespace\x00" + h.ns + "\x00")
	for _, f := range procs {
		b, err := os.ReadFile(f)
		if err == nil && bytes.Contains(b, []byte("containerd-shim")) && bytes.Contains(b, want) {
			if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(f))); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func readPids(path string) []int {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if pid, err := strconv.Atoi(sc.Text()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// close removes everything the host made: its containers, processes,
// mounts, namespace, veth and files.
func (h *Host) close() {
	h.StopWorker(syscall.SIGTERM)
	if alive(h.dockerd) && h.Docker != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cs, _ := h.Docker.ContainerList(ctx, container.ListOptions{All: true})
		for _, c := range cs {
			_ = h.Docker.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		}
		cancel()
		stop(h.dockerd, syscall.SIGTERM)
	}
	h.Kill() // whatever is left
	if h.Docker != nil {
		h.Docker.Close()
	}
	unmountUnder(h.dir)
	_ = run("ip", "netns", "del", h.ns)
	_ = run("ip", "link", "del", h.veth) // gone with the namespace's end; a half-made host may hold it
	removeCgroups(h.cgroup)
	_ = os.RemoveAll(h.dir)
}

// unmountUnder lazily unmounts every mount below dir, deepest first (a
// killed dockerd leaves its network namespaces' and volumes' mounts).
func unmountUnder(dir string) {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return
	}
	var mps []string
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) > 1 && strings.HasPrefix(f[1], dir+"/") {
			mps = append(mps, f[1])
		}
	}
	slices.SortFunc(mps, func(a, b string) int { return len(b) - len(a) })
	for _, mp := range mps {
		_ = syscall.Unmount(mp, syscall.MNT_DETACH)
	}
}

// removeCgroups removes the cgroup parent of a host's containers (and any
// container cgroup a killed daemon left) from every hierarchy.
func removeCgroups(parent string) {
	dirs, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", parent))
	for _, d := range dirs {
		kids, _ := filepath.Glob(filepath.Join(d, "*", "cgroup.procs"))
		for _, k := range kids {
			_ = os.Remove(filepath.Dir(k))
		}
		_ = os.Remove(d)
	}
}

func alive(cmd *exec.Cmd) bool {
	pid := pidOf(cmd)
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

// Remove takes the host away for good before the stack closes (everything
// close removes), e.g. at the end of the test that added it. It is marked
// draining first: the registry would show it live for HostLostAfter, and
// a boot placed there meanwhile would wait out its schedule-to-start.
func (h *Host) Remove() {
	if store, err := blob.OpenFile(filepath.Join(h.s.Dir, "data", "backups")); err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = hosts.New(store).SetDraining(ctx, h.ID, true)
		cancel()
	}
	h.close()
	h.s.hosts = slices.DeleteFunc(h.s.hosts, func(o *Host) bool { return o == h })
}

// Processes are the host's live processes: worker, dockerd, containerd,
// shims and what runs in its containers (none after Kill).
func (h *Host) Processes() []int {
	var live []int
	for _, pid := range append([]int{pidOf(h.worker), pidOf(h.dockerd)}, h.strays()...) {
		if pid > 0 && syscall.Kill(pid, 0) == nil && !zombie(pid) {
			live = append(live, pid)
		}
	}
	return live
}

// zombie: pid has exited and waits to be reaped by its parent.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z'
}
