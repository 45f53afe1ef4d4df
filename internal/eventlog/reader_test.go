package eventlog

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/schemas"
)

func ptr[T any](v T) *T { return &v }

// lifecycle drives a sandbox through every event type with two
// continue-as-new runs in the middle and returns the expected types.
func lifecycle(t *testing.T, e *testEnv, name string) []string {
	t.Helper()
	want := []string{api.EventCreated}
	step := func(typ string, payload ...any) {
		e.send(t, name, typ, payload...)
		want = append(want, typ)
		e.waitOffset(t, name, int64(len(want)))
	}
	step(api.EventConfigured, schemas.Configured{Env: map[string]*string{"MODE": ptr("dev"), "OLD": nil}})
	step(api.EventStartRequested)
	step(api.EventStarted)
	step(api.EventWorkspaceRestored, schemas.WorkspaceRestored{BackupID: "b1"})
	e.continueAsNew(t, name)
	step(api.EventSleepRequested)
	step(api.EventBackupCreated, schemas.BackupCreated{BackupID: "b2"})
	step(api.EventStopped)
	step(api.EventKillRequested)
	e.continueAsNew(t, name)
	step(api.EventSleepRequested)
	step(api.EventBackupFailed, schemas.BackupFailed{Error: "disk full"})
	step(api.EventStopped)
	step(api.EventDestroyRequested)
	step(api.EventDestroyed)
	return want
}

func TestSandboxStreamAcrossContinueAsNew(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	want := lifecycle(t, e, name)

	all := e.readAll(t, name, 0)
	require.Len(t, all, len(want))
	for i, env := range all {
		assert.Equal(t, int64(i+1), env.Offset, "no gap, no repeat")
		assert.Equal(t, want[i], env.Type)
		assert.Equal(t, api.SandboxEventPath(name), env.Path)
		assert.False(t, env.CreatedAt.IsZero())
		assert.NoError(t, schemas.Validate(env), "offset %d", env.Offset)
	}

	// The chain really spans three runs.
	d, err := e.client.DescribeWorkflowExecution(context.Background(), WorkflowID(name), "")
	require.NoError(t, err)
	assert.NotEqual(t, d.GetWorkflowExecutionInfo().GetFirstRunId(), d.GetWorkflowExecutionInfo().GetExecution().GetRunId())

	// after= resumes exactly, from every point.
	for after := 0; after <= len(all); after++ {
		got := e.readAll(t, name, int64(after))
		require.Len(t, got, len(all)-after, "after=%d", after)
		if len(got) > 0 {
			assert.Equal(t, int64(after+1), got[0].Offset)
		}
	}

	// Following a destroyed sandbox (a tombstone that stays open) ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n := 0
	require.NoError(t, e.reader.Sandbox(ctx, name, int64(len(all)), true, func(api.Event) error { n++; return nil }))
	assert.Zero(t, n)
}

func TestSandboxNotFound(t *testing.T) {
	e := env(t)
	err := e.reader.Sandbox(context.Background(), "never-claimed", 0, false, func(api.Event) error { return nil })
	assert.True(t, errors.Is(err, ErrNotFound), "%v", err)
	err = NewHub(e.reader, 0).Sandbox(context.Background(), "never-claimed", 0, true, func(api.Event) error { return nil })
	assert.True(t, errors.Is(err, ErrNotFound), "%v", err)
}

// follower collects a followed stream on its own goroutine.
type collected struct {
	ch   chan api.Event
	done chan error
}

func collect(stream func(emit Emit) error) *collected {
	c := &collected{ch: make(chan api.Event, 1024), done: make(chan error, 1)}
	go func() { c.done <- stream(func(env api.Event) error { c.ch <- env; return nil }) }()
	return c
}

// next waits for the next envelope, at most limit.
func (c *collected) next(t *testing.T, limit time.Duration) api.Event {
	t.Helper()
	select {
	case env := <-c.ch:
		return env
	default:
	}
	select {
	case env := <-c.ch:
		return env
	case err := <-c.done:
		select { // emitted just before it ended
		case env := <-c.ch:
			c.done <- err
			return env
		default:
		}
		t.Fatalf("stream ended early: %v", err)
	case <-time.After(limit):
		t.Fatalf("no event within %s", limit)
	}
	return api.Event{}
}

func (c *collected) end(t *testing.T) error {
	t.Helper()
	select {
	case err := <-c.done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end")
	}
	return nil
}

func TestFollowSeesNewEventsWithinOneSecond(t *testing.T) {
	e := env(t)
	name := e.newSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	direct := collect(func(emit Emit) error { return e.reader.Sandbox(ctx, name, 0, true, emit) })
	hub := NewHub(e.reader, 0)
	defer hub.Close()
	shared := collect(func(emit Emit) error { return hub.Sandbox(ctx, name, 0, true, emit) })
	for _, c := range []*collected{direct, shared} {
		assert.Equal(t, api.EventCreated, c.next(t, 5*time.Second).Type)
	}

	types := []string{api.EventStartRequested, api.EventStarted, "can", api.EventSleepRequested,
		api.EventStopped, "can", api.EventDestroyRequested, api.EventDestroyed}
	offset := int64(1)
	for _, typ := range types {
		if typ == "can" {
			e.continueAsNew(t, name)
			continue
		}
		sent := time.Now()
		e.send(t, name, typ)
		offset++
		for _, c := range []*collected{direct, shared} {
			got := c.next(t, 2*time.Second)
			assert.Equal(t, offset, got.Offset)
			assert.Equal(t, typ, got.Type)
			t.Logf("%s: %s after the signal, %s after recording", typ, time.Since(sent), time.Since(got.CreatedAt))
			assert.Less(t, time.Since(got.CreatedAt), time.Second, "%s seen %s after it was recorded", typ, time.Since(got.CreatedAt))
		}
	}
	assert.NoError(t, direct.end(t), "follow ends after destroyed")
	assert.NoError(t, shared.end(t))
}
