package mcptests

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools an MCP client must find, each a step of an agent's work.
var wantTools = []string{
	"create_sandbox", "list_sandboxes", "get_sandbox", "start_sandbox", "sleep_sandbox", "destroy_sandbox",
	"run_command", "start_process", "read_logs", "kill_process",
	"read_file", "write_file", "list_files", "expose_port",
}

// session is what an agent does through `berth mcp`, whatever the
// transport: list the tools, create a sandbox, write a file, run a command
// that reads it, run a process in the background and read its logs from a
// cursor, read the logs and events resources, expose a port, destroy.
func session(t *testing.T, ctx context.Context, cs *mcp.ClientSession, sb string) {
	var tools []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tools = append(tools, tool.Name)
		if tool.InputSchema == nil {
			t.Errorf("tool %s has no input schema", tool.Name)
		}
	}
	t.Logf("<- tools/list: %s", strings.Join(tools, ", "))
	for _, w := range wantTools {
		if !slices.Contains(tools, w) {
			t.Errorf("tools/list lacks %s", w)
		}
	}

	var created struct {
		Sandbox struct{ Name, Status string }
		Created bool
	}
	call(t, ctx, cs, "create_sandbox", map[string]any{"name": sb, "sleepAfter": "10m"}, &created)
	if !created.Created || created.Sandbox.Name != sb {
		t.Fatalf("create_sandbox: %+v, want a new claim of %s", created, sb)
	}

	// A relative path is under /workspace, as in the CLI; the write wakes
	// the sandbox.
	var written struct {
		Path string
		Size int64
	}
	call(t, ctx, cs, "write_file", map[string]any{"sandbox": sb, "path": "notes/hello.txt", "content": "hello from mcp\n"}, &written)
	if written.Path != "/workspace/notes/hello.txt" || written.Size != 15 {
		t.Fatalf("write_file: %+v", written)
	}

	var run struct {
		ExitCode       int
		Stdout, Stderr string
		Truncated      bool
	}
	call(t, ctx, cs, "run_command", map[string]any{"sandbox": sb,
		"argv": []string{"sh", "-c", "cat notes/hello.txt; echo oops >&2; exit 3"}}, &run)
	if run.ExitCode != 3 || run.Stdout != "hello from mcp\n" || run.Stderr != "oops\n" || run.Truncated {
		t.Fatalf("run_command: %+v", run)
	}
	// Output is bounded: the newest maxBytes of each stream, and it says so.
	call(t, ctx, cs, "run_command", map[string]any{"sandbox": sb,
		"argv": []string{"sh", "-c", "seq 1 2000"}, "maxBytes": 10}, &run)
	if !run.Truncated || run.Stdout != "1999\n2000\n" {
		t.Fatalf("run_command with maxBytes 10: %+v, want the newest 10 bytes, truncated", run)
	}

	var file struct {
		Content, Encoding string
		Size              int64
	}
	call(t, ctx, cs, "read_file", map[string]any{"sandbox": sb, "path": "/workspace/notes/hello.txt"}, &file)
	if file.Content != "hello from mcp\n" || file.Encoding != "utf-8" {
		t.Fatalf("read_file: %+v", file)
	}
	var list struct{ Entries []struct{ Path, Type string } }
	call(t, ctx, cs, "list_files", map[string]any{"sandbox": sb, "path": "notes"}, &list)
	if len(list.Entries) != 1 || list.Entries[0].Path != "/workspace/notes/hello.txt" {
		t.Fatalf("list_files: %+v", list)
	}

	// Bytes that are not UTF-8 go both ways as base64, byte for byte.
	call(t, ctx, cs, "write_file", map[string]any{"sandbox": sb, "path": "blob.bin", "content": "AP/+gA==", "encoding": "base64"}, &written)
	call(t, ctx, cs, "read_file", map[string]any{"sandbox": sb, "path": "blob.bin"}, &file)
	if file.Content != "AP/+gA==" || file.Encoding != "base64" || file.Size != 4 {
		t.Fatalf("read_file of binary bytes: %+v, want them as base64", file)
	}

	backgroundLogs(t, ctx, cs, sb)
	killed(t, ctx, cs, sb)

	// Sleep and start: the workspace survives, as the tools' descriptions
	// tell the model.
	var sandboxes struct {
		Sandboxes []struct{ Name, Status string }
	}
	// (The list comes from Temporal's visibility store, which may lag a
	// status change by a moment; the sandbox was created seconds ago.)
	call(t, ctx, cs, "list_sandboxes", map[string]any{}, &sandboxes)
	if !slices.ContainsFunc(sandboxes.Sandboxes, func(s struct{ Name, Status string }) bool { return s.Name == sb }) {
		t.Errorf("list_sandboxes: %+v lacks %s", sandboxes, sb)
	}
	var state struct{ Sandbox struct{ Status string } }
	call(t, ctx, cs, "sleep_sandbox", map[string]any{"sandbox": sb}, &state)
	if state.Sandbox.Status != "stopped" {
		t.Errorf("sleep_sandbox: status %q, want stopped", state.Sandbox.Status)
	}
	call(t, ctx, cs, "start_sandbox", map[string]any{"sandbox": sb}, &state)
	if state.Sandbox.Status != "running" {
		t.Errorf("start_sandbox: status %q, want running", state.Sandbox.Status)
	}
	call(t, ctx, cs, "read_file", map[string]any{"sandbox": sb, "path": "notes/hello.txt"}, &file)
	if file.Content != "hello from mcp\n" {
		t.Errorf("read_file after sleep and start: %q", file.Content)
	}

	var events *mcp.ReadResourceResult
	events, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "berth://sandboxes/" + sb + "/events"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("<- resources/read events: %d bytes, %d lines", len(events.Contents[0].Text), strings.Count(events.Contents[0].Text, "\n"))
	if !strings.Contains(events.Contents[0].Text, `"type":"events.iterate.com/sandbox/started"`) {
		t.Errorf("events resource lacks the started event:\n%s", events.Contents[0].Text)
	}

	var port struct {
		Port  int
		URL   string
		Token string
	}
	call(t, ctx, cs, "expose_port", map[string]any{"sandbox": sb, "port": 8000}, &port)
	if port.Port != 8000 || port.Token == "" || !strings.Contains(port.URL, "8000-"+sb) || !strings.Contains(port.URL, "berth_token="+port.Token) {
		t.Errorf("expose_port: %+v, want a private preview URL of port 8000 with its token", port)
	}

	var gone struct{ Sandbox struct{ Status string } }
	call(t, ctx, cs, "destroy_sandbox", map[string]any{"sandbox": sb}, &gone)
	if gone.Sandbox.Status != "destroyed" {
		t.Errorf("destroy_sandbox: status %q, want destroyed", gone.Sandbox.Status)
	}
	// A destroyed name is refused with the API's code and a hint that
	// tells the model what to do instead.
	e := callErr(t, ctx, cs, "create_sandbox", map[string]any{"name": sb, "sleepAfter": "1m"})
	if e.Code != "SANDBOX_DESTROYED" || !strings.Contains(e.Hint, "new name") {
		t.Errorf("create after destroy: %+v, want SANDBOX_DESTROYED with a hint", e)
	}
}

// backgroundLogs starts a process that writes a line, waits for a file
// the test then writes, and writes the rest; its output is read from
// cursor to cursor: each read returns only what is new, and together the
// reads are the whole output, ending with the exit.
func backgroundLogs(t *testing.T, ctx context.Context, cs *mcp.ClientSession, sb string) {
	var p struct {
		ProcessID, State, LogsURI string
	}
	call(t, ctx, cs, "start_process", map[string]any{"sandbox": sb, "argv": []string{"sh", "-c",
		"echo one; while [ ! -e go ]; do sleep 0.1; done; echo two >&2; sleep 0.2; echo three; exit 4"}}, &p)
	if p.ProcessID == "" || p.LogsURI == "" {
		t.Fatalf("start_process: %+v", p)
	}
	type logs struct {
		Stdout, Stderr, Cursor string
		Exited                 bool
		Exit                   *struct{ Code int }
	}
	read := func(cursor string) logs {
		var r logs
		args := map[string]any{"sandbox": sb, "processId": p.ProcessID, "waitSeconds": 10}
		if cursor != "" {
			args["cursor"] = cursor
		}
		call(t, ctx, cs, "read_logs", args, &r)
		return r
	}
	// The process waits for the file: what is there is the first line.
	first := read("")
	if first.Stdout != "one\n" || first.Stderr != "" || first.Exited || first.Cursor == "" {
		t.Fatalf("read_logs from the start: %+v, want the first line and a cursor", first)
	}
	call(t, ctx, cs, "write_file", map[string]any{"sandbox": sb, "path": "go", "content": ""}, &struct{}{})
	stdout, stderr, cursor := "", "", first.Cursor
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := read(cursor)
		stdout, stderr, cursor = stdout+r.Stdout, stderr+r.Stderr, r.Cursor
		if r.Exited {
			if r.Exit == nil || r.Exit.Code != 4 {
				t.Fatalf("read_logs: exit %+v, want code 4", r.Exit)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("read_logs: no exit after 30s (stdout %q, stderr %q)", stdout, stderr)
		}
	}
	if stdout != "three\n" || stderr != "two\n" {
		t.Fatalf("read_logs after the first cursor: stdout %q, stderr %q, want only what came after it", stdout, stderr)
	}

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: p.LogsURI})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Contents[0].Text
	t.Logf("<- resources/read %s: %q", p.LogsURI, text)
	if !strings.HasPrefix(text, "one\ntwo\nthree\n") || !strings.Contains(text, `"code":4`) {
		t.Errorf("logs resource: %q, want the output in order and the exit", text)
	}
}

// killed: a background process that would run for minutes ends when
// kill_process signals it, and its logs say so.
func killed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, sb string) {
	var p struct{ ProcessID, State string }
	call(t, ctx, cs, "start_process", map[string]any{"sandbox": sb, "argv": []string{"sleep", "600"}}, &p)
	call(t, ctx, cs, "kill_process", map[string]any{"sandbox": sb, "processId": p.ProcessID}, &p)
	var r struct {
		Exited bool
		Exit   *struct{ Code, Signal int }
	}
	call(t, ctx, cs, "read_logs", map[string]any{"sandbox": sb, "processId": p.ProcessID, "waitSeconds": 10}, &r)
	if !r.Exited || r.Exit == nil || r.Exit.Signal != 15 {
		t.Fatalf("read_logs after kill_process: %+v, want an exit by SIGTERM", r)
	}
}
