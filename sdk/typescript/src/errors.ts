// Generated from the ErrorCode list of schemas/openapi.yaml: one class per API
// code, so that callers can catch by class (`instanceof StaleProcessHandleError`).
import { BerthError } from "./base.js";

/** VALIDATION_FAILED: The request was rejected as malformed; the message names the field. Fix the call rather than retrying it. */
export class ValidationError extends BerthError { static readonly code = "VALIDATION_FAILED"; }
/** UNAUTHORIZED: Pass the gateway's bearer token (BERTH_TOKEN) to the client. */
export class UnauthorizedError extends BerthError { static readonly code = "UNAUTHORIZED"; }
/** SANDBOX_NOT_FOUND: No sandbox has this name: create it first. */
export class SandboxNotFoundError extends BerthError { static readonly code = "SANDBOX_NOT_FOUND"; }
/** PROCESS_NOT_FOUND: The current container has no process with this id; start it again from its stored command. */
export class ProcessNotFoundError extends BerthError { static readonly code = "PROCESS_NOT_FOUND"; }
/** TERMINAL_NOT_FOUND: The current container has no terminal with this id; open a new one. */
export class TerminalNotFoundError extends BerthError { static readonly code = "TERMINAL_NOT_FOUND"; }
/** NOT_FOUND: No such route: the client and the gateway may be of different versions. */
export class NotFoundError extends BerthError { static readonly code = "NOT_FOUND"; }
/** METHOD_NOT_ALLOWED: The route does not take this method: the client and the gateway may be of different versions. */
export class MethodNotAllowedError extends BerthError { static readonly code = "METHOD_NOT_ALLOWED"; }
/** NAME_CONFLICT: The name is taken by a sandbox with a different configuration: choose another name or get the existing sandbox. */
export class NameConflictError extends BerthError { static readonly code = "NAME_CONFLICT"; }
/** STALE_PROCESS_HANDLE: The process (or cursor) belonged to an earlier container of this sandbox: look it up with getProcess(id) per request, and relaunch the job from its stored command when it is gone. */
export class StaleProcessHandleError extends BerthError { static readonly code = "STALE_PROCESS_HANDLE"; }
/** INVALID_PROCESS_CURSOR: The cursor is not one this stream gave: resume from a cursor of an event, or start without one. */
export class InvalidProcessCursorError extends BerthError { static readonly code = "INVALID_PROCESS_CURSOR"; }
/** SANDBOX_DESTROYED: The sandbox was destroyed; its name cannot be used again. */
export class SandboxDestroyedError extends BerthError { static readonly code = "SANDBOX_DESTROYED"; }
/** SANDBOX_NOT_RUNNING: The operation needs a running sandbox: start it first. */
export class SandboxNotRunningError extends BerthError { static readonly code = "SANDBOX_NOT_RUNNING"; }
/** PAYLOAD_TOO_LARGE: The request body is over the gateway's limit: send less, or stream it in parts. */
export class PayloadTooLargeError extends BerthError { static readonly code = "PAYLOAD_TOO_LARGE"; }
/** ENV_TOO_LARGE: A sandbox's env holds at most 128 variables and 64 KiB: unset some first. */
export class EnvTooLargeError extends BerthError { static readonly code = "ENV_TOO_LARGE"; }
/** EGRESS_UNAVAILABLE: The sandbox's host cannot enforce egress policies now; the previous policy stays. Retry later. */
export class EgressUnavailableError extends BerthError { static readonly code = "EGRESS_UNAVAILABLE"; }
/** PORT_NOT_EXPOSED: Expose the port first (or again, if it was unexposed). */
export class PortNotExposedError extends BerthError { static readonly code = "PORT_NOT_EXPOSED"; }
/** SECRET_NOT_FOUND: No secret has this name: create it first. */
export class SecretNotFoundError extends BerthError { static readonly code = "SECRET_NOT_FOUND"; }
/** TOO_MANY_PROCESSES: The sandbox runs as many processes as it may: wait for some to end, or retry after retryAfterMs. */
export class TooManyProcessesError extends BerthError { static readonly code = "TOO_MANY_PROCESSES"; }
/** TOO_MANY_TERMINALS: The sandbox has as many terminals as it may: close one, or retry after retryAfterMs. */
export class TooManyTerminalsError extends BerthError { static readonly code = "TOO_MANY_TERMINALS"; }
/** TOO_MANY_FOLLOWERS: Too many log follows and waits on this sandbox: end some, or retry after retryAfterMs. */
export class TooManyFollowersError extends BerthError { static readonly code = "TOO_MANY_FOLLOWERS"; }
/** CONTAINER_UNAVAILABLE: The sandbox's container is not ready: back off (retryAfterMs) and run the same unit of work again. */
export class ContainerUnavailableError extends BerthError { static readonly code = "CONTAINER_UNAVAILABLE"; }
/** BOOT_FAILED: The container could not be started: see the sandbox's events; retry later. */
export class BootFailedError extends BerthError { static readonly code = "BOOT_FAILED"; }
/** BACKUP_FAILED: The snapshot failed and the previous backup stays; retry later. */
export class BackupFailedError extends BerthError { static readonly code = "BACKUP_FAILED"; }
/** BACKUP_STORE_UNAVAILABLE: The backup store cannot be reached now: retry later. */
export class BackupStoreUnavailableError extends BerthError { static readonly code = "BACKUP_STORE_UNAVAILABLE"; }
/** BACKUP_NOT_FOUND: The sandbox has no backup with this id: list its backups. */
export class BackupNotFoundError extends BerthError { static readonly code = "BACKUP_NOT_FOUND"; }
/** RESTORE_FAILED: The backup is corrupt and now marked bad: start from an older backup. */
export class RestoreFailedError extends BerthError { static readonly code = "RESTORE_FAILED"; }
/** NO_CAPACITY: No live host has room for the sandbox now: retry later. */
export class NoCapacityError extends BerthError { static readonly code = "NO_CAPACITY"; }
/** ROLLBACK_NEEDED: The host with the newest workspace is lost: start with allowRollback to accept an older backup. */
export class RollbackNeededError extends BerthError { static readonly code = "ROLLBACK_NEEDED"; }
/** HOST_NOT_FOUND: No host has this id: list the hosts. */
export class HostNotFoundError extends BerthError { static readonly code = "HOST_NOT_FOUND"; }
/** HOST_LIVE: The host still announces itself: drain it instead of forgetting it. */
export class HostLiveError extends BerthError { static readonly code = "HOST_LIVE"; }
/** HOST_IN_USE: The host still holds sandboxes: drain it first. */
export class HostInUseError extends BerthError { static readonly code = "HOST_IN_USE"; }
/** TEMPORAL_UNAVAILABLE: The gateway cannot reach Temporal now: retry later. */
export class TemporalUnavailableError extends BerthError { static readonly code = "TEMPORAL_UNAVAILABLE"; }
/** UNAVAILABLE: The stream could not be read right now: retry later. */
export class UnavailableError extends BerthError { static readonly code = "UNAVAILABLE"; }
/** TIMEOUT: The operation goes on in the background: check the sandbox's status later. */
export class TimeoutError extends BerthError { static readonly code = "TIMEOUT"; }
/** WAIT_TIMEOUT: Only the wait ended; the process still runs. Wait again, or kill() it. */
export class WaitTimeoutError extends BerthError { static readonly code = "WAIT_TIMEOUT"; }
/** EXECUTABLE_NOT_FOUND: argv[0] is not an executable in the sandbox: give its path, or run a shell explicitly (['sh', '-c', '...']). */
export class ExecutableNotFoundError extends BerthError { static readonly code = "EXECUTABLE_NOT_FOUND"; }
/** INVALID_CWD: The working directory does not exist in the sandbox: create it first. */
export class InvalidCwdError extends BerthError { static readonly code = "INVALID_CWD"; }
/** EXEC_FAILED: The process could not start: the message says why. */
export class ExecFailedError extends BerthError { static readonly code = "EXEC_FAILED"; }
/** PROCESS_NOT_RUNNING: The process has exited. */
export class ProcessNotRunningError extends BerthError { static readonly code = "PROCESS_NOT_RUNNING"; }
/** PROCESS_EXITED: The process exited before the wait was satisfied: read its output or logs. */
export class ProcessExitedError extends BerthError { static readonly code = "PROCESS_EXITED"; }
/** STDIN_NOT_PIPED: Start the process with stdin: 'pipe' to write to it. */
export class StdinNotPipedError extends BerthError { static readonly code = "STDIN_NOT_PIPED"; }
/** STDIN_CLOSED: The process's stdin was closed already. */
export class StdinClosedError extends BerthError { static readonly code = "STDIN_CLOSED"; }
/** INVALID_TERMINAL_CURSOR: The cursor is not one this terminal gave. */
export class InvalidTerminalCursorError extends BerthError { static readonly code = "INVALID_TERMINAL_CURSOR"; }
/** UPGRADE_REQUIRED: This route is a WebSocket: connect with an upgrade. */
export class UpgradeRequiredError extends BerthError { static readonly code = "UPGRADE_REQUIRED"; }
/** FILE_NOT_FOUND: No such file or directory in the sandbox. */
export class FileNotFoundError extends BerthError { static readonly code = "FILE_NOT_FOUND"; }
/** IS_A_DIRECTORY: The path is a directory: list it, or download it as an archive. */
export class IsADirectoryError extends BerthError { static readonly code = "IS_A_DIRECTORY"; }
/** NOT_A_DIRECTORY: A parent of the path is not a directory. */
export class NotADirectoryError extends BerthError { static readonly code = "NOT_A_DIRECTORY"; }
/** NOT_EMPTY: The directory is not empty: remove it recursively. */
export class NotEmptyError extends BerthError { static readonly code = "NOT_EMPTY"; }
/** ALREADY_EXISTS: The destination exists: allow overwriting, or choose another path. */
export class AlreadyExistsError extends BerthError { static readonly code = "ALREADY_EXISTS"; }
/** NOT_A_REGULAR_FILE: The path is not a regular file. */
export class NotARegularFileError extends BerthError { static readonly code = "NOT_A_REGULAR_FILE"; }
/** INVALID_PATH: Paths are absolute and have no '..' segments. */
export class InvalidPathError extends BerthError { static readonly code = "INVALID_PATH"; }
/** PATH_ESCAPE: The path leads outside the sandbox's file system (a symlink?). */
export class PathEscapeError extends BerthError { static readonly code = "PATH_ESCAPE"; }
/** INVALID_ARCHIVE: The upload is not a valid tar stream. */
export class InvalidArchiveError extends BerthError { static readonly code = "INVALID_ARCHIVE"; }
/** PERMISSION_DENIED: The sandbox's user may not do this to the path. */
export class PermissionDeniedError extends BerthError { static readonly code = "PERMISSION_DENIED"; }
/** PRECONDITION_FAILED: The file changed since its ETag was read: read it again. */
export class PreconditionFailedError extends BerthError { static readonly code = "PRECONDITION_FAILED"; }
/** NO_SPACE: The sandbox's disk is full: free some space. */
export class NoSpaceError extends BerthError { static readonly code = "NO_SPACE"; }
/** READ_ONLY_FILESYSTEM: The path is on a read-only file system. */
export class ReadOnlyFilesystemError extends BerthError { static readonly code = "READ_ONLY_FILESYSTEM"; }
/** INTERNAL: A bug in Berth: report it with the request id. */
export class InternalError extends BerthError { static readonly code = "INTERNAL"; }
/** IMAGE_NOT_ALLOWED: The gateway's BERTH_IMAGES does not allow this image. */
export class ImageNotAllowedError extends BerthError { static readonly code = "IMAGE_NOT_ALLOWED"; }
/** IMAGE_NOT_FOUND: No such image in its registry: check the reference. */
export class ImageNotFoundError extends BerthError { static readonly code = "IMAGE_NOT_FOUND"; }
/** IMAGE_PULL_FAILED: The registry could not be reached: retry later. */
export class ImagePullFailedError extends BerthError { static readonly code = "IMAGE_PULL_FAILED"; }

/** The class of each API code. */
export const errorClasses: Record<string, typeof BerthError> = {
  VALIDATION_FAILED: ValidationError,
  UNAUTHORIZED: UnauthorizedError,
  SANDBOX_NOT_FOUND: SandboxNotFoundError,
  PROCESS_NOT_FOUND: ProcessNotFoundError,
  TERMINAL_NOT_FOUND: TerminalNotFoundError,
  NOT_FOUND: NotFoundError,
  METHOD_NOT_ALLOWED: MethodNotAllowedError,
  NAME_CONFLICT: NameConflictError,
  STALE_PROCESS_HANDLE: StaleProcessHandleError,
  INVALID_PROCESS_CURSOR: InvalidProcessCursorError,
  SANDBOX_DESTROYED: SandboxDestroyedError,
  SANDBOX_NOT_RUNNING: SandboxNotRunningError,
  PAYLOAD_TOO_LARGE: PayloadTooLargeError,
  ENV_TOO_LARGE: EnvTooLargeError,
  EGRESS_UNAVAILABLE: EgressUnavailableError,
  PORT_NOT_EXPOSED: PortNotExposedError,
  SECRET_NOT_FOUND: SecretNotFoundError,
  TOO_MANY_PROCESSES: TooManyProcessesError,
  TOO_MANY_TERMINALS: TooManyTerminalsError,
  TOO_MANY_FOLLOWERS: TooManyFollowersError,
  CONTAINER_UNAVAILABLE: ContainerUnavailableError,
  BOOT_FAILED: BootFailedError,
  BACKUP_FAILED: BackupFailedError,
  BACKUP_STORE_UNAVAILABLE: BackupStoreUnavailableError,
  BACKUP_NOT_FOUND: BackupNotFoundError,
  RESTORE_FAILED: RestoreFailedError,
  NO_CAPACITY: NoCapacityError,
  ROLLBACK_NEEDED: RollbackNeededError,
  HOST_NOT_FOUND: HostNotFoundError,
  HOST_LIVE: HostLiveError,
  HOST_IN_USE: HostInUseError,
  TEMPORAL_UNAVAILABLE: TemporalUnavailableError,
  UNAVAILABLE: UnavailableError,
  TIMEOUT: TimeoutError,
  WAIT_TIMEOUT: WaitTimeoutError,
  EXECUTABLE_NOT_FOUND: ExecutableNotFoundError,
  INVALID_CWD: InvalidCwdError,
  EXEC_FAILED: ExecFailedError,
  PROCESS_NOT_RUNNING: ProcessNotRunningError,
  PROCESS_EXITED: ProcessExitedError,
  STDIN_NOT_PIPED: StdinNotPipedError,
  STDIN_CLOSED: StdinClosedError,
  INVALID_TERMINAL_CURSOR: InvalidTerminalCursorError,
  UPGRADE_REQUIRED: UpgradeRequiredError,
  FILE_NOT_FOUND: FileNotFoundError,
  IS_A_DIRECTORY: IsADirectoryError,
  NOT_A_DIRECTORY: NotADirectoryError,
  NOT_EMPTY: NotEmptyError,
  ALREADY_EXISTS: AlreadyExistsError,
  NOT_A_REGULAR_FILE: NotARegularFileError,
  INVALID_PATH: InvalidPathError,
  PATH_ESCAPE: PathEscapeError,
  INVALID_ARCHIVE: InvalidArchiveError,
  PERMISSION_DENIED: PermissionDeniedError,
  PRECONDITION_FAILED: PreconditionFailedError,
  NO_SPACE: NoSpaceError,
  READ_ONLY_FILESYSTEM: ReadOnlyFilesystemError,
  INTERNAL: InternalError,
  IMAGE_NOT_ALLOWED: ImageNotAllowedError,
  IMAGE_NOT_FOUND: ImageNotFoundError,
  IMAGE_PULL_FAILED: ImagePullFailedError,
};

/** What to do about each code (also on every error as `hint`). */
export const hints: Record<string, string> = {
  VALIDATION_FAILED: "The request was rejected as malformed; the message names the field. Fix the call rather than retrying it.",
  UNAUTHORIZED: "Pass the gateway's bearer token (BERTH_TOKEN) to the client.",
  SANDBOX_NOT_FOUND: "No sandbox has this name: create it first.",
  PROCESS_NOT_FOUND: "The current container has no process with this id; start it again from its stored command.",
  TERMINAL_NOT_FOUND: "The current container has no terminal with this id; open a new one.",
  NOT_FOUND: "No such route: the client and the gateway may be of different versions.",
  METHOD_NOT_ALLOWED: "The route does not take this method: the client and the gateway may be of different versions.",
  NAME_CONFLICT: "The name is taken by a sandbox with a different configuration: choose another name or get the existing sandbox.",
  STALE_PROCESS_HANDLE: "The process (or cursor) belonged to an earlier container of this sandbox: look it up with getProcess(id) per request, and relaunch the job from its stored command when it is gone.",
  INVALID_PROCESS_CURSOR: "The cursor is not one this stream gave: resume from a cursor of an event, or start without one.",
  SANDBOX_DESTROYED: "The sandbox was destroyed; its name cannot be used again.",
  SANDBOX_NOT_RUNNING: "The operation needs a running sandbox: start it first.",
  PAYLOAD_TOO_LARGE: "The request body is over the gateway's limit: send less, or stream it in parts.",
  ENV_TOO_LARGE: "A sandbox's env holds at most 128 variables and 64 KiB: unset some first.",
  EGRESS_UNAVAILABLE: "The sandbox's host cannot enforce egress policies now; the previous policy stays. Retry later.",
  PORT_NOT_EXPOSED: "Expose the port first (or again, if it was unexposed).",
  SECRET_NOT_FOUND: "No secret has this name: create it first.",
  TOO_MANY_PROCESSES: "The sandbox runs as many processes as it may: wait for some to end, or retry after retryAfterMs.",
  TOO_MANY_TERMINALS: "The sandbox has as many terminals as it may: close one, or retry after retryAfterMs.",
  TOO_MANY_FOLLOWERS: "Too many log follows and waits on this sandbox: end some, or retry after retryAfterMs.",
  CONTAINER_UNAVAILABLE: "The sandbox's container is not ready: back off (retryAfterMs) and run the same unit of work again.",
  BOOT_FAILED: "The container could not be started: see the sandbox's events; retry later.",
  BACKUP_FAILED: "The snapshot failed and the previous backup stays; retry later.",
  BACKUP_STORE_UNAVAILABLE: "The backup store cannot be reached now: retry later.",
  BACKUP_NOT_FOUND: "The sandbox has no backup with this id: list its backups.",
  RESTORE_FAILED: "The backup is corrupt and now marked bad: start from an older backup.",
  NO_CAPACITY: "No live host has room for the sandbox now: retry later.",
  ROLLBACK_NEEDED: "The host with the newest workspace is lost: start with allowRollback to accept an older backup.",
  HOST_NOT_FOUND: "No host has this id: list the hosts.",
  HOST_LIVE: "The host still announces itself: drain it instead of forgetting it.",
  HOST_IN_USE: "The host still holds sandboxes: drain it first.",
  TEMPORAL_UNAVAILABLE: "The gateway cannot reach Temporal now: retry later.",
  UNAVAILABLE: "The stream could not be read right now: retry later.",
  TIMEOUT: "The operation goes on in the background: check the sandbox's status later.",
  WAIT_TIMEOUT: "Only the wait ended; the process still runs. Wait again, or kill() it.",
  EXECUTABLE_NOT_FOUND: "argv[0] is not an executable in the sandbox: give its path, or run a shell explicitly (['sh', '-c', '...']).",
  INVALID_CWD: "The working directory does not exist in the sandbox: create it first.",
  EXEC_FAILED: "The process could not start: the message says why.",
  PROCESS_NOT_RUNNING: "The process has exited.",
  PROCESS_EXITED: "The process exited before the wait was satisfied: read its output or logs.",
  STDIN_NOT_PIPED: "Start the process with stdin: 'pipe' to write to it.",
  STDIN_CLOSED: "The process's stdin was closed already.",
  INVALID_TERMINAL_CURSOR: "The cursor is not one this terminal gave.",
  UPGRADE_REQUIRED: "This route is a WebSocket: connect with an upgrade.",
  FILE_NOT_FOUND: "No such file or directory in the sandbox.",
  IS_A_DIRECTORY: "The path is a directory: list it, or download it as an archive.",
  NOT_A_DIRECTORY: "A parent of the path is not a directory.",
  NOT_EMPTY: "The directory is not empty: remove it recursively.",
  ALREADY_EXISTS: "The destination exists: allow overwriting, or choose another path.",
  NOT_A_REGULAR_FILE: "The path is not a regular file.",
  INVALID_PATH: "Paths are absolute and have no '..' segments.",
  PATH_ESCAPE: "The path leads outside the sandbox's file system (a symlink?).",
  INVALID_ARCHIVE: "The upload is not a valid tar stream.",
  PERMISSION_DENIED: "The sandbox's user may not do this to the path.",
  PRECONDITION_FAILED: "The file changed since its ETag was read: read it again.",
  NO_SPACE: "The sandbox's disk is full: free some space.",
  READ_ONLY_FILESYSTEM: "The path is on a read-only file system.",
  INTERNAL: "A bug in Berth: report it with the request id.",
  IMAGE_NOT_ALLOWED: "The gateway's BERTH_IMAGES does not allow this image.",
  IMAGE_NOT_FOUND: "No such image in its registry: check the reference.",
  IMAGE_PULL_FAILED: "The registry could not be reached: retry later.",
};
