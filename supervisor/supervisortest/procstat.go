package supervisortest

import (
	"fmt"
	"os"
	"strings"
)

// ProcStat is what the exec benchmarks read of a process from /proc to say
// where an exec's cost lands: CPU time and, above all here, context
// switches, which on a small VM cost more than the work between them.
type ProcStat struct {
	CPU, ChildCPU int64 // user+system clock ticks of the process, of its reaped children
	Switches      int64 // voluntary context switches of all its threads
}

// ClockTicks is USER_HZ, the unit of CPU times in /proc/<pid>/stat.
const ClockTicks = 100

// ReadProcStat reads pid's figures; zero for a process that is gone.
func ReadProcStat(pid int) ProcStat {
	var st ProcStat
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return st
	}
	s := string(raw)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // f[0] is field 3, state
	var u, sy, cu, cs int64
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &sy)
	fmt.Sscan(f[13], &cu)
	fmt.Sscan(f[14], &cs)
	st.CPU, st.ChildCPU = u+sy, cu+cs
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		for _, l := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				var n int64
				fmt.Sscan(strings.TrimSpace(v), &n)
				st.Switches += n
			}
		}
	}
	return st
}

// Sub is the difference from an earlier reading.
func (s ProcStat) Sub(before ProcStat) ProcStat {
	return ProcStat{CPU: s.CPU - before.CPU, ChildCPU: s.ChildCPU - before.ChildCPU, Switches: s.Switches - before.Switches}
}
