package cgroup

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"
)

// Usage is what the container has used, as its cgroup counts it. A field
// is -1 when this kernel's cgroup does not say.
type Usage struct {
	CPU         time.Duration // CPU time since the cgroup was made
	MemoryBytes int64         // memory less inactive page cache
	MemoryLimit int64         // 0 for none
	Pids        int64
	PidsLimit   int64 // 0 for none
}

// Root is where the container's cgroup is mounted (tests point it elsewhere).
var Root = "/sys/fs/cgroup"

// ReadUsage reads cgroup v2 (one unified directory) or v1 (a directory
// per controller; Docker mounts the container's own at Root/<controller>).
func ReadUsage() Usage {
	if _, err := os.Stat(Root + "/cgroup.controllers"); err == nil {
		return readV2(Root)
	}
	return readV1(Root)
}

func readV2(dir string) Usage {
	u := Usage{CPU: -1, MemoryBytes: -1, Pids: -1}
	if usec := statField(dir+"/cpu.stat", "usage_usec"); usec >= 0 {
		u.CPU = time.Duration(usec) * time.Microsecond
	}
	if cur := number(dir + "/memory.current"); cur >= 0 {
		u.MemoryBytes = max(cur-max(statField(dir+"/memory.stat", "inactive_file"), 0), 0)
	}
	u.MemoryLimit = Limit(dir + "/memory.max")
	u.Pids = number(dir + "/pids.current")
	u.PidsLimit = Limit(dir + "/pids.max")
	return u
}

func readV1(dir string) Usage {
	u := Usage{CPU: -1, MemoryBytes: -1, Pids: -1}
	for _, d := range []string{dir + "/cpuacct", dir + "/cpu,cpuacct"} {
		if ns := number(d + "/cpuacct.usage"); ns >= 0 {
			u.CPU = time.Duration(ns)
			break
		}
	}
	if cur := number(dir + "/memory/memory.usage_in_bytes"); cur >= 0 {
		u.MemoryBytes = max(cur-max(statField(dir+"/memory/memory.stat", "total_inactive_file"), 0), 0)
	}
	u.MemoryLimit = Limit(dir + "/memory/memory.limit_in_bytes")
	u.Pids = number(dir + "/pids/pids.current")
	u.PidsLimit = Limit(dir + "/pids/pids.max")
	return u
}

// number reads a file holding one non-negative number; -1 when it cannot.
func number(file string) int64 {
	raw, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// statField reads "key value" from a flat-keyed cgroup file; -1 when absent.
func statField(file, key string) int64 {
	raw, err := os.ReadFile(file)
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return -1
			}
			return n
		}
	}
	return -1
}
