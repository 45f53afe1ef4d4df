package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// forwardSignals turns Ctrl-C (and TERM, HUP) into kills of the remote
// process group: the first sends the same signal, a second one SIGKILL.
// It returns a function that stops forwarding.
func forwardSignals(ctx context.Context, p *client.Process) func() {
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case s := <-ch:
				n++
				sig := s.(syscall.Signal)
				if n > 1 {
					sig = syscall.SIGKILL
					fmt.Fprintf(os.Stderr, "\nberth: sending SIGKILL to process %s\n", termsafe.String(p.ID))
				}
				kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				if _, err := p.Kill(kctx, sig); err != nil {
					msg, _, _ := describeError(err)
					fmt.Fprintf(os.Stderr, "berth: could not signal the process: %s\n", termsafe.String(msg))
				}
				cancel()
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// outputView is exec --json's answer.
type outputView struct {
	ID        string `json:"id"`
	PID       int    `json:"pid"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  int    `json:"exitCode"`
	Signal    int    `json:"signal,omitempty"`
	TimedOut  bool   `json:"timedOut"`
	Truncated bool   `json:"truncated"`
}

func execCmd(g *globals) *cobra.Command {
	var cwd, timeout, user string
	var envPairs []string
	var detach bool
	cmd := &cobra.Command{
		Use:   "exec NAME [flags] -- ARGV...",
		Short: "Run a command in a sandbox, streaming its output; exits with its exit code",
		Long: `Run ARGV in the sandbox (starting it if it sleeps). stdout and stderr stream
live to this terminal's stdout and stderr; Ctrl-C signals the remote process
group (a second Ctrl-C kills it); berth exits with the process's exit code
(128+signal when a signal ended it). No shell is added: use sh -c '...' for
pipes and globs. --detach prints the process id and returns at once.`,
		Example: `  berth exec demo -- sh -c 'echo hi > /workspace/hi && ls -l /workspace'
  berth exec demo --cwd /workspace --env DEBUG=1 --timeout 10m -- make test
  id=$(berth exec demo --detach -- sleep 60); berth logs demo $id -f`,
		GroupID: "process",
		Args:    cobra.MinimumNArgs(2), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dash := cmd.ArgsLenAtDash(); dash > 1 {
				return usageError{fmt.Errorf("put flags before --, and only ARGV after it: berth exec NAME [flags] -- ARGV")}
			}
			name, argv := args[0], args[1:]
			opts := client.ExecOptions{Cwd: cwd, User: user}
			if timeout != "" {
				d, err := parseDuration(timeout)
				if err != nil {
					return err
				}
				opts.Timeout = d
			}
			env, err := envLayer(envPairs)
			if err != nil {
				return err
			}
			opts.Env = env
			c, err := g.client()
			if err != nil {
				return err
			}
			// The command's context ends on Ctrl-C; the stream must not:
			// it goes on until the exit the Ctrl-C causes.
			ctx := context.WithoutCancel(cmd.Context())
			if g.json && !detach {
				return runJSON(ctx, cmd, c.Sandbox(name), argv, opts)
			}
			stopPulls := showPulls(ctx, c, name, nil) // the exec may boot the sandbox
			p, err := c.Sandbox(name).Exec(ctx, argv, opts)
			stopPulls()
			if err != nil {
				return err
			}
			if detach {
				return g.out(cmd, p.ProcessInfo, func(w io.Writer) { fmt.Fprintln(w, termsafe.String(p.ID)) })
			}
			stop := forwardSignals(ctx, p)
			defer stop()
			exit, err := streamLogs(ctx, p, "", true, true, cmd.OutOrStdout(), cmd.ErrOrStderr(), false)
			if err != nil {
				return err
			}
			if exit == nil {
				return fmt.Errorf("the log stream of process %s ended without an exit", p.ID)
			}
			if exit.TimedOut {
				fmt.Fprintf(cmd.ErrOrStderr(), "berth: process %s timed out after %s and was killed\n", termsafe.String(p.ID), opts.Timeout)
			}
			return exitOf(exitCodeOf(exit))
		},
	}
	f := cmd.Flags()
	f.StringVar(&cwd, "cwd", "", "working directory in the sandbox (default the image's WORKDIR, else /workspace)")
	f.StringVar(&user, "user", "", "run as this user (name or uid[:group]; default the image's USER, root always works)")
	f.StringArrayVarP(&envPairs, "env", "e", nil, "environment variable KEY=VALUE for this process (repeatable)")
	f.StringVar(&timeout, "timeout", "", "deadline on the process (e.g. 30s, 10m): its group is killed when it passes")
	f.BoolVarP(&detach, "detach", "d", false, "print the process id and return (follow it with 'berth logs NAME ID -f')")
	return cmd
}

// runJSON is exec --json: nothing streams, so the command runs in one
// round trip (Run), and Ctrl-C is forwarded once the process is known.
func runJSON(ctx context.Context, cmd *cobra.Command, sb *client.Sandbox, argv []string, opts client.ExecOptions) error {
	stop := func() {}
	defer func() { stop() }()
	out, err := sb.Run(ctx, argv, client.RunOptions{ExecOptions: opts, Started: func(p *client.Process) {
		stop = forwardSignals(ctx, p)
		// A Ctrl-C before the process was known (a sandbox waking, say)
		// is delivered now instead of being lost.
		if cmd.Context().Err() != nil {
			kctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, _ = p.Kill(kctx, syscall.SIGINT)
			cancel()
		}
	}})
	if err != nil {
		return err
	}
	code := exitCodeOf(&client.ExitStatus{Code: out.ExitCode, Signal: out.Signal})
	if err := writeJSON(cmd.OutOrStdout(), outputView{ID: out.ID, PID: out.PID, Stdout: string(out.Stdout), Stderr: string(out.Stderr),
		ExitCode: out.ExitCode, Signal: out.Signal, TimedOut: out.TimedOut, Truncated: out.Truncated}); err != nil {
		return err
	}
	return exitOf(code)
}

func exitOf(code int) error {
	if code == 0 {
		return nil
	}
	return exitError{code}
}

// logLine is a log event as `berth logs --json` prints it (one per line).
type logLine struct {
	Type      string             `json:"type"`
	Cursor    string             `json:"cursor"`
	Timestamp time.Time          `json:"timestamp"`
	Data      string             `json:"data,omitempty"`
	Base64    bool               `json:"base64,omitempty"` // data was not UTF-8 and is base64
	Exit      *client.ExitStatus `json:"exit,omitempty"`
}
