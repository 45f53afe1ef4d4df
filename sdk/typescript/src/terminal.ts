import { ConnectionError } from "./base.js";
import { decodeError } from "./http.js";

/**
 * A TerminalConnection is an attached PTY session: binary WebSocket frames
 * are its input and output bytes; JSON text frames carry `ready {cursor}`,
 * `resize {cols, rows}` and `exit {code}`. Iterate it for output; `cursor`
 * is where a later connect({ cursor }) resumes.
 *
 * The gateway authenticates with the Authorization header, which browsers'
 * WebSocket cannot send; this client speaks WebSocket over Node's own
 * http module (RFC 6455, written here: no dependency).
 */
export class TerminalConnection implements AsyncIterable<Uint8Array> {
  cursor: string;
  exitCode?: number;
  private buf = new Uint8Array(0);
  private queue: Array<{ op: number; data: Uint8Array }> = [];
  private waiting?: () => void;
  private ended = false;

  /** @internal */
  constructor(
    private readonly socket: NodeSocket,
    head: Uint8Array,
    cursor: string,
  ) {
    this.cursor = cursor;
    socket.on("data", (chunk: Uint8Array) => this.feed(chunk));
    socket.on("close", () => this.end());
    socket.on("error", () => this.end());
    if (head.length) this.feed(head);
  }

  /** send writes input (bytes, or text as UTF-8). */
  send(data: string | Uint8Array): void {
    this.write(0x2, typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** resize changes the terminal's size. */
  resize(cols: number, rows: number): void {
    this.write(0x1, new TextEncoder().encode(JSON.stringify({ type: "resize", cols, rows })));
  }

  /** close detaches (the terminal keeps running; closeTerminal ends it). */
  close(): void {
    if (!this.ended) this.write(0x8, new Uint8Array([0x03, 0xe8]));
    this.socket.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const f = this.queue.shift();
      if (!f) {
        if (this.ended) return;
        await new Promise<void>((r) => (this.waiting = r));
        continue;
      }
      if (f.op === 0x2) {
        yield f.data;
      } else if (f.op === 0x1) {
        const msg = JSON.parse(new TextDecoder().decode(f.data)) as { type?: string; code?: number; cursor?: string };
        if (msg.cursor) this.cursor = msg.cursor;
        if (msg.type === "exit") {
          this.exitCode = msg.code;
          this.close();
          return;
        }
      } else if (f.op === 0x8) {
        this.socket.end();
        return;
      }
    }
  }

  /** @internal: the first frame, which must be ready. */
  async next(): Promise<{ op: number; data: Uint8Array } | undefined> {
    while (this.queue.length === 0 && !this.ended) await new Promise<void>((r) => (this.waiting = r));
    return this.queue.shift();
  }

  private end(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.();
  }

  // Client frames are masked (RFC 6455 5.3); FIN is always set.
  private write(op: number, payload: Uint8Array): void {
    const n = payload.length;
    const hdr = n < 126 ? 2 : n < 65536 ? 4 : 10;
    const out = new Uint8Array(hdr + 4 + n);
    out[0] = 0x80 | op;
    if (n < 126) out[1] = 0x80 | n;
    else if (n < 65536) {
      out[1] = 0x80 | 126;
      out[2] = n >> 8;
      out[3] = n & 0xff;
    } else {
      out[1] = 0x80 | 127;
      new DataView(out.buffer).setBigUint64(2, BigInt(n));
    }
    const mask = randomBytes(4);
    out.set(mask, hdr);
    for (let i = 0; i < n; i++) out[hdr + 4 + i] = payload[i] ^ mask[i & 3];
    this.socket.write(out);
  }

  // Server frames are unmasked; fragments are joined; pings are answered.
  private fragments: Uint8Array[] = [];
  private fragOp = 0;
  private feed(chunk: Uint8Array): void {
    const b = new Uint8Array(this.buf.length + chunk.length);
    b.set(this.buf);
    b.set(chunk, this.buf.length);
    this.buf = b;
    for (;;) {
      if (this.buf.length < 2) break;
      const fin = (this.buf[0] & 0x80) !== 0;
      const op = this.buf[0] & 0x0f;
      let n = this.buf[1] & 0x7f;
      let off = 2;
      if (n === 126) {
        if (this.buf.length < 4) break;
        n = (this.buf[2] << 8) | this.buf[3];
        off = 4;
      } else if (n === 127) {
        if (this.buf.length < 10) break;
        n = Number(new DataView(this.buf.buffer, this.buf.byteOffset).getBigUint64(2));
        off = 10;
      }
      if (this.buf.length < off + n) break;
      const data = this.buf.slice(off, off + n);
      this.buf = this.buf.slice(off + n);
      if (op === 0x9) {
        this.write(0xa, data);
        continue;
      }
      if (op === 0xa) continue;
      if (op === 0x0 || !fin) {
        if (op !== 0x0) this.fragOp = op;
        this.fragments.push(data);
        if (!fin) continue;
        const total = this.fragments.reduce((a, f) => a + f.length, 0);
        const joined = new Uint8Array(total);
        let p = 0;
        for (const f of this.fragments) {
          joined.set(f, p);
          p += f.length;
        }
        this.fragments = [];
        this.queue.push({ op: this.fragOp, data: joined });
      } else {
        this.queue.push({ op, data });
      }
    }
    this.wake();
  }
}

/** The part of a node:net Socket used here. */
interface NodeSocket {
  on(ev: string, fn: (arg: never) => void): void;
  write(b: Uint8Array): void;
  end(): void;
}

/** connectTerminal performs the WebSocket upgrade and waits for the ready frame. */
export async function connectTerminal(url: string, token: string): Promise<TerminalConnection> {
  const u = new URL(url);
  // Through a variable, so that bundlers for browsers leave it alone.
  const modName = u.protocol === "https:" ? "node:https" : "node:http";
  let mod: { request(url: string, o: unknown): NodeRequest };
  try {
    mod = await import(modName);
  } catch {
    throw new ConnectionError("terminals need Node's http module (the gateway takes the token only in a header, which browsers' WebSocket cannot send)");
  }
  const key = btoa(String.fromCharCode(...randomBytes(16)));
  const headers: Record<string, string> = { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key };
  if (token) headers["Authorization"] = "Bearer " + token;
  const { socket, head } = await new Promise<{ socket: NodeSocket; head: Uint8Array }>((resolve, reject) => {
    const req = mod.request(url, { headers });
    req.on("upgrade", (_res: unknown, socket: NodeSocket, head: Uint8Array) => resolve({ socket, head }));
    req.on("response", async (res: NodeResponse) => {
      const chunks: Uint8Array[] = [];
      for await (const c of res) chunks.push(c);
      const text = new TextDecoder().decode(concat(chunks));
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") h.set(k, v);
      reject(await decodeError(new Response(text, { status: res.statusCode, headers: h })));
    });
    req.on("error", (err: Error) => reject(new ConnectionError("terminal connect: " + err.message, { cause: err })));
    req.end();
  });
  const conn = new TerminalConnection(socket, head, "");
  const first = await conn.next();
  const msg = first && first.op === 0x1 ? (JSON.parse(new TextDecoder().decode(first.data)) as { type?: string; cursor?: string }) : undefined;
  if (msg?.type !== "ready") {
    conn.close();
    throw new ConnectionError("the terminal connection did not start with a ready frame");
  }
  conn.cursor = msg.cursor ?? "";
  return conn;
}

// randomBytes: Web Crypto where there is a global one (not in Node 18 by
// default); otherwise Math.random, enough for a handshake key and frame
// masks, which guard against proxy cache poisoning, not eavesdropping.
function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  const c = (globalThis as { crypto?: { getRandomValues?(a: Uint8Array): Uint8Array } }).crypto;
  if (c?.getRandomValues) return c.getRandomValues(out);
  for (let i = 0; i < n; i++) out[i] = Math.floor(Math.random() * 256);
  return out;
}

interface NodeRequest {
  on(ev: string, fn: (...args: never[]) => void): void;
  end(): void;
}

interface NodeResponse extends AsyncIterable<Uint8Array> {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}
