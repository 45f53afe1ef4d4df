package client

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/berthdev/berth/api"
)

// RunOptions tune Run: ExecOptions plus the shape of the output.
type RunOptions struct {
	ExecOptions
	// MaxBytes keeps only the newest bytes of each stream (0: all that
	// the sandbox retained).
	MaxBytes int
	// Started, if set, is called with a handle on the process when a
	// command did not finish at once, before Run returns: e.g. to Kill it
	// on Ctrl-C. A command that ends within milliseconds may not call it.
	Started func(*Process)
}

// RunResult is the outcome of Run.
type RunResult struct {
	Output
	ID        string
	PID       int
	StartedAt time.Time
	EndedAt   time.Time
}

// Run starts argv, waits for its exit and returns its output, in one HTTP
// round trip (POST .../processes with "wait": true). Like Exec it starts a
// stopped sandbox; a missing executable is an error, a non-zero exit is
// not (see ExitCode). If ctx ends first, the process keeps running in the
// sandbox; Options.Timeout bounds the process itself. Use Exec and Logs
// to stream output instead.
func (s *Sandbox) Run(ctx context.Context, argv []string, o RunOptions) (*RunResult, error) {
	body := execBody(argv, o.ExecOptions)
	if o.Stdin {
		return nil, fmt.Errorf("berth: Run cannot pipe stdin; use Exec")
	}
	body.Wait, body.MaxBytes, body.Encoding = true, o.MaxBytes, "base64"
	resp, err := s.c.send(ctx, request{method: http.MethodPost, path: s.processesPath(), body: body})
	if e := (*Error)(nil); errors.As(err, &e) && e.Code == string(api.CodeValidation) && strings.Contains(e.Message, `unknown field "wait"`) {
		// A container booted before one-round-trip commands existed.
		return s.runInTwo(ctx, argv, o)
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if o.Started != nil && resp.ContentLength < 0 {
		// Headers ahead of the body: the command is still running.
		if id := resp.Header.Get(api.ProcessHeader); id != "" {
			o.Started(s.Process(id))
		}
	}
	var w api.ProcessResult
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil {
		return nil, fmt.Errorf("berth: decoding the result of %v: %w", argv, err)
	}
	r := &RunResult{ID: w.ID, PID: w.PID, StartedAt: w.StartedAt, EndedAt: w.EndedAt,
		Output: Output{ExitCode: w.ExitCode, Signal: w.Signal, TimedOut: w.TimedOut, Truncated: w.Truncated}}
	if r.Stdout, err = base64.StdEncoding.DecodeString(w.Stdout); err != nil {
		return nil, err
	}
	if r.Stderr, err = base64.StdEncoding.DecodeString(w.Stderr); err != nil {
		return nil, err
	}
	return r, nil
}

// runInTwo is Run as Exec + Output, for supervisors without "wait".
func (s *Sandbox) runInTwo(ctx context.Context, argv []string, o RunOptions) (*RunResult, error) {
	p, err := s.Exec(ctx, argv, o.ExecOptions)
	if err != nil {
		return nil, err
	}
	if o.Started != nil {
		o.Started(p)
	}
	out, err := p.Output(ctx, OutputOptions{MaxBytes: o.MaxBytes})
	if err != nil {
		return nil, err
	}
	r := &RunResult{Output: *out, ID: p.ID, PID: p.PID, StartedAt: p.StartedAt}
	if st, err := p.Status(ctx); err == nil && st.EndedAt != nil {
		r.EndedAt = *st.EndedAt
	}
	return r, nil
}
