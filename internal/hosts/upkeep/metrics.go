package upkeep

import (
	"github.com/berthdev/berth/internal/config"
	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/metrics"
)

// recordHosts sets the host gauges from a read of the registry: capacity
// and load (used plus reserved) per host, and how many are not live. The
// host label is bounded by the cluster's size, not by its sandboxes.
func recordHosts(hs []hosts.Host) {
	lost := 0
	for _, h := range hs {
		if !h.Live {
			lost++
		}
		load := h.Used.Add(h.Reserved)
		metrics.HostCapacity.WithLabelValues(h.ID, "cpu").Set(float64(h.Capacity.MilliCPU) / 1000)
		metrics.HostCapacity.WithLabelValues(h.ID, "memory").Set(float64(h.Capacity.MemoryMiB) * (1 << 20))
		metrics.HostLoad.WithLabelValues(h.ID, "cpu").Set(float64(load.MilliCPU) / 1000)
		metrics.HostLoad.WithLabelValues(h.ID, "memory").Set(float64(load.MemoryMiB) * (1 << 20))
	}
	metrics.HostsLost.Set(float64(lost))
}

// sandboxCounts counts this host's sandbox containers by Docker state
// (running, paused — frozen through the freezer or by Docker —, created …:
// a bounded set) and instance type.
type sandboxCounts map[[2]string]int

func (c sandboxCounts) add(state, instanceType string) { c[[2]string{state, instanceType}]++ }

// record replaces the host's berth_sandboxes series with c.
func (c sandboxCounts) record(host string) {
	metrics.Sandboxes.Reset()
	for k, n := range c {
		metrics.Sandboxes.WithLabelValues(k[0], k[1], host).Set(float64(n))
	}
}

// typeOf names the instance type whose limits are lim ("custom" when none
// matches: a type changed since the container was made).
func typeOf(types config.InstanceTypes, lim hosts.Resources) string {
	for _, name := range types.Names() {
		if hosts.Need(types[name]) == lim {
			return name
		}
	}
	return "custom"
}
