package mcpserver

import (
	"context"
	"strings"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// Bounds of command output and log reads: a tool result goes into a
// model's context, so the default is small and the maximum is 1 MiB.
const (
	defaultMaxBytes = 64 << 10
	maxMaxBytes     = 1 << 20
	defaultTimeout  = 300 // seconds a run_command process may take
	maxTimeout      = 3600
	maxLogWait      = 60 // seconds read_logs may wait for new output
)

type runIn struct {
	Sandbox        string            `json:"sandbox"`
	Argv           []string          `json:"argv" jsonschema:"the command and its arguments; no shell is added: use [\"sh\",\"-c\",\"...\"] for pipes and redirections"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"working directory (default /workspace)"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables"`
	TimeoutSeconds int               `json:"timeoutSeconds,omitempty" jsonschema:"the process is killed after this many seconds"`
	MaxBytes       int               `json:"maxBytes,omitempty" jsonschema:"keep at most this many bytes of each of stdout and stderr (the newest)"`
}

type runOut struct {
	ExitCode int    `json:"exitCode" jsonschema:"the exit code; 128+signal when a signal killed it"`
	Signal   int    `json:"signal,omitempty"`
	TimedOut bool   `json:"timedOut,omitempty" jsonschema:"timeoutSeconds ended it"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr"`
	// Truncated: only the newest maxBytes of a stream are here.
	Truncated bool   `json:"truncated" jsonschema:"older output was cut: only the newest maxBytes of each stream are returned"`
	ProcessID string `json:"processId"`
}

type startIn struct {
	Sandbox        string            `json:"sandbox"`
	Argv           []string          `json:"argv" jsonschema:"the command and its arguments; no shell is added: use [\"sh\",\"-c\",\"...\"] for shell syntax"`
	Cwd            string            `json:"cwd,omitempty" jsonschema:"working directory (default /workspace)"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables"`
	TimeoutSeconds int               `json:"timeoutSeconds,omitempty" jsonschema:"kill the process after this many seconds (default: never)"`
}

type processOut struct {
	ProcessID string    `json:"processId"`
	PID       int       `json:"pid"`
	State     string    `json:"state" jsonschema:"running, exited or error"`
	StartedAt time.Time `json:"startedAt"`
	LogsURI   string    `json:"logsUri" jsonschema:"the resource holding the process's output"`
}

type logsIn struct {
	Sandbox     string `json:"sandbox"`
	ProcessID   string `json:"processId"`
	Cursor      string `json:"cursor,omitempty" jsonschema:"the cursor an earlier read_logs returned: read what came after it (default: from the start)"`
	MaxBytes    int    `json:"maxBytes,omitempty" jsonschema:"stop after about this many bytes of output; call again with the returned cursor for more"`
	WaitSeconds int    `json:"waitSeconds,omitempty" jsonschema:"when nothing new is there yet, wait up to this long for output or the exit"`
}

type logsOut struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Cursor string `json:"cursor,omitempty" jsonschema:"pass it to the next read_logs to continue after this output"`
	// More: the read stopped at maxBytes with output left to read.
	More      bool     `json:"more" jsonschema:"more output is already there: call again with cursor"`
	Truncated bool     `json:"truncated" jsonschema:"some output between the cursor and this read was dropped (the sandbox keeps each process's newest 8 MiB)"`
	Exited    bool     `json:"exited" jsonschema:"the process has exited and this is the end of its output"`
	Exit      *exitOut `json:"exit,omitempty"`
}

type exitOut struct {
	Code     int  `json:"code"`
	Signal   int  `json:"signal,omitempty"`
	TimedOut bool `json:"timedOut,omitempty"`
}

type killIn struct {
	Sandbox   string `json:"sandbox"`
	ProcessID string `json:"processId"`
	Signal    int    `json:"signal,omitempty" jsonschema:"signal number (default 15, SIGTERM; 9 is SIGKILL)"`
}

func (b *berth) addProcessTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "run_command", Annotations: openWorld,
		Description: "Run a command in a sandbox, wait for it to exit and return its exit code and output " +
			"(the newest maxBytes of each stream; truncated says when older output was cut). Wakes a sleeping sandbox. " +
			"For servers and long jobs use start_process.",
		InputSchema: schemaFor[runIn](func(p map[string]*jsonschema.Schema) {
			argvSchema(p["argv"])
			bounded(p["timeoutSeconds"], 1, maxTimeout, defaultTimeout)
			bounded(p["maxBytes"], 1, maxMaxBytes, defaultMaxBytes)
		}),
	}, b.run)
	mcp.AddTool(s, &mcp.Tool{Name: "start_process", Annotations: openWorld,
		Description: "Start a command in the background and return its process id at once; read its output with read_logs " +
			"(or the logs resource). It runs until it exits, is killed (kill_process) or the sandbox sleeps.",
		InputSchema: schemaFor[startIn](func(p map[string]*jsonschema.Schema) {
			argvSchema(p["argv"])
			bounded(p["timeoutSeconds"], 0, 7*24*3600, 0)
		}),
	}, b.start)
	mcp.AddTool(s, &mcp.Tool{Name: "read_logs", Annotations: readOnly,
		Description: "Read a process's output after a cursor (from the start without one) and return the next cursor. " +
			"Call again with that cursor to get only newer output; exited says the output is complete.",
		InputSchema: schemaFor[logsIn](func(p map[string]*jsonschema.Schema) {
			bounded(p["maxBytes"], 1, maxMaxBytes, defaultMaxBytes)
			bounded(p["waitSeconds"], 0, maxLogWait, 0)
		}),
	}, b.readLogs)
	mcp.AddTool(s, &mcp.Tool{Name: "kill_process", Annotations: destructive,
		Description: "Send a signal to a process's whole process group (default SIGTERM). Killing an exited process changes nothing.",
		InputSchema: schemaFor[killIn](func(p map[string]*jsonschema.Schema) { bounded(p["signal"], 1, 64, 0) }),
	}, b.kill)
}

func envOf(m map[string]string) map[string]*string {
	if len(m) == 0 {
		return nil
	}
	env := make(map[string]*string, len(m))
	for k, v := range m {
		env[k] = client.Ptr(v)
	}
	return env
}

// text is output bytes as JSON text: invalid UTF-8 becomes U+FFFD.
func text(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }

func (b *berth) run(ctx context.Context, _ *mcp.CallToolRequest, in runIn) (*mcp.CallToolResult, runOut, error) {
	r, err := b.c.Sandbox(in.Sandbox).Run(ctx, in.Argv, client.RunOptions{
		ExecOptions: client.ExecOptions{Cwd: in.Cwd, Env: envOf(in.Env), Timeout: time.Duration(in.TimeoutSeconds) * time.Second},
		MaxBytes:    in.MaxBytes,
	})
	if err != nil {
		return nil, runOut{}, describe(err)
	}
	return nil, runOut{ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut, Stdout: text(r.Stdout),
		Stderr: text(r.Stderr), Truncated: r.Truncated, ProcessID: r.ID}, nil
}

func (b *berth) start(ctx context.Context, _ *mcp.CallToolRequest, in startIn) (*mcp.CallToolResult, processOut, error) {
	p, err := b.c.Sandbox(in.Sandbox).Exec(ctx, in.Argv, client.ExecOptions{Cwd: in.Cwd, Env: envOf(in.Env),
		Timeout: time.Duration(in.TimeoutSeconds) * time.Second})
	if err != nil {
		return nil, processOut{}, describe(err)
	}
	return nil, processOut{ProcessID: p.ID, PID: p.PID, State: p.State, StartedAt: p.StartedAt,
		LogsURI: logsURI(in.Sandbox, p.ID)}, nil
}

func (b *berth) kill(ctx context.Context, _ *mcp.CallToolRequest, in killIn) (*mcp.CallToolResult, processOut, error) {
	info, err := b.c.Sandbox(in.Sandbox).Process(in.ProcessID).Kill(ctx, syscall.Signal(in.Signal))
	if err != nil {
		return nil, processOut{}, describe(err)
	}
	return nil, processOut{ProcessID: info.ID, PID: info.PID, State: info.State, StartedAt: info.StartedAt,
		LogsURI: logsURI(in.Sandbox, info.ID)}, nil
}

// readLogs reads the events after the cursor that are there now. When
// there are none and the process has not exited, it follows the stream
// for up to waitSeconds and returns with the first events that come.
func (b *berth) readLogs(ctx context.Context, _ *mcp.CallToolRequest, in logsIn) (*mcp.CallToolResult, logsOut, error) {
	p := b.c.Sandbox(in.Sandbox).Process(in.ProcessID)
	if in.MaxBytes <= 0 {
		in.MaxBytes = defaultMaxBytes
	}
	out := logsOut{Cursor: in.Cursor}
	var stdout, stderr []byte
	// collect reads one stream of events into out; it reports whether any came.
	collect := func(ctx context.Context, follow bool) (bool, error) {
		got := false
		for ev, err := range p.Logs(ctx, out.Cursor, true, follow) {
			if err != nil {
				return got, err
			}
			if got && len(stdout)+len(stderr)+len(ev.Data) > in.MaxBytes {
				out.More = true // this event is for the next call
				return got, nil
			}
			got = true
			out.Cursor = ev.Cursor
			switch ev.Type {
			case "stdout":
				stdout = append(stdout, ev.Data...)
			case "stderr":
				stderr = append(stderr, ev.Data...)
			case "truncated":
				out.Truncated = true
			case "exit":
				out.Exited = true
				if ev.Exit != nil {
					out.Exit = &exitOut{Code: ev.Exit.Code, Signal: ev.Exit.Signal, TimedOut: ev.Exit.TimedOut}
				}
			}
			if follow {
				return got, nil // the first new events: read the rest without waiting
			}
		}
		return got, nil
	}
	got, err := collect(ctx, false)
	if err == nil && !got && in.WaitSeconds > 0 {
		wctx, cancel := context.WithTimeout(ctx, time.Duration(in.WaitSeconds)*time.Second)
		got, err = collect(wctx, true)
		cancel()
		if err != nil && wctx.Err() != nil && ctx.Err() == nil {
			err = nil // waited long enough: nothing new
		}
		if err == nil && got && !out.Exited && !out.More {
			_, err = collect(ctx, false)
		}
	}
	if err != nil {
		return nil, logsOut{}, describe(err)
	}
	out.Stdout, out.Stderr = text(stdout), text(stderr)
	return nil, out, nil
}
