package dockerrt

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// cutProxy forwards a unix socket to the Docker daemon and can cut every
// connection open through it, as a daemon restart or a broken network
// does, while the daemon itself goes on (fault injection in front of a
// real Docker).
type cutProxy struct {
	path string
	mu   sync.Mutex
	open []net.Conn
}

func newCutProxy(t *testing.T, daemon string) *cutProxy {
	u, err := url.Parse(daemon)
	require.NoError(t, err)
	network, addr := u.Scheme, u.Host
	if network == "unix" {
		addr = u.Path
	}
	p := &cutProxy{path: filepath.Join(t.TempDir(), "docker.sock")}
	ln, err := net.Listen("unix", p.path)
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close(); p.cut() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial(network, addr)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.open = append(p.open, c, up)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	return p
}

// cut closes every connection open now; new ones go through.
func (p *cutProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
	p.open = nil
}

// seen is one subscriber's record.
type seen struct {
	resyncs chan struct{}
	died    chan string
}

func subscribeSeen(ctx context.Context, r *Runtime, f EventFilter) *seen {
	s := &seen{resyncs: make(chan struct{}, 16), died: make(chan string, 16)}
	r.Subscribe(ctx, f, EventHandler{
		Event:  func(_ context.Context, m events.Message) { s.died <- m.Actor.ID },
		Resync: func(context.Context) { s.resyncs <- struct{}{} },
	})
	return s
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s within 30s", what)
		panic("unreachable")
	}
}

// Two subscribers of one Runtime share its one events stream: after the
// stream to the daemon is cut and opened again, each is told to resync and
// each sees the die of a container started afterwards. Real Docker behind
// a proxy that cuts the connection.
func TestEventsReachEverySubscriberAfterTheStreamIsCut_FaultInjected(t *testing.T) {
	direct, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
	require.NoError(t, err)
	defer direct.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := direct.Ping(ctx); err != nil {
		t.Skip("no Docker:", err)
	}
	const image = "berth/test:latest"
	if _, err := direct.ImageInspect(ctx, image); err != nil {
		t.Skipf("image %s: %v", image, err)
	}
	proxy := newCutProxy(t, direct.DaemonHost())
	cli, err := client.NewClientWithOpts(client.WithHost("unix://"+proxy.path), client.WithAPIVersionNegotiation())
	require.NoError(t, err)
	r := &Runtime{cli: cli}
	defer r.Close()

	b := make([]byte, 6)
	_, _ = rand.Read(b)
	mark := "events-" + hex.EncodeToString(b)
	f := EventFilter{Type: events.ContainerEventType, Actions: []events.Action{events.ActionDie},
		Attributes: map[string]string{"io.berth.test": mark}}
	one, two := subscribeSeen(ctx, r, f), subscribeSeen(ctx, r, f)
	waitFor(t, one.resyncs, "first resync")
	waitFor(t, two.resyncs, "first resync")

	proxy.cut()
	waitFor(t, one.resyncs, "resync after the cut")
	waitFor(t, two.resyncs, "resync after the cut")

	c, err := direct.ContainerCreate(ctx, &container.Config{Image: image, Cmd: []string{"true"},
		Labels: map[string]string{"io.berth.test": mark}}, nil, nil, nil, "")
	require.NoError(t, err)
	defer direct.ContainerRemove(context.Background(), c.ID, container.RemoveOptions{Force: true})
	require.NoError(t, direct.ContainerStart(ctx, c.ID, container.StartOptions{}))
	require.Equal(t, c.ID, waitFor(t, one.died, "die event"))
	require.Equal(t, c.ID, waitFor(t, two.died, "die event"))
}

// A subscriber sees only what its filter names.
func TestEventFilterMatches(t *testing.T) {
	m := events.Message{Type: events.ContainerEventType, Action: events.ActionDie,
		Actor: events.Actor{ID: "c1", Attributes: map[string]string{LabelManaged: "true", LabelHost: "h1", "name": "berth-a"}}}
	for _, c := range []struct {
		f    EventFilter
		want bool
	}{
		{EventFilter{}, true},
		{EventFilter{Type: events.ContainerEventType, Actions: []events.Action{events.ActionDie, events.ActionStart}}, true},
		{EventFilter{Type: events.NetworkEventType}, false},
		{EventFilter{Actions: []events.Action{events.ActionStart}}, false},
		{EventFilter{Attributes: map[string]string{LabelManaged: "true", LabelHost: "h1"}}, true},
		{EventFilter{Attributes: map[string]string{LabelHost: "h2"}}, false},
	} {
		require.Equal(t, c.want, c.f.match(m), "%+v", c.f)
	}
}
