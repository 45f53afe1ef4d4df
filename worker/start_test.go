package worker

import (
	"context"
	"errors"
	"testing"

	sdkworker "go.temporal.io/sdk/worker"
	"go.uber.org/zap"
)

// failingStart is an SDK worker whose Start fails (fault injection of a
// Temporal that misses the start's deadline); only Start is called.
type failingStart struct {
	sdkworker.Worker
	err error
}

func (w *failingStart) Start() error { return w.err }

// A start that fails is tried again with a new worker; one that keeps
// failing ends in an error that says how often it was tried.
func TestStartPollingTriesAgainWithANewWorker_FaultInjected(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the backoff")
	}
	made := 0
	w, err := startPolling(context.Background(), zap.NewNop(), "shared", func() sdkworker.Worker {
		made++
		if made < 3 {
			return &failingStart{err: errors.New("failed reaching server: context deadline exceeded")}
		}
		return &failingStart{}
	})
	if err != nil || made != 3 || w == nil {
		t.Fatalf("after %d workers: %v, %v; want the third started", made, w, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = startPolling(ctx, zap.NewNop(), "host", func() sdkworker.Worker { return &failingStart{err: errors.New("down")} })
	if err == nil {
		t.Fatal("a worker that never starts was reported started")
	}
}
