package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/schemas"
)

func requireValidStream(t *testing.T, evs []api.Event, name string) {
	t.Helper()
	for i, e := range evs {
		require.NoError(t, schemas.Validate(e), "event %d (%s)", i, e.Type)
		require.Equal(t, api.SandboxEventPath(name), e.Path)
		if i > 0 {
			require.Equal(t, evs[i-1].Offset+1, e.Offset, "offsets have no gap or repeat")
		}
	}
}

func shortTypes(evs []api.Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = api.ShortEventType(e.Type)
	}
	return out
}

func TestEventStreamOfAFullLifecycle(t *testing.T) {
	t.Parallel()
	n := name(t, "evt")
	ctx := context.Background()
	c := stack.Client()
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true, "env": map[string]string{"MODE": "dev"}})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	p, err := c.Sandbox(n).Exec(ctx, []string{"sh", "-c", "echo hi > /workspace/hi"}, client.ExecOptions{})
	require.NoError(t, err)
	_, err = p.Wait(ctx, 30*time.Second)
	require.NoError(t, err)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/kill", nil)
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"MODE": nil, "REGION": "getSecret(region)"}})
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)

	evs := stack.Events(t, n, 0)
	require.Equal(t, []string{
		"created", "configured", "start-requested", "started",
		"sleep-requested", "backup-created", "stopped",
		"start-requested", "started", "kill-requested", "configured",
		"destroy-requested", "stopped", "destroyed",
	}, shortTypes(evs))
	requireValidStream(t, evs, n)
	require.Equal(t, int64(1), evs[0].Offset)
	var created schemas.Created
	require.NoError(t, json.Unmarshal(evs[0].Payload, &created))
	require.Equal(t, n, created.Config.Name)
	var conf schemas.Configured
	require.NoError(t, json.Unmarshal(evs[10].Payload, &conf))
	require.Nil(t, conf.Env["MODE"], "null unsets")
	require.Equal(t, "getSecret(region)", *conf.Env["REGION"])

	// The catalogue has the claim.
	var claim *api.Event
	for _, e := range catalog(t) {
		var cr schemas.CreateRequested
		require.NoError(t, json.Unmarshal(e.Payload, &cr))
		if cr.Path == n {
			claim = &e
		}
	}
	require.NotNil(t, claim, "create-requested on /sandboxes")
	require.NoError(t, schemas.Validate(*claim))
	require.Equal(t, api.CatalogPath, claim.Path)

	// Follow ends after destroyed.
	done := make(chan []api.Event, 1)
	go func() { done <- followSSE(t, n, 0, 0) }()
	select {
	case got := <-done:
		require.Len(t, got, len(evs))
	case <-time.After(20 * time.Second):
		t.Fatal("follow of a destroyed sandbox did not end")
	}
}

func catalog(t *testing.T) []api.Event {
	req, _ := http.NewRequest("GET", stack.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	req.Header.Set("Accept", "application/x-ndjson")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out []api.Event
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var e api.Event
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		out = append(out, e)
	}
	for i := 1; i < len(out); i++ {
		require.Equal(t, out[i-1].Offset+1, out[i].Offset)
	}
	return out
}

// followSSE reads ?follow=true as Server-Sent Events until the stream ends
// or max events arrived (0: no limit), calling each arrival's time.
func followSSE(t *testing.T, n string, after int64, max int) []api.Event {
	evs, _ := followSSETimed(t, n, after, max)
	return evs
}

func followSSETimed(t *testing.T, n string, after int64, max int) ([]api.Event, []time.Time) {
	req, _ := http.NewRequest("GET", stack.URL+"/v1/sandboxes/"+n+"/events?follow=true&after="+itoa(after), nil)
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil
	}
	defer resp.Body.Close()
	var evs []api.Event
	var at []time.Time
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var e api.Event
		if json.Unmarshal([]byte(line), &e) != nil {
			continue
		}
		evs, at = append(evs, e), append(at, time.Now())
		if max > 0 && len(evs) == max {
			break
		}
	}
	return evs, at
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func TestEventsSurviveRestartsAndResumeExactly(t *testing.T) {
	n := name(t, "evr")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "keepAlive": true})
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/start", nil)
	stack.Must(t, 200, "POST", "/v1/sandboxes/"+n+"/sleep", nil)
	before := stack.Events(t, n, 0)

	stack.StopGateway(syscall.SIGKILL)
	stack.StopWorker(syscall.SIGKILL)
	require.NoError(t, stack.StartWorker())
	require.NoError(t, stack.StartGateway())
	after := stack.Events(t, n, 0)
	require.Equal(t, before, after, "same events, same offsets after restarts")
	for k := int64(0); k <= int64(len(after)); k++ {
		got := stack.Events(t, n, k)
		require.Len(t, got, len(after)-int(k), "after=%d", k)
		if len(got) > 0 {
			require.Equal(t, after[k:], got, "after=%d resumes exactly", k)
		}
	}
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// The stack forces continue-as-new every 60 history events: enough
// configure calls cross several runs while a follower streams.
func TestEventsAcrossForcedContinueAsNewWhileFollowing(t *testing.T) {
	t.Parallel()
	n := name(t, "evc")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	const changes = 25
	want := 1 + changes // created + configured...
	got := make(chan []api.Event, 1)
	go func() { got <- followSSE(t, n, 0, want) }()
	for i := 0; i < changes; i++ {
		stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"STEP": itoa(int64(i))}})
	}
	var evs []api.Event
	select {
	case evs = <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("follower stalled")
	}
	require.Len(t, evs, want)
	requireValidStream(t, evs, n)
	d, err := stack.Temporal.DescribeWorkflowExecution(context.Background(), "sandbox/"+n, "")
	require.NoError(t, err)
	require.NotEqual(t, d.WorkflowExecutionInfo.FirstRunId, d.WorkflowExecutionInfo.Execution.RunId, "continued as new at least once")
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

func TestFollowerSeesNewEventWithinASecond(t *testing.T) {
	n := name(t, "evf")
	stack.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n})
	type res struct {
		evs []api.Event
		at  []time.Time
	}
	got := make(chan res, 1)
	go func() { e, a := followSSETimed(t, n, 0, 2); got <- res{e, a} }()
	time.Sleep(time.Second) // the follower is waiting on the live end
	sent := time.Now()
	stack.Must(t, 200, "PATCH", "/v1/sandboxes/"+n+"/env", map[string]any{"env": map[string]any{"A": "1"}})
	r := <-got
	require.Equal(t, "configured", api.ShortEventType(r.evs[1].Type))
	require.Less(t, r.at[1].Sub(sent), time.Second)
	stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}
