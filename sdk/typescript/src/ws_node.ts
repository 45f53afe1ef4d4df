// A WebSocket client (RFC 6455) on Node's own http, https and crypto
// modules, for runtimes without a global WebSocket (Node 18 and 20). It is
// loaded only there, by a dynamic import of node: modules, so the same build
// still runs in browsers and workers, which have their own WebSocket.
import { ConnectionError } from "./base.js";
import { decodeError } from "./http.js";
import type { Frame, Wire } from "./wire.js";

// The GUID of RFC 6455 section 1.3, with which the server proves it read the key.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

const OP_CONT = 0x0, OP_TEXT = 0x1, OP_BINARY = 0x2, OP_CLOSE = 0x8, OP_PING = 0x9, OP_PONG = 0xa;

// A server may not send more than this in one message (fragments joined).
const maxMessage = 16 << 20;

interface NodeSocket {
  on(ev: string, fn: (arg: never) => void): void;
  write(b: Uint8Array): void;
  end(): void;
  destroy(): void;
  setNoDelay?(on: boolean): void;
}

interface NodeRequest {
  on(ev: string, fn: (...args: never[]) => void): void;
  end(): void;
}

interface NodeResponse extends AsyncIterable<Uint8Array> {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
}

interface NodeCrypto {
  randomBytes(n: number): Uint8Array;
  createHash(alg: string): { update(s: string): { digest(enc: string): string } };
}

/**
 * dialNode opens a WebSocket with an Authorization header (which a browser's
 * WebSocket cannot send). A refused upgrade becomes the API error its
 * answer carries.
 */
export async function dialNode(url: string, headers: Record<string, string>): Promise<Wire> {
  const u = new URL(url);
  // Through variables, so that bundlers for browsers leave them alone.
  const httpName = u.protocol === "https:" || u.protocol === "wss:" ? "node:https" : "node:http";
  const cryptoName = "node:crypto";
  const http = (await import(httpName)) as { request(url: string, o: unknown): NodeRequest };
  const crypto = (await import(cryptoName)) as NodeCrypto;
  if (u.protocol === "ws:") u.protocol = "http:";
  if (u.protocol === "wss:") u.protocol = "https:";

  const key = btoa(String.fromCharCode(...crypto.randomBytes(16)));
  const want = crypto.createHash("sha1").update(key + acceptGUID).digest("base64");
  const h = { ...headers, Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key };
  const { socket, head } = await new Promise<{ socket: NodeSocket; head: Uint8Array }>((resolve, reject) => {
    const req = http.request(u.toString(), { headers: h });
    req.on("upgrade", (res: NodeResponse, socket: NodeSocket, head: Uint8Array) => {
      if (res.headers["sec-websocket-accept"] !== want) {
        socket.destroy();
        reject(new ConnectionError("the WebSocket handshake's Sec-WebSocket-Accept does not match its key"));
        return;
      }
      resolve({ socket, head });
    });
    req.on("response", async (res: NodeResponse) => {
      const chunks: Uint8Array[] = [];
      for await (const c of res) chunks.push(c);
      const hdrs = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") hdrs.set(k, v);
      reject(await decodeError(new Response(concat(chunks), { status: res.statusCode, headers: hdrs })));
    });
    req.on("error", (err: Error) => reject(new ConnectionError("WebSocket connect: " + err.message, { cause: err })));
    req.end();
  });
  socket.setNoDelay?.(true);
  return new NodeWire(socket, head, crypto);
}

/** NodeWire speaks the framing of RFC 6455 over an upgraded socket. */
class NodeWire implements Wire {
  private listener?: (f: Frame) => void;
  private ended = false;
  private buf: Uint8Array = new Uint8Array(0);
  private fragments: Uint8Array[] = [];
  private fragBytes = 0;
  private fragOp = 0;
  private closed = false;
  private pending: Frame[] = [];

  constructor(
    private readonly socket: NodeSocket,
    head: Uint8Array,
    private readonly crypto: NodeCrypto,
  ) {
    socket.on("data", (chunk: Uint8Array) => this.feed(chunk));
    socket.on("close", () => this.end());
    socket.on("error", () => this.end());
    if (head.length) queueMicrotask(() => this.feed(head));
  }

  /** listen sets the frame callback, handing it what arrived before. */
  listen(fn: (f: Frame) => void): void {
    this.listener = fn;
    for (const f of this.pending.splice(0)) fn(f);
  }

  sendText(s: string): void {
    this.write(OP_TEXT, new TextEncoder().encode(s));
  }

  sendBinary(b: Uint8Array): void {
    this.write(OP_BINARY, b);
  }

  close(): void {
    if (!this.closed) this.write(OP_CLOSE, new Uint8Array([0x03, 0xe8])); // 1000, normal closure
    this.closed = true;
    this.socket.end();
  }

  private emit(f: Frame): void {
    if (this.ended) return;
    if (f.kind === "end") this.ended = true;
    if (this.listener) this.listener(f);
    else this.pending.push(f);
  }

  private end(): void {
    this.closed = true;
    this.emit({ kind: "end" });
  }

  // Client frames are masked with a fresh key (section 5.3); FIN is set:
  // what this client sends is small.
  private write(op: number, payload: Uint8Array): void {
    if (this.closed) return;
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
    const mask = this.crypto.randomBytes(4);
    out.set(mask, hdr);
    for (let i = 0; i < n; i++) out[hdr + 4 + i] = payload[i] ^ mask[i & 3];
    this.socket.write(out);
  }

  // Server frames are unmasked (a masked one is a protocol error); control
  // frames may come between fragments; pings are answered with pongs.
  private feed(chunk: Uint8Array): void {
    const b = new Uint8Array(this.buf.length + chunk.length);
    b.set(this.buf);
    b.set(chunk, this.buf.length);
    this.buf = b;
    while (this.buf.length >= 2) {
      const fin = (this.buf[0] & 0x80) !== 0;
      const op = this.buf[0] & 0x0f;
      if (this.buf[1] & 0x80) return this.fail("a masked frame from the server");
      let n = this.buf[1] & 0x7f;
      let off = 2;
      if (n === 126) {
        if (this.buf.length < 4) break;
        n = (this.buf[2] << 8) | this.buf[3];
        off = 4;
      } else if (n === 127) {
        if (this.buf.length < 10) break;
        const big = new DataView(this.buf.buffer, this.buf.byteOffset).getBigUint64(2);
        if (big > BigInt(maxMessage)) return this.fail("a frame larger than " + maxMessage + " bytes");
        n = Number(big);
        off = 10;
      }
      if (this.buf.length < off + n) break;
      const data = this.buf.slice(off, off + n);
      this.buf = this.buf.slice(off + n);
      switch (op) {
        case OP_PING:
          this.write(OP_PONG, data);
          continue;
        case OP_PONG:
          continue;
        case OP_CLOSE:
          this.write(OP_CLOSE, data.slice(0, 2));
          this.closed = true;
          this.socket.end();
          this.emit({ kind: "end" });
          return;
        case OP_TEXT:
        case OP_BINARY:
          if (this.fragments.length) return this.fail("a new message inside a fragmented one");
          if (fin) {
            this.deliver(op, data);
            continue;
          }
          this.fragOp = op;
          this.push(data);
          continue;
        case OP_CONT: {
          if (!this.fragments.length) return this.fail("a continuation frame outside a message");
          if (!this.push(data)) return;
          if (!fin) continue;
          const joined = concat(this.fragments);
          this.fragments = [];
          this.fragBytes = 0;
          this.deliver(this.fragOp, joined);
          continue;
        }
        default:
          return this.fail("an unknown opcode " + op);
      }
    }
  }

  private push(data: Uint8Array): boolean {
    this.fragBytes += data.length;
    if (this.fragBytes > maxMessage) {
      this.fail("a message larger than " + maxMessage + " bytes");
      return false;
    }
    this.fragments.push(data);
    return true;
  }

  private deliver(op: number, data: Uint8Array): void {
    if (op === OP_TEXT) this.emit({ kind: "text", text: new TextDecoder().decode(data) });
    else this.emit({ kind: "binary", data });
  }

  private fail(why: string): void {
    this.emit({ kind: "error", error: new ConnectionError("WebSocket: " + why) });
    this.write(OP_CLOSE, new Uint8Array([0x03, 0xea])); // 1002, protocol error
    this.closed = true;
    this.socket.destroy();
  }
}

export function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let p = 0;
  for (const c of chunks) {
    out.set(c, p);
    p += c.length;
  }
  return out;
}
