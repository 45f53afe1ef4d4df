package client

import "github.com/berthdev/berth/api"

// Error codes of lifecycle and stream failures (in the ErrorCode schema of
// schemas/openapi.yaml; docs/design/errors.md says
// where each comes from). Like the others, match them with errors.Is.
const (
	ErrForbidden           = api.CodeForbidden              // 403: a scoped token outside its sandboxes or scopes (the error's context names the scope)
	ErrTokenNotFound       = api.CodeTokenNotFound          // 404: no scoped token of that id
	ErrSandboxNotRunning   = api.CodeSandboxNotRunning      // 409: the operation needs a running sandbox (e.g. CreateBackup)
	ErrBootFailed          = api.CodeBootFailed             // 503: the container could not be started
	ErrBackupFailed        = api.CodeBackupFailed           // 503: a snapshot failed; the previous backup stays
	ErrBackupStore         = api.CodeBackupStoreUnavailable // 503: the backup store is not reachable
	ErrBackupNotFound      = api.CodeBackupNotFound         // 404: Start named a backup the sandbox does not have
	ErrRestoreFailed       = api.CodeRestoreFailed          // 409: the backup is corrupt (now marked bad); start from an older one
	ErrTemporalUnavailable = api.CodeTemporalUnavailable    // 503: the gateway cannot reach Temporal
	ErrTimeout             = api.CodeTimeout                // 504: the operation goes on in the background
	ErrTerminalNotFound    = api.CodeTerminalNotFound       // 404
	ErrRouteNotFound       = api.CodeNotFound               // 404: no such route (client and gateway versions differ?)
	ErrMethodNotAllowed    = api.CodeMethodNotAllowed       // 405
	ErrInternal            = api.CodeInternal               // 500
	ErrStreamUnavailable   = api.CodeUnavailable            // 503: an event stream could not be read right now
	ErrEnvTooLarge         = api.CodeEnvTooLarge            // 413: the sandbox env would exceed 128 variables or 64 KiB
	ErrEgressUnavailable   = api.CodeEgressUnavailable      // 503: the sandbox's host cannot enforce the policy; the previous one stays
	ErrSecretNotFound      = api.CodeSecretNotFound         // 404: no secret of that name
	ErrPortNotExposed      = api.CodePortNotExposed         // 404 never exposed, 410 unexposed since
	ErrRollbackNeeded      = api.CodeRollbackNeeded         // 409: the host with the newest workspace is lost; start with AllowRollback to accept an older one
	ErrNoCapacity          = api.CodeNoCapacity             // 503, retryable: no live host has room for the sandbox
	// A sandbox's own image (CreateRequest.Image) and its pulls.
	ErrImageNotAllowed  = api.CodeImageNotAllowed  // 403: outside the operator's BERTH_IMAGES
	ErrImageNotFound    = api.CodeImageNotFound    // 404: no registry knows the ref
	ErrImageAuthFailed  = api.CodeImageAuthFailed  // 401: a registry refused the workers' credentials
	ErrImageUnsupported = api.CodeImageUnsupported // 422: the image cannot run as a sandbox (the message says why)
	ErrImagePullFailed  = api.CodeImagePullFailed  // 503, retryable: a registry could not be reached
	// Per-sandbox limits: 429, retryable, with RetryAfter.
	ErrTooManyProcesses = api.CodeTooManyProcesses // running processes
	ErrTooManyTerminals = api.CodeTooManyTerminals // open terminals
	ErrTooManyFollowers = api.CodeTooManyFollowers // concurrent log follows and wait-for-log calls
)
