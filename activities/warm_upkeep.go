package activities

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/dockerrt"
	"github.com/berthdev/berth/internal/metrics"
	"github.com/berthdev/berth/workflows/contract"
)

// The warm pool's upkeep: adopting an earlier worker's warm containers,
// replacing those that stopped, and sweeping warm volumes left without a
// container (warm.go has the pool itself).

// adoptHealthWait bounds how long adopt waits for a warm container's
// supervisor to answer before replacing it.
const adoptHealthWait = 10 * time.Second

// adopt takes over the warm containers an earlier worker left: running,
// of this worker's version, of a type with a pool, of the image and limits
// that type has today (its tag may have moved, its file been edited), on
// the sandbox network
// (attached now if need be), answering, and with their disk still their
// own. Every other unclaimed one is removed.
func (p *WarmPool) adopt(ctx context.Context) {
	cs, err := p.a.Docker.Containers(ctx, p.ours(), true)
	if err != nil {
		p.log.Warn("list warm containers", zap.Error(err))
		return
	}
	for _, ct := range cs {
		name := ListedName(ct.Names)
		if !strings.HasPrefix(name, WarmPrefix) {
			continue // claimed: a sandbox's now
		}
		it := ct.Labels[dockerrt.LabelPool]
		w := warm{Name: name, ID: ct.ID, BootID: ct.Labels[dockerrt.LabelBoot]}
		keep := ct.State == "running" && ct.Labels[dockerrt.LabelVersion] == p.a.Version &&
			p.count(it) < p.sizes[it] && !p.a.Docker.HandedOver(name)
		if keep {
			info, err := p.a.Docker.Inspect(ctx, ct.ID)
			if err == nil && info != nil {
				if why := p.stale(ctx, it, info); why != "" {
					p.log.Info("a warm container an earlier worker left is not what its type makes today",
						zap.String("container", name), zap.String("changed", why))
					info = nil
				}
			}
			// One whose fill the earlier worker died in, between start and
			// attach, is attached now: it never ran anything but its
			// supervisor.
			if err == nil && info != nil {
				w.IP, _ = p.a.Docker.Adopt(ctx, info)
			}
			// A loaded host answers slowly: a short wait replaced good
			// containers (TestWarmPoolAdoptsAFillLeftUnattached_FaultInjected
			// in a full CI run).
			hctx, cancel := context.WithTimeout(ctx, adoptHealthWait)
			keep = w.IP != "" && p.a.waitHealthy(hctx, w.container(), adoptHealthWait) == nil
			cancel()
		}
		if keep {
			p.add(it, w)
			continue
		}
		p.log.Info("removing a warm container an earlier worker left", zap.String("container", name))
		p.discard(w)
	}
}

// stale says what differs between a warm container an earlier worker made
// and the one fill would make for its instance type today: "image",
// "limits" or "disk" ("" when nothing does). A claim hands the container
// to a sandbox as is, so one of a type's old shape would boot it with the
// wrong image or bounds.
func (p *WarmPool) stale(ctx context.Context, instanceType string, info *container.InspectResponse) string {
	it, img, err := p.a.instanceImage(ctx, contract.BootInput{InstanceType: instanceType})
	if err != nil {
		return "image (" + err.Error() + ")"
	}
	if info.Image != img.ID {
		return "image"
	}
	h := info.HostConfig
	if h == nil {
		return "limits"
	}
	var pids int64 // Docker may answer none for no limit
	if h.PidsLimit != nil {
		pids = *h.PidsLimit
	}
	if h.NanoCPUs != it.NanoCPUs() || h.Memory != it.MemoryBytes() || pids != it.Pids {
		return "limits"
	}
	for _, m := range info.Mounts {
		if m.Destination != dockerrt.WorkspacePath {
			continue
		}
		v, err := p.a.Docker.Volume(ctx, m.Name)
		if err != nil || v.Labels[dockerrt.LabelDisk] != strconv.FormatInt(p.a.diskBytes(it), 10) {
			return "disk"
		}
	}
	return ""
}

// prune drops warm containers that stopped running (killed, OOM, a
// Docker restart) and makes them again.
func (p *WarmPool) prune(ctx context.Context) {
	p.mu.Lock()
	var all []warm
	for _, ws := range p.ready {
		all = append(all, ws...)
	}
	p.mu.Unlock()
	for _, w := range all {
		info, err := p.a.Docker.Inspect(ctx, w.ID)
		if err != nil || info != nil && info.State != nil && info.State.Running {
			continue
		}
		p.mu.Lock()
		for it, ws := range p.ready {
			for i := range ws {
				if ws[i].ID == w.ID {
					p.ready[it] = append(ws[:i:i], ws[i+1:]...)
					metrics.WarmPoolSize.WithLabelValues(it).Set(float64(len(p.ready[it])))
					break
				}
			}
		}
		p.mu.Unlock()
		p.log.Warn("a warm container stopped; replacing it", zap.String("container", w.Name))
		p.discard(w)
	}
}

// sweep removes warm volumes no container uses any more: those of
// claimed containers whose sandbox has since stopped (their disk went
// with the sandbox), and those a crash left between volume and container.
func (p *WarmPool) sweep(ctx context.Context) {
	f := p.ours()
	f.Add("dangling", "true")
	vs, err := p.a.Docker.Volumes(ctx, f)
	if err != nil {
		return
	}
	for _, v := range vs {
		created, err := time.Parse(time.RFC3339, v.CreatedAt)
		if !strings.HasPrefix(v.Name, WarmPrefix) || err == nil && time.Since(created) < warmSweepAge && !p.a.Docker.HandedOver(v.Name) {
			continue
		}
		p.dropVolume(ctx, v.Name)
	}
}
