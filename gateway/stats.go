package gateway

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/sandboxlog"
	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/workflows/contract"
)

// GET /v1/sandboxes/{name}/stats. A running sandbox's figures come from
// its supervisor (GET /v1/stats, the hot path's way to the container:
// straight to its address, or through its host's proxy), which reads them
// from the kernel. A sandbox that is not running answers with its status
// and no live figures; nothing here ever starts one. With a cached
// supervisor the request does not touch Temporal, so `berth top` polling
// many sandboxes costs the workflows nothing.
func (s *Server) sandboxStats(c echo.Context) error {
	name := c.Param("name")
	ctx := c.Request().Context()
	if t, ok := s.targets.get(name); ok {
		if time.Since(t.checked) >= s.targetRecheck {
			s.recheckTarget(name, t)
		}
		if cs, err := s.readStats(ctx, t); err == nil {
			return c.JSON(http.StatusOK, s.liveStats(name, cs))
		} else if !errors.Is(err, errStatsUnsupported) {
			s.targets.drop(name) // gone or replaced: ask the workflow
		}
	}
	d, err := s.describe(ctx, name)
	if err != nil {
		return err
	}
	v := d.view
	if v.Status != contract.StatusRunning || v.Container == nil {
		return c.JSON(http.StatusOK, s.notLive(name, string(v.Status)))
	}
	cs, err := s.readStats(ctx, s.cacheTarget(name, v, time.Time{}))
	switch {
	case err == nil:
		return c.JSON(http.StatusOK, s.liveStats(name, cs))
	case errors.Is(err, errStatsUnsupported):
		return c.JSON(http.StatusOK, s.notLive(name, string(v.Status)))
	case ctx.Err() != nil:
		return nil // the client left
	}
	s.targets.drop(name)
	s.logFor(ctx).Info("stats: supervisor unreachable", sandboxlog.Of(name, ""), zap.Error(err))
	return unavailable("the sandbox's container did not answer; retry")
}

// errStatsUnsupported: the container's supervisor predates GET /v1/stats
// (a sandbox booted before an upgrade); its next boot has it.
var errStatsUnsupported = errors.New("supervisor has no stats route")

// statsTimeout bounds one read: the supervisor answers at once, or after
// its quarter-second CPU sample.
const statsTimeout = 5 * time.Second

func (s *Server) readStats(ctx context.Context, t target) (api.ContainerStats, error) {
	ctx, cancel := context.WithTimeout(ctx, statsTimeout)
	defer cancel()
	sc := supervisorapi.Client{HTTP: s.supervisors, Base: t.base(), Auth: t.auth, Refused: hostProxyRefusal}
	cs, err := sc.Stats(ctx)
	var se *supervisorapi.Error
	switch {
	case errors.As(err, &se) && se.Status == http.StatusNotFound:
		return api.ContainerStats{}, errStatsUnsupported
	case errors.As(err, &se):
		return api.ContainerStats{}, fmt.Errorf("supervisor answered %d", se.Status)
	case err != nil:
		return api.ContainerStats{}, err
	}
	// Code in the sandbox is root there: pass on only figures in range.
	if !cs.Valid() {
		return api.ContainerStats{}, errors.New("supervisor's stats out of range")
	}
	return cs, nil
}

func (s *Server) liveStats(name string, cs api.ContainerStats) api.SandboxStats {
	if cs.Disk != nil {
		s.lastDisk.put(name, *cs.Disk, cs.At)
	}
	return api.SandboxStats{Name: name, Status: string(contract.StatusRunning), Live: true, At: cs.At,
		CPU: cs.CPU, Memory: cs.Memory, Pids: cs.Pids, Disk: cs.Disk, Network: cs.Network}
}

func (s *Server) notLive(name, status string) api.SandboxStats {
	out := api.SandboxStats{Name: name, Status: status}
	if status != string(contract.StatusDestroyed) && status != string(contract.StatusDestroying) {
		if d, ok := s.lastDisk.get(name); ok {
			out.Disk = &d
		}
	} else {
		s.lastDisk.drop(name)
	}
	return out
}

// lastDisks remembers the disk figure each sandbox last had while it ran
// (this gateway's reads only), so a sleeping one can still say how full
// its disk is without being woken.
type lastDisks struct {
	mu sync.Mutex
	m  map[string]api.DiskStats
}

// maxLastDisks bounds the memory: past it an arbitrary entry goes.
const maxLastDisks = 10000

func (l *lastDisks) put(name string, d api.DiskStats, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]api.DiskStats{}
	}
	if _, ok := l.m[name]; !ok && len(l.m) >= maxLastDisks {
		for k := range l.m {
			delete(l.m, k)
			break
		}
	}
	d.LastKnown, d.At = true, at
	l.m[name] = d
}

func (l *lastDisks) get(name string) (api.DiskStats, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.m[name]
	return d, ok
}

func (l *lastDisks) drop(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, name)
}
