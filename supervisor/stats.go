package supervisor

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/cgroup"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// GET /v1/stats: what the container uses now, read from the kernel (its
// cgroup, its network namespace, statfs of its disk). Nothing runs in the
// background for it: the CPU percentage is taken between two reads (see
// cpuWindow), so an unwatched sandbox pays nothing.
func (s *Server) stats(w http.ResponseWriter, r *http.Request) error {
	u := cgroup.ReadUsage()
	now := time.Now()
	out := api.ContainerStats{At: now.UTC()}
	if u.CPU >= 0 {
		pct, window := s.cpu.percent(r, now, u.CPU)
		limit, _ := cgroup.CPUs()
		out.CPU = &api.CPUStats{UsageSeconds: u.CPU.Seconds(), Percent: pct, WindowSeconds: window.Seconds(), LimitCores: limit}
	}
	if u.MemoryBytes >= 0 {
		out.Memory = &api.MemoryStats{UsedBytes: u.MemoryBytes, LimitBytes: u.MemoryLimit}
	}
	if u.Pids >= 0 {
		out.Pids = &api.PidsStats{Current: u.Pids, Limit: u.PidsLimit}
	}
	if s.cfg.DiskBytes > 0 {
		var st unix.Statfs_t
		// A file system larger than the disk is not it (a volume made
		// before the host had disks): its figures would be the host's.
		if unix.Statfs(DefaultCwd, &st) == nil && int64(st.Blocks)*int64(st.Bsize) <= s.cfg.DiskBytes+s.cfg.DiskBytes/16 {
			bs := int64(st.Bsize)
			out.Disk = &api.DiskStats{UsedBytes: (int64(st.Blocks) - int64(st.Bfree)) * bs, LimitBytes: int64(st.Blocks) * bs}
		}
	}
	if rx, tx, ok := netBytes("/proc/net/dev"); ok {
		out.Network = &api.NetworkStats{RxBytes: rx, TxBytes: tx}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// cpuWindow turns the cgroup's cumulative CPU time into a recent rate.
// Each read is compared with the base (an earlier read at least minWindow
// before, at most maxWindow), which then moves to it: a caller polling
// every two seconds sees the last two seconds. With no usable base (the
// first read, or none for a long while) the read waits sampleWindow and
// reads again. Reads closer together than minWindow (two callers at once)
// get the last figure rather than a noisy one over a few milliseconds.
type cpuWindow struct {
	mu       sync.Mutex
	baseAt   time.Time
	base     time.Duration
	last     float64
	lastSpan time.Duration
}

const (
	minWindow    = 500 * time.Millisecond
	maxWindow    = 30 * time.Second
	sampleWindow = 250 * time.Millisecond
)

func (c *cpuWindow) percent(r *http.Request, now time.Time, used time.Duration) (float64, time.Duration) {
	c.mu.Lock()
	span := now.Sub(c.baseAt)
	switch {
	case !c.baseAt.IsZero() && span >= minWindow && span <= maxWindow:
		pct := rate(used-c.base, span)
		c.baseAt, c.base, c.last, c.lastSpan = now, used, pct, span
		c.mu.Unlock()
		return pct, span
	case !c.baseAt.IsZero() && span >= 0 && span < minWindow && c.lastSpan > 0:
		pct, s := c.last, c.lastSpan
		c.mu.Unlock()
		return pct, s
	}
	c.mu.Unlock()
	select {
	case <-time.After(sampleWindow):
	case <-r.Context().Done():
		return 0, 0
	}
	u2 := cgroup.ReadUsage()
	at := time.Now()
	if u2.CPU < 0 {
		return 0, 0
	}
	span = at.Sub(now)
	pct := rate(u2.CPU-used, span)
	c.mu.Lock()
	c.baseAt, c.base, c.last, c.lastSpan = at, u2.CPU, pct, span
	c.mu.Unlock()
	return pct, span
}

// rate is used over span as a percentage of one core.
func rate(used, span time.Duration) float64 {
	if span <= 0 || used < 0 {
		return 0
	}
	return float64(used) / float64(span) * 100
}

// netBytes sums received and sent bytes over every interface but loopback
// in a /proc/net/dev table (this process's network namespace).
func netBytes(file string) (rx, tx int64, ok bool) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return 0, 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		iface, rest, found := strings.Cut(sc.Text(), ":")
		if !found || strings.TrimSpace(iface) == "lo" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) < 9 {
			continue
		}
		r, err1 := strconv.ParseInt(f[0], 10, 64)
		t, err2 := strconv.ParseInt(f[8], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		rx, tx, ok = rx+r, tx+t, true
	}
	return rx, tx, ok
}
