package gateway

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/temporal"
	"go.uber.org/zap"

	"github.com/berthdev/berth/api"
	"github.com/berthdev/berth/workflows/contract"
)

// The gateway answers every error as an api.Error with one of api's codes;
// docs/design/errors.md says where each comes from.

// noCapacityRetryAfter: capacity frees when a sandbox sleeps or a host
// announces itself, every contract.HostAnnounceEvery.
const noCapacityRetryAfter = 2 * contract.HostAnnounceEvery

func badRequest(msg string) *api.Error {
	return api.NewError(http.StatusBadRequest, api.CodeValidation, msg)
}

func sandboxNotFound(name string) *api.Error {
	return api.NewError(http.StatusNotFound, api.CodeSandboxNotFound, "no sandbox named "+strconv.Quote(name))
}

// fromTemporal maps a Temporal client error to an API error (an API error,
// such as callTemporal's TEMPORAL_UNAVAILABLE, passes through).
func fromTemporal(err error, name string) *api.Error {
	var ae *api.Error
	var nf *serviceerror.NotFound
	var app *temporal.ApplicationError
	switch {
	case errors.As(err, &ae):
		return ae
	case isUnknownUpdate(err):
		// A gateway newer than the worker running this sandbox's workflow
		// (a rolling upgrade half-way): nothing was applied.
		e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable,
			"the worker running sandbox "+name+" does not know this operation yet (workers older than this gateway); nothing changed, retry once the workers are upgraded")
		e.Retryable, e.RetryAfterMs = true, 5*time.Second.Milliseconds()
		return e
	case errors.As(err, &nf):
		return sandboxNotFound(name)
	case errors.As(err, &app):
		switch app.Type() {
		case contract.ErrValidation:
			return badRequest(app.Message())
		case contract.ErrEnvTooLarge:
			e := api.NewError(http.StatusRequestEntityTooLarge, api.CodeEnvTooLarge, app.Message())
			var bounds map[string]any
			if app.Details(&bounds) == nil {
				e.Context = bounds
			}
			return e
		case contract.ErrDestroyed:
			return api.NewError(http.StatusGone, api.CodeSandboxDestroyed, app.Message())
		case contract.ErrBoot:
			return api.NewError(http.StatusServiceUnavailable, api.CodeBootFailed, app.Message())
		case contract.ErrRestore:
			return api.NewError(http.StatusConflict, api.CodeRestoreFailed, app.Message()+"; start from an older backup with backupId (`berth backups NAME` lists them)")
		case contract.ErrNotRunning:
			return api.NewError(http.StatusConflict, api.CodeSandboxNotRunning, app.Message())
		case contract.ErrEgressUnavailable:
			e := api.NewError(http.StatusServiceUnavailable, api.CodeEgressUnavailable, app.Message())
			e.Retryable = true
			return e
		case contract.ErrRollbackNeeded:
			e := api.NewError(http.StatusConflict, api.CodeRollbackNeeded, app.Message())
			var details map[string]any
			if app.Details(&details) == nil {
				e.Context = details
			}
			return e
		case contract.ErrNoCapacity:
			e := api.NewError(http.StatusServiceUnavailable, api.CodeNoCapacity, app.Message())
			e.Retryable, e.RetryAfterMs = true, noCapacityRetryAfter.Milliseconds()
			return e
		case contract.ErrImageNotFound, contract.ErrImagePullFailed, contract.ErrImageAuthFailed, contract.ErrImageUnsupported:
			return imageError(app)
		case contract.ErrBackup:
			e := api.NewError(http.StatusServiceUnavailable, api.CodeBackupFailed, app.Message())
			e.Retryable = true
			return e
		}
	case errors.Is(err, context.DeadlineExceeded), isTemporalTimeout(err):
		e := api.NewError(http.StatusGatewayTimeout, api.CodeTimeout, "the operation did not finish in time; it goes on in the background")
		e.Retryable = true
		return e
	case isUnavailable(err):
		return temporalUnavailable()
	case isNotReady(err):
		// Still refused after update's retries: the workflow keeps
		// failing its tasks (a bug shows in the Temporal UI); nothing was
		// applied, so the caller may try again.
		e := api.NewError(http.StatusServiceUnavailable, api.CodeUnavailable, "the sandbox's workflow did not take the operation; nothing changed, retry shortly")
		e.Retryable, e.RetryAfterMs = true, time.Second.Milliseconds()
		return e
	}
	return &api.Error{Status: http.StatusInternalServerError, Code: api.CodeInternal, Message: err.Error(), Retryable: true}
}

// isTemporalTimeout: an activity or workflow of the call ran past one of
// its timeouts (a loaded host), which is the machine's trouble, not an
// internal error.
func isTemporalTimeout(err error) bool {
	var to *temporal.TimeoutError
	return errors.As(err, &to)
}

// isUnknownUpdate: the workflow rejected an Update it has no handler for.
// The SDK says so only in words ("unknown update NAME. KnownUpdates=…").
func isUnknownUpdate(err error) bool {
	var app *temporal.ApplicationError
	return errors.As(err, &app) && strings.HasPrefix(app.Message(), "unknown update ")
}

func isNotReady(err error) bool {
	var nr *serviceerror.WorkflowNotReady
	return errors.As(err, &nr)
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
		var ae *api.Error
		var he *echo.HTTPError
		switch {
		case errors.As(err, &ae):
		case errors.As(err, &he):
			ae = fromEcho(he)
		default:
			ae = &api.Error{Status: http.StatusInternalServerError, Code: api.CodeInternal, Message: "internal error"}
		}
		ae = withRequestID(ae, c.Response().Header())
		switch {
		case ae.Status >= 500 && !ae.Retryable:
			log.Error("request failed", zap.String("path", c.Path()), zap.String("requestId", ae.RequestID), zap.Error(err))
		case ae.Status >= 500:
			log.Info("request answered unavailable", zap.String("path", c.Path()), zap.String("code", string(ae.Code)),
				zap.String("requestId", ae.RequestID))
		}
		if s := ae.RetryAfterSeconds(); s > 0 {
			c.Response().Header().Set("Retry-After", strconv.FormatInt(s, 10))
		}
		_ = c.JSON(ae.Status, api.ErrorEnvelope{Error: ae})
	}
}

func fromEcho(he *echo.HTTPError) *api.Error {
	msg := http.StatusText(he.Code)
	if m, ok := he.Message.(string); ok {
		msg = m
	}
	switch he.Code {
	case http.StatusNotFound:
		return api.NewError(he.Code, api.CodeNotFound, "no such route")
	case http.StatusMethodNotAllowed:
		return api.NewError(he.Code, api.CodeMethodNotAllowed, "method not allowed on this route")
	case http.StatusRequestEntityTooLarge:
		return api.NewError(he.Code, api.CodePayloadTooLarge, "request body too large")
	case http.StatusUnauthorized:
		return api.NewError(he.Code, api.CodeUnauthorized, msg)
	}
	if he.Code >= 400 && he.Code < 500 {
		return api.NewError(he.Code, api.CodeValidation, msg)
	}
	return api.NewError(he.Code, api.CodeInternal, msg)
}
