#!/usr/bin/env python3
"""Writes the TypeScript and Python SDKs' error classes (one per API code,
each with a hint) from the ErrorCode list of schemas/openapi.yaml. Run it
after adding a code to the spec: it fails until the code has a hint here.
sdk/conformance's TestErrorClassesCoverTheSpec checks both files are current."""
import os, re
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec = open(os.path.join(ROOT, "schemas", "openapi.yaml")).read()
block = spec[spec.index("\n    ErrorCode:"):spec.index("\n    Error:")]
codes = re.findall(r"^        - ([A-Z_]+)$", block, re.M)
hints = {
"VALIDATION_FAILED": "The request was rejected as malformed; the message names the field. Fix the call rather than retrying it.",
"UNAUTHORIZED": "Pass the gateway's bearer token (BERTH_TOKEN) to the client.",
"FORBIDDEN": "This scoped token does not reach the sandbox or lacks the scope the error's context names: use a token minted with it.",
"TOKEN_NOT_FOUND": "No scoped token has this id (revoked already?): list them first.",
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
"REQUEST_TIMEOUT": "The request was not sent in time (a slow or stalled upload): send it again.",
"RANGE_NOT_SATISFIABLE": "The Range starts past the end of the file: stat it for its size.",
"HEADERS_TOO_LARGE": "The request's headers are over the gateway's limit: send fewer or smaller headers.",
"TOO_MANY_CONNECTIONS": "The gateway holds as many connections as it may: retry after retryAfterMs.",
"TOO_MANY_REQUESTS": "This client asked for too many preview addresses that serve nothing: retry after retryAfterMs.",
"IMAGE_AUTH_FAILED": "The registry refused the workers' credentials (BERTH_REGISTRY_AUTH): fix them, then create again.",
"IMAGE_UNSUPPORTED": "The image cannot run as a sandbox; the message says why.",
"IMAGE_NOT_ALLOWED": "The gateway's BERTH_IMAGES does not allow this image.",
"IMAGE_NOT_FOUND": "No such image in its registry: check the reference.",
"IMAGE_PULL_FAILED": "The registry could not be reached: retry later.",
}
missing = [c for c in codes if c not in hints]
assert not missing, "write a hint for: %s" % missing
def cls(c): return "".join(p.capitalize() for p in c.split("_")) + "Error"
special = {"VALIDATION_FAILED": "ValidationError", "STALE_PROCESS_HANDLE": "StaleProcessHandleError"}
import json
# TypeScript
ts = ["// Generated by sdk/gen_errors.py from the ErrorCode list of schemas/openapi.yaml:",
"// one class per API code, so that callers can catch by class",
"// (`instanceof StaleProcessHandleError`). Edit the generator, not this file.",
'import { BerthError } from "./base.js";', ""]
for c in codes:
    n = special.get(c, cls(c))
    ts.append(f"/** {c}: {hints[c]} */")
    ts.append(f"export class {n} extends BerthError {{ static readonly code = {json.dumps(c)}; }}")
ts.append("")
ts.append("/** The class of each API code. */")
ts.append("export const errorClasses: Record<string, typeof BerthError> = {")
for c in codes: ts.append(f"  {c}: {special.get(c, cls(c))},")
ts.append("};")
ts.append("")
ts.append("/** What to do about each code (also on every error as `hint`). */")
ts.append("export const hints: Record<string, string> = {")
for c in codes: ts.append(f"  {c}: {json.dumps(hints[c])},")
ts.append("};")
open(os.path.join(ROOT, "sdk", "typescript", "src", "errors.ts"),"w").write("\n".join(ts)+"\n")
py = ['"""Generated by sdk/gen_errors.py from the ErrorCode list of schemas/openapi.yaml:',
'one exception class per API code, so that callers can catch by class. Edit the\ngenerator, not this file."""', "", "from __future__ import annotations", "", "from ._base import BerthError", ""]
for c in codes:
    n = special.get(c, cls(c))
    py.append(f"\nclass {n}(BerthError):\n    \"\"\"{c}: {hints[c]}\"\"\"\n\n    code_name = {json.dumps(c)}\n")
py.append("\n#: The class of each API code.")
py.append("ERROR_CLASSES: dict[str, type[BerthError]] = {")
for c in codes: py.append(f"    {json.dumps(c)}: {special.get(c, cls(c))},")
py.append("}\n")
py.append("#: What to do about each code (also on every error as ``hint``).")
py.append("HINTS: dict[str, str] = {")
for c in codes: py.append(f"    {json.dumps(c)}: {json.dumps(hints[c])},")
py.append("}\n")
py.append("__all__ = [" + ", ".join(json.dumps(special.get(c, cls(c))) for c in codes) + ', "ERROR_CLASSES", "HINTS"]')
open(os.path.join(ROOT, "sdk", "python", "berth", "errors.py"),"w").write("\n".join(py)+"\n")
