package child

import (
	"strconv"
	"syscall"
)

// WorkloadOOMScoreAdj is the oom_score_adj every child of the supervisor
// gets right after its fork, and its own children inherit.
//
// When the sandbox's processes use up its memory, the kernel kills the
// process it scores worst, by size plus this value. With many processes
// each smaller than the supervisor, that was the supervisor, and its exit
// took the container and every process down. At +500 any process of the
// workload scores worse than the supervisor (0) by half the sandbox's
// memory, so one of them goes instead. The supervisor cannot lower its own
// value (that needs CAP_SYS_RESOURCE, which neither it nor, on some hosts,
// the Docker daemon has), so the workload's is raised: that needs no
// privilege.
//
// Code in the sandbox may lower its own value back to 0 (the least the
// container started with), and so compete with the supervisor by size as
// before: it can harm only its own sandbox. A child forked between its
// parent's execve and this write keeps 0 too; the write comes as soon as
// the fork returns.
const WorkloadOOMScoreAdj = 500

var workloadAdj = []byte(strconv.Itoa(WorkloadOOMScoreAdj))

// deprioritise gives child pid the workload's oom_score_adj. Best effort:
// a child that has already exited has nothing to score.
func deprioritise(pid int) {
	fd, err := syscall.Open("/proc/"+strconv.Itoa(pid)+"/oom_score_adj", syscall.O_WRONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	_, _ = syscall.Write(fd, workloadAdj)
	syscall.Close(fd)
}
