"""Generated from the ErrorCode list of schemas/openapi.yaml: one exception
class per API code, so that callers can catch by class."""

from __future__ import annotations

from ._base import BerthError


class ValidationError(BerthError):
    """VALIDATION_FAILED: The request was rejected as malformed; the message names the field. Fix the call rather than retrying it."""

    code_name = "VALIDATION_FAILED"


class UnauthorizedError(BerthError):
    """UNAUTHORIZED: Pass the gateway's bearer token (BERTH_TOKEN) to the client."""

    code_name = "UNAUTHORIZED"


class SandboxNotFoundError(BerthError):
    """SANDBOX_NOT_FOUND: No sandbox has this name: create it first."""

    code_name = "SANDBOX_NOT_FOUND"


class ProcessNotFoundError(BerthError):
    """PROCESS_NOT_FOUND: The current container has no process with this id; start it again from its stored command."""

    code_name = "PROCESS_NOT_FOUND"


class TerminalNotFoundError(BerthError):
    """TERMINAL_NOT_FOUND: The current container has no terminal with this id; open a new one."""

    code_name = "TERMINAL_NOT_FOUND"


class NotFoundError(BerthError):
    """NOT_FOUND: No such route: the client and the gateway may be of different versions."""

    code_name = "NOT_FOUND"


class MethodNotAllowedError(BerthError):
    """METHOD_NOT_ALLOWED: The route does not take this method: the client and the gateway may be of different versions."""

    code_name = "METHOD_NOT_ALLOWED"


class NameConflictError(BerthError):
    """NAME_CONFLICT: The name is taken by a sandbox with a different configuration: choose another name or get the existing sandbox."""

    code_name = "NAME_CONFLICT"


class StaleProcessHandleError(BerthError):
    """STALE_PROCESS_HANDLE: The process (or cursor) belonged to an earlier container of this sandbox: look it up with getProcess(id) per request, and relaunch the job from its stored command when it is gone."""

    code_name = "STALE_PROCESS_HANDLE"


class InvalidProcessCursorError(BerthError):
    """INVALID_PROCESS_CURSOR: The cursor is not one this stream gave: resume from a cursor of an event, or start without one."""

    code_name = "INVALID_PROCESS_CURSOR"


class SandboxDestroyedError(BerthError):
    """SANDBOX_DESTROYED: The sandbox was destroyed; its name cannot be used again."""

    code_name = "SANDBOX_DESTROYED"


class SandboxNotRunningError(BerthError):
    """SANDBOX_NOT_RUNNING: The operation needs a running sandbox: start it first."""

    code_name = "SANDBOX_NOT_RUNNING"


class PayloadTooLargeError(BerthError):
    """PAYLOAD_TOO_LARGE: The request body is over the gateway's limit: send less, or stream it in parts."""

    code_name = "PAYLOAD_TOO_LARGE"


class EnvTooLargeError(BerthError):
    """ENV_TOO_LARGE: A sandbox's env holds at most 128 variables and 64 KiB: unset some first."""

    code_name = "ENV_TOO_LARGE"


class EgressUnavailableError(BerthError):
    """EGRESS_UNAVAILABLE: The sandbox's host cannot enforce egress policies now; the previous policy stays. Retry later."""

    code_name = "EGRESS_UNAVAILABLE"


class PortNotExposedError(BerthError):
    """PORT_NOT_EXPOSED: Expose the port first (or again, if it was unexposed)."""

    code_name = "PORT_NOT_EXPOSED"


class SecretNotFoundError(BerthError):
    """SECRET_NOT_FOUND: No secret has this name: create it first."""

    code_name = "SECRET_NOT_FOUND"


class TooManyProcessesError(BerthError):
    """TOO_MANY_PROCESSES: The sandbox runs as many processes as it may: wait for some to end, or retry after retryAfterMs."""

    code_name = "TOO_MANY_PROCESSES"


class TooManyTerminalsError(BerthError):
    """TOO_MANY_TERMINALS: The sandbox has as many terminals as it may: close one, or retry after retryAfterMs."""

    code_name = "TOO_MANY_TERMINALS"


class TooManyFollowersError(BerthError):
    """TOO_MANY_FOLLOWERS: Too many log follows and waits on this sandbox: end some, or retry after retryAfterMs."""

    code_name = "TOO_MANY_FOLLOWERS"


class ContainerUnavailableError(BerthError):
    """CONTAINER_UNAVAILABLE: The sandbox's container is not ready: back off (retryAfterMs) and run the same unit of work again."""

    code_name = "CONTAINER_UNAVAILABLE"


class BootFailedError(BerthError):
    """BOOT_FAILED: The container could not be started: see the sandbox's events; retry later."""

    code_name = "BOOT_FAILED"


class BackupFailedError(BerthError):
    """BACKUP_FAILED: The snapshot failed and the previous backup stays; retry later."""

    code_name = "BACKUP_FAILED"


class BackupStoreUnavailableError(BerthError):
    """BACKUP_STORE_UNAVAILABLE: The backup store cannot be reached now: retry later."""

    code_name = "BACKUP_STORE_UNAVAILABLE"


class BackupNotFoundError(BerthError):
    """BACKUP_NOT_FOUND: The sandbox has no backup with this id: list its backups."""

    code_name = "BACKUP_NOT_FOUND"


class RestoreFailedError(BerthError):
    """RESTORE_FAILED: The backup is corrupt and now marked bad: start from an older backup."""

    code_name = "RESTORE_FAILED"


class NoCapacityError(BerthError):
    """NO_CAPACITY: No live host has room for the sandbox now: retry later."""

    code_name = "NO_CAPACITY"


class RollbackNeededError(BerthError):
    """ROLLBACK_NEEDED: The host with the newest workspace is lost: start with allowRollback to accept an older backup."""

    code_name = "ROLLBACK_NEEDED"


class HostNotFoundError(BerthError):
    """HOST_NOT_FOUND: No host has this id: list the hosts."""

    code_name = "HOST_NOT_FOUND"


class HostLiveError(BerthError):
    """HOST_LIVE: The host still announces itself: drain it instead of forgetting it."""

    code_name = "HOST_LIVE"


class HostInUseError(BerthError):
    """HOST_IN_USE: The host still holds sandboxes: drain it first."""

    code_name = "HOST_IN_USE"


class TemporalUnavailableError(BerthError):
    """TEMPORAL_UNAVAILABLE: The gateway cannot reach Temporal now: retry later."""

    code_name = "TEMPORAL_UNAVAILABLE"


class UnavailableError(BerthError):
    """UNAVAILABLE: The stream could not be read right now: retry later."""

    code_name = "UNAVAILABLE"


class TimeoutError(BerthError):
    """TIMEOUT: The operation goes on in the background: check the sandbox's status later."""

    code_name = "TIMEOUT"


class WaitTimeoutError(BerthError):
    """WAIT_TIMEOUT: Only the wait ended; the process still runs. Wait again, or kill() it."""

    code_name = "WAIT_TIMEOUT"


class ExecutableNotFoundError(BerthError):
    """EXECUTABLE_NOT_FOUND: argv[0] is not an executable in the sandbox: give its path, or run a shell explicitly (['sh', '-c', '...'])."""

    code_name = "EXECUTABLE_NOT_FOUND"


class InvalidCwdError(BerthError):
    """INVALID_CWD: The working directory does not exist in the sandbox: create it first."""

    code_name = "INVALID_CWD"


class ExecFailedError(BerthError):
    """EXEC_FAILED: The process could not start: the message says why."""

    code_name = "EXEC_FAILED"


class ProcessNotRunningError(BerthError):
    """PROCESS_NOT_RUNNING: The process has exited."""

    code_name = "PROCESS_NOT_RUNNING"


class ProcessExitedError(BerthError):
    """PROCESS_EXITED: The process exited before the wait was satisfied: read its output or logs."""

    code_name = "PROCESS_EXITED"


class StdinNotPipedError(BerthError):
    """STDIN_NOT_PIPED: Start the process with stdin: 'pipe' to write to it."""

    code_name = "STDIN_NOT_PIPED"


class StdinClosedError(BerthError):
    """STDIN_CLOSED: The process's stdin was closed already."""

    code_name = "STDIN_CLOSED"


class InvalidTerminalCursorError(BerthError):
    """INVALID_TERMINAL_CURSOR: The cursor is not one this terminal gave."""

    code_name = "INVALID_TERMINAL_CURSOR"


class UpgradeRequiredError(BerthError):
    """UPGRADE_REQUIRED: This route is a WebSocket: connect with an upgrade."""

    code_name = "UPGRADE_REQUIRED"


class FileNotFoundError(BerthError):
    """FILE_NOT_FOUND: No such file or directory in the sandbox."""

    code_name = "FILE_NOT_FOUND"


class IsADirectoryError(BerthError):
    """IS_A_DIRECTORY: The path is a directory: list it, or download it as an archive."""

    code_name = "IS_A_DIRECTORY"


class NotADirectoryError(BerthError):
    """NOT_A_DIRECTORY: A parent of the path is not a directory."""

    code_name = "NOT_A_DIRECTORY"


class NotEmptyError(BerthError):
    """NOT_EMPTY: The directory is not empty: remove it recursively."""

    code_name = "NOT_EMPTY"


class AlreadyExistsError(BerthError):
    """ALREADY_EXISTS: The destination exists: allow overwriting, or choose another path."""

    code_name = "ALREADY_EXISTS"


class NotARegularFileError(BerthError):
    """NOT_A_REGULAR_FILE: The path is not a regular file."""

    code_name = "NOT_A_REGULAR_FILE"


class InvalidPathError(BerthError):
    """INVALID_PATH: Paths are absolute and have no '..' segments."""

    code_name = "INVALID_PATH"


class PathEscapeError(BerthError):
    """PATH_ESCAPE: The path leads outside the sandbox's file system (a symlink?)."""

    code_name = "PATH_ESCAPE"


class InvalidArchiveError(BerthError):
    """INVALID_ARCHIVE: The upload is not a valid tar stream."""

    code_name = "INVALID_ARCHIVE"


class PermissionDeniedError(BerthError):
    """PERMISSION_DENIED: The sandbox's user may not do this to the path."""

    code_name = "PERMISSION_DENIED"


class PreconditionFailedError(BerthError):
    """PRECONDITION_FAILED: The file changed since its ETag was read: read it again."""

    code_name = "PRECONDITION_FAILED"


class NoSpaceError(BerthError):
    """NO_SPACE: The sandbox's disk is full: free some space."""

    code_name = "NO_SPACE"


class ReadOnlyFilesystemError(BerthError):
    """READ_ONLY_FILESYSTEM: The path is on a read-only file system."""

    code_name = "READ_ONLY_FILESYSTEM"


class InternalError(BerthError):
    """INTERNAL: A bug in Berth: report it with the request id."""

    code_name = "INTERNAL"


class ImageNotAllowedError(BerthError):
    """IMAGE_NOT_ALLOWED: The gateway's BERTH_IMAGES does not allow this image."""

    code_name = "IMAGE_NOT_ALLOWED"


class ImageNotFoundError(BerthError):
    """IMAGE_NOT_FOUND: No such image in its registry: check the reference."""

    code_name = "IMAGE_NOT_FOUND"


class ImagePullFailedError(BerthError):
    """IMAGE_PULL_FAILED: The registry could not be reached: retry later."""

    code_name = "IMAGE_PULL_FAILED"


#: The class of each API code.
ERROR_CLASSES: dict[str, type[BerthError]] = {
    "VALIDATION_FAILED": ValidationError,
    "UNAUTHORIZED": UnauthorizedError,
    "SANDBOX_NOT_FOUND": SandboxNotFoundError,
    "PROCESS_NOT_FOUND": ProcessNotFoundError,
    "TERMINAL_NOT_FOUND": TerminalNotFoundError,
    "NOT_FOUND": NotFoundError,
    "METHOD_NOT_ALLOWED": MethodNotAllowedError,
    "NAME_CONFLICT": NameConflictError,
    "STALE_PROCESS_HANDLE": StaleProcessHandleError,
    "INVALID_PROCESS_CURSOR": InvalidProcessCursorError,
    "SANDBOX_DESTROYED": SandboxDestroyedError,
    "SANDBOX_NOT_RUNNING": SandboxNotRunningError,
    "PAYLOAD_TOO_LARGE": PayloadTooLargeError,
    "ENV_TOO_LARGE": EnvTooLargeError,
    "EGRESS_UNAVAILABLE": EgressUnavailableError,
    "PORT_NOT_EXPOSED": PortNotExposedError,
    "SECRET_NOT_FOUND": SecretNotFoundError,
    "TOO_MANY_PROCESSES": TooManyProcessesError,
    "TOO_MANY_TERMINALS": TooManyTerminalsError,
    "TOO_MANY_FOLLOWERS": TooManyFollowersError,
    "CONTAINER_UNAVAILABLE": ContainerUnavailableError,
    "BOOT_FAILED": BootFailedError,
    "BACKUP_FAILED": BackupFailedError,
    "BACKUP_STORE_UNAVAILABLE": BackupStoreUnavailableError,
    "BACKUP_NOT_FOUND": BackupNotFoundError,
    "RESTORE_FAILED": RestoreFailedError,
    "NO_CAPACITY": NoCapacityError,
    "ROLLBACK_NEEDED": RollbackNeededError,
    "HOST_NOT_FOUND": HostNotFoundError,
    "HOST_LIVE": HostLiveError,
    "HOST_IN_USE": HostInUseError,
    "TEMPORAL_UNAVAILABLE": TemporalUnavailableError,
    "UNAVAILABLE": UnavailableError,
    "TIMEOUT": TimeoutError,
    "WAIT_TIMEOUT": WaitTimeoutError,
    "EXECUTABLE_NOT_FOUND": ExecutableNotFoundError,
    "INVALID_CWD": InvalidCwdError,
    "EXEC_FAILED": ExecFailedError,
    "PROCESS_NOT_RUNNING": ProcessNotRunningError,
    "PROCESS_EXITED": ProcessExitedError,
    "STDIN_NOT_PIPED": StdinNotPipedError,
    "STDIN_CLOSED": StdinClosedError,
    "INVALID_TERMINAL_CURSOR": InvalidTerminalCursorError,
    "UPGRADE_REQUIRED": UpgradeRequiredError,
    "FILE_NOT_FOUND": FileNotFoundError,
    "IS_A_DIRECTORY": IsADirectoryError,
    "NOT_A_DIRECTORY": NotADirectoryError,
    "NOT_EMPTY": NotEmptyError,
    "ALREADY_EXISTS": AlreadyExistsError,
    "NOT_A_REGULAR_FILE": NotARegularFileError,
    "INVALID_PATH": InvalidPathError,
    "PATH_ESCAPE": PathEscapeError,
    "INVALID_ARCHIVE": InvalidArchiveError,
    "PERMISSION_DENIED": PermissionDeniedError,
    "PRECONDITION_FAILED": PreconditionFailedError,
    "NO_SPACE": NoSpaceError,
    "READ_ONLY_FILESYSTEM": ReadOnlyFilesystemError,
    "INTERNAL": InternalError,
    "IMAGE_NOT_ALLOWED": ImageNotAllowedError,
    "IMAGE_NOT_FOUND": ImageNotFoundError,
    "IMAGE_PULL_FAILED": ImagePullFailedError,
}

#: What to do about each code (also on every error as ``hint``).
HINTS: dict[str, str] = {
    "VALIDATION_FAILED": "The request was rejected as malformed; the message names the field. Fix the call rather than retrying it.",
    "UNAUTHORIZED": "Pass the gateway's bearer token (BERTH_TOKEN) to the client.",
    "SANDBOX_NOT_FOUND": "No sandbox has this name: create it first.",
    "PROCESS_NOT_FOUND": "The current container has no process with this id; start it again from its stored command.",
    "TERMINAL_NOT_FOUND": "The current container has no terminal with this id; open a new one.",
    "NOT_FOUND": "No such route: the client and the gateway may be of different versions.",
    "METHOD_NOT_ALLOWED": "The route does not take this method: the client and the gateway may be of different versions.",
    "NAME_CONFLICT": "The name is taken by a sandbox with a different configuration: choose another name or get the existing sandbox.",
    "STALE_PROCESS_HANDLE": "The process (or cursor) belonged to an earlier container of this sandbox: look it up with getProcess(id) per request, and relaunch the job from its stored command when it is gone.",
    "INVALID_PROCESS_CURSOR": "The cursor is not one this stream gave: resume from a cursor of an event, or start without one.",
    "SANDBOX_DESTROYED": "The sandbox was destroyed; its name cannot be used again.",
    "SANDBOX_NOT_RUNNING": "The operation needs a running sandbox: start it first.",
    "PAYLOAD_TOO_LARGE": "The request body is over the gateway's limit: send less, or stream it in parts.",
    "ENV_TOO_LARGE": "A sandbox's env holds at most 128 variables and 64 KiB: unset some first.",
    "EGRESS_UNAVAILABLE": "The sandbox's host cannot enforce egress policies now; the previous policy stays. Retry later.",
    "PORT_NOT_EXPOSED": "Expose the port first (or again, if it was unexposed).",
    "SECRET_NOT_FOUND": "No secret has this name: create it first.",
    "TOO_MANY_PROCESSES": "The sandbox runs as many processes as it may: wait for some to end, or retry after retryAfterMs.",
    "TOO_MANY_TERMINALS": "The sandbox has as many terminals as it may: close one, or retry after retryAfterMs.",
    "TOO_MANY_FOLLOWERS": "Too many log follows and waits on this sandbox: end some, or retry after retryAfterMs.",
    "CONTAINER_UNAVAILABLE": "The sandbox's container is not ready: back off (retryAfterMs) and run the same unit of work again.",
    "BOOT_FAILED": "The container could not be started: see the sandbox's events; retry later.",
    "BACKUP_FAILED": "The snapshot failed and the previous backup stays; retry later.",
    "BACKUP_STORE_UNAVAILABLE": "The backup store cannot be reached now: retry later.",
    "BACKUP_NOT_FOUND": "The sandbox has no backup with this id: list its backups.",
    "RESTORE_FAILED": "The backup is corrupt and now marked bad: start from an older backup.",
    "NO_CAPACITY": "No live host has room for the sandbox now: retry later.",
    "ROLLBACK_NEEDED": "The host with the newest workspace is lost: start with allowRollback to accept an older backup.",
    "HOST_NOT_FOUND": "No host has this id: list the hosts.",
    "HOST_LIVE": "The host still announces itself: drain it instead of forgetting it.",
    "HOST_IN_USE": "The host still holds sandboxes: drain it first.",
    "TEMPORAL_UNAVAILABLE": "The gateway cannot reach Temporal now: retry later.",
    "UNAVAILABLE": "The stream could not be read right now: retry later.",
    "TIMEOUT": "The operation goes on in the background: check the sandbox's status later.",
    "WAIT_TIMEOUT": "Only the wait ended; the process still runs. Wait again, or kill() it.",
    "EXECUTABLE_NOT_FOUND": "argv[0] is not an executable in the sandbox: give its path, or run a shell explicitly (['sh', '-c', '...']).",
    "INVALID_CWD": "The working directory does not exist in the sandbox: create it first.",
    "EXEC_FAILED": "The process could not start: the message says why.",
    "PROCESS_NOT_RUNNING": "The process has exited.",
    "PROCESS_EXITED": "The process exited before the wait was satisfied: read its output or logs.",
    "STDIN_NOT_PIPED": "Start the process with stdin: 'pipe' to write to it.",
    "STDIN_CLOSED": "The process's stdin was closed already.",
    "INVALID_TERMINAL_CURSOR": "The cursor is not one this terminal gave.",
    "UPGRADE_REQUIRED": "This route is a WebSocket: connect with an upgrade.",
    "FILE_NOT_FOUND": "No such file or directory in the sandbox.",
    "IS_A_DIRECTORY": "The path is a directory: list it, or download it as an archive.",
    "NOT_A_DIRECTORY": "A parent of the path is not a directory.",
    "NOT_EMPTY": "The directory is not empty: remove it recursively.",
    "ALREADY_EXISTS": "The destination exists: allow overwriting, or choose another path.",
    "NOT_A_REGULAR_FILE": "The path is not a regular file.",
    "INVALID_PATH": "Paths are absolute and have no '..' segments.",
    "PATH_ESCAPE": "The path leads outside the sandbox's file system (a symlink?).",
    "INVALID_ARCHIVE": "The upload is not a valid tar stream.",
    "PERMISSION_DENIED": "The sandbox's user may not do this to the path.",
    "PRECONDITION_FAILED": "The file changed since its ETag was read: read it again.",
    "NO_SPACE": "The sandbox's disk is full: free some space.",
    "READ_ONLY_FILESYSTEM": "The path is on a read-only file system.",
    "INTERNAL": "A bug in Berth: report it with the request id.",
    "IMAGE_NOT_ALLOWED": "The gateway's BERTH_IMAGES does not allow this image.",
    "IMAGE_NOT_FOUND": "No such image in its registry: check the reference.",
    "IMAGE_PULL_FAILED": "The registry could not be reached: retry later.",
}

__all__ = ["ValidationError", "UnauthorizedError", "SandboxNotFoundError", "ProcessNotFoundError", "TerminalNotFoundError", "NotFoundError", "MethodNotAllowedError", "NameConflictError", "StaleProcessHandleError", "InvalidProcessCursorError", "SandboxDestroyedError", "SandboxNotRunningError", "PayloadTooLargeError", "EnvTooLargeError", "EgressUnavailableError", "PortNotExposedError", "SecretNotFoundError", "TooManyProcessesError", "TooManyTerminalsError", "TooManyFollowersError", "ContainerUnavailableError", "BootFailedError", "BackupFailedError", "BackupStoreUnavailableError", "BackupNotFoundError", "RestoreFailedError", "NoCapacityError", "RollbackNeededError", "HostNotFoundError", "HostLiveError", "HostInUseError", "TemporalUnavailableError", "UnavailableError", "TimeoutError", "WaitTimeoutError", "ExecutableNotFoundError", "InvalidCwdError", "ExecFailedError", "ProcessNotRunningError", "ProcessExitedError", "StdinNotPipedError", "StdinClosedError", "InvalidTerminalCursorError", "UpgradeRequiredError", "FileNotFoundError", "IsADirectoryError", "NotADirectoryError", "NotEmptyError", "AlreadyExistsError", "NotARegularFileError", "InvalidPathError", "PathEscapeError", "InvalidArchiveError", "PermissionDeniedError", "PreconditionFailedError", "NoSpaceError", "ReadOnlyFilesystemError", "InternalError", "ImageNotAllowedError", "ImageNotFoundError", "ImagePullFailedError", "ERROR_CLASSES", "HINTS"]
