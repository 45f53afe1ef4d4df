package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/internal/stacktest"
	"github.com/berthdev/berth/workflows/contract"
)

// A rolling upgrade: two workers on the same host queue and two gateways
// behind a client that spreads requests over both (as a load balancer
// does), under steady traffic (create, exec, sleep, wake, destroy from a
// few goroutines). The workers are restarted one at a time (SIGTERM, start
// again, wait until it polls both queues), then the gateways (SIGTERM,
// start again, wait healthy). What the client may see and retries:
//
//   - a refused or reset connection to a gateway that is going down (the
//     load balancer's case: nothing answered, so the request goes to the
//     other gateway; lifecycle calls are idempotent, so a call cut after it
//     was sent is safe to repeat too, and a repeated destroy that answers
//     410 SANDBOX_DESTROYED says the cut one did it);
//   - an answer marked "retryable": true (503 TEMPORAL_UNAVAILABLE,
//     CONTAINER_UNAVAILABLE, UNAVAILABLE, with Retry-After), and 504
//     TIMEOUT, which says the operation goes on in the background.
//
// Anything else fails the test, and at the end every sandbox must be in the
// state its last call left it in, with a whole event stream.
func TestRollingUpgradeOfWorkersAndGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts every process of the stack")
	}
	worker2, err := stack.StartReplica("worker", 2)
	require.NoError(t, err)
	gateway2, err := stack.StartReplica("gateway", 2)
	require.NoError(t, err)
	t.Cleanup(func() {
		gateway2.Stop(syscall.SIGTERM)
		worker2.Stop(syscall.SIGTERM)
	})
	require.NoError(t, stacktest.WaitHealthy(gateway2.URL, 30*time.Second))
	waitPollers(t, "worker 2", worker2Identity(worker2), 60*time.Second)

	lb := &balancer{urls: []string{stack.URL, gateway2.URL}}
	ctx, stopTraffic := context.WithCancel(context.Background())
	defer stopTraffic()
	driversCtx, stopDrivers := context.WithCancel(ctx)
	defer stopDrivers()
	const drivers = 3
	var wg sync.WaitGroup
	results := make([]*driverResult, drivers)
	for i := 0; i < drivers; i++ {
		res := &driverResult{}
		results[i] = res
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			drive(driversCtx, lb, name(t, fmt.Sprintf("roll%d", i)), res)
		}(i)
	}
	// A follower of the catalogue, reconnecting (after= its last offset)
	// whenever a gateway going down ends its stream.
	cat := &catalogFollower{seen: map[string]int64{}}
	catDone := make(chan struct{})
	go func() { defer close(catDone); cat.follow(ctx, lb) }()
	// Traffic runs before, between and after every restart.
	pause := func() { time.Sleep(8 * time.Second) }
	pause()
	restarts := map[string]time.Duration{}
	restart := func(what string, stop func(), start func() error, ready func()) {
		t0 := time.Now()
		stop()
		require.NoError(t, start(), what)
		ready()
		restarts[what] = time.Since(t0)
		t.Logf("%s restarted and ready in %s", what, restarts[what].Round(time.Millisecond))
		pause()
	}
	restart("worker 1", func() { stack.StopWorker(syscall.SIGTERM) }, stack.StartWorker,
		func() { waitPollers(t, "worker 1", "", 60*time.Second) })
	restart("worker 2", func() { worker2.Stop(syscall.SIGTERM) }, worker2.Start,
		func() { waitPollers(t, "worker 2", worker2Identity(worker2), 60*time.Second) })
	restart("gateway 1", func() { stack.StopGateway(syscall.SIGTERM) }, stack.StartGateway,
		func() { require.NoError(t, stacktest.WaitHealthy(stack.URL, 30*time.Second)) })
	restart("gateway 2", func() { gateway2.Stop(syscall.SIGTERM) }, gateway2.Start,
		func() { require.NoError(t, stacktest.WaitHealthy(gateway2.URL, 30*time.Second)) })
	stopDrivers()
	wg.Wait() // the drivers stop at the end of a step…
	time.Sleep(2 * time.Second)
	stopTraffic() // …the catalogue follower once it has caught up
	<-catDone

	var total driverResult
	for i, r := range results {
		t.Logf("driver %d: %d calls, %d retried (%v), %d cycles; failures: %v", i, r.calls, r.retried, r.reasons, r.cycles, r.failures)
		total.calls += r.calls
		total.retried += r.retried
		total.cycles += r.cycles
		total.failures = append(total.failures, r.failures...)
		require.Positive(t, r.cycles, "driver %d made no full cycle", i)
	}
	t.Logf("rolling upgrade: %d calls, %d retried, %d create→exec→sleep→wake→exec→destroy cycles, restarts %v",
		total.calls, total.retried, total.cycles, restarts)
	if len(total.failures) > 0 {
		for _, r := range results {
			if len(r.failures) > 0 && len(r.sandboxes) > 0 {
				logSandboxStory(t, r.sandboxes[len(r.sandboxes)-1], worker2, gateway2)
			}
		}
	}
	require.Empty(t, total.failures, "calls that failed with a non-retryable answer, or a sandbox in a wrong state")
	t.Logf("catalogue follower: %d events, %d reconnects; problems: %v", cat.events, cat.reconnects, cat.problems)
	require.Empty(t, cat.problems, "the catalogue stream skipped or repeated an offset")
	for _, r := range results {
		for _, n := range r.sandboxes {
			if r.want[n] != "" {
				require.Contains(t, cat.seen, n, "the catalogue follower never saw %s", n)
			}
		}
	}
	for _, r := range results {
		for _, n := range r.sandboxes {
			requireEndState(t, n, r.want[n])
		}
	}
}

// driverResult is what one traffic goroutine saw.
type driverResult struct {
	calls, retried, cycles int
	reasons                map[string]int
	failures               []string
	sandboxes              []string
	want                   map[string]string // sandbox -> status it must end in
}

func (r *driverResult) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// drive runs create → exec → sleep → wake (exec) → destroy cycles until ctx
// ends; the sandbox of the last, unfinished cycle is left as it is and its
// state checked.
func drive(ctx context.Context, lb *balancer, prefix string, res *driverResult) {
	res.reasons, res.want = map[string]int{}, map[string]string{}
	for cycle := 0; ctx.Err() == nil; cycle++ {
		n := fmt.Sprintf("%s-%d", prefix, cycle)
		res.sandboxes = append(res.sandboxes, n)
		steps := []struct {
			method, path string
			body         any
			want         int
			status       string // the sandbox's status after the step
		}{
			{"POST", "/v1/sandboxes", map[string]any{"name": n, "instanceType": "lite", "sleepAfter": "1h"}, 201, "created"},
			{"EXEC", n, "one", 0, "running"},
			{"POST", "/v1/sandboxes/" + n + "/sleep", nil, 200, "stopped"},
			{"EXEC", n, "two", 0, "running"}, // wakes it
			{"DELETE", "/v1/sandboxes/" + n, nil, 200, "destroyed"},
		}
		for _, st := range steps {
			if ctx.Err() != nil {
				return
			}
			var ok bool
			if st.method == "EXEC" {
				ok = lb.exec(res, n, st.body.(string))
			} else {
				ok = lb.call(res, st.method, st.path, st.body, st.want, nil)
			}
			if !ok {
				return
			}
			res.want[n] = st.status
		}
		res.cycles++
	}
}

// requireEndState checks a sandbox is in the status its last call left it
// in, and that its event stream is whole: offsets 1..n without a gap.
func requireEndState(t *testing.T, n, want string) {
	t.Helper()
	if want == "" {
		// Its create never answered: it may or may not exist, but if it
		// does it must be a sandbox at rest.
		r := stack.Do(t, "GET", "/v1/sandboxes/"+n, nil)
		require.Contains(t, []int{200, 404}, r.Status, "%s: %s", n, r.Body)
		return
	}
	require.Equal(t, want, stack.Status(t, n), "sandbox %s", n)
	evs := stack.Events(t, n, 0)
	for i, e := range evs {
		require.Equal(t, int64(i+1), e.Offset, "sandbox %s: event %d", n, i)
	}
	if want == "destroyed" {
		require.Equal(t, api.EventDestroyed, evs[len(evs)-1].Type)
	} else {
		// Leave nothing running behind the test.
		stack.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
	}
}

// catalogFollower follows /v1/events through the balancer: each offset
// must come exactly once, in order, across reconnects.
type catalogFollower struct {
	last, events, reconnects int64
	seen                     map[string]int64 // sandbox -> offset
	problems                 []string
}

func (f *catalogFollower) follow(ctx context.Context, lb *balancer) {
	for ctx.Err() == nil {
		url := lb.urls[int(lb.next.Add(1))%len(lb.urls)]
		req, err := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/v1/events?follow=true&after=%d", url, f.last), nil)
		if err != nil {
			f.problems = append(f.problems, err.Error())
			return
		}
		req.Header.Set("Authorization", "Bearer "+stack.Token)
		req.Header.Set("Accept", "application/x-ndjson")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			if resp.StatusCode != http.StatusOK {
				raw, _ := io.ReadAll(resp.Body)
				if reason, ok := retryReason(resp.StatusCode, raw, nil); !ok {
					f.problems = append(f.problems, "catalogue: "+reason)
				}
			} else {
				f.read(resp.Body)
			}
			resp.Body.Close()
		}
		if ctx.Err() == nil {
			f.reconnects++
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func (f *catalogFollower) read(body io.Reader) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue // keep-alive
		}
		var e api.Event
		if err := json.Unmarshal(line, &e); err != nil {
			f.problems = append(f.problems, fmt.Sprintf("catalogue line %q: %v", line, err))
			return
		}
		if e.Type == "" {
			// An {"error":…} line ends the stream: fine if retryable.
			var env api.ErrorEnvelope
			if json.Unmarshal(line, &env) != nil || env.Error == nil || !env.Error.Retryable {
				f.problems = append(f.problems, fmt.Sprintf("catalogue ended with %s", line))
			}
			return
		}
		if e.Offset != f.last+1 {
			f.problems = append(f.problems, fmt.Sprintf("offset %d after %d", e.Offset, f.last))
		}
		var spec struct{ Path string }
		_ = json.Unmarshal(e.Payload, &spec)
		f.seen[spec.Path] = e.Offset
		f.last = e.Offset
		f.events++
	}
}

// balancer spreads requests over the gateways round-robin and retries what
// the API documents as retryable, on the next gateway.
type balancer struct {
	urls []string
	next atomic.Int64
}

const retryFor = 2 * time.Minute

// call sends one request until it gets want or a non-retryable answer
// (then it records a failure and returns false). out, if set, receives
// the decoded body.
func (b *balancer) call(res *driverResult, method, path string, body any, want int, out any) bool {
	res.calls++
	deadline := time.Now().Add(retryFor)
	delivered := false // an earlier attempt may have reached the gateway
	for attempt := 0; ; attempt++ {
		status, raw, err := b.do(method, path, body)
		if delivered && method == "DELETE" && destroyedAnswer(status, raw, err) {
			// The cut attempt destroyed it: 410 is how a repeated
			// destroy says so (the name is tombstoned, not absent).
			return true
		}
		if err == nil && status == want {
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					res.fail("%s %s: decode %s: %v", method, path, raw, err)
					return false
				}
			}
			return true
		}
		reason, retry := retryReason(status, raw, err)
		if !retry || time.Now().After(deadline) {
			res.fail("%s %s: %s (status %d, want %d): %s", method, path, reason, status, want, raw)
			return false
		}
		if attempt == 0 {
			res.retried++
		}
		delivered = delivered || !errors.Is(err, syscall.ECONNREFUSED)
		res.reasons[reason]++
		time.Sleep(backoff(attempt))
	}
}

// exec runs `echo word` in the sandbox (waking it) and checks the output.
// A process whose create was cut off may have run twice; echo is harmless.
func (b *balancer) exec(res *driverResult, n, word string) bool {
	var p struct{ ID string }
	if !b.call(res, "POST", "/v1/sandboxes/"+n+"/processes", map[string]any{"argv": []string{"echo", word}}, 201, &p) {
		return false
	}
	var out struct {
		Stdout   string
		ExitCode int
	}
	if !b.call(res, "GET", "/v1/sandboxes/"+n+"/processes/"+p.ID+"/output?encoding=utf8", nil, 200, &out) {
		return false
	}
	if out.Stdout != word+"\n" || out.ExitCode != 0 {
		res.fail("exec in %s: output %q exit %d", n, out.Stdout, out.ExitCode)
		return false
	}
	return true
}

func (b *balancer) do(method, path string, body any) (int, []byte, error) {
	url := b.urls[int(b.next.Add(1))%len(b.urls)]
	var rd io.Reader
	if body != nil {
		buf, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(buf)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url+path, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+stack.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := stacktest.HTTPClient().Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, raw, err
}

// retryReason names why an answer may be retried, or says it may not.
func retryReason(status int, raw []byte, err error) (string, bool) {
	if err != nil {
		// No answer: a gateway going down (refused, reset, EOF).
		switch {
		case errors.Is(err, syscall.ECONNREFUSED):
			return "connection refused", true
		case errors.Is(err, syscall.ECONNRESET):
			return "connection reset", true
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF"):
			return "connection closed", true
		}
		return "transport: " + err.Error(), false
	}
	var env api.ErrorEnvelope
	if json.Unmarshal(raw, &env) != nil || env.Error == nil {
		return fmt.Sprintf("HTTP %d without an error body", status), false
	}
	code := string(env.Error.Code)
	if env.Error.Retryable || (status == http.StatusGatewayTimeout && env.Error.Code == api.CodeTimeout) {
		return fmt.Sprintf("%d %s", status, code), true
	}
	return fmt.Sprintf("%d %s (not retryable)", status, code), false
}

// destroyedAnswer says the answer is 410 SANDBOX_DESTROYED.
func destroyedAnswer(status int, raw []byte, err error) bool {
	var env api.ErrorEnvelope
	return err == nil && status == http.StatusGone &&
		json.Unmarshal(raw, &env) == nil && env.Error != nil && env.Error.Code == api.CodeSandboxDestroyed
}

func backoff(attempt int) time.Duration {
	d := 200 * time.Millisecond << min(attempt, 4)
	return min(d, 3*time.Second)
}

// worker2Identity is the SDK's default identity prefix of the replica's
// current process ("<pid>@<host>@").
func worker2Identity(r *stacktest.Replica) string { return fmt.Sprintf("%d@", r.PID()) }

// waitPollers waits until a poller whose identity starts with prefix (the
// stack's own worker when prefix is "") polls both the shared queue and
// the host queue: the restarted worker takes work again.
func waitPollers(t *testing.T, what, prefix string, timeout time.Duration) {
	t.Helper()
	waitPollersOn(t, what, prefix, timeout, contract.SharedQueue, contract.HostQueue(stack.HostID))
}

// waitPollersOn is waitPollers on the given queues only.
func waitPollersOn(t *testing.T, what, prefix string, timeout time.Duration, queues ...string) {
	t.Helper()
	if prefix == "" {
		prefix = fmt.Sprintf("%d@", stack.WorkerPID())
	}
	stacktest.WaitFor(t, timeout, what+" polling", func() (bool, string) {
		for _, q := range queues {
			for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
				if q != contract.SharedQueue && typ == enumspb.TASK_QUEUE_TYPE_WORKFLOW {
					continue // the host queue has activities only
				}
				resp, err := stack.Temporal.DescribeTaskQueue(context.Background(), q, typ)
				if err != nil {
					return false, err.Error()
				}
				if !hasPoller(resp, prefix) {
					return false, fmt.Sprintf("no poller %s* on %s (%v)", prefix, q, typ)
				}
			}
		}
		return true, ""
	})
}

func hasPoller(resp *workflowservice.DescribeTaskQueueResponse, prefix string) bool {
	for _, p := range resp.GetPollers() {
		if strings.HasPrefix(p.GetIdentity(), prefix) && recent(p) {
			return true
		}
	}
	return false
}

func recent(p *taskqueuepb.PollerInfo) bool {
	return time.Since(p.GetLastAccessTime().AsTime()) < 30*time.Second
}

// logSandboxStory prints what a failed sandbox went through: its event
// stream and every worker log line that names it (a failure under CI's
// load is rarely reproduced alone).
func logSandboxStory(t *testing.T, n string, worker2, gateway2 *stacktest.Replica) {
	for _, e := range stack.Events(t, n, 0) {
		t.Logf("%s event %d %s %s %s", n, e.Offset, e.CreatedAt.Format("15:04:05.000"), e.Type, e.Payload)
	}
	for role, lines := range map[string][]string{"worker 1": stack.Grep("worker", n), "worker 2": worker2.Grep(n),
		"gateway 1": stack.Grep("gateway", n), "gateway 2": gateway2.Grep(n)} {
		for _, line := range lines {
			t.Logf("%s: %s", role, line)
		}
	}
}
