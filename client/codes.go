package client

// Error codes of lifecycle and stream failures (in the ErrorCode schema of
// schemas/openapi.yaml; docs/ARCHITECTURE.md, "Errors, end to end", says
// where each comes from). Like the others, match them with errors.Is.
const (
	ErrSandboxNotRunning   ErrorCode = "SANDBOX_NOT_RUNNING"      // 409: the operation needs a running sandbox (e.g. CreateBackup)
	ErrBootFailed          ErrorCode = "BOOT_FAILED"              // 503: the container could not be started
	ErrBackupFailed        ErrorCode = "BACKUP_FAILED"            // 503: a snapshot failed; the previous backup stays
	ErrBackupStore         ErrorCode = "BACKUP_STORE_UNAVAILABLE" // 503: the backup store is not reachable
	ErrBackupNotFound      ErrorCode = "BACKUP_NOT_FOUND"         // 404: Start named a backup the sandbox does not have
	ErrRestoreFailed       ErrorCode = "RESTORE_FAILED"           // 409: the backup is corrupt (now marked bad); start from an older one
	ErrTemporalUnavailable ErrorCode = "TEMPORAL_UNAVAILABLE"     // 503: the gateway cannot reach Temporal
	ErrTimeout             ErrorCode = "TIMEOUT"                  // 504: the operation goes on in the background
	ErrTerminalNotFound    ErrorCode = "TERMINAL_NOT_FOUND"       // 404
	ErrRouteNotFound       ErrorCode = "NOT_FOUND"                // 404: no such route (client and gateway versions differ?)
	ErrMethodNotAllowed    ErrorCode = "METHOD_NOT_ALLOWED"       // 405
	ErrInternal            ErrorCode = "INTERNAL"                 // 500
	ErrStreamUnavailable   ErrorCode = "UNAVAILABLE"              // 503: an event stream could not be read right now
	ErrEnvTooLarge         ErrorCode = "ENV_TOO_LARGE"            // 413: the sandbox env would exceed 128 variables or 64 KiB
	// Per-sandbox limits: 429, retryable, with RetryAfter.
	ErrTooManyProcesses ErrorCode = "TOO_MANY_PROCESSES" // running processes
	ErrTooManyTerminals ErrorCode = "TOO_MANY_TERMINALS" // open terminals
	ErrTooManyFollowers ErrorCode = "TOO_MANY_FOLLOWERS" // concurrent log follows and wait-for-log calls
)
