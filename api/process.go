package api

import "time"

// ExitStatus is how a process or terminal ended (the ExitStatus schema).
// Code is 128+Signal when a signal killed it; TimedOut says the exec
// timeout ended it.
type ExitStatus struct {
	Code     int  `json:"code"`
	Signal   int  `json:"signal,omitempty"`
	TimedOut bool `json:"timedOut"`
}

// Process is the state of a process (the Process schema).
type Process struct {
	ID        string      `json:"id"`
	PID       int         `json:"pid"`
	Command   []string    `json:"command"`
	Cwd       string      `json:"cwd"`
	State     string      `json:"state"` // running | exited | error
	StartedAt time.Time   `json:"startedAt"`
	EndedAt   *time.Time  `json:"endedAt,omitempty"`
	Exit      *ExitStatus `json:"exit,omitempty"`
	// Service names the declared service this process is a run of.
	Service string `json:"service,omitempty"`
}

// Env is a layer of environment overrides of an exec or a terminal: a nil
// value removes the variable from the layers below.
type Env map[string]*string

// ExecRequest is the body of POST .../processes (the ExecRequest schema).
type ExecRequest struct {
	Argv    []string  `json:"argv"`
	Cwd     string    `json:"cwd,omitempty"`
	Env     Env       `json:"env,omitempty"`
	Timeout *Duration `json:"timeout,omitempty"`
	Stdin   string    `json:"stdin,omitempty"` // "" or "null": /dev/null; "pipe"
	// User runs the command as another user than the image's USER (the
	// default): a name, a uid, either with ":group"; "root" always works.
	User string `json:"user,omitempty"`
	// Wait answers only once the process exited, with its output (a
	// ProcessResult, 200) instead of the started process (201): a short
	// command in one round trip. MaxBytes and Encoding are those of the
	// output route and apply only with Wait; Timeout still bounds the
	// process (it is killed and the result says timedOut).
	Wait     bool   `json:"wait,omitempty"`
	MaxBytes int    `json:"maxBytes,omitempty"` // per stream; the newest bytes are kept
	Encoding string `json:"encoding,omitempty"` // utf8 (default, invalid bytes replaced) | base64 (byte-exact)
}

// ProcessHeader carries the id of a process started with wait: true. The
// supervisor sends the headers early when the process does not end at
// once, so a caller can signal it (Ctrl-C) while waiting for the result.
const ProcessHeader = "X-Berth-Process"

// ProcessResult answers POST .../processes with "wait": true (the
// ProcessResult schema); the supervisor writes it by hand, in this shape.
// Stdout and Stderr are base64 unless the request asked for utf8.
type ProcessResult struct {
	ID        string    `json:"id"`
	PID       int       `json:"pid"`
	StartedAt time.Time `json:"startedAt"`
	EndedAt   time.Time `json:"endedAt"`
	Stdout    string    `json:"stdout"`
	Stderr    string    `json:"stderr"`
	ExitCode  int       `json:"exitCode"`
	Signal    int       `json:"signal,omitempty"`
	TimedOut  bool      `json:"timedOut"`
	Truncated bool      `json:"truncated"`
}

// WaitRequest is the body of POST .../wait; a timeout ends only the wait.
type WaitRequest struct {
	Timeout Duration `json:"timeout,omitzero"`
}

// WaitForPortRequest is the body of POST .../wait-for-port.
type WaitForPortRequest struct {
	Port    int      `json:"port"`
	Mode    string   `json:"mode,omitempty"`   // tcp (default) | http
	Path    string   `json:"path,omitempty"`   // http: request path, default "/"
	Status  int      `json:"status,omitempty"` // http: wanted status, default any 2xx/3xx
	Timeout Duration `json:"timeout,omitzero"`
}

// PortReady answers a wait-for-port whose port became ready.
type PortReady struct {
	ID    string `json:"id"`
	Port  int    `json:"port"`
	Mode  string `json:"mode"`
	Ready bool   `json:"ready"`
}

// WaitForLogRequest is the body of POST .../wait-for-log.
type WaitForLogRequest struct {
	Pattern string   `json:"pattern"`          // RE2 syntax
	Stream  string   `json:"stream,omitempty"` // stdout | stderr | both (default)
	Timeout Duration `json:"timeout,omitzero"`
}

// LogMatch answers a wait-for-log: the first matching line and the cursor
// to resume the log stream after the chunk that completed it.
type LogMatch struct {
	ID     string `json:"id,omitempty"`
	Stream string `json:"stream"`
	Line   string `json:"line"`
	Cursor string `json:"cursor"`
}

// StdinWritten answers a stdin write.
type StdinWritten struct {
	Written int `json:"written"`
}

// StdinClosed answers POST .../stdin/close.
type StdinClosed struct {
	ID          string `json:"id"`
	StdinClosed bool   `json:"stdinClosed"`
}

// Output is GET .../output with encoding=base64 (the Output schema); the
// supervisor writes it by hand to stream large output, in this shape.
type Output struct {
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ExitCode  int    `json:"exitCode"`
	Signal    int    `json:"signal"`
	TimedOut  bool   `json:"timedOut"`
	Truncated bool   `json:"truncated"`
}

// LogEvent is one event of a log stream as SSE data (the LogEvent schema);
// the supervisor encodes it by hand for speed, in this shape. Data is
// base64 in JSON.
type LogEvent struct {
	Type      string      `json:"type"` // stdout | stderr | exit | truncated
	Cursor    string      `json:"cursor"`
	Timestamp time.Time   `json:"timestamp"`
	Data      []byte      `json:"data,omitempty"`
	Exit      *ExitStatus `json:"exit,omitempty"`
	// Lost is how many output bytes a truncated event skipped, when the
	// supervisor knows where the reader was.
	Lost *int64 `json:"lost,omitempty"`
}
