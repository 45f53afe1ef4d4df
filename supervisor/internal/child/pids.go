package child

import (
	"net/http"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/supervisor/internal/cgroup"
	"github.com/berthdev/berth/supervisor/internal/httpapi"
)

// pidsLimit is the container's limit on processes and threads (its
// instance type's pids; cgroup v2, then v1), 0 when there is none or it
// cannot be read.
func pidsLimit() int {
	return int(cgroup.Limit("/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids/pids.max"))
}

// atPidsLimit is the answer to a fork the kernel refused with EAGAIN: the
// sandbox's own processes and threads (a fork bomb, a pile of orphans)
// hold every pid its limit allows. Nothing is wrong with the request or
// the supervisor, and a retry succeeds once some of them end, so it is
// the 429 of the other per-sandbox limits, not a 500.
func atPidsLimit(argv0 string) *httpapi.Error {
	const frees = "end some of them (killing a process ends its whole process group)"
	if limit := pidsLimit(); limit > 0 {
		e := httpapi.TooMany(api.CodeTooManyProcesses, "processes and threads (its instance type's pids limit)", limit, frees)
		return e.With("argv0", httpapi.Echo(argv0))
	}
	e := httpapi.NewError(http.StatusTooManyRequests, api.CodeTooManyProcesses,
		"cannot start "+httpapi.Quote(argv0)+": the kernel refused the fork (resource temporarily unavailable), so this sandbox's processes and threads are at its limit; "+frees+", then retry")
	e.Retryable, e.RetryAfterMs = true, httpapi.LimitRetryAfterMs
	return e.With("argv0", httpapi.Echo(argv0))
}
