package cgroup

import (
	"os"
	"strconv"
	"strings"
)

// CPUs reads the container's CPU limit in CPUs from cgroup v2
// (cpu.max) or v1 (cpu.cfs_quota_us over cpu.cfs_period_us); false when
// there is none or it cannot be read.
func CPUs() (float64, bool) {
	if raw, err := os.ReadFile("/sys/fs/cgroup/cpu.max"); err == nil {
		quota, period, _ := strings.Cut(strings.TrimSpace(string(raw)), " ")
		return ratio(quota, period)
	}
	for _, dir := range []string{"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"} {
		quota, err1 := os.ReadFile(dir + "/cpu.cfs_quota_us")
		period, err2 := os.ReadFile(dir + "/cpu.cfs_period_us")
		if err1 == nil && err2 == nil {
			return ratio(strings.TrimSpace(string(quota)), strings.TrimSpace(string(period)))
		}
	}
	return 0, false
}

// ratio is quota/period; false for "max" or v1's -1 (no limit).
func ratio(quota, period string) (float64, bool) {
	q, err1 := strconv.ParseInt(quota, 10, 64)
	p, err2 := strconv.ParseInt(period, 10, 64)
	if err1 != nil || err2 != nil || q <= 0 || p <= 0 {
		return 0, false
	}
	return float64(q) / float64(p), true
}
