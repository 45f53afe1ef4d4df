package config

// Loopback defaults of BERTH_METRICS_LISTEN: a gateway and a worker on
// one machine each get their own port; `berth dev` (both in one process)
// serves both on the gateway's.
const (
	DefaultMetricsListen       = "127.0.0.1:9470"
	DefaultWorkerMetricsListen = "127.0.0.1:9471"
)

// MetricsAddr is where this process serves /metrics ("off": nowhere), and
// whether that is the default (a default taken by another process is a
// warning, a configured one an error).
func (c Config) MetricsAddr(def string) (addr string, isDefault bool) {
	if c.MetricsListen == "" {
		return def, true
	}
	return c.MetricsListen, false
}
