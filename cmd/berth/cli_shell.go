package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/berthdev/berth/client"
	"github.com/berthdev/berth/internal/termsafe"
)

// reconnectFor bounds how long `berth shell` tries to get a lost
// connection back (a gateway restart takes seconds).
const reconnectFor = 2 * time.Minute

func shellCmd(g *globals) *cobra.Command {
	var cwd, attach string
	var envPairs []string
	cmd := &cobra.Command{
		Use:   "shell NAME [flags] [-- ARGV...]",
		Short: "Open an interactive terminal in a sandbox; exits with the shell's exit code",
		Long: `Open a terminal (a PTY) in the sandbox, starting it if it sleeps, running
ARGV or the image's login shell, and attach this terminal to it: raw mode,
window size kept in sync, the local tty restored on exit. berth exits with
the program's exit code.

The terminal lives in the sandbox, not in this connection: if the connection
drops (a gateway restart, a network blip), berth reconnects and resumes the
output exactly where it stopped; keys typed meanwhile are sent afterwards.
--attach ID joins a terminal that is still running.

Without a terminal on stdin (a pipe, a script), stdin is typed into the
terminal, Ctrl-D is sent at its end, and the output goes to stdout.`,
		Example: `  berth shell demo
  berth shell demo -- python3
  berth shell demo --cwd /tmp --env DEBUG=1
  echo 'make test; exit $?' | berth shell demo -- sh`,
		GroupID: "process",
		Args:    cobra.MinimumNArgs(1), ValidArgsFunction: completeSandboxes(g),
		RunE: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if dash > 1 || dash < 0 && len(args) > 1 {
				return usageError{errors.New("put flags before --, and the command after it: berth shell NAME [flags] -- ARGV")}
			}
			if attach != "" && (len(args) > 1 || cwd != "" || len(envPairs) > 0) {
				return usageError{errors.New("--attach joins a running terminal: ARGV, --cwd and --env do not apply")}
			}
			opts := client.TerminalOptions{Argv: args[1:], Cwd: cwd}
			env, err := envLayer(envPairs)
			if err != nil {
				return err
			}
			opts.Env = env
			c, err := g.client()
			if err != nil {
				return err
			}
			s := &shellSession{name: args[0], fd: int(os.Stdin.Fd()), stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr()}
			s.tty = term.IsTerminal(s.fd)
			opts.Cols, opts.Rows = s.size()
			// Ctrl-C must not end the session: it is the remote program's.
			ctx := context.WithoutCancel(cmd.Context())
			sb := c.Sandbox(args[0])
			p := startProgress("opening a terminal in " + args[0])
			if attach != "" {
				s.t, err = sb.GetTerminal(ctx, attach)
				if err == nil && s.t == nil {
					err = &client.Error{Code: string(client.ErrTerminalNotFound), Message: "no terminal " + attach + " in " + args[0]}
				}
			} else {
				s.t, err = sb.CreateTerminal(ctx, opts)
			}
			p.end()
			if err != nil {
				return err
			}
			return s.run(ctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cwd, "cwd", "", "working directory in the sandbox (default /workspace)")
	f.StringArrayVarP(&envPairs, "env", "e", nil, "environment variable KEY=VALUE (repeatable)")
	f.StringVar(&attach, "attach", "", "join the running terminal with this id instead of opening one")
	return cmd
}

// shellSession connects a local terminal (or stdin and stdout) to a
// sandbox terminal, reconnecting when the connection drops.
type shellSession struct {
	name           string
	t              *client.Terminal
	fd             int // stdin
	tty            bool
	stdout, stderr io.Writer
	sigs           chan os.Signal
	input          chan []byte // stdin chunks; closed at EOF
	pending        []byte      // input not yet sent
	last           byte        // last input byte read
	eofSent        bool        // a script's input ended and its Ctrl-D went out
}

// eofRepeat is how often a script's Ctrl-D is sent again while its shell
// runs on. A Ctrl-D that reaches the terminal before the shell's line
// editor switched it to raw mode is kept by the kernel as an end-of-line
// marker that the editor then reads as a NUL byte, not as end of input,
// and the shell would wait forever. Input is over either way, so telling
// it again can only end what is still reading.
const eofRepeat = 2 * time.Second

func (s *shellSession) size() (cols, rows int) {
	if !s.tty {
		return 0, 0 // the server's default, 80x24
	}
	cols, rows, err := term.GetSize(s.fd)
	if err != nil {
		return 0, 0
	}
	return cols, rows
}

// say prints a status line without disturbing a raw terminal.
func (s *shellSession) say(format string, a ...any) {
	msg := "berth: " + termsafe.String(fmt.Sprintf(format, a...))
	if s.tty {
		fmt.Fprint(s.stderr, "\r\n"+msg+"\r\n")
	} else {
		fmt.Fprintln(s.stderr, msg)
	}
}

// output is how one connection's output copy ended.
type output struct {
	err   error
	local bool // writing stdout failed
}

func (s *shellSession) run(ctx context.Context) error {
	if s.tty {
		old, err := term.MakeRaw(s.fd)
		if err != nil {
			return fmt.Errorf("cannot put the terminal in raw mode: %w", err)
		}
		defer term.Restore(s.fd, old)
	}
	s.sigs = make(chan os.Signal, 8)
	signal.Notify(s.sigs, syscall.SIGWINCH, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(s.sigs)
	s.input = make(chan []byte)
	go readInput(s.input)

	cursor := ""
	for {
		conn, err := s.connect(ctx, cursor)
		if err != nil {
			return err
		}
		done := make(chan output, 1)
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := conn.Read(buf)
				if n > 0 {
					if _, werr := s.stdout.Write(buf[:n]); werr != nil {
						done <- output{werr, true}
						return
					}
				}
				if err != nil {
					done <- output{err, false}
					return
				}
			}
		}()
		exit, end, err := s.attached(ctx, conn, done)
		if end {
			conn.Close()
			return err
		}
		if exit {
			info := conn.Exit()
			conn.Close()
			return exitOf(exitCodeOf(info))
		}
		cursor = conn.Cursor()
		conn.Close()
		s.say("connection to terminal %s lost (%v); reconnecting…", s.t.ID, err)
	}
}

// attached pumps input, signals and resizes into conn until its output
// ends: exit when the program exited, end (with err) when the session is
// over for another reason, neither when the connection was lost.
func (s *shellSession) attached(ctx context.Context, conn *client.TerminalConn, done <-chan output) (exit, end bool, err error) {
	in := s.input
	if len(s.pending) > 0 {
		in = nil // send what is pending first
	}
	repeat := time.NewTicker(eofRepeat)
	defer repeat.Stop()
	for {
		if len(s.pending) > 0 && in == nil && len(done) == 0 { // never into a connection known lost
			if _, err := conn.Write(s.pending); err != nil {
				conn.Close() // the output copy ends too, then we reconnect
			} else {
				s.pending = nil
				in = s.input
				if s.input == nil && !s.tty {
					s.eofSent = true
				}
			}
		}
		select {
		case o := <-done:
			switch {
			case o.local:
				s.hangup(ctx)
				return false, true, o.err
			case conn.Exit() != nil: // Read ends with io.EOF after the exit and all output
				return true, false, nil
			}
			return false, false, o.err
		case data, ok := <-in:
			if !ok {
				s.input, in = nil, nil
				if !s.tty { // end of a script: Ctrl-D (twice after a partial line)
					s.pending = []byte{4}
					if s.last != '\n' && s.last != 0 {
						s.pending = []byte{4, 4}
					}
				}
				continue
			}
			s.pending, in, s.last = data, nil, data[len(data)-1]
		case <-repeat.C:
			if s.eofSent && len(s.pending) == 0 {
				s.pending = []byte{4}
			}
		case sig := <-s.sigs:
			switch sig {
			case syscall.SIGWINCH:
				if cols, rows := s.size(); cols > 0 {
					_ = conn.Resize(cols, rows)
				}
			case syscall.SIGINT: // only without a tty: in raw mode Ctrl-C is a key
				s.pending, in = append(s.pending, 3), nil
			default:
				s.hangup(ctx)
				return false, true, exitError{128 + int(sig.(syscall.Signal))}
			}
		}
	}
}

// connect attaches to the terminal, retrying while the gateway or network
// is away (for up to reconnectFor). Input typed meanwhile is kept; a lone
// Ctrl-C (or a signal) gives up.
func (s *shellSession) connect(ctx context.Context, cursor string) (*client.TerminalConn, error) {
	deadline := time.Now().Add(reconnectFor)
	delay := 200 * time.Millisecond
	for attempt := 0; ; attempt++ {
		cols, rows := s.size()
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		conn, err := s.t.Connect(cctx, cursor, cols, rows)
		cancel()
		if err == nil {
			if attempt > 0 {
				s.say("reconnected")
			}
			return conn, nil
		}
		if fatalConnectError(err) || time.Now().After(deadline) {
			if cursor != "" {
				return nil, fmt.Errorf("lost terminal %s of %s: %w", s.t.ID, s.name, err)
			}
			return nil, err
		}
		t := time.NewTimer(delay)
		delay = min(delay*2, 2*time.Second)
	wait:
		for {
			select {
			case <-t.C:
				break wait
			case data, ok := <-s.input:
				if !ok {
					s.input = nil
					continue
				}
				if s.tty && len(data) == 1 && data[0] == 3 {
					t.Stop()
					return nil, s.gaveUp()
				}
				if len(s.pending) < 64<<10 {
					s.pending, s.last = append(s.pending, data...), data[len(data)-1]
				}
			case sig := <-s.sigs:
				if sig != syscall.SIGWINCH {
					t.Stop()
					return nil, s.gaveUp()
				}
			}
		}
	}
}

func (s *shellSession) gaveUp() error {
	return fmt.Errorf("stopped reconnecting; terminal %s keeps running in %s: `berth shell %s --attach %s` rejoins it",
		s.t.ID, s.name, s.name, s.t.ID)
}

// fatalConnectError: retrying cannot help (the terminal or sandbox is
// gone, or we may not see it).
func fatalConnectError(err error) bool {
	var ae *client.Error
	if !errors.As(err, &ae) {
		return false // network errors, a gateway that is not back yet
	}
	switch client.ErrorCode(ae.Code) {
	case client.ErrTerminalNotFound, client.ErrStaleProcessHandle, client.ErrSandboxNotFound, client.ErrSandboxDestroyed,
		client.ErrUnauthorized, client.ErrInvalidTerminalCursor, client.ErrValidation, client.ErrRouteNotFound:
		return true
	}
	return false
}

// hangup closes the remote terminal when berth itself is ended (a signal,
// a closed stdout): nobody is left to read it, and an open terminal would
// keep the sandbox awake.
func (s *shellSession) hangup(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _ = s.t.Close(ctx)
}

// readInput feeds stdin to ch in chunks, closing it at EOF.
func readInput(ch chan<- []byte) {
	buf := make([]byte, 32<<10)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			ch <- append([]byte(nil), buf[:n]...)
		}
		if err != nil {
			close(ch)
			return
		}
	}
}
