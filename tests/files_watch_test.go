package tests

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/stacktest"
)

type fileChange struct{ typ, path, from string }

// watchInto follows a watch into a channel until ctx ends or stop is
// closed; the error that ended it, if any, is the last thing sent.
func watchInto(ctx context.Context, sb *client.Sandbox, path string, o client.WatchOptions) (<-chan client.FileEvent, <-chan error) {
	evs, errc := make(chan client.FileEvent, 100), make(chan error, 1)
	go func() {
		defer close(evs)
		for ev, err := range sb.Watch(ctx, path, o) {
			if err != nil {
				errc <- err
				return
			}
			select {
			case evs <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return evs, errc
}

// nextChanges reads n events and checks them against want, in order,
// with increasing ids; it returns the last id.
func nextChanges(t *testing.T, evs <-chan client.FileEvent, want []fileChange) uint64 {
	t.Helper()
	var got []client.FileEvent
	var last uint64
	deadline := time.After(20 * time.Second)
	for len(got) < len(want) {
		select {
		case ev, ok := <-evs:
			require.True(t, ok, "watch ended after %+v", got)
			require.Greater(t, ev.ID, last, "ids increase")
			last = ev.ID
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("wanted %d events, got %+v", len(want), got)
		}
	}
	for i, w := range want {
		g := got[i]
		require.Equal(t, w, fileChange{g.Type, g.Path, g.From}, "event %d of %+v", i, got)
	}
	return last
}

func noMoreChanges(t *testing.T, evs <-chan client.FileEvent, d time.Duration) {
	t.Helper()
	select {
	case ev, ok := <-evs:
		if ok {
			t.Fatalf("unexpected event %+v (a duplicate or a change nobody made)", ev)
		}
	case <-time.After(d):
	}
}

func TestFilesWatch(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "watch")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	// A watch does not start a sandbox: someone looking must not wake it.
	_, errc := watchInto(ctx, sb, "", client.WatchOptions{})
	require.ErrorIs(t, <-errc, client.ErrSandboxNotRunning)
	require.Equal(t, "created", stack.Status(t, n))

	run(t, ctx, sb, "mkdir", "/workspace/w")
	wctx, stop := context.WithCancel(ctx)
	evs, _ := watchInto(wctx, sb, "w", client.WatchOptions{Recursive: true})
	time.Sleep(500 * time.Millisecond) // the stream is open (no event to wait for)

	w := "/workspace/w/"
	run(t, ctx, sb, "sh", "-c", `cd /workspace/w && printf 1 > a.txt && mkdir sub && sleep 0.3 &&
		printf x > sub/b.txt && mv a.txt sub/c.txt && rm sub/b.txt`)
	cursor := nextChanges(t, evs, []fileChange{
		{"create", w + "a.txt", ""}, {"modify", w + "a.txt", ""},
		{"create", w + "sub", ""},
		{"create", w + "sub/b.txt", ""}, {"modify", w + "sub/b.txt", ""},
		{"rename", w + "sub/c.txt", w + "a.txt"},
		{"delete", w + "sub/b.txt", ""},
	})
	noMoreChanges(t, evs, time.Second)

	// Disconnect; changes meanwhile arrive on resume, once each.
	stop()
	run(t, ctx, sb, "sh", "-c", `cd /workspace/w && printf y > d.txt && rm d.txt && mv sub sub2 && printf z > sub2/e.txt`)
	evs, errc = watchInto(ctx, sb, "/workspace/w", client.WatchOptions{Recursive: true, After: cursor})
	nextChanges(t, evs, []fileChange{
		{"create", w + "d.txt", ""}, {"modify", w + "d.txt", ""}, {"delete", w + "d.txt", ""},
		{"rename", w + "sub2", w + "sub"},
		{"create", w + "sub2/e.txt", ""}, {"modify", w + "sub2/e.txt", ""},
	})
	noMoreChanges(t, evs, time.Second)

	// Hostile names are data: the stream carries them exactly.
	run(t, ctx, sb, "sh", "-c", `touch "$(printf '/workspace/w/evil\033]0;x\007\nname')"`)
	nextChanges(t, evs, []fileChange{{"create", w + "evil\x1b]0;x\x07\nname", ""}})

	// A sleep ends the watch (it does not keep the sandbox awake, nor
	// wake it again by reconnecting).
	_, err := stack.Client().Sleep(ctx, n)
	require.NoError(t, err)
	for range evs {
	}
	require.ErrorIs(t, <-errc, client.ErrSandboxNotRunning)
	require.Equal(t, "stopped", stack.Status(t, n))
}

// berth watch prints one escaped line per event and exits 0 on Ctrl-C.
func TestCLIWatch(t *testing.T) {
	t.Parallel()
	n := name(t, "cliwatch")
	berthOK(t, "create", n, "--keep-alive")
	defer berth(t, "rm", n)
	berthOK(t, "exec", n, "--", "mkdir", "/workspace/w")
	cmd := berthCmd(t, "watch", n+":w", "--recursive")
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	time.Sleep(time.Second) // the stream is open (nothing to wait for)
	berthOK(t, "exec", n, "--", "sh", "-c", `cd /workspace/w && mkdir d && sleep 0.3 && touch "$(printf 'd/x\033]0;pwned\007y')" && mv d e`)
	stacktest.WaitFor(t, 20*time.Second, "the events", func() (bool, string) {
		return strings.Contains(stdout.String(), "rename   /workspace/w/d/ -> /workspace/w/e/"), stdout.String() + stderr.String()
	})
	out := stdout.String()
	require.NotContains(t, out, "\x1b", "an escape sequence from the sandbox reached the terminal")
	require.NotContains(t, out, "\x07")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Regexp(t, `^\d+  create   /workspace/w/d/$`, lines[0])
	require.Regexp(t, `^\d+  create   /workspace/w/d/x.*y$`, lines[1])
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	require.NoError(t, cmd.Wait(), stderr.String())
}
