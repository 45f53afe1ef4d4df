import { ConnectionError } from "./base.js";
import { ProcessNotFoundError, StaleProcessHandleError } from "./errors.js";
import { Reconnector, Transport, decodeError, seconds, sseEvents } from "./http.js";
import { ProcessHandle } from "./process.js";
import { TerminalConnection, connectTerminal } from "./terminal.js";
import type {
  Backup,
  EgressPolicy,
  ExposedPort,
  FileInfo,
  ProcessInfo,
  RunResult,
  SandboxEvent,
  SandboxInfo,
  Secret,
  SandboxStats,
  Service,
  Token,
  TokenScope,
} from "./types.js";

export interface ClientOptions {
  /** The gateway, e.g. "http://127.0.0.1:8080" (default: BERTH_URL, else http://127.0.0.1:8080). */
  url?: string;
  /** The bearer token (default: BERTH_TOKEN). */
  token?: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface CreateOptions {
  instanceType?: string;
  /** The sandbox's own image (any ref Docker can pull, or one the workers have), fixed for its life; default the type's. */
  image?: string;
  /** Idle time before sleeping, in milliseconds. */
  sleepAfter?: number;
  keepAlive?: boolean;
  /** Time without a client before the sandbox dozes (frozen in place, thawed by the next call), in milliseconds; 0 never. Default: the server's. */
  dozeAfter?: number;
  env?: Record<string, string>;
  egress?: EgressPolicy;
  /** Boot at once, without waiting for it. */
  start?: boolean;
  services?: Service[];
}

export interface ExecOptions {
  cwd?: string;
  /** Overrides the sandbox env; null removes a variable. */
  env?: Record<string, string | null>;
  /** A deadline on the process itself, in milliseconds: the supervisor kills its group and the exit says timedOut. */
  timeout?: number;
  /** "pipe" to write to the process's stdin later. */
  stdin?: "pipe" | "null";
  /** Run as this user instead of the image's USER (a name or uid, either with ":group"; "root" always works). */
  user?: string;
}

export interface RunOptions extends ExecOptions {
  encoding?: "utf8" | "base64";
  maxBytes?: number;
  signal?: AbortSignal;
}

export interface EventsOptions {
  /** Events after this offset. */
  after?: number;
  /** Stay open for new events (resuming after dropped connections). */
  follow?: boolean;
  signal?: AbortSignal;
}

function env(name: string): string | undefined {
  const p = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return p?.env?.[name];
}

/** Berth is a client of one gateway. */
export class Berth {
  /** @internal */
  readonly t: Transport;

  constructor(o: ClientOptions = {}) {
    const f = o.fetch ?? globalThis.fetch.bind(globalThis);
    this.t = new Transport(o.url ?? env("BERTH_URL") ?? "http://127.0.0.1:8080", o.token ?? env("BERTH_TOKEN") ?? "", f, o.headers ?? {});
  }

  /** sandbox is a handle on a sandbox by name (no round trip). */
  sandbox(name: string): Sandbox {
    return new Sandbox(this, name);
  }

  /**
   * createSandbox claims a name. Repeating an identical create is fine
   * (created: false); a different configuration is NameConflictError.
   */
  async createSandbox(name: string, o: CreateOptions = {}): Promise<SandboxInfo & { created: boolean }> {
    const resp = await this.t.send("POST", "/v1/sandboxes", { json: createBody(name, o) });
    const info = (await resp.json()) as SandboxInfo;
    return { ...info, created: resp.status === 201 };
  }

  /** listSandboxes lists sandboxes, optionally of one status. */
  listSandboxes(o: { status?: string } = {}): Promise<SandboxInfo[]> {
    return this.t.call("GET", "/v1/sandboxes", { query: { status: o.status } });
  }

  /** events iterates the catalogue stream (one create-requested per claim). */
  events(o: EventsOptions = {}): AsyncIterable<SandboxEvent> {
    return eventStream(this.t, "/v1/events", o);
  }

  listSecrets(): Promise<Secret[]> {
    return this.t.call("GET", "/v1/secrets");
  }
  setSecret(name: string, value: string, hosts: string[]): Promise<Secret> {
    return this.t.call("PUT", "/v1/secrets/" + encodeURIComponent(name), { json: { value, hosts } });
  }
  getSecret(name: string): Promise<Secret> {
    return this.t.call("GET", "/v1/secrets/" + encodeURIComponent(name));
  }
  async deleteSecret(name: string): Promise<void> {
    await this.t.call("DELETE", "/v1/secrets/" + encodeURIComponent(name));
  }

  // --- scoped tokens (the admin token only) ---

  /**
   * createToken mints a token limited to sandboxes (names, or prefixes
   * ending in `*`), scopes and a lifetime (milliseconds). Its value is in
   * this answer's `token` only.
   */
  createToken(name: string, o: { sandboxes?: string[]; scopes: TokenScope[]; ttl: number }): Promise<Token> {
    return this.t.call("POST", "/v1/tokens", { json: { name, sandboxes: o.sandboxes, scopes: o.scopes, ttl: seconds(o.ttl) } });
  }
  /** listTokens lists the tokens not revoked, never their values. */
  listTokens(): Promise<Token[]> {
    return this.t.call("GET", "/v1/tokens");
  }
  /** revokeToken revokes a token (TokenNotFoundError when there is none). */
  async revokeToken(id: string): Promise<void> {
    await this.t.send("DELETE", "/v1/tokens/" + encodeURIComponent(id));
  }

  hosts(): Promise<Record<string, unknown>[]> {
    return this.t.call("GET", "/v1/hosts");
  }

  /** healthy is whether the gateway answers /healthz. */
  async healthy(): Promise<boolean> {
    try {
      await this.t.send("GET", "/healthz");
      return true;
    } catch {
      return false;
    }
  }
}

function createBody(name: string, o: CreateOptions): Record<string, unknown> {
  return {
    name,
    instanceType: o.instanceType,
    image: o.image,
    sleepAfter: seconds(o.sleepAfter),
    keepAlive: o.keepAlive,
    dozeAfter: seconds(o.dozeAfter),
    env: o.env,
    egress: o.egress,
    start: o.start,
    services: o.services,
  };
}

/**
 * getSandbox is the seed's entry point: a handle on the sandbox of that name
 * (one per user or task). The sandbox must have been created
 * (client.createSandbox); exec starts a stopped one.
 */
export function getSandbox(client: Berth, name: string): Sandbox {
  return client.sandbox(name);
}

/** A Sandbox is a handle on one sandbox by name. The same name need not mean the same container. */
export class Sandbox {
  private readonly t: Transport;

  /** @internal */
  constructor(
    readonly client: Berth,
    readonly name: string,
  ) {
    this.t = client.t;
  }

  private path(rest = ""): string {
    return `/v1/sandboxes/${encodeURIComponent(this.name)}${rest}`;
  }

  // --- lifecycle ---

  /** create claims this sandbox's name (see Berth.createSandbox). */
  create(o: CreateOptions = {}): Promise<SandboxInfo & { created: boolean }> {
    return this.client.createSandbox(this.name, o);
  }
  /** info is the sandbox's state (never wakes it). */
  info(): Promise<SandboxInfo> {
    return this.t.call("GET", this.path());
  }
  /** start boots the container and restores the newest good backup (or the one named). */
  start(o: { backupId?: string; allowRollback?: boolean } = {}): Promise<SandboxInfo> {
    return this.t.call("POST", this.path("/start"), { json: o });
  }
  /** sleep backs /workspace up and removes the container; process handles become stale. */
  sleep(): Promise<SandboxInfo> {
    return this.t.call("POST", this.path("/sleep"));
  }
  /** restartWorkflow continues the sandbox's workflow as a fresh run (the container is untouched). */
  restartWorkflow(): Promise<SandboxInfo> {
    return this.t.call("POST", this.path("/kill"));
  }
  /** destroy removes the sandbox for good; its name cannot be claimed again. */
  destroy(): Promise<SandboxInfo> {
    return this.t.call("DELETE", this.path());
  }
  /** update changes sleepAfter (milliseconds) and/or keepAlive. */
  update(o: { sleepAfter?: number; keepAlive?: boolean }): Promise<SandboxInfo> {
    return this.t.call("PATCH", this.path(), { json: { sleepAfter: seconds(o.sleepAfter), keepAlive: o.keepAlive } });
  }
  /** setEnvVars sets sandbox-wide variables (null unsets one); later execs see them. */
  setEnvVars(env: Record<string, string | null>): Promise<SandboxInfo> {
    return this.t.call("PATCH", this.path("/env"), { json: { env } });
  }
  /** setEgress sets what the sandbox may reach. */
  setEgress(policy: EgressPolicy): Promise<SandboxInfo> {
    return this.t.call("PUT", this.path("/egress"), { json: policy });
  }
  /** fork creates a new sandbox from this one's workspace (a fresh snapshot of a running one, or a backup). */
  async fork(newName: string, o: CreateOptions & { backupId?: string } = {}): Promise<Sandbox> {
    const { backupId, ...rest } = o;
    await this.t.call("POST", "/v1/sandboxes", {
      json: { ...createBody(newName, rest), from: { sandbox: this.name, backupId } },
    });
    return this.client.sandbox(newName);
  }
  /** events iterates the sandbox's event stream (its whole life, strictly increasing offsets). */
  events(o: EventsOptions = {}): AsyncIterable<SandboxEvent> {
    return eventStream(this.t, this.path("/events"), o);
  }

  // --- processes ---

  /**
   * exec starts a supervised process from argv (no shell is added) and
   * resolves once it has started, with a handle {id, pid}.
   */
  async exec(argv: string[], o: ExecOptions = {}): Promise<ProcessHandle> {
    const info = await this.t.call<ProcessInfo>("POST", this.path("/processes"), {
      json: { argv, cwd: o.cwd, env: o.env, timeout: seconds(o.timeout), stdin: o.stdin, user: o.user },
    });
    return new ProcessHandle(this.t, this.name, info);
  }

  /** run starts a process and answers once it exited, with its output (one round trip). */
  run(argv: string[], o: RunOptions = {}): Promise<RunResult> {
    return this.t.call("POST", this.path("/processes"), {
      json: { argv, cwd: o.cwd, env: o.env, timeout: seconds(o.timeout), wait: true, encoding: o.encoding, maxBytes: o.maxBytes, user: o.user },
      signal: o.signal,
    });
  }

  /**
   * getProcess answers the handle of a process of the current container, or
   * null when there is none (no container, or the id belongs to an earlier
   * one). It never wakes a sleeping sandbox.
   */
  async getProcess(id: string): Promise<ProcessHandle | null> {
    try {
      const info = await this.t.call<ProcessInfo>("GET", this.path("/processes/" + encodeURIComponent(id)));
      return new ProcessHandle(this.t, this.name, info);
    } catch (err) {
      if (err instanceof ProcessNotFoundError || err instanceof StaleProcessHandleError) return null;
      throw err;
    }
  }

  /**
   * process is a handle for a stored id without a round trip; its calls
   * fail with StaleProcessHandleError once the id's container is gone.
   * Prefer getProcess(id) per request.
   */
  process(id: string): ProcessHandle {
    return new ProcessHandle(this.t, this.name, { id, pid: 0, command: [], cwd: "", state: "running", startedAt: "" });
  }

  /** listProcesses lists the current container's processes (never wakes). */
  async listProcesses(): Promise<ProcessHandle[]> {
    const list = await this.t.call<ProcessInfo[]>("GET", this.path("/processes"));
    return list.map((info) => new ProcessHandle(this.t, this.name, info));
  }

  // --- files ---

  private filePath(p: string): string {
    if (!p.startsWith("/")) throw new TypeError(`berth: file paths are absolute: ${JSON.stringify(p)}`);
    const rest = p.replace(/^\/+/, "");
    return rest === "" ? this.path("/files") : this.path("/files/" + rest.split("/").map(encodeURIComponent).join("/"));
  }

  /** readFile answers a file's bytes. */
  async readFile(p: string, o: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const resp = await this.t.send("GET", this.filePath(p), { signal: o.signal });
    return new Uint8Array(await resp.arrayBuffer());
  }
  /** readText answers a file decoded as UTF-8. */
  async readText(p: string): Promise<string> {
    return new TextDecoder().decode(await this.readFile(p));
  }
  /** readStream answers a file as a stream (large files). */
  async readStream(p: string, o: { signal?: AbortSignal } = {}): Promise<ReadableStream<Uint8Array>> {
    const resp = await this.t.send("GET", this.filePath(p), { signal: o.signal });
    return resp.body!;
  }
  /** writeFile writes a file atomically (bytes, text or a stream). */
  writeFile(p: string, data: Uint8Array | string | ReadableStream<Uint8Array> | Blob, o: { mode?: string; mkdir?: boolean } = {}): Promise<FileInfo> {
    const body = typeof data === "string" ? new TextEncoder().encode(data) : data;
    return this.t.call("PUT", this.filePath(p), {
      query: { mode: o.mode, mkdir: o.mkdir },
      body: body as BodyInit,
      headers: { "Content-Type": "application/octet-stream" },
    });
  }
  /** stat answers a path's FileInfo (of a symlink itself). */
  stat(p: string): Promise<FileInfo> {
    return this.t.call("GET", this.filePath(p), { query: { stat: true } });
  }
  /** exists is whether a path exists. */
  async exists(p: string): Promise<boolean> {
    try {
      await this.t.send("HEAD", this.filePath(p));
      return true;
    } catch (err) {
      if ((err as { status?: number }).status === 404 && (err as { code?: string }).code !== "SANDBOX_NOT_FOUND") return false;
      throw err;
    }
  }
  /** list answers a directory's entries. */
  list(p: string, o: { recursive?: boolean; includeHidden?: boolean } = {}): Promise<FileInfo[]> {
    return this.t.call("GET", this.filePath(p), { query: { list: true, recursive: o.recursive, includeHidden: o.includeHidden } });
  }
  /** remove deletes a file (or, recursive, a tree). */
  async remove(p: string, o: { recursive?: boolean } = {}): Promise<void> {
    await this.t.send("DELETE", this.filePath(p), { query: { recursive: o.recursive } });
  }
  /** mkdir creates a directory and its parents. */
  mkdir(p: string, o: { mode?: string } = {}): Promise<FileInfo> {
    return this.t.call("POST", this.filePath(p), { query: { op: "mkdir", mode: o.mode } });
  }
  /** move renames a path (overwriting by default, as the API does). */
  move(from: string, to: string, o: { overwrite?: boolean; mkdir?: boolean } = {}): Promise<FileInfo> {
    return this.t.call("POST", this.filePath(from), { query: { op: "move", to, overwrite: o.overwrite, mkdir: o.mkdir } });
  }
  /** downloadArchive streams a directory as tar. */
  async downloadArchive(p: string): Promise<ReadableStream<Uint8Array>> {
    const resp = await this.t.send("GET", this.path("/archive"), { query: { path: p } });
    return resp.body!;
  }
  /** uploadArchive extracts a tar into a directory. */
  uploadArchive(p: string, tar: Uint8Array | ReadableStream<Uint8Array> | Blob): Promise<Record<string, unknown>> {
    return this.t.call("PUT", this.path("/archive"), { query: { path: p }, body: tar as BodyInit, headers: { "Content-Type": "application/x-tar" } });
  }

  // --- terminals ---

  /** createTerminal opens a PTY session (a shell by default). */
  createTerminal(o: { argv?: string[]; cwd?: string; env?: Record<string, string | null>; cols?: number; rows?: number } = {}): Promise<Record<string, unknown>> {
    return this.t.call("POST", this.path("/terminals"), { json: o });
  }
  /** terminals lists the current container's terminals (never wakes). */
  terminals(): Promise<Record<string, unknown>[]> {
    return this.t.call("GET", this.path("/terminals"));
  }
  /**
   * connectTerminal attaches to a terminal over a WebSocket (see
   * TerminalConnection; in a browser the gateway must know the page by its
   * session cookie, since a browser's WebSocket sends no token). A cursor
   * from an earlier connection replays what was missed.
   */
  connectTerminal(id: string, o: { cursor?: string; cols?: number; rows?: number } = {}): Promise<TerminalConnection> {
    const path = this.path("/terminals/" + encodeURIComponent(id));
    const url = this.t.url(path + "/connect", { cursor: o.cursor, cols: o.cols, rows: o.rows });
    // The terminal's state explains a refused upgrade (no such terminal,
    // a stale one, a bad token); a bad cursor is the one thing it does not.
    const refused = async (): Promise<Error> => {
      try {
        await this.t.send("GET", path);
      } catch (e) {
        return e as Error;
      }
      return new ConnectionError("the terminal refused the WebSocket upgrade (a cursor of another terminal or beyond its output?)");
    };
    return connectTerminal(url, this.t.bearer, refused);
  }
  /** closeTerminal ends a terminal's process group. */
  closeTerminal(id: string): Promise<Record<string, unknown>> {
    return this.t.call("POST", this.path("/terminals/" + encodeURIComponent(id) + "/close"));
  }

  // --- backups ---

  /** backups lists complete backups, newest first. */
  backups(): Promise<Backup[]> {
    return this.t.call("GET", this.path("/backups"));
  }
  /** createBackup snapshots the /workspace of the running sandbox. */
  createBackup(): Promise<Backup> {
    return this.t.call("POST", this.path("/backups"));
  }

  // --- ports, services ---

  exposePort(port: number, o: { public?: boolean } = {}): Promise<ExposedPort> {
    return this.t.call("POST", this.path("/ports"), { json: { port, public: o.public } });
  }
  ports(): Promise<ExposedPort[]> {
    return this.t.call("GET", this.path("/ports"));
  }
  async unexposePort(port: number): Promise<void> {
    await this.t.send("DELETE", this.path("/ports/" + port));
  }
  /**
   * stats reads what the sandbox uses now: live figures while it runs;
   * otherwise its status and `live: false`. It never wakes the sandbox.
   */
  stats(): Promise<SandboxStats> {
    return this.t.call("GET", this.path("/stats"));
  }

  services(): Promise<Record<string, unknown>[]> {
    return this.t.call("GET", this.path("/services"));
  }
  setService(name: string, s: Omit<Service, "name">): Promise<Record<string, unknown>> {
    return this.t.call("PUT", this.path("/services/" + encodeURIComponent(name)), { json: s });
  }
  async deleteService(name: string): Promise<void> {
    await this.t.send("DELETE", this.path("/services/" + encodeURIComponent(name)));
  }
}

/** eventStream reads an event stream, resuming after the last offset when following. */
async function* eventStream(t: Transport, path: string, o: EventsOptions): AsyncGenerator<SandboxEvent> {
  let after = o.after;
  const follow = o.follow ?? false;
  const rc = new Reconnector();
  for (;;) {
    let progressed = false;
    let err: unknown;
    try {
      const resp = await t.send("GET", path, { query: { after, follow }, headers: { Accept: "text/event-stream" }, signal: o.signal });
      for await (const raw of sseEvents(resp.body!)) {
        if (raw.event === "error") throw await decodeError(new Response(raw.data, { status: 503 }));
        const ev = JSON.parse(raw.data) as SandboxEvent;
        after = ev.offset;
        progressed = true;
        yield ev;
      }
    } catch (e) {
      err = e;
    }
    if (o.signal?.aborted) throw o.signal.reason;
    if (err === undefined && !follow) return;
    await rc.wait(progressed, err, o.signal);
  }
}
