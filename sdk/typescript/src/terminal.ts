import { ConnectionError } from "./base.js";
import { type Frame, type Wire, dial } from "./wire.js";

/**
 * A TerminalConnection is an attached PTY session: binary WebSocket frames
 * are its input and output bytes; JSON text frames carry `ready {cursor}`
 * (first), `cursor {cursor}` (after each output chunk), `resize {cols,
 * rows}` and `exit {code}`. Iterate it for output; `cursor` is where a
 * later connectTerminal(id, { cursor }) resumes, replaying what was missed.
 *
 * It runs on the runtime's WebSocket, or on Node 18 and 20 (which have
 * none) on a client written on Node's http and crypto modules (wire.ts).
 */
export class TerminalConnection implements AsyncIterable<Uint8Array> {
  cursor = "";
  exitCode?: number;
  private queue: Frame[] = [];
  private waiting?: () => void;
  private done = false;

  /** @internal */
  constructor(private readonly wire: Wire) {
    wire.listen((f) => {
      this.queue.push(f);
      const w = this.waiting;
      this.waiting = undefined;
      w?.();
    });
  }

  /** send writes input (bytes, or text as UTF-8). */
  send(data: string | Uint8Array): void {
    this.wire.sendBinary(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** resize changes the terminal's size. */
  resize(cols: number, rows: number): void {
    this.wire.sendText(JSON.stringify({ type: "resize", cols, rows }));
  }

  /** close detaches (the terminal keeps running; closeTerminal ends it). */
  close(): void {
    this.done = true;
    this.wire.close();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const f = await this.next();
      if (!f || f.kind === "end") return;
      if (f.kind === "error") throw f.error;
      if (f.kind === "binary") {
        yield f.data;
        continue;
      }
      const msg = JSON.parse(f.text) as { type?: string; code?: number; cursor?: string };
      if (msg.cursor) this.cursor = msg.cursor;
      if (msg.type === "exit") {
        this.exitCode = msg.code;
        this.close();
        return;
      }
    }
  }

  /** @internal: the next frame; undefined once closed here. */
  async next(): Promise<Frame | undefined> {
    while (this.queue.length === 0) {
      if (this.done) return undefined;
      await new Promise<void>((r) => (this.waiting = r));
    }
    return this.queue.shift();
  }
}

/**
 * connectTerminal opens the WebSocket and waits for its ready frame.
 * refused answers the API error behind a refused upgrade.
 */
export async function connectTerminal(url: string, token: string, refused: () => Promise<Error>): Promise<TerminalConnection> {
  const conn = new TerminalConnection(await dial(url, token, refused));
  const first = await conn.next();
  const msg = first?.kind === "text" ? (JSON.parse(first.text) as { type?: string; cursor?: string }) : undefined;
  if (msg?.type !== "ready") {
    conn.close();
    if (first?.kind === "error") throw first.error;
    throw new ConnectionError("the terminal connection did not start with a ready frame");
  }
  conn.cursor = msg.cursor ?? "";
  return conn;
}
