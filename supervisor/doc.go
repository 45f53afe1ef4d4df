// Package supervisor is the in-container daemon of a Berth sandbox (run as
// PID 1 by cmd/berth-supervisor): it reaps every child with one wait4(-1)
// loop (child subreaper when not PID 1), forwards SIGTERM/SIGINT/SIGHUP to
// all processes and SIGKILLs leftovers after the kill grace, and serves the
// process API that the gateway proxies verbatim as
// /v1/sandboxes/{name}/processes/...
//
// This package is the core: PID 1 duties (reaping, signal forwarding,
// non-dumpable memory, the heap limit), configuration, the HTTP server with
// its authentication, the sandbox env layer, limits and activity tracking.
// The services mount their routes on it: package process (processes,
// logs, output, waits, stdin), package terminal (PTYs and their
// WebSocket) and package files (files and tar archives); they share
// internal/httpapi (error envelope, codes, decoding, boot-tagged handles)
// and internal/child (preparing, forking and tracking children).
//
// Every route needs "Authorization: Bearer <token>", the boot's token,
// which the worker puts in /.berth-boot/token before the container starts
// and the supervisor removes before anything else runs;
// errors are {"error":{"code","message","retryable","context"?}}.
//
//	GET  /v1/health                       {bootId, pid, startedAt}
//	GET  /v1/activity                     {bootId, inFlight, processes, terminals, heldUntil?, lastActivityAt, idleMs, clientIdleMs}
//	POST /v1/activity                     {openFor?} activity it cannot see (preview traffic): now,
//	                                      and busy for openFor (at most 1m) -> the same report
//	PUT  /v1/env                          {env:{K:"v"|null}} replaces the sandbox env layer
//	POST /v1/doze                         {minIdleMs} -> {dozed, idleMs}: fence requests before a freeze (doze.go)
//	POST /v1/thaw                         lifts the fence after the container thawed
//	POST /v1/processes                    {argv, cwd?, env?, timeout?, stdin?:"pipe"} -> 201 process
//	GET  /v1/processes                    [process...] in start order
//	GET  /v1/processes/{id}               process
//	GET  /v1/processes/{id}/logs          ?since=&replay=true&follow=false  SSE, id = cursor
//	GET  /v1/processes/{id}/output        ?encoding=base64|utf8&maxBytes=&timeout=
//	POST /v1/processes/{id}/kill          {signal?: 1-64 | "SIGTERM"} -> process
//	POST /v1/processes/{id}/wait          {timeout?} -> process
//	POST /v1/processes/{id}/wait-for-port {port, mode?:tcp|http, path?, status?, timeout?}
//	POST /v1/processes/{id}/wait-for-log  {pattern, stream?:stdout|stderr|both, timeout?}
//	POST /v1/processes/{id}/stdin         raw body, or JSON {data: base64} | {text}
//	POST /v1/processes/{id}/stdin/close
//
// Files (the gateway proxies /v1/sandboxes/{name}/files/... verbatim; the
// URL path after /v1/files is the absolute container path, percent-encoded;
// ".." segments are rejected with 400 INVALID_PATH):
//
//	GET    /v1/files/{path}               raw bytes (symlinks followed), Range/If-Range, ETag;
//	                                      headers X-Berth-Size, X-Berth-Mode (octal "0644"),
//	                                      X-Berth-Mtime (RFC3339Nano), X-Berth-Type; 409 IS_A_DIRECTORY
//	HEAD   /v1/files/{path}               the same headers (200 for directories too): exists
//	GET    /v1/files/{path}?stat=true     {name, path, type, size, mode, mtime, target?} (lstat)
//	GET    /v1/files/{path}?list=true&recursive=&includeHidden=   [entry...] streamed
//	PUT    /v1/files/{path}               streamed body -> temp file + rename; X-Berth-Mode or ?mode=,
//	                                      ?mkdir=true or X-Berth-Mkdir: true, If-Match: <etag>|*
//	                                      -> 201 created | 200 replaced, the stat object
//	DELETE /v1/files/{path}?recursive=    204; 409 NOT_EMPTY without recursive
//	POST   /v1/files/{path}?op=mkdir      mkdir -p (?mode=) -> 201 | 200 when it was there
//	POST   /v1/files/{path}?op=move&to=/new&overwrite=true&mkdir=false   rename (copy+delete
//	                                      across file systems) -> stat of the destination
//	GET    /v1/files/watch?path=&recursive=&after=   SSE of FileEvent (inotify; id: = event id;
//	                                      Last-Event-ID resumes from a 4096-event ring per root;
//	                                      an older cursor gets an "overflow" event). With ?path=
//	                                      only: without it this reads the file /watch. Relative
//	                                      paths are under /workspace. Not counted as activity.
//	GET    /v1/archive?path=/dir&gzip=    tar of the tree (symlinks stored, not followed)
//	PUT    /v1/archive?path=/dir          extract a tar (gzip detected) into /dir, merging;
//	                                      nothing written outside it (400 PATH_ESCAPE)
//	                                      -> {path, files, dirs, symlinks, hardlinks, bytes, skipped}
//
// File errors: 404 FILE_NOT_FOUND, 409 IS_A_DIRECTORY | NOT_A_DIRECTORY |
// NOT_EMPTY | ALREADY_EXISTS | NOT_A_REGULAR_FILE, 400 INVALID_PATH |
// PATH_ESCAPE | INVALID_ARCHIVE, 403 PERMISSION_DENIED, 412
// PRECONDITION_FAILED, 507 NO_SPACE. Copies use bounded buffers: memory
// stays flat for any file size.
//
// Terminals (PTYs; ids t-<tag>-<n>, cursors tc-<tag>-<n>-<offset> where
// offset is the byte offset in the terminal's output):
//
//	POST   /v1/terminals                  {argv?, cwd?, env?, cols?, rows?} -> 201 terminal
//	                                      (default argv: /bin/bash -l, else /bin/sh -l; 80x24;
//	                                      TERM=xterm-256color unless set)
//	GET    /v1/terminals                  [terminal...]; the last 32 exited ones stay listed
//	GET    /v1/terminals/{id}             {id, pid, command, cwd, cols, rows, state: running|exited,
//	                                      startedAt, endedAt?, exit?, connections}
//	POST   /v1/terminals/{id}/resize      {cols, rows}
//	POST   /v1/terminals/{id}/close       (or DELETE /v1/terminals/{id}) SIGHUP to its process
//	                                      group, SIGKILL after the kill grace -> final state
//	GET    /v1/terminals/{id}/connect     ?cursor=&cols=&rows=  WebSocket (426 without Upgrade)
//
// On the WebSocket, binary frames are raw bytes both ways (input to the
// PTY, output from it); text frames are JSON. Client to server:
// {"type":"resize","cols":C,"rows":R} and {"type":"input","data":"text"}.
// Server to client, in order: {"type":"ready","id","cursor"} naming where
// the output that follows starts (the cursor given, else the oldest byte
// kept); each output chunk as a binary frame immediately followed by
// {"type":"cursor","cursor"} naming the offset after it;
// {"type":"truncated","cursor","lost"} where requested output was already
// evicted from the 1 MiB replay buffer (the stream continues at cursor);
// finally, once the terminal ended and all output was sent,
// {"type":"exit","code","signal"?,"cursor"} and a normal close. Resuming
// with the last cursor seen (or one computed by adding byte counts to the
// offset) replays exactly the bytes after it. Any number of connections may
// be attached; closing them all leaves the terminal running; an open
// terminal counts as activity.
//
// Per-sandbox limits answer 429 with Retry-After and the limit in
// context: TOO_MANY_PROCESSES for an exec past BERTH_MAX_PROCESSES running
// processes (default 1024), TOO_MANY_TERMINALS for a terminal past
// BERTH_MAX_TERMINALS open ones (32), TOO_MANY_FOLLOWERS for a follow=true
// log stream or wait-for-log past BERTH_MAX_LOG_FOLLOWERS concurrent ones
// (64). The worker passes its own settings of these on to the container.
//
// Durations are Go strings ("30s") or numbers of seconds. Ids and cursors
// carry a hash of the boot id (see internal/httpapi/ids.go), so handles from an earlier
// container answer 409 STALE_PROCESS_HANDLE.
package supervisor
