package mcpserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/berthdev/berth/client"
)

// toolError is what a failed call tells the model: the API's error code
// and message, what to do next, and whether retrying may help. Its text is
// the JSON of the CLI's --json errors, {"error":{code,message,hint,...}},
// so a model reads it and a program parses it.
type toolError struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Hint         string `json:"hint,omitempty"`
	Retryable    bool   `json:"retryable,omitempty"`
	RetryAfterMs int64  `json:"retryAfterMs,omitempty"`
}

func (e *toolError) Error() string {
	b, _ := json.Marshal(map[string]*toolError{"error": e})
	return string(b)
}

// validation is an input the schema let through but the tool refuses.
func validation(format string, args ...any) error {
	return &toolError{Code: string(client.ErrValidation), Message: fmt.Sprintf(format, args...),
		Hint: "fix the arguments; the tool's input schema describes them"}
}

// describe turns an error of the SDK (an API error, a network failure)
// into a toolError. The SDK's mcp.AddTool makes a returned error a tool
// result with isError set and this text as its content.
func describe(err error) error {
	if err == nil {
		return nil
	}
	var te *toolError
	if errors.As(err, &te) {
		return te
	}
	var ae *client.Error
	if !errors.As(err, &ae) {
		var ne net.Error
		var oe *net.OpError
		if errors.As(err, &oe) || errors.As(err, &ne) {
			return &toolError{Code: "UNREACHABLE", Message: "cannot reach the Berth gateway: " + err.Error(),
				Hint: "is Berth running? The MCP server uses BERTH_URL and BERTH_TOKEN (or the client.json `berth dev` writes)", Retryable: true}
		}
		return &toolError{Code: string(client.ErrInternal), Message: err.Error()}
	}
	te = &toolError{Code: ae.Code, Message: ae.Message, Hint: hints[client.ErrorCode(ae.Code)],
		Retryable: ae.Retryable, RetryAfterMs: ae.RetryAfter.Milliseconds()}
	if te.Hint == "" && ae.Retryable {
		te.Hint = "this is temporary: retry shortly"
	}
	return te
}

// resourceError is describe for resource reads, which fail with a
// JSON-RPC error: a missing sandbox or process is the protocol's
// resource-not-found, anything else an internal error; either carries the
// toolError as its data.
func resourceError(uri string, err error) error {
	te := describe(err).(*toolError)
	data, _ := json.Marshal(map[string]any{"uri": uri, "error": te})
	code := int64(jsonrpc.CodeInternalError)
	switch client.ErrorCode(te.Code) {
	case client.ErrSandboxNotFound, client.ErrProcessNotFound, client.ErrStaleProcessHandle:
		code = mcp.CodeResourceNotFound
	}
	return &jsonrpc.Error{Code: code, Message: te.Code + ": " + te.Message, Data: data}
}

// hints say what to do about an error, in this server's tools' terms.
var hints = map[client.ErrorCode]string{
	client.ErrValidation:           "the request was refused as invalid; check the arguments against the tool's schema",
	client.ErrUnauthorized:         "the MCP server's gateway token is wrong: set BERTH_TOKEN for `berth mcp` to the gateway's token",
	client.ErrSandboxNotFound:      "no sandbox has this name: list them with list_sandboxes, or create it with create_sandbox",
	client.ErrSandboxDestroyed:     "the name was destroyed and names are never reused: create a sandbox with a new name",
	client.ErrNameConflict:         "a sandbox of this name exists with another configuration: pick another name, or use it as it is (get_sandbox)",
	client.ErrProcessNotFound:      "the sandbox's current container has no such process (it may have slept since): start it again",
	client.ErrStaleProcessHandle:   "the process belonged to a container that has since stopped or been replaced: start it again",
	client.ErrInvalidCursor:        "the cursor is not one of this process's: omit it to read from the start",
	client.ErrExecutableNotFound:   `no such executable in the sandbox: give a full path, or run a shell: ["sh","-c","..."]`,
	client.ErrInvalidCwd:           "the working directory does not exist in the sandbox: create it first (write_file with mkdir) or change cwd",
	client.ErrExecFailed:           "the process could not be started; check the command",
	client.ErrContainerUnavailable: "the sandbox's container is booting or being replaced: retry in a moment",
	client.ErrPayloadTooLarge:      "the request is too large: send less at once",
	client.ErrEnvTooLarge:          "the sandbox env is limited to 128 variables and 64 KiB",
	client.ErrNoCapacity:           "every host is full: sleep or destroy a sandbox, or retry later",
	client.ErrBootFailed:           "the container could not start; the Berth worker's log says why",
	client.ErrRollbackNeeded:       "the newest workspace is on a lost host; an operator must bring it back or accept the older workspace",
	client.ErrTemporalUnavailable:  "the gateway cannot reach Temporal right now: retry shortly",
	client.ErrTimeout:              "the operation goes on in the background: check with get_sandbox in a moment",
	client.ErrPortNotExposed:       "the port is not exposed: expose it with expose_port",
	client.ErrTooManyProcesses:     "the sandbox runs too many processes: stop some (kill_process) or wait",
	client.ErrTooManyFollowers:     "too many log readers follow this sandbox at once: retry shortly",
	client.ErrFileNotFound:         "nothing is at that path: look with list_files (relative paths are under /workspace)",
	client.ErrIsDirectory:          "the path is a directory: list it with list_files",
	client.ErrNotDirectory:         "a parent of the path is not a directory",
	client.ErrNotRegular:           "the path is not a regular file (a fifo, socket or device)",
	client.ErrInvalidPath:          `sandbox paths are absolute (relative ones are under /workspace) and must not contain ".."`,
	client.ErrPermissionDenied:     "the sandbox user may not access that path",
	client.ErrNoSpace:              "the sandbox's disk is full: remove files, or use a larger instance type",
}
