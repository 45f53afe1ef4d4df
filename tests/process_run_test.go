package tests

import (
	"encoding/base64"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/client"
)

// One-round-trip commands ("wait": true, the SDK's Run) must answer
// exactly what Exec followed by Output answers for the same command.
func TestProcessRunMatchesExecAndOutput(t *testing.T) {
	t.Parallel()
	ctx := testCtx(t, 3*time.Minute)
	n := name(t, "prun")
	sb := newSandbox(t, n, map[string]any{"sleepAfter": "1h"})

	type tc struct {
		name string
		argv []string
		opts client.ExecOptions
		max  int
		// check runs on the Run result after it was compared.
		check func(t *testing.T, r *client.RunResult)
	}
	cases := []tc{
		{name: "binary output", argv: []string{"sh", "-c", `printf '\000\001\377\376 bin\n'; printf '\200err\377' >&2`},
			check: func(t *testing.T, r *client.RunResult) {
				require.Equal(t, []byte("\x00\x01\xff\xfe bin\n"), r.Stdout)
				require.Equal(t, []byte("\x80err\xff"), r.Stderr)
			}},
		{name: "non-zero exit", argv: []string{"sh", "-c", "echo out; echo err >&2; exit 42"},
			check: func(t *testing.T, r *client.RunResult) {
				require.Equal(t, 42, r.ExitCode)
				require.Equal(t, "out\n", string(r.Stdout))
			}},
		{name: "large output truncated by maxBytes", argv: []string{"sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' a; echo END"}, max: 1000,
			check: func(t *testing.T, r *client.RunResult) {
				require.True(t, r.Truncated)
				require.Len(t, r.Stdout, 1000)
				require.True(t, strings.HasSuffix(string(r.Stdout), "aaaEND\n"))
			}},
		{name: "large output whole", argv: []string{"head", "-c", "3000000", "/dev/urandom"},
			check: func(t *testing.T, r *client.RunResult) {
				require.False(t, r.Truncated)
				require.Len(t, r.Stdout, 3000000)
			}},
		{name: "timeout", argv: []string{"sh", "-c", "echo started; sleep 30"}, opts: client.ExecOptions{Timeout: 300 * time.Millisecond},
			check: func(t *testing.T, r *client.RunResult) {
				require.True(t, r.TimedOut)
				require.Equal(t, int(syscall.SIGTERM), r.Signal)
				require.Equal(t, "started\n", string(r.Stdout))
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := sb.Exec(ctx, c.argv, c.opts)
			require.NoError(t, err)
			want, err := p.Output(ctx, client.OutputOptions{MaxBytes: c.max})
			require.NoError(t, err)

			start := time.Now()
			got, err := sb.Run(ctx, c.argv, client.RunOptions{ExecOptions: c.opts, MaxBytes: c.max})
			require.NoError(t, err)
			took := time.Since(start)
			if c.name != "large output whole" { // random bytes differ run to run
				require.Equal(t, *want, got.Output)
			} else {
				require.Equal(t, want.Truncated, got.Truncated)
				require.Equal(t, len(want.Stdout), len(got.Stdout))
			}
			c.check(t, got)

			// The result names a real process of the table, in its final state.
			require.NotEmpty(t, got.ID)
			info, err := sb.Process(got.ID).Status(ctx)
			require.NoError(t, err)
			require.Equal(t, "exited", info.State)
			require.Equal(t, got.PID, info.PID)
			require.Equal(t, got.ExitCode, info.Exit.Code)
			require.WithinDuration(t, *info.EndedAt, got.EndedAt, time.Millisecond)
			require.False(t, got.EndedAt.Before(got.StartedAt))
			require.Less(t, got.EndedAt.Sub(got.StartedAt), took+time.Second)
		})
	}

	t.Run("utf8 encoding on the wire", func(t *testing.T) {
		r := stack.Do(t, "POST", procPath(n), map[string]any{"argv": []string{"printf", `h\303\251\377`}, "wait": true, "encoding": "utf8"})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		var res api.ProcessResult
		r.JSON(t, &res)
		require.Equal(t, "hé\uFFFD", res.Stdout)
		require.Equal(t, res.ID, r.Header.Get(api.ProcessHeader))
		r = stack.Do(t, "POST", procPath(n), map[string]any{"argv": []string{"printf", `h\303\251\377`}, "wait": true})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r.JSON(t, &res)
		require.Equal(t, "hé\uFFFD", res.Stdout, "utf8 is the default, as for output")
		r = stack.Do(t, "POST", procPath(n), map[string]any{"argv": []string{"printf", `h\303\251\377`}, "wait": true, "encoding": "base64"})
		require.Equal(t, 200, r.Status, "%s", r.Body)
		r.JSON(t, &res)
		require.Equal(t, base64.StdEncoding.EncodeToString([]byte("h\xc3\xa9\xff")), res.Stdout)
	})

	t.Run("a long command is known before it ends", func(t *testing.T) {
		// Not the spec-checking client: it reads a JSON answer whole
		// before handing it on, which hides the early headers.
		sb := client.New(stack.URL, stack.Token, client.WithHTTPClient(&http.Client{})).Sandbox(n)
		started := make(chan *client.Process, 1)
		done := make(chan *client.RunResult, 1)
		go func() {
			r, err := sb.Run(ctx, []string{"sleep", "30"}, client.RunOptions{Started: func(p *client.Process) { started <- p }})
			if err == nil {
				done <- r
			}
			close(done)
		}()
		var p *client.Process
		select {
		case p = <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("Started was not called while the command ran")
		}
		_, err := p.Kill(ctx, syscall.SIGKILL) // what berth exec --json does on Ctrl-C
		require.NoError(t, err)
		r := <-done
		require.NotNil(t, r)
		require.Equal(t, p.ID, r.ID)
		require.Equal(t, 137, r.ExitCode)
		require.Equal(t, 9, r.Signal)
	})

	t.Run("refused combinations", func(t *testing.T) {
		for _, body := range []map[string]any{
			{"argv": []string{"true"}, "maxBytes": 10},                     // output options need wait
			{"argv": []string{"true"}, "encoding": "utf8"},                 //
			{"argv": []string{"true"}, "wait": true, "maxBytes": -1},       // negative
			{"argv": []string{"true"}, "wait": true, "encoding": "latin1"}, // unknown
			{"argv": []string{"true"}, "wait": true, "stdin": "pipe"},      // nobody could write it
			{"argv": []string{"true"}, "wait": true, "timeout": "soon"},    // not a duration
			{"argv": []string{"true"}, "wait": "yes"},                      // not a boolean
		} {
			r := stack.Do(t, "POST", procPath(n), body)
			require.Equal(t, 400, r.Status, "%v: %s", body, r.Body)
			require.Contains(t, string(r.Body), string(api.CodeValidation), "%v", body)
		}
		_, err := sb.Run(ctx, []string{"no-such-binary"}, client.RunOptions{})
		requireCode(t, err, 422, client.ErrExecutableNotFound)
	})
}
