package stacktest

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/berthdev/berth/internal/devserver"
)

// TemporalAddress is the dev server's frontend.
func (s *Stack) TemporalAddress() string { return s.temporal.Address() }

// KillTemporal SIGKILLs the Temporal dev server (an outage) and waits until
// it is gone. The worker and the gateway keep running.
func (s *Stack) KillTemporal() {
	_ = syscall.Kill(s.temporal.PID(), syscall.SIGKILL)
	<-s.temporal.Done()
}

// TemporalDown reports whether the dev server is gone (after KillTemporal).
func (s *Stack) TemporalDown() bool {
	select {
	case <-s.temporal.Done():
		return true
	default:
		return false
	}
}

// StartTemporal starts the dev server again on the same database and port,
// where the worker and the gateway reconnect to it.
func (s *Stack) StartTemporal(ctx context.Context) error {
	_, port, _ := net.SplitHostPort(s.temporal.Address())
	p, _ := strconv.Atoi(port)
	srv, err := devserver.Start(ctx, devserver.Options{CLI: s.cli, Dir: filepath.Join(s.Dir, "temporal"), Port: p, UIPort: -1})
	if err != nil {
		return err
	}
	s.temporal = srv
	return nil
}
