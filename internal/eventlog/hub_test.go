package eventlog

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

func TestHubSharesOneFollower(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	hub := NewHub(e.reader, 0)
	defer hub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	a := collect(func(emit Emit) error { return hub.Sandbox(ctx, name, 0, true, emit) })
	b := collect(func(emit Emit) error { return hub.Sandbox(ctx, name, 0, true, emit) })
	for _, c := range []*collected{a, b} {
		assert.Equal(t, int64(1), c.next(t, 5*time.Second).Offset)
	}
	assert.Equal(t, HubStats{Running: 1, Started: 1}, hub.Stats(), "two listeners, one long poll")

	// A third listener joining late from the middle gets the same tail.
	e.send(t, name, api.EventStartRequested)
	e.send(t, name, api.EventStarted)
	e.waitOffset(t, name, 3)
	c := collect(func(emit Emit) error { return hub.Sandbox(ctx, name, 1, true, emit) })
	e.continueAsNew(t, name)
	e.send(t, name, api.EventDestroyRequested)
	e.send(t, name, api.EventDestroyed)
	for _, l := range []*collected{a, b, c} {
		for off := int64(2); off <= 5; off++ {
			assert.Equal(t, off, l.next(t, 5*time.Second).Offset)
		}
		assert.NoError(t, l.end(t))
	}
	assert.Equal(t, 1, hub.Stats().Started, "still one long poll for three listeners")
	assert.Eventually(t, func() bool { return hub.Stats().Running == 0 }, 2*time.Second, 20*time.Millisecond,
		"the follower stops with its last listener")
}

func TestHubSlowListenerResumesFromHistory(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	hub := NewHub(e.reader, 2) // tiny mailbox: easy to overrun
	defer hub.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	gate := make(chan struct{})
	slowGot := make(chan api.Event, 100)
	slowDone := make(chan error, 1)
	go func() {
		slowDone <- hub.Sandbox(ctx, name, 0, true, func(env api.Event) error {
			if env.Offset == 2 {
				<-gate // stuck while the others stream on
			}
			slowGot <- env
			return nil
		})
	}()
	fast := collect(func(emit Emit) error { return hub.Sandbox(ctx, name, 0, true, emit) })
	assert.Equal(t, int64(1), fast.next(t, 5*time.Second).Offset)
	require.Eventually(t, func() bool { return len(slowGot) == 1 }, 5*time.Second, 10*time.Millisecond)

	const n = 12
	for i := 0; i < n; i++ {
		e.send(t, name, api.EventConfigured, schemas.Configured{Env: map[string]*string{"I": ptr(string(rune('a' + i)))}})
	}
	e.send(t, name, api.EventDestroyed)
	for off := int64(2); off <= n+2; off++ {
		assert.Equal(t, off, fast.next(t, 5*time.Second).Offset, "the fast listener is not held up")
	}
	assert.NoError(t, fast.end(t))

	close(gate)
	select {
	case err := <-slowDone:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("slow listener did not finish")
	}
	close(slowGot)
	want := int64(1)
	for env := range slowGot {
		assert.Equal(t, want, env.Offset, "no loss, no repeat")
		want++
	}
	assert.Equal(t, int64(n+3), want)
	assert.GreaterOrEqual(t, hub.Stats().Dropped, 1, "the slow listener was dropped from the fan-out")
}
