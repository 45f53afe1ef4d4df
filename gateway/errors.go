package gateway

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/workflows/contract"
)

// Error codes the gateway answers with, each in the ErrorCode schema of
// schemas/openapi.yaml; docs/ARCHITECTURE.md, "Errors, end to end", says
// where each comes from.
const (
	CodeValidation           = "VALIDATION_FAILED"
	CodeUnauthorized         = "UNAUTHORIZED"
	CodeSandboxNotFound      = "SANDBOX_NOT_FOUND"
	CodeProcessNotFound      = "PROCESS_NOT_FOUND"
	CodeTerminalNotFound     = "TERMINAL_NOT_FOUND"
	CodeStaleHandle          = "STALE_PROCESS_HANDLE"
	CodeNameConflict         = "NAME_CONFLICT"
	CodeSandboxDestroyed     = "SANDBOX_DESTROYED"
	CodePayloadTooLarge      = "PAYLOAD_TOO_LARGE"
	CodeEnvTooLarge          = contract.ErrEnvTooLarge // 413: the sandbox env would break its bounds
	CodeContainerUnavailable = "CONTAINER_UNAVAILABLE"
	CodeNotFound             = "NOT_FOUND"
	CodeMethodNotAllowed     = "METHOD_NOT_ALLOWED"
	CodeBootFailed           = "BOOT_FAILED"
	CodeRestoreFailed        = contract.ErrRestore // 409: the backup is corrupt; start from another
	CodeBackupNotFound       = "BACKUP_NOT_FOUND"
	CodeTemporalUnavailable  = "TEMPORAL_UNAVAILABLE"
	CodeTimeout              = "TIMEOUT"
	CodeInternal             = "INTERNAL"
)

// APIError is the one error shape every route answers with.
type APIError struct {
	Status       int            `json:"-"`
	Code         string         `json:"code"`
	Message      string         `json:"message"`
	Retryable    bool           `json:"retryable"`
	RetryAfterMs int64          `json:"retryAfterMs,omitempty"`
	Context      map[string]any `json:"context,omitempty"`
}

func (e *APIError) Error() string { return e.Code + ": " + e.Message }

func apiErr(status int, code, msg string) *APIError {
	return &APIError{Status: status, Code: code, Message: msg}
}

func badRequest(msg string) *APIError { return apiErr(http.StatusBadRequest, CodeValidation, msg) }

func sandboxNotFound(name string) *APIError {
	return apiErr(http.StatusNotFound, CodeSandboxNotFound, "no sandbox named "+strconv.Quote(name))
}

// fromTemporal maps a Temporal client error to an API error (an API error,
// such as callTemporal's TEMPORAL_UNAVAILABLE, passes through).
func fromTemporal(err error, name string) *APIError {
	var ae *APIError
	var nf *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.As(err, &nf):
		return sandboxNotFound(name)
	case errors.As(err, &app):
		switch app.Type() {
		case contract.ErrValidation:
			return badRequest(app.Message())
		case contract.ErrEnvTooLarge:
			e := apiErr(http.StatusRequestEntityTooLarge, CodeEnvTooLarge, app.Message())
			var bounds map[string]any
			if app.Details(&bounds) == nil {
				e.Context = bounds
			}
			return e
		case contract.ErrDestroyed:
			return apiErr(http.StatusGone, CodeSandboxDestroyed, app.Message())
		case contract.ErrBoot:
			return apiErr(http.StatusServiceUnavailable, CodeBootFailed, app.Message())
		case contract.ErrRestore:
			return apiErr(http.StatusConflict, CodeRestoreFailed, app.Message()+"; start from an older backup with backupId (`berth backups NAME` lists them)")
		case contract.ErrNotRunning:
			return apiErr(http.StatusConflict, contract.ErrNotRunning, app.Message())
		case contract.ErrBackup:
			e := apiErr(http.StatusServiceUnavailable, contract.ErrBackup, app.Message())
			e.Retryable = true
			return e
		}
	case errors.Is(err, context.DeadlineExceeded):
		e := apiErr(http.StatusGatewayTimeout, CodeTimeout, "the operation did not finish in time; it goes on in the background")
		e.Retryable = true
		return e
	case isUnavailable(err):
		return temporalUnavailable()
	}
	return &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error(), Retryable: true}
}

func isUnavailable(err error) bool {
	var u *serviceerror.Unavailable
	var dl *serviceerror.DeadlineExceeded
	return errors.As(err, &u) || errors.As(err, &dl)
}

// errorHandler renders every error, including Echo's own (404, 405, 413),
// in the API error shape.
func errorHandler(log *zap.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		var ae *APIError
		var he *echo.HTTPError
		switch {
		case errors.As(err, &ae):
		case errors.As(err, &he):
			ae = fromEcho(he)
		default:
			ae = &APIError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "internal error"}
		}
		switch {
		case ae.Status >= 500 && !ae.Retryable:
			log.Error("request failed", zap.String("path", c.Path()), zap.Error(err))
		case ae.Status >= 500:
			log.Info("request answered unavailable", zap.String("path", c.Path()), zap.String("code", ae.Code))
		}
		if ae.RetryAfterMs > 0 {
			c.Response().Header().Set("Retry-After", strconv.FormatInt((ae.RetryAfterMs+999)/1000, 10))
		}
		_ = c.JSON(ae.Status, map[string]*APIError{"error": ae})
	}
}

func fromEcho(he *echo.HTTPError) *APIError {
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok {
		msg = m
	}
	switch he.Code {
	case http.StatusNotFound:
		return apiErr(he.Code, CodeNotFound, "no such route")
	case http.StatusMethodNotAllowed:
		return apiErr(he.Code, CodeMethodNotAllowed, "method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		return apiErr(he.Code, CodePayloadTooLarge, "request body too large")
	case http.StatusUnauthorized:
		return apiErr(he.Code, CodeUnauthorized, msg)
	}
	if he.Code >= 400 && he.Code < 500 {
		return apiErr(he.Code, CodeValidation, msg)
	}
	return apiErr(he.Code, CodeInternal, msg)
}
