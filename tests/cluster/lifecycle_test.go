package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	berth "github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

// retries counts answers the API documents as "retry after a moment"
// (503 TEMPORAL_UNAVAILABLE and 504 TIMEOUT, with Retry-After) that the
// tests retried; anything else fails the call.
type retries struct {
	n      atomic.Int64
	byCode sync.Map // code -> *atomic.Int64
}

func (r *retries) add(code string) {
	r.n.Add(1)
	v, _ := r.byCode.LoadOrStore(code, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

func (r *retries) String() string {
	var parts []string
	r.byCode.Range(func(k, v any) bool {
		parts = append(parts, fmt.Sprintf("%s×%d", k, v.(*atomic.Int64).Load()))
		return true
	})
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// documentedRetry reports whether err is an answer the API tells clients
// to retry after a delay, and that delay.
func documentedRetry(err error) (string, time.Duration, bool) {
	var e *berth.Error
	if !errors.As(err, &e) || !e.Retryable {
		return "", 0, false
	}
	switch e.Status {
	case http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		d := e.RetryAfter
		if d <= 0 {
			d = time.Second
		}
		return fmt.Sprintf("%d %s", e.Status, e.Code), d, true
	}
	return "", 0, false
}

// call runs op, retrying documented retries for up to two minutes.
func call[T any](ctx context.Context, r *retries, what string, op func() (T, error)) (T, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, err := op()
		if err == nil {
			return v, nil
		}
		code, d, ok := documentedRetry(err)
		if !ok || time.Now().After(deadline) {
			return v, fmt.Errorf("%s: %w", what, err)
		}
		r.add(code)
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return v, ctx.Err()
		}
	}
}

// clients are one SDK client per gateway.
func (c *cluster) clients() []*berth.Client {
	var out []*berth.Client
	for _, u := range c.GatewayURLs {
		out = append(out, berth.New(u, c.Token, berth.WithHTTPClient(stacktest.HTTPClient())))
	}
	return out
}

// lifecycle drives one sandbox through create, start, exec, sleep, wake
// (start), exec and destroy, alternating gateways, and checks each state
// and that the live event stream equals the stored one at the end.
func lifecycle(ctx context.Context, cs []*berth.Client, r *retries, name string) error {
	gw := func(i int) *berth.Client { return cs[i%len(cs)] }
	liveCtx, stopLive := context.WithCancel(ctx)
	defer stopLive()
	live := make(chan []berth.Event, 1)
	liveErr := make(chan error, 1)
	started := make(chan struct{})
	var startOnce sync.Once

	info, err := call(ctx, r, "create", func() (*berth.SandboxInfo, error) {
		i, _, err := gw(0).Create(ctx, berth.CreateRequest{Name: name, InstanceType: "lite", SleepAfter: time.Hour})
		return i, err
	})
	if err != nil {
		return err
	}
	if info.Status != "created" {
		return fmt.Errorf("create: status %s", info.Status)
	}
	// Follow the stream from the start through whatever happens to the
	// cluster; the client resumes it from its last offset.
	go func() {
		var evs []berth.Event
		for ev, err := range gw(1).Events(liveCtx, name, 0, true) {
			startOnce.Do(func() { close(started) })
			if err != nil {
				liveErr <- err
				return
			}
			evs = append(evs, ev)
			if berth.ShortType(ev.Type) == "destroyed" {
				break
			}
		}
		live <- evs
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		return errors.New("event stream: nothing within a minute")
	}
	steps := []struct {
		what, want string
		do         func(*berth.Client) (*berth.SandboxInfo, error)
	}{
		{"start", "running", func(c *berth.Client) (*berth.SandboxInfo, error) { return c.Start(ctx, name) }},
		{"exec", "running", func(c *berth.Client) (*berth.SandboxInfo, error) { return execOK(ctx, c, name) }},
		{"sleep", "stopped", func(c *berth.Client) (*berth.SandboxInfo, error) { return c.Sleep(ctx, name) }},
		{"wake", "running", func(c *berth.Client) (*berth.SandboxInfo, error) { return c.Start(ctx, name) }},
		{"exec", "running", func(c *berth.Client) (*berth.SandboxInfo, error) { return execOK(ctx, c, name) }},
		{"destroy", "destroyed", func(c *berth.Client) (*berth.SandboxInfo, error) { return destroy(ctx, c, name) }},
	}
	for i, s := range steps {
		info, err := call(ctx, r, s.what, func() (*berth.SandboxInfo, error) { return s.do(gw(i + 1)) })
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if info.Status != s.want {
			return fmt.Errorf("%s: after %s the sandbox is %s, want %s", name, s.what, info.Status, s.want)
		}
	}
	var got []berth.Event
	select {
	case got = <-live:
	case err := <-liveErr:
		return fmt.Errorf("%s: live event stream: %w", name, err)
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("%s: the live event stream never delivered destroyed", name)
	}
	stored, err := call(ctx, r, "events", func() ([]berth.Event, error) {
		var evs []berth.Event
		for ev, err := range gw(0).Events(ctx, name, 0, false) {
			if err != nil {
				return nil, err
			}
			evs = append(evs, ev)
		}
		return evs, nil
	})
	if err != nil {
		return err
	}
	return sameStream(name, got, stored)
}

// sameStream checks that what a follower saw live is the stored stream:
// same offsets, same types, increasing, ending in destroyed.
func sameStream(name string, live, stored []berth.Event) error {
	if len(live) != len(stored) {
		return fmt.Errorf("%s: live stream has %d events, stored %d\nlive:   %s\nstored: %s", name, len(live), len(stored), types(live), types(stored))
	}
	for i := range live {
		if live[i].Offset != stored[i].Offset || live[i].Type != stored[i].Type {
			return fmt.Errorf("%s: event %d differs: live %d %s, stored %d %s", name, i, live[i].Offset, live[i].Type, stored[i].Offset, stored[i].Type)
		}
		if i > 0 && stored[i].Offset <= stored[i-1].Offset {
			return fmt.Errorf("%s: offsets not increasing at %d", name, i)
		}
	}
	ts := types(stored)
	for _, want := range []string{"created", "started", "stopped", "destroyed"} {
		if !strings.Contains(" "+ts+" ", " "+want+" ") {
			return fmt.Errorf("%s: no %s event in %s", name, want, ts)
		}
	}
	return nil
}

func types(evs []berth.Event) string {
	var s []string
	for _, e := range evs {
		s = append(s, berth.ShortType(e.Type))
	}
	return strings.Join(s, " ")
}

// execOK runs a command and checks its output; it answers the sandbox's
// state afterwards.
func execOK(ctx context.Context, c *berth.Client, name string) (*berth.SandboxInfo, error) {
	p, err := c.Sandbox(name).Exec(ctx, []string{"sh", "-c", "echo ok"}, berth.ExecOptions{})
	if err != nil {
		return nil, err
	}
	out, err := p.Output(ctx, berth.OutputOptions{})
	if err != nil {
		return nil, err
	}
	if out.ExitCode != 0 || strings.TrimSpace(string(out.Stdout)) != "ok" {
		return nil, fmt.Errorf("exec: exit %d, stdout %q", out.ExitCode, out.Stdout)
	}
	return c.Get(ctx, name)
}

// destroy is idempotent for the test's retries: a destroy whose answer
// was lost and is repeated finds the sandbox destroyed.
func destroy(ctx context.Context, c *berth.Client, name string) (*berth.SandboxInfo, error) {
	info, err := c.Destroy(ctx, name)
	var e *berth.Error
	if errors.As(err, &e) && e.Code == "SANDBOX_DESTROYED" {
		return c.Get(ctx, name)
	}
	return info, err
}

// TestClusterLifecycle: a sandbox's whole life over both gateways of the
// three-node cluster, with the live event stream complete.
func TestClusterLifecycle(t *testing.T) {
	c := need(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var r retries
	if err := lifecycle(ctx, c.clients(), &r, "life-"+c.HostID); err != nil {
		t.Fatal(err)
	}
	t.Logf("documented retries: %s", r.String())
}
