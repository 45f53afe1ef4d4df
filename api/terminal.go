package api

import "time"

// Terminal is the state of a terminal (the Terminal schema).
type Terminal struct {
	ID          string      `json:"id"`
	PID         int         `json:"pid"`
	Command     []string    `json:"command"`
	Cwd         string      `json:"cwd"`
	Cols        int         `json:"cols"`
	Rows        int         `json:"rows"`
	State       string      `json:"state"` // running | exited
	StartedAt   time.Time   `json:"startedAt"`
	EndedAt     *time.Time  `json:"endedAt,omitempty"`
	Exit        *ExitStatus `json:"exit,omitempty"`
	Connections int         `json:"connections"`
}

// TerminalRequest is the body of POST .../terminals; zero values take the
// image's shell, the default cwd and 80x24.
type TerminalRequest struct {
	Argv []string `json:"argv,omitempty"`
	Cwd  string   `json:"cwd,omitempty"`
	Env  Env      `json:"env,omitempty"`
	User string   `json:"user,omitempty"` // as ExecRequest.User
	Cols int      `json:"cols,omitempty"`
	Rows int      `json:"rows,omitempty"`
}

// ResizeRequest is the body of POST .../resize.
type ResizeRequest struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// TerminalFrame is a JSON text frame of the terminal WebSocket (binary
// frames are raw input and output bytes). Type says which fields count:
// hello (id, cursor), output cursor marks (cursor), lost (lost), exit
// (code, signal), resize (cols, rows), input (data).
type TerminalFrame struct {
	Type   string `json:"type"`
	ID     string `json:"id,omitempty"`
	Cursor string `json:"cursor,omitempty"`
	Code   *int   `json:"code,omitempty"`
	Signal int    `json:"signal,omitempty"`
	Lost   int64  `json:"lost,omitempty"`
	Cols   int    `json:"cols,omitempty"`
	Rows   int    `json:"rows,omitempty"`
	Data   string `json:"data,omitempty"`
}
