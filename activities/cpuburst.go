package activities

import (
	"os"
	"path/filepath"
	"strconv"
)

// Small instance types get a tenth of a core or a quarter: CFS hands out
// that share per 100 ms period, and a sandbox that spent its quota waits
// for the next period, up to 75 ms on basic. That wait was the tail of
// short requests (a command costs the supervisor and the command CPU in
// the sandbox's cgroup). A CFS burst of one quota lets an otherwise quiet
// sandbox bank what it did not use and spend it on a burst, without
// raising its average share. Best effort: where the cgroup cannot be
// found or the kernel has no burst (before 5.14), nothing changes.

// cfsPeriodMicros is Docker's CFS period for a --cpus limit.
const cfsPeriodMicros = 100_000

// setCPUBurst sets the container's CFS burst to one period's quota.
func setCPUBurst(containerID string, nanoCPUs int64) bool {
	if nanoCPUs <= 0 || containerID == "" {
		return false
	}
	quota := strconv.FormatInt(nanoCPUs*cfsPeriodMicros/1e9, 10) // µs, in v1 and v2 alike
	for _, f := range burstFiles(containerID) {
		if err := os.WriteFile(f, []byte(quota), 0); err == nil {
			return true
		}
	}
	return false
}

// burstFiles lists where the container's burst knob lives under the
// cgroup drivers Docker uses (v1 and v2, cgroupfs and systemd).
func burstFiles(id string) []string {
	const root = "/sys/fs/cgroup"
	return []string{
		filepath.Join(root, "cpu", "docker", id, "cpu.cfs_burst_us"),
		filepath.Join(root, "cpu,cpuacct", "docker", id, "cpu.cfs_burst_us"),
		filepath.Join(root, "cpu", "system.slice", "docker-"+id+".scope", "cpu.cfs_burst_us"),
		filepath.Join(root, "system.slice", "docker-"+id+".scope", "cpu.max.burst"),
		filepath.Join(root, "docker", id, "cpu.max.burst"),
	}
}
