// The SDK's methods beyond the shared scenarios, against the real stack.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";

import {
  Berth,
  BerthError,
  ConnectionError,
  getSandbox,
  ProcessExitedError,
  SandboxNotFoundError,
  WaitTimeoutError,
  ValidationError,
} from "../dist/index.js";
import { stack, uniqueName } from "./stack.mjs";

let client;
let sandbox;
let name;

before(async () => {
  const { url, token } = stack();
  client = new Berth({ url, token });
  name = uniqueName("sdk");
  const info = await client.createSandbox(name, { env: { GREETING: "hi" } });
  assert.equal(info.created, true);
  assert.equal(info.name, name);
  sandbox = getSandbox(client, name);
});

after(async () => {
  await client?.sandbox(name).destroy().catch(() => undefined);
});

test("an AbortSignal ends only the wait: the process keeps running", async () => {
  const p = await sandbox.exec(["sh", "-c", "sleep 2; echo done"]);
  await assert.rejects(p.waitForExit({ signal: AbortSignal.timeout(200) }), (err) => err.name === "TimeoutError" || err.name === "AbortError");
  assert.equal((await p.status()).state, "running");
  const out = await p.output();
  assert.equal(out.stdout, "done\n");
});

test("an AbortSignal ends a follow stream, not the process", async () => {
  const p = await sandbox.exec(["sh", "-c", "echo start; sleep 3; echo end"]);
  const ac = new AbortController();
  const stream = await p.logs({ follow: true, signal: ac.signal });
  const seen = [];
  await assert.rejects(
    (async () => {
      for await (const ev of stream) {
        seen.push(ev.text);
        ac.abort();
      }
    })(),
  );
  assert.deepEqual(seen, ["start\n"]);
  assert.ok(stream.cursor, "the stream keeps the latest cursor");
  assert.equal((await p.status()).state, "running");
  // The stored cursor resumes the same process later.
  const rest = [];
  for await (const ev of await p.logs({ since: stream.cursor, follow: true })) rest.push(ev.type === "exit" ? "exit" : ev.text);
  assert.deepEqual(rest, ["end\n", "exit"]);
});

test("waitForLog, waitForPort's timeout, kill", async () => {
  const p = await sandbox.exec(["sh", "-c", "echo booting; echo ready >&2; sleep 60"]);
  const m = await p.waitForLog(/rea+dy/, { stream: "stderr", timeout: 10_000 });
  assert.equal(m.line, "ready");
  assert.equal(m.stream, "stderr");
  await assert.rejects(p.waitForPort(4321, { timeout: 300 }), WaitTimeoutError);
  const killed = await p.kill("KILL");
  assert.ok(["running", "exited"].includes(killed.state));
  const exit = await p.waitForExit({ timeout: 10_000 });
  assert.equal(exit.exit.code, 137);
  await assert.rejects(p.waitForPort(4321, { timeout: 1000 }), ProcessExitedError);
});

test("stdin pipe", async () => {
  const p = await sandbox.exec(["sh", "-c", "read line; echo got:$line"], { stdin: "pipe" });
  assert.equal(await p.writeStdin("hello\n"), 6);
  await p.closeStdin();
  assert.equal((await p.output()).stdout, "got:hello\n");
});

test("the sandbox env, setEnvVars and per-exec env", async () => {
  assert.equal((await sandbox.run(["sh", "-c", "echo $GREETING"])).stdout, "hi\n");
  const info = await sandbox.setEnvVars({ GREETING: "hello", OTHER: "x" });
  assert.equal(info.env.GREETING, "hello");
  const r = await sandbox.run(["sh", "-c", "echo $GREETING $OTHER"], { env: { OTHER: null } });
  assert.equal(r.stdout, "hello\n");
});

test("listProcesses and getProcess", async () => {
  const p = await sandbox.exec(["sleep", "30"]);
  const list = await sandbox.listProcesses();
  assert.ok(list.some((q) => q.id === p.id && q.pid === p.pid));
  const again = await sandbox.getProcess(p.id);
  assert.equal(again.info.command.join(" "), "sleep 30");
  await p.kill();
});

test("files: write, read, stat, list, move, mkdir, remove, exists, streams, archive", async () => {
  const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256);
  const fi = await sandbox.writeFile("/workspace/t/a.bin", bytes, { mkdir: true, mode: "0600" });
  assert.equal(fi.size, bytes.length);
  assert.equal(fi.mode, "0600");
  assert.deepEqual(await sandbox.readFile("/workspace/t/a.bin"), bytes);
  // A streamed upload and a streamed read.
  const body = new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode("streamed "));
      c.enqueue(new TextEncoder().encode("text"));
      c.close();
    },
  });
  await sandbox.writeFile("/workspace/t/s.txt", body);
  const chunks = [];
  for await (const chunk of await sandbox.readStream("/workspace/t/s.txt")) chunks.push(chunk);
  assert.equal(Buffer.concat(chunks).toString(), "streamed text");
  assert.equal(await sandbox.readText("/workspace/t/s.txt"), "streamed text");
  await sandbox.mkdir("/workspace/t/sub/deeper");
  const moved = await sandbox.move("/workspace/t/s.txt", "/workspace/t/sub/s.txt");
  assert.equal(moved.path, "/workspace/t/sub/s.txt");
  assert.equal(await sandbox.exists("/workspace/t/s.txt"), false);
  assert.equal(await sandbox.exists("/workspace/t/sub/s.txt"), true);
  const names = (await sandbox.list("/workspace/t", { recursive: true })).map((f) => f.path).sort();
  assert.deepEqual(names, ["/workspace/t/a.bin", "/workspace/t/sub", "/workspace/t/sub/deeper", "/workspace/t/sub/s.txt"]);
  assert.equal((await sandbox.stat("/workspace/t/sub")).type, "directory");
  // A tree round trip through tar.
  const chunks2 = [];
  for await (const chunk of await sandbox.downloadArchive("/workspace/t")) chunks2.push(chunk);
  const tar = Buffer.concat(chunks2);
  await sandbox.uploadArchive("/workspace/copy", new Uint8Array(tar));
  assert.deepEqual(await sandbox.readFile("/workspace/copy/a.bin"), bytes);
  await sandbox.remove("/workspace/t", { recursive: true });
  assert.equal(await sandbox.exists("/workspace/t"), false);
});

test("events: the sandbox's and the catalogue's, and follow", async () => {
  const types = [];
  for await (const ev of sandbox.events()) types.push(ev.type.split("/").pop());
  assert.ok(types.includes("created") && types.includes("started"), types.join(","));
  let mine = false;
  for await (const ev of client.events()) if (ev.type.endsWith("/create-requested") && ev.payload.path === name) mine = true;
  assert.ok(mine, "the catalogue has this sandbox's claim");
  // Following: a configured event arrives while we wait.
  const ac = new AbortController();
  const last = (await collect(sandbox.events())).at(-1).offset;
  const got = (async () => {
    for await (const ev of sandbox.events({ after: last, follow: true, signal: ac.signal })) {
      if (ev.type.endsWith("/configured")) return ev;
    }
  })();
  await sandbox.setEnvVars({ FOLLOWED: "1" });
  const ev = await got;
  ac.abort();
  assert.ok(ev.offset > last);
});

async function collect(it) {
  const out = [];
  for await (const x of it) out.push(x);
  return out;
}

test("backups, ports and lifecycle", async () => {
  const b = await sandbox.createBackup();
  assert.match(b.backupId, /^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
  assert.ok((await sandbox.backups()).some((x) => x.backupId === b.backupId));
  const port = await sandbox.exposePort(8080);
  assert.equal(port.port, 8080);
  assert.ok(port.url && port.pathUrl);
  assert.ok((await sandbox.ports()).some((x) => x.port === 8080));
  await sandbox.unexposePort(8080);
  assert.equal((await sandbox.update({ keepAlive: true })).keepAlive, true);
  const list = await client.listSandboxes();
  assert.ok(list.some((s) => s.name === name));
});

test("errors: classes, hints, retryable; a wrong URL is a ConnectionError", async () => {
  const ghost = client.sandbox(uniqueName("ghost"));
  const err = await ghost.info().catch((e) => e);
  assert.ok(err instanceof SandboxNotFoundError && err instanceof BerthError);
  assert.equal(err.status, 404);
  assert.equal(err.retryable, false);
  assert.match(err.hint, /create it/);
  const bad = await sandbox.exec([]).catch((e) => e);
  assert.ok(bad instanceof ValidationError, String(bad));
  const down = new Berth({ url: "http://127.0.0.1:1", token: "x" });
  const cerr = await down.listSandboxes().catch((e) => e);
  assert.ok(cerr instanceof ConnectionError);
  assert.equal(cerr.retryable, true);
});

