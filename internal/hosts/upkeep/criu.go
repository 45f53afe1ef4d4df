package upkeep

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/berthdev/berth/internal/hosts"
	"github.com/berthdev/berth/internal/metrics"
)

// checkCRIU runs `criu check` once at worker start. A dozing container is
// what `criu dump` takes, so a host where CRIU works could later turn a
// long doze into a sleep that keeps memory and processes
// (docs/design/doze.md); nothing uses it yet. The result goes to the log,
// the host's record (hosts.Record.CRIU) and the berth_host_criu metric.
func checkCRIU(ctx context.Context, log *zap.Logger) hosts.CRIU {
	r := runCRIUCheck(ctx, "criu")
	metrics.HostCRIU.WithLabelValues(r.State).Set(1)
	fields := []zap.Field{zap.String("state", r.State), zap.String("version", r.Version), zap.String("detail", r.Detail)}
	if r.State == hosts.CRIUWorks {
		log.Info("criu check passed: dozing sandboxes could be checkpointed", fields...)
	} else {
		log.Info("no working CRIU: a sleep keeps the workspace only", fields...)
	}
	return r
}

// criuCheckTimeout bounds `criu check` (it probes the kernel: quick).
const criuCheckTimeout = 20 * time.Second

// maxCRIUDetail bounds what of criu's output the record keeps.
const maxCRIUDetail = 300

func runCRIUCheck(ctx context.Context, bin string) hosts.CRIU {
	path, err := exec.LookPath(bin)
	if err != nil {
		return hosts.CRIU{State: hosts.CRIUAbsent}
	}
	ctx, cancel := context.WithTimeout(ctx, criuCheckTimeout)
	defer cancel()
	r := hosts.CRIU{State: hosts.CRIUWorks}
	if v, err := exec.CommandContext(ctx, path, "--version").Output(); err == nil {
		r.Version = firstLine(string(v))
	}
	out, err := exec.CommandContext(ctx, path, "check").CombinedOutput()
	if err != nil {
		r.State = hosts.CRIUFailing
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			r.Detail = err.Error()
		}
	}
	if r.Detail == "" {
		r.Detail = verdict(string(out))
	}
	if len(r.Detail) > maxCRIUDetail {
		r.Detail = r.Detail[:maxCRIUDetail]
	}
	return r
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(l)
}

// verdict is criu's first error (the cause; the lines after it are its
// consequences) or, when none, its last line ("Looks good.").
func verdict(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "Error") {
			return strings.TrimSpace(l)
		}
	}
	s = strings.TrimSpace(s)
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}
