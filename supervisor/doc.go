// Package supervisor is the in-container daemon of a Berth sandbox (run as
// PID 1 by cmd/berth-supervisor): it reaps every child with one wait4(-1)
// loop (child subreaper when not PID 1), forwards SIGTERM/SIGINT/SIGHUP to
// all processes and SIGKILLs leftovers after the kill grace, and serves the
// process API that the gateway proxies verbatim as
// /v1/sandboxes/{name}/processes/...
//
// Every route needs "Authorization: Bearer $BERTH_SUPERVISOR_TOKEN";
// errors are {"error":{"code","message","retryable","context"?}}.
//
//	GET  /v1/health                       {bootId, pid, startedAt}
//	GET  /v1/activity                     {bootId, inFlight, processes, terminals, lastActivityAt, idleMs}
//	PUT  /v1/env                          {env:{K:"v"|null}} replaces the sandbox env layer
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
// Durations are Go strings ("30s") or numbers of seconds. Ids and cursors
// carry a hash of the boot id (see ids.go), so handles from an earlier
// container answer 409 STALE_PROCESS_HANDLE.
package supervisor
