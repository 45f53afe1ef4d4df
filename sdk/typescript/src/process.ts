import { StaleProcessHandleError } from "./errors.js";
import { Reconnector, Transport, base64ToBytes, bytesToBase64, decodeError, seconds, sseEvents } from "./http.js";
import type { ExitStatus, LogEvent, LogMatch, Output, ProcessInfo } from "./types.js";

export interface OutputOptions {
  /** "utf8" (default; invalid bytes replaced) or "base64" (byte-exact). */
  encoding?: "utf8" | "base64";
  /** Per stream; the newest bytes are kept and `truncated` says so. */
  maxBytes?: number;
  /** Ends only the wait (WaitTimeoutError), in milliseconds; the process keeps running. */
  timeout?: number;
  /** Cancels only the wait. */
  signal?: AbortSignal;
}

export interface LogsOptions {
  /** Resume after this cursor (from an earlier event). */
  since?: string;
  /** Send what is already buffered (default true). */
  replay?: boolean;
  /** Stay open until the exit event (default false). */
  follow?: boolean;
  /** Cancels only the stream. */
  signal?: AbortSignal;
}

export interface WaitOptions {
  /** Ends only the wait, in milliseconds. */
  timeout?: number;
  signal?: AbortSignal;
}

export interface PortOptions extends WaitOptions {
  /** "tcp" (default: the port accepts) or "http" (it answers). */
  mode?: "tcp" | "http";
  /** http mode: the request path (default "/"). */
  path?: string;
  /** http mode: the wanted status (default any 2xx/3xx). */
  status?: number;
}

export interface LogWaitOptions extends WaitOptions {
  stream?: "stdout" | "stderr";
}

/**
 * A LogStream is an async iterator of a process's log events. `cursor` is
 * the latest event's cursor: store it, and a later request resumes with
 * `logs({ since: cursor, replay: true, follow: true })` while the process
 * lives in the same container.
 */
export class LogStream implements AsyncIterable<LogEvent> {
  /** The cursor of the latest event received (or the `since` it began from). */
  cursor?: string;
  private first?: Response;
  private closed = false;
  private readonly abort = new AbortController();

  /** @internal */
  constructor(
    private readonly proc: ProcessHandle,
    private readonly opts: LogsOptions,
    first: Response,
  ) {
    this.cursor = opts.since;
    this.first = first;
    opts.signal?.addEventListener("abort", () => this.abort.abort(opts.signal?.reason), { once: true });
  }

  /** close ends the stream (the process keeps running). */
  close(): void {
    this.closed = true;
    this.abort.abort();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<LogEvent> {
    const follow = this.opts.follow ?? false;
    const rc = new Reconnector();
    let resp: Response | undefined = this.first;
    this.first = undefined;
    try {
      for (;;) {
        let progressed = false;
        let err: unknown;
        try {
          if (!resp) resp = await this.proc.openLogs(this.cursor, true, follow, this.abort.signal);
          for await (const raw of sseEvents(resp.body!)) {
            if (raw.event === "error") {
              // A failure after the stream began: the API error as data.
              throw await this.proc.errorFromEvent(raw.data);
            }
            const ev = decodeLogEvent(raw.data);
            this.cursor = ev.cursor;
            progressed = true;
            yield ev;
            if (ev.type === "exit") return;
          }
        } catch (e) {
          err = e;
        }
        resp = undefined;
        if (this.closed) return;
        if (this.abort.signal.aborted) throw this.abort.signal.reason;
        if (err === undefined && !follow) return; // a non-follow stream simply ends
        // Dropped (a gateway restart) or ended early: resume from the cursor.
        await rc.wait(progressed, err, this.abort.signal);
      }
    } finally {
      this.closed = true;
    }
  }
}

function decodeLogEvent(data: string): LogEvent {
  const w = JSON.parse(data) as { type: LogEvent["type"]; cursor: string; timestamp: string; data?: string; exit?: ExitStatus };
  const ev: LogEvent = { type: w.type, cursor: w.cursor, timestamp: w.timestamp };
  if (w.data !== undefined) {
    ev.data = base64ToBytes(w.data);
    ev.text = new TextDecoder().decode(ev.data);
  }
  if (w.exit) ev.exit = w.exit;
  return ev;
}

/**
 * A ProcessHandle is a process started by exec (or found by getProcess). It
 * is valid while the process lives in the sandbox's current container; once
 * that container stopped or was replaced, every call throws
 * StaleProcessHandleError (fail closed): relaunch from the stored command.
 */
export class ProcessHandle {
  readonly id: string;
  readonly pid: number;
  /** What the server said when the handle was made. */
  readonly info: ProcessInfo;

  /** @internal */
  constructor(
    private readonly t: Transport,
    readonly sandboxName: string,
    info: ProcessInfo,
  ) {
    this.id = info.id;
    this.pid = info.pid;
    this.info = info;
  }

  private path(rest = ""): string {
    return `/v1/sandboxes/${encodeURIComponent(this.sandboxName)}/processes/${encodeURIComponent(this.id)}${rest}`;
  }

  /** status is the process's state now (never wakes a sleeping sandbox). */
  status(o: { signal?: AbortSignal } = {}): Promise<ProcessInfo> {
    return this.t.call("GET", this.path(), { signal: o.signal });
  }

  /** output waits for the exit and answers the buffered stdout and stderr. */
  output(o: OutputOptions = {}): Promise<Output> {
    return this.t.call("GET", this.path("/output"), {
      query: { encoding: o.encoding, maxBytes: o.maxBytes, timeout: seconds(o.timeout) },
      signal: o.signal,
    });
  }

  /**
   * logs opens the process's log stream (it throws at once when the handle
   * is stale or the cursor invalid). With follow, a dropped connection is
   * resumed from the latest cursor: no gap, no duplicate.
   */
  async logs(o: LogsOptions = {}): Promise<LogStream> {
    const first = await this.openLogs(o.since, o.replay ?? true, o.follow ?? false, o.signal);
    return new LogStream(this, o, first);
  }

  /** @internal */
  openLogs(since: string | undefined, replay: boolean, follow: boolean, signal?: AbortSignal): Promise<Response> {
    return this.t.send("GET", this.path("/logs"), {
      query: { since, replay, follow },
      headers: { Accept: "text/event-stream" },
      signal,
    });
  }

  /** @internal */
  errorFromEvent(data: string): Promise<Error> {
    let status = 503;
    try {
      const code = JSON.parse(data)?.error?.code;
      if (code === "STALE_PROCESS_HANDLE") status = 409;
    } catch {
      // keep 503
    }
    return decodeError(new Response(data, { status }));
  }

  /** waitForExit waits until the process exited; the timeout ends only the wait. */
  waitForExit(o: WaitOptions = {}): Promise<ProcessInfo> {
    return this.t.call("POST", this.path("/wait"), { json: { timeout: seconds(o.timeout) }, signal: o.signal });
  }

  /** waitForPort waits until the port is ready inside the sandbox (ProcessExitedError if the process ends first). */
  async waitForPort(port: number, o: PortOptions = {}): Promise<void> {
    await this.t.call("POST", this.path("/wait-for-port"), {
      json: { port, mode: o.mode, path: o.path, status: o.status, timeout: seconds(o.timeout) },
      signal: o.signal,
    });
  }

  /** waitForLog waits for an output line matching an RE2 pattern (a RegExp's source is used). */
  waitForLog(pattern: string | RegExp, o: LogWaitOptions = {}): Promise<LogMatch> {
    const p = typeof pattern === "string" ? pattern : pattern.source;
    return this.t.call("POST", this.path("/wait-for-log"), {
      json: { pattern: p, stream: o.stream, timeout: seconds(o.timeout) },
      signal: o.signal,
    });
  }

  /** kill signals the process group (default SIGTERM); killing an exited process is a no-op. */
  kill(signal?: string | number): Promise<ProcessInfo> {
    return this.t.call("POST", this.path("/kill"), { json: signal === undefined ? {} : { signal } });
  }

  /** writeStdin writes to a process started with stdin: "pipe". */
  async writeStdin(data: string | Uint8Array): Promise<number> {
    const body = typeof data === "string" ? { text: data } : { data: bytesToBase64(data) };
    const r = await this.t.call<{ written: number }>("POST", this.path("/stdin"), { json: body });
    return r.written;
  }

  /** closeStdin sends EOF to the process's stdin. */
  async closeStdin(): Promise<void> {
    await this.t.call("POST", this.path("/stdin/close"));
  }
}

export { StaleProcessHandleError };
