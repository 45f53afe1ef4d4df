package api

// Code is an error code: the "code" of the error body, and the ErrorCode
// schema of schemas/openapi.yaml. A Code is an error, so the client can use
// the constants as errors.Is targets. docs/design/errors.md says where each comes from.
type Code string

func (c Code) Error() string { return "berth: " + string(c) }

// Codes of requests and sandboxes (the gateway).
const (
	CodeValidation             Code = "VALIDATION_FAILED"        // 400 a malformed or refused request
	CodeUnauthorized           Code = "UNAUTHORIZED"             // 401
	CodeForbidden              Code = "FORBIDDEN"                // 403 a scoped token outside its sandboxes or scopes
	CodeTokenNotFound          Code = "TOKEN_NOT_FOUND"          // 404 no scoped token of that id
	CodeSandboxNotFound        Code = "SANDBOX_NOT_FOUND"        // 404
	CodeNotFound               Code = "NOT_FOUND"                // 404 no such route
	CodeMethodNotAllowed       Code = "METHOD_NOT_ALLOWED"       // 405
	CodeNameConflict           Code = "NAME_CONFLICT"            // 409 the name exists with another config
	CodeSandboxDestroyed       Code = "SANDBOX_DESTROYED"        // 410 names are never reused
	CodeSandboxNotRunning      Code = "SANDBOX_NOT_RUNNING"      // 409 the operation needs a running sandbox
	CodePayloadTooLarge        Code = "PAYLOAD_TOO_LARGE"        // 413
	CodeEnvTooLarge            Code = "ENV_TOO_LARGE"            // 413 the sandbox env would break its bounds
	CodeContainerUnavailable   Code = "CONTAINER_UNAVAILABLE"    // 503 the container is not reachable right now
	CodeBootFailed             Code = "BOOT_FAILED"              // 503 the container could not be started
	CodeBackupFailed           Code = "BACKUP_FAILED"            // 503 a snapshot failed; the previous backup stays
	CodeBackupStoreUnavailable Code = "BACKUP_STORE_UNAVAILABLE" // 503
	CodeBackupNotFound         Code = "BACKUP_NOT_FOUND"         // 404 a start named a backup the sandbox lacks
	CodeRestoreFailed          Code = "RESTORE_FAILED"           // 409 the backup is corrupt; start from an older one
	CodeTemporalUnavailable    Code = "TEMPORAL_UNAVAILABLE"     // 503 the gateway cannot reach Temporal
	CodeUnavailable            Code = "UNAVAILABLE"              // 503 an event stream cannot be read right now
	CodeTimeout                Code = "TIMEOUT"                  // 504 the operation goes on in the background
	CodeEgressUnavailable      Code = "EGRESS_UNAVAILABLE"       // 503 the sandbox's host enforces no egress policy
	CodeSecretNotFound         Code = "SECRET_NOT_FOUND"         // 404 no secret of that name
	CodePortNotExposed         Code = "PORT_NOT_EXPOSED"         // 404 never exposed, 410 unexposed since
	CodeNoCapacity             Code = "NO_CAPACITY"              // 503 no live host has room for the instance type
	CodeRollbackNeeded         Code = "ROLLBACK_NEEDED"          // 409 the start would lose newer data: pass allowRollback
	CodeHostNotFound           Code = "HOST_NOT_FOUND"           // 404 no host of that id has announced itself
	CodeHostLive               Code = "HOST_LIVE"                // 409 only a lost host can be forgotten
	CodeHostInUse              Code = "HOST_IN_USE"              // 409 sandboxes there are not yet stopped by its loss
	CodeInternal               Code = "INTERNAL"                 // 500 a bug or an OS failure
	CodeRequestTimeout         Code = "REQUEST_TIMEOUT"          // 408 the request body did not arrive in time
	CodeRangeNotSatisfiable    Code = "RANGE_NOT_SATISFIABLE"    // 416 a Range outside the file
	CodeHeadersTooLarge        Code = "HEADERS_TOO_LARGE"        // 431 the request line and headers are over the limit
	CodeTooManyConnections     Code = "TOO_MANY_CONNECTIONS"     // 503 one client address holds too many connections
	CodeTooManyRequests        Code = "TOO_MANY_REQUESTS"        // 429 one client address asked for too many previews that serve nothing
	// Images (a create's image, a boot's pull).
	CodeImageNotAllowed  Code = "IMAGE_NOT_ALLOWED" // 403 outside BERTH_IMAGES
	CodeImageNotFound    Code = "IMAGE_NOT_FOUND"   // 404 no registry knows the ref
	CodeImageAuthFailed  Code = "IMAGE_AUTH_FAILED" // 401 a registry refused the credentials (BERTH_REGISTRY_AUTH)
	CodeImageUnsupported Code = "IMAGE_UNSUPPORTED" // 422 an image Berth cannot run as a sandbox
	CodeImagePullFailed  Code = "IMAGE_PULL_FAILED" // 503 a registry could not be reached: retry
)

// Codes of processes and terminals (the supervisor).
const (
	CodeProcessNotFound       Code = "PROCESS_NOT_FOUND"       // 404
	CodeTerminalNotFound      Code = "TERMINAL_NOT_FOUND"      // 404
	CodeStaleHandle           Code = "STALE_PROCESS_HANDLE"    // 409 an id or cursor of an earlier container
	CodeInvalidCursor         Code = "INVALID_PROCESS_CURSOR"  // 400
	CodeInvalidTerminalCursor Code = "INVALID_TERMINAL_CURSOR" // 400
	CodeUpgradeRequired       Code = "UPGRADE_REQUIRED"        // 426 a terminal connection must be a WebSocket
	CodeWaitTimeout           Code = "WAIT_TIMEOUT"            // 408 only the wait ended, not the process
	CodeExecutableNotFound    Code = "EXECUTABLE_NOT_FOUND"    // 422
	CodeInvalidCwd            Code = "INVALID_CWD"             // 422
	CodeExecFailed            Code = "EXEC_FAILED"             // 422 exec(2) refused the file
	CodeProcessNotRunning     Code = "PROCESS_NOT_RUNNING"     // 409
	CodeProcessExited         Code = "PROCESS_EXITED"          // 409 exited before a wait condition held
	CodeStdinNotPiped         Code = "STDIN_NOT_PIPED"         // 409
	CodeStdinClosed           Code = "STDIN_CLOSED"            // 409
	// Per-sandbox limits: 429, retryable, with Retry-After.
	CodeTooManyProcesses Code = "TOO_MANY_PROCESSES"
	CodeTooManyTerminals Code = "TOO_MANY_TERMINALS"
	CodeTooManyFollowers Code = "TOO_MANY_FOLLOWERS"
)

// Codes of the file and archive routes (the supervisor).
const (
	CodeFileNotFound       Code = "FILE_NOT_FOUND"       // 404
	CodeIsDirectory        Code = "IS_A_DIRECTORY"       // 409
	CodeNotDirectory       Code = "NOT_A_DIRECTORY"      // 409
	CodeNotEmpty           Code = "NOT_EMPTY"            // 409
	CodeAlreadyExists      Code = "ALREADY_EXISTS"       // 409
	CodeNotRegular         Code = "NOT_A_REGULAR_FILE"   // 409 fifo, socket, device
	CodeInvalidPath        Code = "INVALID_PATH"         // 400
	CodePathEscape         Code = "PATH_ESCAPE"          // 400 would leave the requested root
	CodeInvalidArchive     Code = "INVALID_ARCHIVE"      // 400
	CodePermissionDenied   Code = "PERMISSION_DENIED"    // 403
	CodePreconditionFailed Code = "PRECONDITION_FAILED"  // 412 If-Match did not match
	CodeNoSpace            Code = "NO_SPACE"             // 507
	CodeReadOnly           Code = "READ_ONLY_FILESYSTEM" // 409
)

// Codes lists every code, for checks against the spec.
func Codes() []Code {
	return []Code{
		CodeValidation, CodeUnauthorized, CodeForbidden, CodeTokenNotFound, CodeSandboxNotFound, CodeNotFound, CodeMethodNotAllowed,
		CodeNameConflict, CodeSandboxDestroyed, CodeSandboxNotRunning, CodePayloadTooLarge, CodeEnvTooLarge,
		CodeContainerUnavailable, CodeBootFailed, CodeBackupFailed, CodeBackupStoreUnavailable,
		CodeBackupNotFound, CodeRestoreFailed, CodeTemporalUnavailable, CodeUnavailable, CodeTimeout, CodeEgressUnavailable, CodeSecretNotFound, CodePortNotExposed, CodeNoCapacity, CodeRollbackNeeded, CodeHostNotFound, CodeHostLive, CodeHostInUse, CodeInternal,
		CodeRequestTimeout, CodeRangeNotSatisfiable, CodeHeadersTooLarge, CodeTooManyConnections, CodeTooManyRequests,
		CodeImageNotAllowed, CodeImageNotFound, CodeImageAuthFailed, CodeImageUnsupported, CodeImagePullFailed,

		CodeProcessNotFound, CodeTerminalNotFound, CodeStaleHandle, CodeInvalidCursor, CodeInvalidTerminalCursor,
		CodeUpgradeRequired, CodeWaitTimeout, CodeExecutableNotFound, CodeInvalidCwd, CodeExecFailed,
		CodeProcessNotRunning, CodeProcessExited, CodeStdinNotPiped, CodeStdinClosed,
		CodeTooManyProcesses, CodeTooManyTerminals, CodeTooManyFollowers,

		CodeFileNotFound, CodeIsDirectory, CodeNotDirectory, CodeNotEmpty, CodeAlreadyExists, CodeNotRegular,
		CodeInvalidPath, CodePathEscape, CodeInvalidArchive, CodePermissionDenied, CodePreconditionFailed,
		CodeNoSpace, CodeReadOnly,
	}
}
