// Waiting for a booted container's supervisor to answer, or for its exit.

package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/temporal"

	"github.com/berthdev/berth/internal/supervisorapi"
	"github.com/berthdev/berth/internal/tracing"
	"github.com/berthdev/berth/workflows/contract"
)

// waitHealthy polls the supervisor's health route until it names our boot.
// A container that has exited fails it at once, with the supervisor's last
// words; one whose supervisor refused its configuration (exit code 2) fails
// for good, since a retry would only meet the same image again.
//
// A supervisor answers some tens of milliseconds after its container
// started, so the first healthPollFast are polled every healthPollEvery (a
// refused connection costs microseconds); the doubling backoff this
// replaced let up to half of that time pass after the supervisor was up.
// Whether the container died is asked of Docker at most every
// healthExitEvery, not at every poll.
func (a *Activities) waitHealthy(ctx context.Context, c contract.Container, limit time.Duration) (err error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	// One span for the wait, not one per poll: polled every 2 ms, a boot
	// made tens of spans of refused connections, most of what tracing
	// cost a create.
	polls := 0
	if tracing.Enabled() {
		var span trace.Span
		ctx, span = tracing.Tracer().Start(ctx, "supervisor health wait", trace.WithSpanKind(trace.SpanKindClient))
		defer func() {
			span.SetAttributes(attribute.Int("berth.polls", polls))
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			span.End()
		}()
	}
	start := time.Now()
	delay := healthPollEvery
	var last error
	var exitChecked time.Time
	for {
		reqCtx, reqCancel := context.WithTimeout(tracing.Untraced(ctx), time.Second)
		var h supervisorapi.Health
		h, last = a.supervisor(c).Health(reqCtx)
		polls++
		reqCancel()
		if last == nil && h.BootID == c.BootID {
			return nil
		}
		if last == nil {
			last = fmt.Errorf("supervisor answered for boot %q, want %q", h.BootID, c.BootID)
		}
		if time.Since(exitChecked) >= healthExitEvery {
			if err := a.exited(ctx, c.ID); err != nil {
				return err
			}
			exitChecked = time.Now()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("supervisor of %s did not become healthy: %w", c.Addr, last)
		case <-time.After(delay):
		}
		if time.Since(start) > healthPollFast && delay < 100*time.Millisecond {
			delay *= 2
		}
	}
}

// The health poll's pace (see waitHealthy).
const (
	healthPollEvery = 2 * time.Millisecond
	healthPollFast  = 300 * time.Millisecond
	healthExitEvery = 25 * time.Millisecond
)

// exitConfig is the supervisor's exit code for a configuration it refuses.
const exitConfig = 2

// exited returns an error when the container ran and has stopped.
func (a *Activities) exited(ctx context.Context, id string) error {
	info, err := a.Docker.Inspect(ctx, id)
	switch {
	case err != nil:
		return nil // unknown: keep waiting
	case info == nil:
		return errors.New("the container was removed before its supervisor served")
	case info.State == nil || info.State.Status != "exited" && info.State.Status != "dead":
		return nil // not started yet, or running
	}
	code := info.State.ExitCode
	msg := fmt.Sprintf("the supervisor exited with code %d before serving", code)
	if tail := a.Docker.LogTail(ctx, id, 5); tail != "" {
		msg += ": " + tail
	}
	if code == exitConfig {
		return temporal.NewNonRetryableApplicationError(msg, "SUPERVISOR_FAILED", nil)
	}
	return errors.New(msg)
}
