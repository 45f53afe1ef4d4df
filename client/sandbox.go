package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/berthdev/berth/api"
)

// Sandbox is a handle on one sandbox for process calls. Creating it does
// no I/O; every call goes through the gateway, which starts a stopped
// sandbox when the call implies it (Exec) and never for reads.
type Sandbox struct {
	c    *Client
	name string
}

// Sandbox returns the handle for name.
func (c *Client) Sandbox(name string) *Sandbox { return &Sandbox{c: c, name: name} }

// Name is the sandbox name.
func (s *Sandbox) Name() string { return s.name }

// ExecOptions tune Exec. Zero values: cwd /workspace, sandbox env, no
// deadline, stdin /dev/null.
type ExecOptions struct {
	Cwd string
	// Env overrides the container and sandbox env; a nil value removes the
	// variable.
	Env map[string]*string
	// Timeout is a deadline on the process itself: when it passes, the
	// supervisor SIGTERMs the process group, SIGKILLs it after a short
	// grace, and the exit says TimedOut.
	Timeout time.Duration
	// Stdin opens a pipe for WriteStdin/CloseStdin instead of /dev/null.
	Stdin bool
	// User runs the command as another user than the image's USER: a
	// name or uid, either with ":group" ("root" always works).
	User string
}

// Exec starts argv (no shell is added: use []string{"sh", "-c", "..."} for
// shell syntax) and returns once it runs. A missing executable or bad cwd
// is an error (ErrExecutableNotFound, ErrInvalidCwd), not an exit 127.
func (s *Sandbox) Exec(ctx context.Context, argv []string, opts ExecOptions) (*Process, error) {
	body := execBody(argv, opts)
	p := &Process{sb: s}
	if _, err := s.c.call(ctx, request{method: http.MethodPost, path: s.processesPath(), body: body}, &p.ProcessInfo); err != nil {
		return nil, err
	}
	return p, nil
}

func execBody(argv []string, opts ExecOptions) api.ExecRequest {
	body := api.ExecRequest{Argv: argv, Cwd: opts.Cwd, Env: opts.Env, User: opts.User}
	if opts.Timeout > 0 {
		t := api.Duration(opts.Timeout)
		body.Timeout = &t
	}
	if opts.Stdin {
		body.Stdin = "pipe"
	}
	return body
}

// GetProcess returns the process with id, or nil and no error when it is
// not in the sandbox's current container (no container, an id from an
// earlier container, or evicted from the exited list). It never wakes a
// sleeping sandbox.
func (s *Sandbox) GetProcess(ctx context.Context, id string) (*Process, error) {
	p := s.Process(id)
	info, err := p.Status(ctx)
	if errors.Is(err, ErrProcessNotFound) || errors.Is(err, ErrStaleProcessHandle) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	p.ProcessInfo = *info
	return p, nil
}

// Process returns a handle for a stored id without a round trip; calls on
// it fail with ErrStaleProcessHandle if the container was replaced.
func (s *Sandbox) Process(id string) *Process {
	return &Process{ProcessInfo: ProcessInfo{ID: id}, sb: s}
}

// ListProcesses lists the processes of the current container, running and
// recently exited, in start order. A sleeping sandbox has none.
func (s *Sandbox) ListProcesses(ctx context.Context) ([]*Process, error) {
	var infos []ProcessInfo
	if _, err := s.c.call(ctx, request{method: http.MethodGet, path: s.processesPath()}, &infos); err != nil {
		return nil, err
	}
	out := make([]*Process, len(infos))
	for i, info := range infos {
		out[i] = &Process{ProcessInfo: info, sb: s}
	}
	return out, nil
}

func (s *Sandbox) processesPath(rest ...string) string {
	p := sandboxPath(s.name, "processes")
	for i, r := range rest {
		if i == 0 {
			r = url.PathEscape(r) // the id; the rest are literal route parts
		}
		p += "/" + r
	}
	return p
}
