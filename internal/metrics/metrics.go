// Package metrics holds every Prometheus metric Berth exports, so that
// their names, help texts and labels live in one place; the code that
// sees an event (gateway middleware, activities, egress, hosts) records
// it here. docs/design/observability.md lists them.
//
// Labels are bounded by construction: route templates, methods, status
// codes, operation kinds, outcomes, causes, instance types and host ids.
// Never a sandbox, process, request or boot id: a label value per sandbox
// would grow the series without bound.
package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is the process's registry: one /metrics per process (`berth
// dev` runs the worker and the gateway in one, and serves both on one
// listener).
var Registry = prometheus.NewRegistry()

const ns = "berth"

// Buckets. Latency covers the hot path's ~1 ms up to a slow wake; lifecycle
// covers a warm claim's tenth of a second up to a long restore.
var (
	latencyBuckets   = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	lifecycleBuckets = []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800}
)

// Outcomes.
const (
	OK    = "ok"
	Error = "error"
)

// Lifecycle operations (op label) and boot kinds (kind label).
const (
	OpBoot     = "boot"
	OpSleep    = "sleep"
	OpSnapshot = "snapshot"
	OpFork     = "fork"
	OpDestroy  = "destroy"

	BootCold    = "cold"
	BootWarm    = "warm"
	BootRestore = "restore"
)

// Gateway.
var (
	HTTPRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "http",
		Name: "requests_total", Help: "Gateway requests by route template, method and status code."},
		[]string{"route", "method", "code"})
	HTTPDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "http",
		Name: "request_duration_seconds", Help: "Gateway request latency (to the end of the handler; streams count their whole life).",
		Buckets: latencyBuckets}, []string{"route", "method", "code"})
	HTTPInFlight = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: "http",
		Name: "requests_in_flight", Help: "Gateway requests being served."})
	ProxyErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "proxy",
		Name: "errors_total", Help: "Hot-path requests the gateway could not carry to a supervisor, by cause."},
		[]string{"cause"})
	WakeWaits = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "gateway",
		Name: "wake_wait_seconds", Help: "How long a request waited for its sleeping sandbox to start, by outcome.",
		Buckets: lifecycleBuckets}, []string{"outcome"})
	PreviewRequests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "preview",
		Name: "requests_total", Help: "Preview URL requests by status code class."}, []string{"code"})
	LogBytesDelivered = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "logs",
		Name: "bytes_delivered_total", Help: "Process output bytes delivered to clients."})
	LogTruncations = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "logs",
		Name: "truncations_total", Help: "Log follows told that output they asked for was dropped (the buffer had moved on: a truncated event)."})
	LogDroppedBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "logs",
		Name: "dropped_bytes_total", Help: "Process output bytes log follows asked for that the supervisor had already dropped (the lost bytes of truncated events)."})
	LogFollowers = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: "logs",
		Name: "followers", Help: "Live process log follows carried by this gateway."})
	TerminalsOpen = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: "terminals",
		Name: "open", Help: "Terminal sessions attached through this gateway."})
)

// Lifecycle (worker).
var (
	LifecycleOps = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "lifecycle",
		Name: "operations_total", Help: "Lifecycle operations by op (boot, sleep, snapshot, destroy on a worker; fork on a gateway), boot kind (cold, warm, restore) and outcome."},
		[]string{"op", "kind", "outcome"})
	LifecycleDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Subsystem: "lifecycle",
		Name: "duration_seconds", Help: "Lifecycle operation duration by op, kind and outcome.", Buckets: lifecycleBuckets},
		[]string{"op", "kind", "outcome"})
	BackupBytes = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "backup",
		Name: "bytes_total", Help: "Workspace bytes backed up and restored."}, []string{"direction"})
	BackupFiles = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "backup",
		Name: "files_total", Help: "Workspace files backed up and restored."}, []string{"direction"})
	BackupFailures = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "backup",
		Name: "failures_total", Help: "Failed backups and restores by direction and cause (store, stalled, corrupt, disk, other)."},
		[]string{"direction", "cause"})
	WarmPoolSize = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "warm_pool",
		Name: "size", Help: "Warm containers ready on this host, by instance type."}, []string{"instance_type"})
	WarmClaims = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "warm_pool",
		Name: "claims_total", Help: "Boots served by a warm container."})
	WarmMisses = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "warm_pool",
		Name: "misses_total", Help: "Boots that found no warm container to claim on a host with a pool."})
	Sandboxes = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns,
		Name: "sandboxes", Help: "Sandbox containers on this host by state (running, paused: frozen by Berth or Docker, created …), instance type and host."},
		[]string{"status", "instance_type", "host"})
)

// Egress (worker).
var (
	EgressConnections = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "egress",
		Name: "connections_total", Help: "Egress connections accepted by the proxy, by mode (splice, intercept)."},
		[]string{"mode"})
	EgressBytes = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "egress",
		Name: "bytes_total", Help: "Egress bytes by mode and direction (out: to the internet)."}, []string{"mode", "direction"})
	EgressRefusals = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "egress",
		Name: "refusals_total", Help: "Refused lookups, connections and requests by reason (dns, connect, http, secret)."},
		[]string{"reason"})
	SecretSubstitutions = prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Subsystem: "egress",
		Name: "secret_substitutions_total", Help: "Secret placeholders substituted into outgoing requests (a count, never a value)."})
	ResolverQueries = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "egress",
		Name: "resolver_queries_total", Help: "DNS queries the sandbox resolver answered, by outcome (ok, refused, error)."},
		[]string{"outcome"})
)

// Hosts (worker).
var (
	HostCapacity = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "host",
		Name: "capacity", Help: "What this host offers sandboxes, by resource (cpu in vCPU, memory in bytes)."},
		[]string{"host", "resource"})
	HostLoad = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "host",
		Name: "load", Help: "What this host's sandboxes hold, by resource (as capacity)."}, []string{"host", "resource"})
	HostsLost = prometheus.NewGauge(prometheus.GaugeOpts{Namespace: ns, Subsystem: "host",
		Name: "lost", Help: "Hosts in the registry that stopped announcing themselves (not live), as this worker last read it."})
	Placements = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Subsystem: "host",
		Name: "placements_total", Help: "Boot placements by outcome (here, other, no_capacity, error)."}, []string{"outcome"})
	HostCRIU = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "host",
		Name: "criu", Help: "1 for what `criu check` said at worker start: absent, failing or works."}, []string{"state"})
	DiskFree = prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Subsystem: "host",
		Name: "disk_free_ratio", Help: "Free fraction of the file system holding a data directory (data: sandbox disks and volumes)."},
		[]string{"host", "path"})
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		HTTPRequests, HTTPDuration, HTTPInFlight, ProxyErrors, WakeWaits, PreviewRequests,
		LogBytesDelivered, LogTruncations, LogDroppedBytes, LogFollowers, TerminalsOpen,
		LifecycleOps, LifecycleDuration, BackupBytes, BackupFiles, BackupFailures,
		WarmPoolSize, WarmClaims, WarmMisses, Sandboxes,
		EgressConnections, EgressBytes, EgressRefusals, SecretSubstitutions, ResolverQueries,
		HostCapacity, HostLoad, HostsLost, Placements, DiskFree, HostCRIU,
	)
}
