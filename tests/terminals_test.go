package tests

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/client"
)

// readUntil reads from c until the output holds want.
func readUntil(t *testing.T, c *client.TerminalConn, out *bytes.Buffer, want string) {
	t.Helper()
	buf := make([]byte, 32<<10)
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(out.String(), want) {
		require.True(t, time.Now().Before(deadline), "no %q in %q", want, out.String())
		n, err := c.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			require.Contains(t, out.String(), want, "connection ended: %v", err)
			return
		}
	}
}

func TestTerminalSessionThroughGateway(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "term")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	list, err := sb.ListTerminals(ctx)
	require.NoError(t, err)
	require.Empty(t, list)
	require.Equal(t, "created", stack.Status(t, n), "listing never wakes")

	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{Cols: 80, Rows: 24})
	require.NoError(t, err)
	require.Equal(t, "running", stack.Status(t, n))
	require.True(t, strings.HasPrefix(term.ID, "t-"), term.ID)
	require.Equal(t, []string{"/bin/sh", "-l"}, term.Command) // busybox image: no bash

	c, err := term.Connect(ctx, "", 0, 0)
	require.NoError(t, err)
	var out bytes.Buffer
	_, err = c.Write([]byte("echo h''i; stty size\n"))
	require.NoError(t, err)
	readUntil(t, c, &out, "hi\r\n24 80")
	require.NoError(t, c.Resize(120, 40))
	time.Sleep(200 * time.Millisecond)
	c.Write([]byte("stty size\n"))
	readUntil(t, c, &out, "40 120")
	_, err = c.Write([]byte("exit 3\n"))
	require.NoError(t, err)
	_, err = io.Copy(io.Discard, c)
	require.NoError(t, err, "Read ends with io.EOF after the exit")
	require.Equal(t, &client.ExitStatus{Code: 3}, c.Exit())
	c.Close()

	got, err := sb.GetTerminal(ctx, term.ID)
	require.NoError(t, err)
	require.Equal(t, "exited", got.State)
	require.Equal(t, 3, got.Exit.Code)
	list, err = sb.ListTerminals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	got, err = sb.GetTerminal(ctx, "t-000000000000-1")
	require.NoError(t, err)
	require.Nil(t, got)
}

func TestTerminalReconnectWithCursorLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "termre")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})
	const lines = 20000
	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{Argv: []string{"sh", "-c",
		fmt.Sprintf("sleep 0.5; i=1; while [ $i -le %d ]; do echo line-$i; i=$((i+1)); done; sleep 0.2", lines)}})
	require.NoError(t, err)

	c, err := term.Connect(ctx, "", 0, 0)
	require.NoError(t, err)
	var out bytes.Buffer
	buf := make([]byte, 777) // odd sizes: the cursor must follow partial reads
	for out.Len() < 5000 {
		k, err := c.Read(buf)
		require.NoError(t, err)
		out.Write(buf[:k])
	}
	cursor := c.Cursor()
	c.Close() // mid-output
	time.Sleep(300 * time.Millisecond)

	c, err = term.Connect(ctx, cursor, 0, 0)
	require.NoError(t, err)
	_, err = io.Copy(&out, c)
	require.NoError(t, err)
	require.False(t, c.Truncated())
	require.Equal(t, 0, c.Exit().Code)
	c.Close()
	all := strings.Split(strings.TrimSuffix(out.String(), "\r\n"), "\r\n")
	require.Len(t, all, lines)
	for i, l := range all {
		require.Equal(t, fmt.Sprintf("line-%d", i+1), l)
	}
}

func TestTerminalOpenKeepsSandboxAwake(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 2*time.Minute)
	n := name(t, "termawake")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "2s"})
	term, err := sb.CreateTerminal(ctx, client.TerminalOptions{})
	require.NoError(t, err)
	// No connection at all: the open terminal alone keeps it awake.
	for start := time.Now(); time.Since(start) < 7*time.Second; time.Sleep(500 * time.Millisecond) {
		require.Equal(t, "running", stack.Status(t, n), "slept with an open terminal")
	}
	closed := time.Now()
	info, err := term.Close(ctx)
	require.NoError(t, err)
	require.Equal(t, "exited", info.State)
	left := watchAwake(t, n, closed, 60*time.Second)
	require.Greater(t, left, 1500*time.Millisecond)
	stack.WaitStatus(t, n, "stopped", 30*time.Second)
	got, err := sb.GetTerminal(ctx, term.ID)
	require.NoError(t, err)
	require.Nil(t, got)
}
