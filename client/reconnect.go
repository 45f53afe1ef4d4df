package client

import (
	"context"
	"errors"
	"io"
	"time"
)

// reconnectWindow bounds how long a follow stream keeps reconnecting
// without receiving anything (a gateway restart takes a few seconds).
const reconnectWindow = 30 * time.Second

// reconnector paces the reconnects of a following stream (logs, events):
// exponential backoff, or the server's Retry-After, reset whenever an
// attempt made progress; it gives up on a non-retryable error or after
// reconnectWindow without progress.
type reconnector struct {
	failingSince time.Time
	backoff      time.Duration
}

// wait is called after an attempt that ended with err (nil: the stream
// ended cleanly but the caller follows). It sleeps before the next attempt,
// or returns the error that ends the stream.
func (r *reconnector) wait(ctx context.Context, progressed bool, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if progressed || r.failingSince.IsZero() {
		r.failingSince, r.backoff = time.Now(), 100*time.Millisecond
	}
	if err != nil && !retryable(err) || time.Since(r.failingSince) > reconnectWindow {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return err
	}
	d := r.backoff
	var ae *Error
	if errors.As(err, &ae) && ae.RetryAfter > 0 {
		d = ae.RetryAfter
	}
	select {
	case <-time.After(d):
	case <-ctx.Done():
		return ctx.Err()
	}
	r.backoff = min(2*r.backoff, 2*time.Second)
	return nil
}
