import { BerthError, ConnectionError } from "./base.js";
import { errorClasses, hints } from "./errors.js";

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  /** A JSON body (serialized here) ... */
  json?: unknown;
  /** ... or a raw one. */
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Transport is the one place requests are made and errors decoded. */
export class Transport {
  readonly baseURL: string;
  private readonly token: string;
  private readonly fetchImpl: typeof fetch;
  private readonly extraHeaders: Record<string, string>;

  constructor(baseURL: string, token: string, fetchImpl: typeof fetch, headers: Record<string, string>) {
    this.baseURL = baseURL.replace(/\/+$/, "");
    this.token = token;
    this.fetchImpl = fetchImpl;
    this.extraHeaders = headers;
  }

  /** @internal: the bearer token, for the WebSocket upgrade. */
  get bearer(): string {
    return this.token;
  }

  url(path: string, query?: Query): string {
    let u = this.baseURL + path;
    if (query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(query)) {
        if (v !== undefined && v !== null) q.set(k, String(v));
      }
      const s = q.toString();
      if (s) u += "?" + s;
    }
    return u;
  }

  /** send answers the raw Response of a 2xx/3xx and throws the API error of any other. */
  async send(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...this.extraHeaders, ...(o.headers ?? {}) };
    if (this.token) headers["Authorization"] = "Bearer " + this.token;
    let body: BodyInit | undefined = o.body;
    if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers["Content-Type"] = "application/json";
    }
    const init: RequestInit & { duplex?: string } = { method, headers, body, signal: o.signal };
    if (body instanceof ReadableStream) init.duplex = "half"; // required by Node's fetch for streamed bodies
    let resp: Response;
    try {
      resp = await this.fetchImpl(this.url(path, o.query), init);
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason ?? err;
      throw new ConnectionError(`${method} ${path}: ${(err as Error)?.message ?? err}`, { cause: err });
    }
    if (resp.status >= 400) throw await decodeError(resp);
    return resp;
  }

  /** call sends and decodes a JSON answer (undefined for an empty one). */
  async call<T>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const resp = await this.send(method, path, o);
    const text = await resp.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

/** decodeError turns an error answer into the class of its code. */
export async function decodeError(resp: Response): Promise<BerthError> {
  let text = "";
  try {
    text = await resp.text();
  } catch {
    // the body is lost; the status still says enough
  }
  let e: { code?: string; message?: string; retryable?: boolean; retryAfterMs?: number; context?: Record<string, unknown> } = {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed.error === "object") e = parsed.error;
  } catch {
    // not JSON: a proxy's page
  }
  let retryAfterMs = e.retryAfterMs;
  const ra = resp.headers.get("Retry-After");
  if (retryAfterMs === undefined && ra && /^\d+$/.test(ra)) retryAfterMs = Number(ra) * 1000;
  // A proxy's 502/503/504 without an API body is a gateway on its way back.
  const code = e.code ?? (resp.status === 502 || resp.status === 503 || resp.status === 504 ? "UNAVAILABLE" : "HTTP_" + resp.status);
  const retryable = e.retryable ?? (resp.status === 502 || resp.status === 503 || resp.status === 504);
  const Cls = errorClasses[code] ?? BerthError;
  return new Cls({
    code,
    message: e.message ?? (text.slice(0, 200) || resp.statusText),
    status: resp.status,
    retryable,
    retryAfterMs,
    context: e.context,
    hint: hints[code],
    requestId: resp.headers.get("X-Request-Id") ?? undefined,
  });
}

/** Durations go to the API as a number of seconds; the SDK takes milliseconds. */
export function seconds(ms: number | undefined): number | undefined {
  return ms === undefined ? undefined : ms / 1000;
}

/**
 * sseEvents reads Server-Sent Events from a body: each dispatched event's
 * id, event name and data (multi-line data joined with "\n").
 */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<{ id?: string; event?: string; data: string }> {
  const reader = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  let id: string | undefined;
  let event: string | undefined;
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += dec.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        let line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.endsWith("\r")) line = line.slice(0, -1);
        if (line === "") {
          if (data.length > 0) yield { id, event, data: data.join("\n") };
          data = [];
          event = undefined;
          continue;
        }
        if (line.startsWith(":")) continue; // keep-alive comment
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? "" : line.slice(colon + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "data") data.push(value);
        else if (field === "id") id = value;
        else if (field === "event") event = value;
      }
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

export function base64ToBytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(s);
}

/** sleep waits ms, or less when signal aborts (then it throws the abort reason). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Reconnector paces the reconnects of a following stream: exponential
 * backoff from 100 ms to 2 s (or the server's retryAfterMs), reset by every
 * attempt that received something; it gives up on an error that is not
 * retryable, or after windowMs without progress.
 */
export class Reconnector {
  private failingSince = 0;
  private backoff = 100;
  constructor(private readonly windowMs = 30_000) {}

  /** wait sleeps before the next attempt, or throws the error that ends the stream. */
  async wait(progressed: boolean, err: unknown, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    if (progressed || this.failingSince === 0) {
      this.failingSince = Date.now();
      this.backoff = 100;
    }
    const retryable = err === undefined || (err as { retryable?: boolean })?.retryable === true || isNetworkError(err);
    if (!retryable || Date.now() - this.failingSince > this.windowMs) {
      throw err ?? new ConnectionError("the stream ended before its end");
    }
    let d = this.backoff;
    const ra = (err as { retryAfterMs?: number })?.retryAfterMs;
    if (ra !== undefined && ra > d) d = ra;
    this.backoff = Math.min(this.backoff * 2, 2000);
    await sleep(d, signal);
  }
}

/** A body read that failed mid-stream (the connection dropped) is worth a reconnect. */
function isNetworkError(err: unknown): boolean {
  if (err instanceof BerthError) return err.retryable;
  if (err instanceof ConnectionError) return true;
  const name = (err as Error)?.name;
  return name === "TypeError" || name === "SocketError" || (err as { code?: string })?.code === "UND_ERR_SOCKET";
}
