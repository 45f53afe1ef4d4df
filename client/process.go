package client

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/berthdev/berth/api"
)

// ExitStatus is how a process ended. Code is 128+Signal when it was killed
// by a signal; TimedOut says the exec timeout ended it.
type ExitStatus = api.ExitStatus

// ProcessInfo is the state of a process (the Process schema of
// schemas/openapi.yaml).
type ProcessInfo = api.Process

// Process is a handle on a process. The embedded ProcessInfo is the state
// when the handle was made (Exec, GetProcess, ListProcesses); call Status
// for the current one. Handles are valid while the process lives in the
// sandbox's current container; afterwards calls fail closed with
// ErrStaleProcessHandle.
type Process struct {
	ProcessInfo
	sb *Sandbox
}

func (p *Process) path(rest ...string) string {
	return p.sb.processesPath(append([]string{p.ID}, rest...)...)
}

func (p *Process) info(ctx context.Context, r request) (*ProcessInfo, error) {
	info := new(ProcessInfo)
	if _, err := p.sb.c.call(ctx, r, info); err != nil {
		return nil, err
	}
	return info, nil
}

// Status returns the current state.
func (p *Process) Status(ctx context.Context) (*ProcessInfo, error) {
	return p.info(ctx, request{method: http.MethodGet, path: p.path()})
}

// Wait waits for the exit. A positive timeout ends only the wait, with
// ErrWaitTimeout; the process keeps running. 0 waits as long as ctx allows.
func (p *Process) Wait(ctx context.Context, timeout time.Duration) (*ProcessInfo, error) {
	body := api.WaitRequest{Timeout: api.Duration(max(timeout, 0))}
	return p.info(ctx, request{method: http.MethodPost, path: p.path("wait"), body: body})
}

// Kill signals the process group (grandchildren too); 0 means SIGTERM.
// Killing an exited process is a no-op that returns its final state.
func (p *Process) Kill(ctx context.Context, sig syscall.Signal) (*ProcessInfo, error) {
	body := map[string]any{}
	if sig != 0 {
		body["signal"] = int(sig)
	}
	return p.info(ctx, request{method: http.MethodPost, path: p.path("kill"), body: body})
}

// PortOptions tune WaitForPort.
type PortOptions struct {
	Mode    string // "tcp" (default: accepts a connection) or "http"
	Path    string // http: request path, default "/"
	Status  int    // http: wanted status, default any 2xx/3xx
	Timeout time.Duration
}

// WaitForPort waits until the port is ready inside the sandbox. It fails
// with ErrProcessExited if the process ends first and ErrWaitTimeout when
// the timeout passes (the process keeps running).
func (p *Process) WaitForPort(ctx context.Context, port int, o PortOptions) error {
	body := api.WaitForPortRequest{Port: port, Mode: o.Mode, Path: o.Path, Status: o.Status, Timeout: api.Duration(max(o.Timeout, 0))}
	_, err := p.sb.c.call(ctx, request{method: http.MethodPost, path: p.path("wait-for-port"), body: body}, nil)
	return err
}

// LogWaitOptions tune WaitForLog.
type LogWaitOptions struct {
	Stream  string // "stdout", "stderr" or "" for both
	Timeout time.Duration
}

// LogMatch is the first output line that matched.
type LogMatch = api.LogMatch

// WaitForLog waits for an output line matching pattern (RE2 syntax),
// searching already printed lines first. ErrProcessExited if the process
// ends without a match, ErrWaitTimeout when the timeout passes.
func (p *Process) WaitForLog(ctx context.Context, pattern string, o LogWaitOptions) (*LogMatch, error) {
	body := api.WaitForLogRequest{Pattern: pattern, Stream: o.Stream, Timeout: api.Duration(max(o.Timeout, 0))}
	m := new(LogMatch)
	if _, err := p.sb.c.call(ctx, request{method: http.MethodPost, path: p.path("wait-for-log"), body: body}, m); err != nil {
		return nil, err
	}
	return m, nil
}

// WriteStdin writes data to a process started with ExecOptions.Stdin.
func (p *Process) WriteStdin(ctx context.Context, data []byte) (int, error) {
	var out api.StdinWritten
	_, err := p.sb.c.call(ctx, request{method: http.MethodPost, path: p.path("stdin"), body: rawBody(data)}, &out)
	return out.Written, err
}

// CloseStdin sends EOF to the process's stdin. Idempotent.
func (p *Process) CloseStdin(ctx context.Context) error {
	_, err := p.sb.c.call(ctx, request{method: http.MethodPost, path: p.path("stdin", "close")}, nil)
	return err
}

// OutputOptions tune Output.
type OutputOptions struct {
	MaxBytes int           // per stream; the newest bytes are kept
	Timeout  time.Duration // ends only the wait (ErrWaitTimeout)
}

// Output is the buffered result of a finished process.
type Output struct {
	Stdout, Stderr []byte
	ExitCode       int
	Signal         int
	TimedOut       bool
	// Truncated: older output was dropped (the per-process buffer keeps
	// the newest bytes, at least 8 MiB) or MaxBytes cut it.
	Truncated bool
}

// Output waits for the exit and returns stdout and stderr byte for byte.
// For large or long-running output use Logs.
func (p *Process) Output(ctx context.Context, o OutputOptions) (*Output, error) {
	q := url.Values{"encoding": {"base64"}}
	if o.MaxBytes > 0 {
		q.Set("maxBytes", strconv.Itoa(o.MaxBytes))
	}
	if o.Timeout > 0 {
		q.Set("timeout", durationString(o.Timeout))
	}
	var w api.Output
	if _, err := p.sb.c.call(ctx, request{method: http.MethodGet, path: p.path("output"), query: q}, &w); err != nil {
		return nil, err
	}
	out := &Output{ExitCode: w.ExitCode, Signal: w.Signal, TimedOut: w.TimedOut, Truncated: w.Truncated}
	var err error
	if out.Stdout, err = base64.StdEncoding.DecodeString(w.Stdout); err != nil {
		return nil, err
	}
	if out.Stderr, err = base64.StdEncoding.DecodeString(w.Stderr); err != nil {
		return nil, err
	}
	return out, nil
}
