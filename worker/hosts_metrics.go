package worker

import (
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
