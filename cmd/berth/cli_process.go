package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

var signalNames = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT, "KILL": syscall.SIGKILL,
	"USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2, "TERM": syscall.SIGTERM, "STOP": syscall.SIGSTOP,
	"CONT": syscall.SIGCONT, "ALRM": syscall.SIGALRM,
}

// parseSignal reads TERM, SIGTERM or 15.
func parseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	if sig, ok := signalNames[strings.TrimPrefix(strings.ToUpper(s), "SIG")]; ok {
		return sig, nil
	}
	return 0, usageError{fmt.Errorf("unknown signal %q: use TERM, KILL, INT, HUP, QUIT, USR1, USR2 or a number", s)}
}

func signalName(s syscall.Signal) string {
	for n, v := range signalNames {
		if v == s {
			return "SIG" + n
		}
	}
	return "signal " + strconv.Itoa(int(s))
}

// exitCodeOf is the shell convention: the code, or 128+signal.
func exitCodeOf(e *client.ExitStatus) int {
	if e == nil {
		return 1
	}
	if e.Code == 0 && e.Signal != 0 {
		return 128 + e.Signal
	}
	return e.Code
}

// argvString shows a command line on one line, each argument escaped: the
// argv of a sandbox's process must not drive the terminal.
func argvString(argv []string) string { return strings.Join(termsafe.Strings(argv), " ") }

func describeExit(p *client.ProcessInfo) string {
	switch {
	case p.State == "running":
		return "is running"
	case p.Exit == nil:
		return "ended (" + termsafe.String(p.State) + ")"
	case p.Exit.TimedOut:
		return fmt.Sprintf("timed out and was killed (exit %d)", exitCodeOf(p.Exit))
	case p.Exit.Signal != 0:
		return fmt.Sprintf("was killed by %s (exit %d)", signalName(syscall.Signal(p.Exit.Signal)), exitCodeOf(p.Exit))
	}
	return fmt.Sprintf("exited with code %d", p.Exit.Code)
}

// completeProcess completes NAME, then a process id of that sandbox.
func completeProcess(g *globals) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch len(args) {
		case 0:
			return sandboxNames(cmd.Context(), g, toComplete), cobra.ShellCompDirectiveNoFileComp
		case 1:
			c, err := g.client()
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 3*time.Second)
			defer cancel()
			ps, err := c.Sandbox(args[0]).ListProcesses(ctx)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, p := range ps {
				if strings.HasPrefix(p.ID, toComplete) && termsafe.Safe(p.ID) {
					out = append(out, cobra.CompletionWithDesc(p.ID, termsafe.String(p.State)+" "+argvString(p.Command)))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

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
	var cwd, timeout string
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
			opts := client.ExecOptions{Cwd: cwd}
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
			p, err := c.Sandbox(name).Exec(ctx, argv, opts)
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
	f.StringVar(&cwd, "cwd", "", "working directory in the sandbox (default /workspace)")
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

// streamLogs copies a process's log stream to stdout and stderr (or, as
// NDJSON, to stdout) and returns the exit status if the stream reached it.
func streamLogs(ctx context.Context, p *client.Process, since string, replay, follow bool, stdout, stderr io.Writer, asJSON bool) (*client.ExitStatus, error) {
	var exit *client.ExitStatus
	for ev, err := range p.Logs(ctx, since, replay, follow) {
		if err != nil {
			return nil, err
		}
		if asJSON {
			l := logLine{Type: ev.Type, Cursor: ev.Cursor, Timestamp: ev.Timestamp, Exit: ev.Exit}
			if ev.Data != nil {
				if utf8.Valid(ev.Data) {
					l.Data = string(ev.Data)
				} else {
					l.Data, l.Base64 = encodeBase64(ev.Data), true
				}
			}
			if err := writeJSONLine(stdout, l); err != nil {
				return nil, err
			}
		} else {
			switch ev.Type {
			case "stdout":
				if _, err := stdout.Write(ev.Data); err != nil {
					return nil, err
				}
			case "stderr":
				if _, err := stderr.Write(ev.Data); err != nil {
					return nil, err
				}
			case "truncated":
				fmt.Fprintln(stderr, "berth: [older output was dropped from the sandbox's buffer]")
			}
		}
		if ev.Type == "exit" {
			exit = ev.Exit
		}
	}
	return exit, nil
}

func psCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use: "ps NAME", Short: "List the processes of a sandbox's current container (never wakes it)", GroupID: "process",
		Args: cobra.ExactArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			ps, err := c.Sandbox(args[0]).ListProcesses(cmd.Context())
			if err != nil {
				return err
			}
			infos := make([]client.ProcessInfo, len(ps))
			for i, p := range ps {
				infos[i] = p.ProcessInfo
			}
			return g.out(cmd, infos, func(w io.Writer) {
				if len(infos) == 0 {
					fmt.Fprintf(w, "no processes in %s (a sleeping sandbox has none)\n", termsafe.String(args[0]))
					return
				}
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tPID\tSTATE\tEXIT\tSTARTED\tCOMMAND")
				for _, p := range infos {
					exit := "-"
					if p.Exit != nil {
						exit = strconv.Itoa(exitCodeOf(p.Exit))
						if p.Exit.TimedOut {
							exit += " (timed out)"
						}
					}
					fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", termsafe.String(p.ID), p.PID, termsafe.String(p.State), exit,
						ago(p.StartedAt), argvString(p.Command))
				}
				tw.Flush()
			})
		},
	}
}

func logsCmd(g *globals) *cobra.Command {
	var follow bool
	var since string
	cmd := &cobra.Command{
		Use:   "logs NAME ID",
		Short: "Print a process's stdout and stderr (-f follows until it exits)",
		Long: `Print a process's buffered output, stdout to stdout and stderr to stderr.
-f keeps following until the process exits. --since CURSOR resumes after an
event's cursor (see --json, which prints one event per line with its cursor).`,
		GroupID: "process",
		Args:    cobra.ExactArgs(2), ValidArgsFunction: completeProcess(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.client()
			if err != nil {
				return err
			}
			p := c.Sandbox(args[0]).Process(args[1])
			_, err = streamLogs(cmd.Context(), p, since, true, follow, cmd.OutOrStdout(), cmd.ErrOrStderr(), g.json)
			if err != nil && cmd.Context().Err() != nil {
				return nil // Ctrl-C ends a follow
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep streaming until the process exits")
	cmd.Flags().StringVar(&since, "since", "", "resume after this cursor")
	return cmd
}

func waitCmd(g *globals) *cobra.Command {
	var timeout string
	cmd := &cobra.Command{
		Use: "wait NAME ID", Short: "Wait for a process to exit; exits with its exit code", GroupID: "process",
		Args: cobra.ExactArgs(2), ValidArgsFunction: completeProcess(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			var d time.Duration
			if timeout != "" {
				var err error
				if d, err = parseDuration(timeout); err != nil {
					return err
				}
			}
			c, err := g.client()
			if err != nil {
				return err
			}
			info, err := c.Sandbox(args[0]).Process(args[1]).Wait(cmd.Context(), d)
			if err != nil {
				return err
			}
			if err := g.out(cmd, info, func(w io.Writer) {
				fmt.Fprintf(w, "process %s %s\n", termsafe.String(info.ID), describeExit(info))
			}); err != nil {
				return err
			}
			return exitOf(exitCodeOf(info.Exit))
		},
	}
	cmd.Flags().StringVar(&timeout, "timeout", "", "stop waiting after this long (the process keeps running)")
	return cmd
}
