// The code samples of the process model Berth implements (the TypeScript
// SDK documentation it was designed from), copied as they are written there
// and run against the real stack. Only the acquisition of `sandbox` differs:
// there `getSandbox(env.Sandbox, "user-123")` finds a sandbox whose image
// has Node and bash; here the test creates a sandbox, installs the host's
// node, npm and bash into it (the test image is busybox), writes a small app
// into /workspace/app, and calls getSandbox(client, name).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";

import { Berth, getSandbox, StaleProcessHandleError } from "../dist/index.js";
import { stack, uniqueName } from "./stack.mjs";

let client;
let sandbox;
let name;

// installNode uploads the host's node, npm and bash with the libraries they
// load, as one tar into the sandbox's root: the stand-in for an image with
// Node.
async function installNode(sb) {
  for (const need of ["/usr/bin/node", "/usr/bin/npm", "/usr/lib/node_modules/npm", "/bin/bash", "/usr/bin/env"]) {
    if (!existsSync(need)) throw new Error(`the seed's samples need the host's ${need} (Node with its bundled npm, bash) to install into the sandbox`);
  }
  const node = realpathSync("/usr/bin/node");
  const libs = new Set();
  for (const bin of [node, "/bin/bash", "/usr/bin/env"]) {
    for (const line of execFileSync("ldd", [bin], { encoding: "utf8" }).split("\n")) {
      const m = line.match(/(\/\S+) \(0x/);
      if (m) libs.add(m[1]);
    }
  }
  const rel = (list) => list.map((p) => p.replace(/^\//, ""));
  // The binaries (env: npm's #!/usr/bin/env node) and libraries with their symlinks followed (-h) ...
  const bins = execFileSync("tar", ["-chf", "-", "-C", "/", ...rel([node, "/bin/bash", "/usr/bin/env", ...libs])], { maxBuffer: 512 << 20 });
  await sb.uploadArchive("/", new Uint8Array(bins));
  // ... and npm as it is, with /usr/bin/npm a symlink into its tree.
  const npm = execFileSync("tar", ["-cf", "-", "-C", "/", ...rel(["/usr/lib/node_modules/npm", "/usr/bin/npm"])], { maxBuffer: 512 << 20 });
  await sb.uploadArchive("/", new Uint8Array(npm));
}

before(async () => {
  const { url, token } = stack();
  client = new Berth({ url, token });
  name = uniqueName("seed");
  // An image with Node would have /usr/bin on its PATH; the test image's is /bin.
  await client.createSandbox(name, { keepAlive: true, env: { PATH: "/usr/local/bin:/usr/bin:/bin" } });
  sandbox = getSandbox(client, name);
  await installNode(sandbox);
  await sandbox.writeFile("/workspace/app/package.json", JSON.stringify({ name: "app", version: "1.0.0", scripts: { test: "node test.js" } }), { mkdir: true });
  await sandbox.writeFile("/workspace/app/test.js", 'console.log("tests passed with NODE_ENV=" + process.env.NODE_ENV);\n');
  await sandbox.writeFile(
    "/workspace/app/server.js",
    'require("http").createServer((q, s) => s.end("ok")).listen(3000, () => console.log("listening on 3000"));\n',
  );
});

after(async () => {
  await client?.sandbox(name).destroy().catch(() => undefined);
});

test("seed: argv for a single binary", async () => {
  const process = await sandbox.exec(["node", "--version"]);
  const output = await process.output({ encoding: "utf8" });

  console.log(`# node --version in the sandbox: ${JSON.stringify(output)}`);
  assert.equal(output.exitCode, 0);
  assert.match(output.stdout, /^v\d+\.\d+\.\d+\n$/);
  assert.equal(output.stdout, execFileSync("/usr/bin/node", ["--version"], { encoding: "utf8" }), "the sandbox runs the node it was given");
});

test("seed: an explicit shell for shell syntax", async () => {
  const process = await sandbox.exec([
    "/bin/bash",
    "-lc",
    "cd /workspace/app && npm test",
  ]);

  const output = await process.output({ encoding: "utf8" });
  console.log(`# bash -lc 'cd /workspace/app && npm test': exit ${output.exitCode}\n${output.stdout.replace(/^/gm, "#   ")}`);
  assert.equal(output.exitCode, 0, output.stderr);
  assert.match(output.stdout, /tests passed with NODE_ENV=undefined/);
});

test("seed: cwd and env at launch", async () => {
  const process = await sandbox.exec(["npm", "test"], {
    cwd: "/workspace/app",
    env: { NODE_ENV: "test" },
  });

  const output = await process.output({ encoding: "utf8" });
  assert.equal(output.exitCode, 0, output.stderr);
  assert.match(output.stdout, /tests passed with NODE_ENV=test/);
});

test("seed: logs from the start, keeping the latest cursor; resume the same process later", async () => {
  const started = await sandbox.exec(["sh", "-c", "echo building; sleep 1; echo built"]);

  // The first request: read from the start and store the latest cursor.
  let storedCursor;
  {
    const process = started;
    const stream = await process.logs({ follow: true, replay: true });
    // each data/terminal event includes a cursor — store the latest
    for await (const ev of stream) {
      storedCursor = ev.cursor;
      break;
    }
  }
  const storedProcessId = started.id;

  // A later request: the seed's case 1, same container, same process.
  const seen = [];
  async function laterRequest() {
    const process = await sandbox.getProcess(storedProcessId);
    if (process) {
      const stream = await process.logs({
        since: storedCursor,
        replay: true,
        follow: true,
      });
      // consume events; keep the latest cursor from each event
      for await (const ev of stream) {
        seen.push(ev.type === "exit" ? "exit" : ev.text);
        storedCursor = ev.cursor;
      }
      return;
    }
    throw new Error("the process is in the same container: getProcess must find it");
  }
  await laterRequest();
  assert.deepEqual(seen, ["built\n", "exit"], "resumed after the stored cursor: no gap, no duplicate");
});

test("seed: relaunch from the stored command, then wait for the port", async () => {
  const storedCommand = ["node", "server.js"];
  const storedCwd = "/workspace/app";
  const storedEnv = { NODE_ENV: "production" };

  const process = await sandbox.exec(storedCommand, {
    cwd: storedCwd,
    env: storedEnv,
  });
  // persist process.id (and clear any old cursor)
  await process.waitForPort(3000, { timeout: 60_000 });

  const check = await sandbox.run(["sh", "-c", "wget -qO- http://127.0.0.1:3000/"]);
  assert.equal(check.stdout, "ok");
  await process.kill();
});

test("seed: continueJob across a container replacement", async () => {
  async function continueJob(sandbox, job) {
    if (job.processId) {
      const existing = await sandbox.getProcess(job.processId);
      if (existing) {
        return existing; // Case 1 — same container, same process
      }
      // null: no container, or this ID is not in the current container
    }

    // Case 2 — relaunch from stored command and checkpoint
    const process = await sandbox.exec(job.command, {
      cwd: job.cwd,
      env: job.env,
    });
    job.processId = process.id;
    job.cursor = undefined;
    return process;
  }

  const job = { command: ["sh", "-c", "echo working; sleep 600"], cwd: "/workspace", env: { JOB: "1" } };
  const first = await continueJob(sandbox, job);
  const again = await continueJob(sandbox, job);
  assert.equal(again.id, first.id, "case 1: the same process while its container lives");

  // The container goes away (sleep); the old handle fails closed, and the
  // job relaunches in the next container.
  await sandbox.sleep();
  await assert.rejects(first.output(), StaleProcessHandleError);
  const relaunched = await continueJob(sandbox, job);
  assert.notEqual(relaunched.id, first.id, "case 2: a new process in the new container");
  assert.equal(job.processId, relaunched.id);
  assert.equal((await relaunched.status()).state, "running");
  await relaunched.kill("KILL");
});
