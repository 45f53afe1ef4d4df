// The WebSocket under a terminal connection: the runtime's own WebSocket
// where there is one (browsers, workers, Node >= 22), else the fallback of
// ws_node.ts on Node's standard library (Node 18 and 20).
import { ConnectionError } from "./base.js";

/** A message or the end of a WebSocket, as a terminal connection sees it. */
export type Frame =
  | { kind: "text"; text: string }
  | { kind: "binary"; data: Uint8Array }
  | { kind: "error"; error: Error }
  | { kind: "end" };

/** Wire is an open WebSocket. */
export interface Wire {
  /** listen sets the one frame callback; frames that came before are handed to it first. */
  listen(fn: (f: Frame) => void): void;
  sendText(s: string): void;
  sendBinary(b: Uint8Array): void;
  close(): void;
}

interface GlobalWebSocket {
  binaryType: string;
  readyState: number;
  send(d: string | Uint8Array): void;
  close(code?: number): void;
  addEventListener(ev: string, fn: (e: { data?: unknown; code?: number }) => void): void;
}
type WebSocketCtor = new (url: string, opts?: unknown) => GlobalWebSocket;

/**
 * dial opens a WebSocket to url carrying the bearer token. The runtime's
 * WebSocket is used when there is one: Node's sends the token as an
 * Authorization header (an option of its WebSocket, not of the standard);
 * a browser cannot send headers, so there the gateway must know the page
 * by its session cookie (the console's login). refused is asked, after a
 * failed upgrade, for the API error that explains it (the standard
 * WebSocket does not show a refused upgrade's answer).
 */
export async function dial(url: string, token: string, refused: () => Promise<Error>): Promise<Wire> {
  const WS = (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
  const headers: Record<string, string> = token ? { Authorization: "Bearer " + token } : {};
  if (!WS) {
    const { dialNode } = await import("./ws_node.js");
    return dialNode(url, headers);
  }
  const wsURL = url.replace(/^http/, "ws");
  const isNode = !!(globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node;
  const ws = isNode ? new WS(wsURL, { headers }) : new WS(wsURL);
  ws.binaryType = "arraybuffer";
  const wire = new GlobalWire(ws);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener("open", () => resolve());
    ws.addEventListener("error", () => {
      if (ws.readyState !== 1) refused().then(reject, reject);
    });
  });
  return wire;
}

class GlobalWire implements Wire {
  private listener?: (f: Frame) => void;
  private pending: Frame[] = [];
  private ended = false;

  constructor(private readonly ws: GlobalWebSocket) {
    ws.addEventListener("message", (e) => {
      if (typeof e.data === "string") this.emit({ kind: "text", text: e.data });
      else this.emit({ kind: "binary", data: new Uint8Array(e.data as ArrayBuffer) });
    });
    ws.addEventListener("close", () => this.emit({ kind: "end" }));
    ws.addEventListener("error", () => {
      if (this.ws.readyState === 1) this.emit({ kind: "error", error: new ConnectionError("WebSocket error") });
    });
  }

  listen(fn: (f: Frame) => void): void {
    this.listener = fn;
    for (const f of this.pending.splice(0)) fn(f);
  }

  private emit(f: Frame): void {
    if (this.ended) return;
    if (f.kind === "end") this.ended = true;
    if (this.listener) this.listener(f);
    else this.pending.push(f);
  }

  sendText(s: string): void {
    if (this.ws.readyState === 1) this.ws.send(s);
  }

  sendBinary(b: Uint8Array): void {
    if (this.ws.readyState === 1) this.ws.send(b);
  }

  close(): void {
    if (this.ws.readyState <= 1) this.ws.close(1000);
  }
}
