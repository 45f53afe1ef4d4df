package client

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/berthdev/berth/api"
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
	RequestID  string // the gateway's X-Request-Id for the request: quote it when reporting a problem
}

func (e *Error) Error() string {
	return fmt.Sprintf("berth: %s (HTTP %d): %s", e.Code, e.Status, e.Message)
}

// Is reports whether e has the code of target, when target is an ErrorCode.
func (e *Error) Is(target error) bool {
	c, ok := target.(ErrorCode)
	return ok && string(c) == e.Code
}

// ErrorCode is an API error code usable as an errors.Is target (package
// api's Code). The values are constants, so nothing in this package can be
// reassigned.
type ErrorCode = api.Code

// Error codes of the sandbox and process routes (the ErrorCode schema of
// schemas/openapi.yaml), under the names this package has always used.
const (
	ErrValidation           = api.CodeValidation
	ErrUnauthorized         = api.CodeUnauthorized
	ErrSandboxNotFound      = api.CodeSandboxNotFound
	ErrProcessNotFound      = api.CodeProcessNotFound
	ErrNameConflict         = api.CodeNameConflict
	ErrStaleProcessHandle   = api.CodeStaleHandle
	ErrInvalidCursor        = api.CodeInvalidCursor
	ErrSandboxDestroyed     = api.CodeSandboxDestroyed
	ErrPayloadTooLarge      = api.CodePayloadTooLarge
	ErrContainerUnavailable = api.CodeContainerUnavailable
	ErrWaitTimeout          = api.CodeWaitTimeout
	ErrExecutableNotFound   = api.CodeExecutableNotFound
	ErrInvalidCwd           = api.CodeInvalidCwd
	ErrExecFailed           = api.CodeExecFailed
	ErrProcessNotRunning    = api.CodeProcessNotRunning
	ErrProcessExited        = api.CodeProcessExited
	ErrStdinNotPiped        = api.CodeStdinNotPiped
	ErrStdinClosed          = api.CodeStdinClosed
)

// fromAPI is the client's form of an error body received with status.
func fromAPI(status int, ae *api.Error) *Error {
	return &Error{Status: status, Code: string(ae.Code), Message: ae.Message, Retryable: ae.Retryable,
		RetryAfter: time.Duration(ae.RetryAfterMs) * time.Millisecond, Context: ae.Context,
		RequestID: ae.RequestID}
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
