package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"github.com/berthdev/berth/api"
)

// Error is the API error body (api.Error) that handlers return and
// WriteError renders as {"error":{...}}; the codes are api's.
type Error = api.Error

// NewError is an error with this status and code.
func NewError(status int, code api.Code, msg string) *Error { return api.NewError(status, code, msg) }

// BadRequest is the 400 VALIDATION_FAILED of a malformed request.
func BadRequest(msg string) *Error { return NewError(http.StatusBadRequest, api.CodeValidation, msg) }

// WaitTimeout is the 408 of a wait that ended before its condition held
// (the process itself is unaffected).
func WaitTimeout(msg string) *Error {
	e := NewError(http.StatusRequestTimeout, api.CodeWaitTimeout, msg)
	e.Retryable = true // the same wait can simply be issued again
	return e
}

// WriteError renders err; errors that are not *Error become a 500
// INTERNAL, which only a supervisor bug or an OS failure should produce.
func WriteError(w http.ResponseWriter, err error) {
	var ae *Error
	if !errors.As(err, &ae) {
		ae = NewError(http.StatusInternalServerError, api.CodeInternal, err.Error())
	}
	if ae.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="berth-supervisor"`)
	}
	if s := ae.RetryAfterSeconds(); s > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(s, 10))
	}
	WriteJSON(w, ae.Status, api.ErrorEnvelope{Error: ae})
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
		buf.WriteString(`{"error":{"code":"` + string(api.CodeInternal) + `","message":"encoding response failed","retryable":false}}` + "\n")
	}
	body := buf.Bytes()
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}
