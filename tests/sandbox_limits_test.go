package tests

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/activities"
	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// Per-sandbox limits on running processes, open terminals and concurrent
// log follows, in a real sandbox. The worker hands its BERTH_MAX_* settings
// to every supervisor; this test runs its own small stack with low limits
// so it need not start a thousand processes.
func TestSandboxLimitsOnProcessesTerminalsAndFollowers(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 4*time.Minute)
	s, err := stacktest.Start(ctx, stacktest.Options{Env: []string{
		"BERTH_MAX_PROCESSES=3", "BERTH_MAX_TERMINALS=2", "BERTH_MAX_LOG_FOLLOWERS=2"}})
	require.NoError(t, err)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker log:\n%s\ngateway log:\n%s", s.Logs("worker"), s.Logs("gateway"))
		}
		s.Close()
	})
	n := name(t, "limits")
	s.Must(t, 201, "POST", "/v1/sandboxes", map[string]any{"name": n, "sleepAfter": "1h"})
	sb := s.Client().Sandbox(n)

	// tooMany checks the 429 of a limit through the gateway, as curl sees
	// it; tooManyErr as the Go client does.
	tooMany := func(r stacktest.Response, code client.ErrorCode) {
		t.Helper()
		require.Equal(t, http.StatusTooManyRequests, r.Status, "%s", r.Body)
		require.Equal(t, string(code), r.Code())
		require.Equal(t, "1", r.Header.Get("Retry-After"))
		require.Contains(t, string(r.Body), "its limit")
	}
	tooManyErr := func(err error, code client.ErrorCode) {
		t.Helper()
		var e *client.Error
		require.True(t, errors.As(err, &e) && errors.Is(err, code), "want %s, got %v", code, err)
		require.Equal(t, http.StatusTooManyRequests, e.Status)
		require.True(t, e.Retryable)
		require.Equal(t, time.Second, e.RetryAfter)
	}

	t.Run("processes", func(t *testing.T) {
		var procs []*client.Process
		for i := 0; i < 3; i++ {
			p, err := sb.Exec(ctx, []string{"sleep", "600"}, client.ExecOptions{})
			require.NoError(t, err)
			procs = append(procs, p)
		}
		_, err := sb.Exec(ctx, []string{"true"}, client.ExecOptions{})
		tooManyErr(err, client.ErrTooManyProcesses)
		tooMany(s.Do(t, "POST", "/v1/sandboxes/"+n+"/processes", map[string]any{"argv": []string{"true"}}), client.ErrTooManyProcesses)
		_, err = procs[0].Kill(ctx, syscall.SIGKILL)
		require.NoError(t, err)
		_, err = procs[0].Wait(ctx, 30*time.Second)
		require.NoError(t, err)
		out := run(t, ctx, sb, "echo", "a slot is free")
		require.Equal(t, "a slot is free\n", string(out.Stdout))
		for _, p := range procs[1:] {
			_, _ = p.Kill(ctx, syscall.SIGKILL)
			_, _ = p.Wait(ctx, 30*time.Second)
		}
	})

	t.Run("terminals", func(t *testing.T) {
		sleeper := client.TerminalOptions{Argv: []string{"sleep", "600"}}
		var terms []*client.Terminal
		for i := 0; i < 2; i++ {
			term, err := sb.CreateTerminal(ctx, sleeper)
			require.NoError(t, err)
			terms = append(terms, term)
		}
		_, err := sb.CreateTerminal(ctx, sleeper)
		tooManyErr(err, client.ErrTooManyTerminals)
		tooMany(s.Do(t, "POST", "/v1/sandboxes/"+n+"/terminals", map[string]any{"argv": []string{"sh"}}), client.ErrTooManyTerminals)
		_, err = terms[0].Close(ctx)
		require.NoError(t, err)
		term, err := sb.CreateTerminal(ctx, sleeper)
		require.NoError(t, err, "a terminal slot is free again")
		_, _ = term.Close(ctx)
		_, _ = terms[1].Close(ctx)
	})

	t.Run("log followers", func(t *testing.T) {
		p, err := sb.Exec(ctx, []string{"sh", "-c", "while true; do echo tick; sleep 0.2; done"}, client.ExecOptions{})
		require.NoError(t, err)
		defer p.Kill(ctx, syscall.SIGKILL)
		// follow reads p's logs until its context ends; got receives each
		// event's error (nil for an event).
		follow := func() (got chan error, stop context.CancelFunc) {
			fctx, cancel := context.WithCancel(ctx)
			got = make(chan error, 1000)
			go func() {
				for _, err := range p.Logs(fctx, "", false, true) {
					got <- err
					if err != nil {
						return
					}
				}
			}()
			return got, cancel
		}
		first, stopFirst := follow()
		second, stopSecond := follow()
		defer stopSecond()
		for _, got := range []chan error{first, second} {
			require.NoError(t, <-got)
		}
		path := "/v1/sandboxes/" + n + "/processes/" + p.ID
		tooMany(s.Do(t, "GET", path+"/logs?follow=true", nil), client.ErrTooManyFollowers)
		tooMany(s.Do(t, "POST", path+"/wait-for-log", map[string]any{"pattern": "tick", "timeout": "1s"}), client.ErrTooManyFollowers)
		s.Must(t, 200, "GET", path+"/logs", nil) // reading without following is not limited

		// The Go client's follow waits (it retries after Retry-After) and
		// gets in once a slot frees.
		third, stopThird := follow()
		defer stopThird()
		select {
		case err := <-third:
			t.Fatalf("a third follower got in past the limit: %v", err)
		case <-time.After(1500 * time.Millisecond):
		}
		stopFirst()
		select {
		case err := <-third:
			require.NoError(t, err)
		case <-time.After(15 * time.Second):
			t.Fatal("the third follower did not get in after a slot freed")
		}
	})

	// The sandbox is still fine, and says so.
	require.Equal(t, "running", s.Status(t, n))
	s.Must(t, 200, "DELETE", "/v1/sandboxes/"+n, nil)
}

// TestForkAtThePidsLimitIsRefusedRetryably: hostile or careless code in a
// sandbox can hold every pid its instance type allows (lite: 256). A fork
// the kernel then refuses is the sandbox's limit, not a fault of Berth's:
// exec, Run and a new terminal answer the 429 TOO_MANY_PROCESSES of the
// other per-sandbox limits, retryable, naming the limit (they answered 500
// INTERNAL), the supervisor stays up, and once the processes end the next
// command runs.
func TestForkAtThePidsLimitIsRefusedRetryably(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "pids")
	sb := newSandbox(t, n, map[string]any{"instanceType": "lite", "sleepAfter": "1h"})
	// busybox sh exits at the first fork it cannot make, and its sleeps
	// live on in its process group; then sleeps of the supervisor's take
	// what pids are left.
	filler, err := sb.Exec(ctx, []string{"sh", "-c", "while :; do sleep 600 & done 2>/dev/null"}, client.ExecOptions{})
	require.NoError(t, err)
	st, err := filler.Wait(ctx, 60*time.Second)
	require.NoError(t, err)
	require.NotNil(t, st.Exit, "the filler ran out of pids")
	var full error
	var sleeps []*client.Process
	for range 50 {
		var p *client.Process
		if p, full = sb.Exec(ctx, []string{"sleep", "600"}, client.ExecOptions{}); full != nil {
			break
		}
		sleeps = append(sleeps, p)
	}
	var e *client.Error
	require.True(t, errors.As(full, &e), "the sandbox never ran out of pids: %v", full)
	require.Equal(t, http.StatusTooManyRequests, e.Status, "%v", full)
	require.ErrorIs(t, full, client.ErrTooManyProcesses)
	require.True(t, e.Retryable)
	require.Equal(t, time.Second, e.RetryAfter)
	require.Contains(t, e.Message, "256 processes and threads")

	path := "/v1/sandboxes/" + n
	for _, r := range []stacktest.Response{
		stack.Do(t, "POST", path+"/processes", map[string]any{"argv": []string{"true"}, "wait": true}),
		stack.Do(t, "POST", path+"/terminals", map[string]any{"argv": []string{"sh"}}),
	} {
		require.Equal(t, http.StatusTooManyRequests, r.Status, "%s", r.Body)
		require.Equal(t, string(client.ErrTooManyProcesses), r.Code())
		require.Equal(t, "1", r.Header.Get("Retry-After"))
	}

	// The supervisor's own threads count against the same limit. At it,
	// concurrent requests that block in system calls needed threads the
	// runtime could no longer make ("failed to create new OS thread"), and
	// the supervisor's exit took the container and every process down.
	before := containerStart(t, n)
	data := bytes.Repeat([]byte("berth"), 1<<20)
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch i % 3 {
			case 0:
				_, _ = sb.WriteFile(ctx, "/workspace/upload-"+strconv.Itoa(i), bytes.NewReader(data), client.WriteOptions{})
			case 1:
				if rc, err := sb.DownloadArchive(ctx, "/usr"); err == nil {
					_, _ = io.Copy(io.Discard, rc)
					rc.Close()
				}
			default:
				_, _ = sb.Run(ctx, []string{"true"}, client.RunOptions{})
			}
		}()
	}
	wg.Wait()
	require.Equal(t, before, containerStart(t, n), "the container was not restarted: its supervisor outlived the limit")

	// Ending the supervisor's sleeps frees pids for one kill of the
	// filler's whole group.
	for _, p := range sleeps {
		_, err := p.Kill(ctx, syscall.SIGKILL)
		require.NoError(t, err)
	}
	stacktest.WaitFor(t, 30*time.Second, "the filler's sleeps to be killed", func() (bool, string) {
		r, err := sb.Run(ctx, []string{"kill", "-9", "-" + strconv.Itoa(filler.PID)}, client.RunOptions{})
		if err != nil {
			return false, err.Error()
		}
		return r.ExitCode == 0, string(r.Stderr)
	})
	r, err := sb.Run(ctx, []string{"echo", "room again"}, client.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "room again\n", string(r.Stdout))
	require.Equal(t, "running", stack.Status(t, n), "the supervisor outlived the limit")
}

// containerStart is the id and start time of sandbox n's container: both
// change if it exited and was started again.
func containerStart(t *testing.T, n string) string {
	t.Helper()
	info, err := stack.Docker.Inspect(context.Background(), activities.ContainerName(n))
	require.NoError(t, err)
	require.NotNil(t, info, "sandbox %s has no container", n)
	require.True(t, info.State.Running, "the container of %s is not running: %+v", n, info.State)
	return info.ID + " " + info.State.StartedAt
}
