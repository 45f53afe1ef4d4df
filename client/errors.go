package client

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Error is an API error: the gateway's (or supervisor's) error envelope
// {"error":{"code","message","retryable","retryAfterMs"?,"context"?}} plus
// the HTTP status. Match categories with errors.Is and the ErrorCode
// constants below, or errors.As to read the details:
//
//	if errors.Is(err, client.ErrContainerUnavailable) {
//		var e *client.Error
//		errors.As(err, &e)
//		time.Sleep(e.RetryAfter)
//	}
type Error struct {
	Status     int
	Code       string
	Message    string
	Retryable  bool
	RetryAfter time.Duration // from retryAfterMs or the Retry-After header
	Context    map[string]any
}

func (e *Error) Error() string {
	return fmt.Sprintf("berth: %s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// Is reports whether e has the code of target, when target is an ErrorCode.
func (e *Error) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && string(c) == e.Code
}

// ErrorCode is an API error code usable as an errors.Is target. The values
// are constants, so nothing in this package can be reassigned.
type ErrorCode string

func (c ErrorCode) Error() string { return "berth: " + string(c) }

// Error codes of the sandbox and process routes (the ErrorCode schema of
// schemas/openapi.yaml).
const (
	ErrValidation           ErrorCode = "VALIDATION_FAILED"
	ErrUnauthorized         ErrorCode = "UNAUTHORIZED"
	ErrSandboxNotFound      ErrorCode = "SANDBOX_NOT_FOUND"
	ErrProcessNotFound      ErrorCode = "PROCESS_NOT_FOUND"
	ErrNameConflict         ErrorCode = "NAME_CONFLICT"
	ErrStaleProcessHandle   ErrorCode = "STALE_PROCESS_HANDLE"
	ErrInvalidCursor        ErrorCode = "INVALID_PROCESS_CURSOR"
	ErrSandboxDestroyed     ErrorCode = "SANDBOX_DESTROYED"
	ErrPayloadTooLarge      ErrorCode = "PAYLOAD_TOO_LARGE"
	ErrContainerUnavailable ErrorCode = "CONTAINER_UNAVAILABLE"
	ErrWaitTimeout          ErrorCode = "WAIT_TIMEOUT"
	ErrExecutableNotFound   ErrorCode = "EXECUTABLE_NOT_FOUND"
	ErrInvalidCwd           ErrorCode = "INVALID_CWD"
	ErrExecFailed           ErrorCode = "EXEC_FAILED"
	ErrProcessNotRunning    ErrorCode = "PROCESS_NOT_RUNNING"
	ErrProcessExited        ErrorCode = "PROCESS_EXITED"
	ErrStdinNotPiped        ErrorCode = "STDIN_NOT_PIPED"
	ErrStdinClosed          ErrorCode = "STDIN_CLOSED"
)

// envelope is the wire form of an error response.
type envelope struct {
	Error *struct {
		Code         string         `json:"code"`
		Message      string         `json:"message"`
		Retryable    bool           `json:"retryable"`
		RetryAfterMs *int64         `json:"retryAfterMs"`
		Context      map[string]any `json:"context"`
	} `json:"error"`
}

// retryAfterHeader parses Retry-After (seconds or an HTTP date).
func retryAfterHeader(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}
