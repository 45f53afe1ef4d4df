package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
)

// Error codes. The first group is shared with the gateway
// (docs/ARCHITECTURE.md, "Errors, end to end"); the rest are specific to the
// process API.
const (
	CodeValidation        = "VALIDATION_FAILED"      // 400
	CodeUnauthorized      = "UNAUTHORIZED"           // 401
	CodeNotFound          = "NOT_FOUND"              // 404 unknown route
	CodeMethodNotAllowed  = "METHOD_NOT_ALLOWED"     // 405
	CodeProcessNotFound   = "PROCESS_NOT_FOUND"      // 404
	CodeStaleHandle       = "STALE_PROCESS_HANDLE"   // 409
	CodeInvalidCursor     = "INVALID_PROCESS_CURSOR" // 400
	CodePayloadTooLarge   = "PAYLOAD_TOO_LARGE"      // 413
	CodeExecutableMissing = "EXECUTABLE_NOT_FOUND"   // 422
	CodeInvalidCwd        = "INVALID_CWD"            // 422
	CodeExecFailed        = "EXEC_FAILED"            // 422 exec(2) refused the file
	CodeWaitTimeout       = "WAIT_TIMEOUT"           // 408 only the wait ended
	CodeNotRunning        = "PROCESS_NOT_RUNNING"    // 409
	CodeProcessExited     = "PROCESS_EXITED"         // 409 exited before a wait condition held
	CodeStdinNotPiped     = "STDIN_NOT_PIPED"        // 409
	CodeStdinClosed       = "STDIN_CLOSED"           // 409
	CodeInternal          = "INTERNAL"               // 500 a supervisor bug or OS failure
	// Per-sandbox limits (see TooMany), each 429 with Retry-After.
	CodeTooManyProcesses = "TOO_MANY_PROCESSES"
	CodeTooManyTerminals = "TOO_MANY_TERMINALS"
	CodeTooManyFollowers = "TOO_MANY_FOLLOWERS"
)

// Error is an error that knows its HTTP form. Handlers return it and
// WriteError renders it as {"error":{...}}.
type Error struct {
	Status       int            `json:"-"`
	Code         string         `json:"code"`
	Message      string         `json:"message"`
	Retryable    bool           `json:"retryable"`
	RetryAfterMs int64          `json:"retryAfterMs,omitempty"`
	Context      map[string]any `json:"context,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// NewError is an error with this status and code.
func NewError(status int, code, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg}
}

// With adds key to the error's context.
func (e *Error) With(key string, v any) *Error {
	if e.Context == nil {
		e.Context = map[string]any{}
	}
	e.Context[key] = v
	return e
}

// BadRequest is the 400 VALIDATION_FAILED of a malformed request.
func BadRequest(msg string) *Error { return NewError(http.StatusBadRequest, CodeValidation, msg) }

// WaitTimeout is the 408 of a wait that ended before its condition held
// (the process itself is unaffected).
func WaitTimeout(msg string) *Error {
	e := NewError(http.StatusRequestTimeout, CodeWaitTimeout, msg)
	e.Retryable = true // the same wait can simply be issued again
	return e
}

// WriteError renders err; errors that are not *Error become a 500
// INTERNAL, which only a supervisor bug or an OS failure should produce.
func WriteError(w http.ResponseWriter, err error) {
	var ae *Error
	if !errors.As(err, &ae) {
		ae = NewError(http.StatusInternalServerError, CodeInternal, err.Error())
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="berth-supervisor"`)
	}
	if ae.RetryAfterMs > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt((ae.RetryAfterMs+999)/1000, 10))
	}
	WriteJSON(w, ae.Status, map[string]any{"error": ae})
}

// WriteJSON writes v as the JSON body with this status (HTML characters
// left unescaped).
func WriteJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep "2>&1" readable in commands
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"code":"INTERNAL","message":"encoding response failed","retryable":false}}` + "\n")
	}
	body := buf.Bytes()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
