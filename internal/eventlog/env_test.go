package eventlog

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/devserver"
	"github.com/berthdev/berth/schemas"
)

// The tests share one real Temporal dev server and one worker running a tiny
// stand-in for the Sandbox workflow that records events exactly as the real
// one does (one UpsertMemo per event, plus berth.state upserts to skip).
type testEnv struct {
	client client.Client
	reader Reader
	seq    atomic.Int64
}

var shared *testEnv // set once by TestMain, read-only afterwards

const testQueue = "eventlog-test"

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	cli := os.Getenv("BERTH_TEMPORAL_CLI")
	if cli == "" {
		cli = "/tmp/tools/bin/temporal"
	}
	if _, err := os.Stat(cli); err != nil {
		if p, err := exec.LookPath("temporal"); err == nil {
			cli = p
		} else {
			fmt.Println("eventlog: no temporal CLI; integration tests skipped")
			return m.Run()
		}
	}
	dir, err := os.MkdirTemp("", "eventlog-test-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	srv, err := devserver.Start(ctx, devserver.Options{CLI: cli, Dir: dir, UIPort: -1})
	if err != nil {
		fmt.Println("eventlog: start dev server:", err)
		return 1
	}
	defer srv.Stop()
	// The frontend listens before it answers its health check (CI saw
	// "Frontend is not healthy yet"): dial until it does.
	var c client.Client
	for {
		c, err = client.Dial(client.Options{HostPort: srv.Address(), Logger: log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			fmt.Println("eventlog: dial:", err)
			return 1
		}
		time.Sleep(200 * time.Millisecond)
	}
	defer c.Close()
	w := worker.New(c, testQueue, worker.Options{})
	w.RegisterWorkflowWithOptions(testSandboxWorkflow, workflow.RegisterOptions{Name: WorkflowType})
	if err := w.Start(); err != nil {
		fmt.Println("eventlog: worker:", err)
		return 1
	}
	defer w.Stop()
	shared = &testEnv{client: c, reader: Reader{Client: c, PollInterval: 200 * time.Millisecond}}
	return m.Run()
}

func env(t *testing.T) *testEnv {
	t.Helper()
	if shared == nil {
		t.Skip("no temporal CLI")
	}
	return shared
}

// testSandboxInput is the state carried across continue-as-new: above all
// the next offset, so offsets continue across runs.
type testSandboxInput struct {
	Name       string
	NextOffset int64
}

type testEvent struct {
	Type    string
	Payload json.RawMessage
}

const (
	signalEvent = "event"
	signalCAN   = "continue-as-new"
)

func testSandboxWorkflow(ctx workflow.Context, in testSandboxInput) error {
	record := func(typ string, payload json.RawMessage) error {
		env := api.Event{Offset: in.NextOffset, Type: typ, Payload: payload,
			CreatedAt: workflow.Now(ctx), Path: api.SandboxEventPath(in.Name)}
		if err := workflow.UpsertMemo(ctx, map[string]interface{}{EventMemoKey: env}); err != nil {
			return err
		}
		in.NextOffset++
		return workflow.UpsertMemo(ctx, map[string]interface{}{"berth.state": map[string]any{"last": typ, "next": in.NextOffset}})
	}
	if in.NextOffset == 0 {
		in.NextOffset = 1
		created, _ := json.Marshal(schemas.Created{Config: schemas.SandboxConfig{Name: in.Name, InstanceType: "basic", SleepAfter: "10m"}})
		if err := record(api.EventCreated, created); err != nil {
			return err
		}
	}
	events := workflow.GetSignalChannel(ctx, signalEvent)
	can := workflow.GetSignalChannel(ctx, signalCAN)
	for {
		var ev testEvent
		gotCAN := false
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(events, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &ev) })
		sel.AddReceive(can, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil); gotCAN = true })
		sel.Select(ctx)
		if gotCAN {
			// Drain what is pending so continue-as-new loses nothing.
			for events.ReceiveAsync(&ev) {
				if err := record(ev.Type, ev.Payload); err != nil {
					return err
				}
			}
			return workflow.NewContinueAsNewError(ctx, WorkflowType, in)
		}
		if err := record(ev.Type, ev.Payload); err != nil {
			return err
		}
		if ev.Type == api.EventDestroyed {
			// Tombstone: stay open forever so the name is never reused.
			return workflow.Await(ctx, func() bool { return false })
		}
	}
}

// newSandbox claims a fresh sandbox and waits for its `created` event.
func (e *testEnv) newSandbox(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("t%d-%d", time.Now().UnixNano()%1_000_000, e.seq.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := e.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: WorkflowID(name), TaskQueue: testQueue,
		Memo: map[string]interface{}{SpecMemoKey: schemas.CreateRequested{Path: name, InstanceType: "basic"}},
	}, WorkflowType, testSandboxInput{Name: name})
	require.NoError(t, err)
	e.waitOffset(t, name, 1)
	return name
}

// send records one event of type typ (payload {} unless given).
func (e *testEnv) send(t *testing.T, name, typ string, payload ...any) {
	t.Helper()
	raw := json.RawMessage(`{}`)
	if len(payload) > 0 {
		var err error
		raw, err = json.Marshal(payload[0])
		require.NoError(t, err)
	}
	require.NoError(t, e.client.SignalWorkflow(context.Background(), WorkflowID(name), "", signalEvent, testEvent{Type: typ, Payload: raw}))
}

func (e *testEnv) continueAsNew(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, e.client.SignalWorkflow(context.Background(), WorkflowID(name), "", signalCAN, nil))
}

// readAll reads the stream without following.
func (e *testEnv) readAll(t *testing.T, name string, after int64) []api.Event {
	t.Helper()
	var out []api.Event
	err := e.reader.Sandbox(context.Background(), name, after, false, func(env api.Event) error {
		out = append(out, env)
		return nil
	})
	require.NoError(t, err)
	return out
}

// waitOffset waits until the stream holds an event with offset >= n.
func (e *testEnv) waitOffset(t *testing.T, name string, n int64) []api.Event {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		all := e.readAll(t, name, 0)
		if len(all) > 0 && all[len(all)-1].Offset >= n {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("sandbox %s: offset %d not recorded; have %d events", name, n, len(all))
		}
		time.Sleep(50 * time.Millisecond)
	}
}
