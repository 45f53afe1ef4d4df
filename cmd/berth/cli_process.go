package main

import (
	"context"
	"fmt"
	"io"
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
