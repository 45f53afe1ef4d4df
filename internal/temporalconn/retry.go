package temporalconn

import (
	"context"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// How soon a call that found no Temporal node to serve it is tried again.
// The SDK's own retry doubles from 200 ms without a cap below 10 s: a call
// failing from a node's death until the cluster has moved its shards and
// task queues (about 6 s, see docs/design/production.md) is next tried 12.4 s after it started. Trying again every
// half second at most answers it within half a second of the move.
const (
	retryFirst = 50 * time.Millisecond
	retryMax   = 500 * time.Millisecond
	// retryFor bounds the retries of a call without a deadline (the SDK
	// gives every call one; its own expiration is a minute).
	retryFor = time.Minute
)

// retryUnavailable retries a call answered Unavailable (the node it went
// to is gone, or the node it reached could not reach the one owning the
// workflow's shard or task queue) on a short, capped backoff until the
// call's deadline. It runs inside the SDK's retry interceptor, on each of
// its attempts, so every other error and the end of the deadline still
// go to the SDK's own policy.
func retryUnavailable(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	end, ok := ctx.Deadline()
	if !ok {
		end = time.Now().Add(retryFor)
	}
	delay := retryFirst
	for {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if status.Code(err) != codes.Unavailable || time.Until(end) < delay {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(2*delay, retryMax)
	}
}
