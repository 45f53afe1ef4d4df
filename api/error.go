package api

// Error is the error body every route answers with, inside an
// ErrorEnvelope: {"error":{"code","message","retryable","retryAfterMs"?,
// "context"?}}. Status is the HTTP status it is sent with; servers return
// *Error from handlers and their writers render it.
type Error struct {
	Status       int            `json:"-"`
	Code         Code           `json:"code"`
	Message      string         `json:"message"`
	Retryable    bool           `json:"retryable"`
	RetryAfterMs int64          `json:"retryAfterMs,omitempty"`
	Context      map[string]any `json:"context,omitempty"`
	// RequestID is the X-Request-Id of the request that failed: the key to
	// its log lines and its trace.
	RequestID string `json:"requestId,omitempty"`
}

// RequestIDHeader names a request: the gateway answers it on every
// response and puts it in every error body (RequestID).
const RequestIDHeader = "X-Request-Id"

// ErrorEnvelope is the body of an error response (the Error schema).
type ErrorEnvelope struct {
	Error *Error `json:"error"`
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// NewError is an error with this status and code.
func NewError(status int, code Code, msg string) *Error {
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

// RetryAfterSeconds is the Retry-After header of e (0: none), rounded up so
// a client never retries early.
func (e *Error) RetryAfterSeconds() int64 {
	if e.RetryAfterMs <= 0 {
		return 0
	}
	return (e.RetryAfterMs + 999) / 1000
}
