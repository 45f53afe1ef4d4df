package temporalconn

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// unavailableUntil is an invoker that answers Unavailable until t, then
// succeeds, counting its calls.
func unavailableUntil(t time.Time, calls *int) grpc.UnaryInvoker {
	return func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		*calls++
		if time.Now().Before(t) {
			return status.Error(codes.Unavailable, "connection refused")
		}
		return nil
	}
}

// A call that finds no node for 1.5 s (the SDK alone would next try it
// 2.8 s after it began) succeeds within the cap of its last wait.
func TestUnavailableRetriedSoonAfterTheClusterAnswers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	back := start.Add(1500 * time.Millisecond)
	calls := 0
	if err := retryUnavailable(ctx, "/m", nil, nil, nil, unavailableUntil(back, &calls)); err != nil {
		t.Fatal(err)
	}
	if late := time.Since(back); late > retryMax+100*time.Millisecond {
		t.Errorf("answered %v after the cluster was back; want at most %v", late, retryMax)
	}
	t.Logf("%d attempts, answered %v after the cluster was back", calls, time.Since(back).Round(time.Millisecond))
}

func TestOtherErrorsAndDeadlinesGoToTheCaller(t *testing.T) {
	calls := 0
	err := retryUnavailable(context.Background(), "/m", nil, nil, nil, func(context.Context, string, any, any, *grpc.ClientConn, ...grpc.CallOption) error {
		calls++
		return status.Error(codes.NotFound, "no such workflow")
	})
	if status.Code(err) != codes.NotFound || calls != 1 {
		t.Fatalf("NotFound: %v after %d calls; want it at once", err, calls)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = retryUnavailable(ctx, "/m", nil, nil, nil, unavailableUntil(start.Add(time.Hour), &calls))
	if status.Code(err) != codes.Unavailable {
		t.Fatalf("got %v, want the last Unavailable", err)
	}
	if d := time.Since(start); d > 400*time.Millisecond {
		t.Fatalf("returned %v after a 300 ms deadline", d)
	}
}
