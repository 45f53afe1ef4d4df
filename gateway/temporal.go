package gateway

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/berthdev/berth/api"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.uber.org/zap"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Calls to Temporal fail fast when Temporal is unreachable. The SDK itself
// retries an unreachable server until its own deadlines (60 s for an
// Update), and an Update may legitimately take minutes (a sleep that backs up
// a large workspace), so a short deadline on the call is not the answer.
// Instead a call still running after probeAfter is watched: a health check
// with its own short deadline runs every probeEvery, and a probe refused,
// or probeMisses in a row that time out, cancel the call, which then
// answers TEMPORAL_UNAVAILABLE. A long
// call on a healthy Temporal runs as long as it needs; a fast one costs no
// probe at all.
const (
	probeAfter   = 500 * time.Millisecond
	probeEvery   = 2 * time.Second
	probeTimeout = 2 * time.Second
	// probeMisses timed-out probes in a row mean unreachable.
	probeMisses = 2
	// temporalRetryAfter is the Retry-After of TEMPORAL_UNAVAILABLE: about
	// how long a supervised dev server takes to come back.
	temporalRetryAfter = 2 * time.Second
)

// temporalUnavailable is the answer while Temporal cannot be reached.
func temporalUnavailable() *api.Error {
	e := api.NewError(http.StatusServiceUnavailable, api.CodeTemporalUnavailable, "Temporal is not reachable; retry shortly")
	e.Retryable, e.RetryAfterMs = true, temporalRetryAfter.Milliseconds()
	return e
}

// callTemporal runs call, watched as described above. It returns
// TEMPORAL_UNAVAILABLE when a probe failed and call did not succeed, else
// call's own error, unmapped.
func (s *Server) callTemporal(ctx context.Context, call func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var down atomic.Bool
	go s.watchTemporal(ctx, func() { down.Store(true); cancel() })
	err := call(ctx)
	if err != nil && down.Load() {
		return temporalUnavailable()
	}
	return err
}

// watchTemporal probes Temporal while ctx lives and calls unreachable once
// it is: at the first probe refused outright (a stopped server refuses at
// once), or at probeMisses probes in a row that time out. One probe that
// times out is a busy server more often than a dead one: a burst of 50
// creates on two cores kept the dev server's health check past
// probeTimeout, and the call it cut short would have succeeded.
func (s *Server) watchTemporal(ctx context.Context, unreachable func()) {
	t := time.NewTimer(probeAfter)
	defer t.Stop()
	misses := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := s.probeTemporal(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err == nil:
			misses = 0
		case isTimeout(err) && misses+1 < probeMisses:
			misses++
			s.log.Info("Temporal health check timed out; probing again", zap.Duration("timeout", probeTimeout), zap.Error(err))
		default:
			s.log.Warn("Temporal is unreachable: answering TEMPORAL_UNAVAILABLE", zap.Error(err))
			unreachable()
			return
		}
		t.Reset(probeEvery)
	}
}

// isTimeout: the probe got no answer in time (as opposed to a refusal).
// The SDK turns gRPC's status into a serviceerror, which status.Code does
// not read.
func isTimeout(err error) bool {
	var dl *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &dl) || status.Code(err) == codes.DeadlineExceeded
}

// probeTemporal is one health check of the Temporal frontend.
func (s *Server) probeTemporal(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := s.temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
	return err
}

// requireTemporal answers TEMPORAL_UNAVAILABLE up front for routes that
// would otherwise commit a 200 before their first call to Temporal (the
// event streams).
func (s *Server) requireTemporal(ctx context.Context) error {
	if err := s.probeTemporal(ctx); err != nil && ctx.Err() == nil {
		return temporalUnavailable()
	}
	return nil
}
