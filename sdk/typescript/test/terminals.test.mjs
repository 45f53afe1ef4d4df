// Terminals against the real stack, on whichever WebSocket this runtime
// gives the SDK: Node 20 has no global one, so the SDK's own client (on
// node:http and node:crypto) runs; under --experimental-websocket (and in
// Node >= 22) the runtime's. sdk/conformance runs this file both ways.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import { Berth, TerminalNotFoundError, UnauthorizedError } from "../dist/index.js";
import { stack, uniqueName } from "./stack.mjs";

const wire = typeof globalThis.WebSocket === "function" ? "the runtime's WebSocket" : "the SDK's node:http WebSocket";
let client;
let sandbox;
let name;

before(async () => {
  const { url, token } = stack();
  client = new Berth({ url, token });
  name = uniqueName("term");
  await client.createSandbox(name, { keepAlive: true });
  sandbox = client.sandbox(name);
});

after(async () => {
  await client?.sandbox(name).destroy().catch(() => undefined);
});

// until reads a connection's output until it holds text (or it ends).
async function until(it, text, timeoutMs = 20_000) {
  let got = "";
  const timer = setTimeout(() => it.return?.(), timeoutMs);
  try {
    for (;;) {
      const { value, done } = await it.next();
      if (done) break;
      got += Buffer.from(value).toString();
      if (text && got.includes(text)) return got;
    }
  } finally {
    clearTimeout(timer);
  }
  if (text) assert.fail(`no ${JSON.stringify(text)} in ${JSON.stringify(got.slice(-500))}`);
  return got;
}

test(`terminals on ${wire}: type, read, resize, large output, detach, reconnect with replay, exit`, async () => {
  const t = await sandbox.createTerminal({ argv: ["sh"], cols: 80, rows: 24 });
  assert.ok((await sandbox.terminals()).some((x) => x.id === t.id));

  const conn = await sandbox.connectTerminal(t.id);
  const start = conn.cursor;
  assert.ok(start, "the ready frame gives a cursor");
  const it = conn[Symbol.asyncIterator]();
  conn.send("echo hi-$((6*7))\n");
  await until(it, "hi-42");

  conn.resize(100, 30);
  conn.send("stty size\n");
  await until(it, "30 100");

  // Output in frames past 64 KiB (a 64-bit length) arrives whole.
  conn.send("head -c 200000 /dev/zero | tr '\\0' x; echo; echo big-$((1+1))\n");
  const big = await until(it, "big-2");
  assert.ok((big.match(/x/g) ?? []).length >= 200000, "all 200000 bytes arrived");

  // Detach: the terminal keeps running.
  conn.close();
  const listed = (await sandbox.terminals()).find((x) => x.id === t.id);
  assert.equal(listed?.state, "running");

  // Reconnect from the first cursor: everything since is replayed.
  const again = await sandbox.connectTerminal(t.id, { cursor: start });
  const it2 = again[Symbol.asyncIterator]();
  const replay = await until(it2, "big-2");
  assert.match(replay, /hi-42[\s\S]*30 100[\s\S]*big-2/);

  again.send("exit 3\n");
  await until(it2, "");
  assert.equal(again.exitCode, 3);
});

test(`terminals on ${wire}: a refused connection is the API's error`, async () => {
  const { url } = stack();
  const t = await sandbox.createTerminal({ argv: ["sh"] });
  // An id of this container that names no terminal (one of an earlier
  // container is STALE_PROCESS_HANDLE).
  await assert.rejects(sandbox.connectTerminal(t.id.replace(/-\d+$/, "-999999")), TerminalNotFoundError);
  await assert.rejects(new Berth({ url, token: "not-the-token" }).sandbox(name).connectTerminal(t.id), UnauthorizedError);
  await sandbox.closeTerminal(t.id);
});
