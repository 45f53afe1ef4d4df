// The TypeScript runner of the language-neutral scenarios in sdk/conformance:
// each scenario's steps run with @berth/sdk against the stack at BERTH_URL;
// `expect` is compared by the rules sdk/conformance/scenario_test.go
// documents, `expectError` by the error's class, status, retryable and hint.
// Results go to BERTH_CONFORMANCE_RESULTS for the conformance table.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { Berth, BerthError, errorClasses } from "../dist/index.js";
import { stack, restartGateway } from "./stack.mjs";
import { featureStep, unknownOp } from "./conformance_features.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "conformance");
const scenarios = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")));

const results = {};
after(() => {
  if (process.env.BERTH_CONFORMANCE_RESULTS) writeFileSync(process.env.BERTH_CONFORMANCE_RESULTS, JSON.stringify(results));
});

for (const sc of scenarios) {
  test(sc.name, async () => {
    const { url, token } = stack();
    const r = new Runner(new Berth({ url, token }), new Berth({ url, token: "not-the-token" }), sc.name, { url, token });
    try {
      await r.run(sc);
      results[sc.name] = "pass";
    } catch (err) {
      results[sc.name] = "FAIL: " + (err?.message ?? err);
      throw err;
    }
  });
}

function sandboxName(scenario, label) {
  return `ts-${scenario.replaceAll("-", "").slice(0, 12)}-${label}-${randomBytes(3).toString("hex")}`;
}

export function checkExpect(expect, got) {
  for (const k of Object.keys(expect).sort()) {
    const want = expect[k];
    const suffix = ["EndsWith", "MaxLen", "Trimmed", "Include", "AtLeast"].find((s) => k.endsWith(s));
    if (suffix) {
      const base = k.slice(0, -suffix.length);
      const v = got[base];
      const ok = {
        EndsWith: () => typeof v === "string" && v.endsWith(want),
        MaxLen: () => typeof v === "string" && new TextEncoder().encode(v).length <= want,
        Trimmed: () => typeof v === "string" && v.trim() === want,
        Include: () => Array.isArray(v) && want.every((x) => v.map(String).includes(String(x))),
        AtLeast: () => typeof v === "number" && v >= want,
      }[suffix]();
      if (!ok) throw new Error(`${base}: ${JSON.stringify(v)} fails ${suffix} ${JSON.stringify(want)}`);
    } else {
      same(k, want, got[k]);
    }
  }
}

function same(k, want, got) {
  if (want !== null && typeof want === "object" && !Array.isArray(want)) {
    got = got ?? {};
    for (const [kk, wv] of Object.entries(want)) {
      if (wv === null) {
        if (kk in got) throw new Error(`${k}.${kk}: ${JSON.stringify(got[kk])}, want absent`);
        continue;
      }
      same(`${k}.${kk}`, wv, got[kk]);
    }
    return;
  }
  assert.deepStrictEqual(got, want, `${k}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

function checkError(err, want) {
  const Cls = errorClasses[want.code];
  if (!(err instanceof Cls)) throw new Error(`error ${err?.name}: ${err?.message}, want ${Cls.name}`);
  if (!(err instanceof BerthError)) throw new Error(`${err.name} is not a BerthError`);
  if (err.code !== want.code) throw new Error(`code ${err.code}, want ${want.code}`);
  if (want.status !== undefined && err.status !== want.status) throw new Error(`status ${err.status}, want ${want.status}`);
  if (want.retryable !== undefined && err.retryable !== want.retryable) throw new Error(`retryable ${err.retryable}, want ${want.retryable}`);
  if (!err.hint) throw new Error(`${Cls.name} has no hint`);
}

const b64 = (bytes) => Buffer.from(bytes).toString("base64");

function outputMap(o) {
  return { stdout: o.stdout, stderr: o.stderr, exitCode: o.exitCode, timedOut: o.timedOut, truncated: o.truncated };
}

class Runner {
  constructor(client, bad, scenario, stack) {
    Object.assign(this, { c: client, bad, scenario, stack, names: {}, procs: {}, cursors: {}, created: [] });
    Object.assign(this, { terms: {}, conns: {}, etags: {}, tokens: {}, ports: {} });
  }

  name(label) {
    return (this.names[label] ??= sandboxName(this.scenario, label));
  }

  proc(st) {
    if (st.processId) return { p: null, id: st.processId, sb: this.c.sandbox(this.name(st.sandbox)) };
    const p = this.procs[st.process];
    if (!p) throw new Error(`no process ${st.process} in the scenario`);
    return p;
  }

  async run(sc) {
    try {
      for (const [i, st] of sc.steps.entries()) {
        const where = `step ${i + 1} (${st.op})`;
        let got;
        try {
          got = await this.step(st);
        } catch (err) {
          if (st.expectError) {
            try {
              checkError(err, st.expectError);
            } catch (e) {
              throw new Error(`${where}: ${e.message}`);
            }
            continue;
          }
          throw new Error(`${where}: ${err?.name}: ${err?.message}`);
        }
        if (st.expectError) throw new Error(`${where}: no error, want ${st.expectError.code}`);
        if (st.expect) {
          try {
            checkExpect(st.expect, got ?? {});
          } catch (e) {
            throw new Error(`${where}: ${e.message}`);
          }
        }
      }
    } finally {
      for (const t of Object.values(this.conns)) t.conn.close();
      for (const n of this.created) await this.c.sandbox(n).destroy().catch(() => undefined);
    }
  }

  // handle answers the ProcessHandle of a step's process (a stored one, or
  // one for a literal id that the sandbox resolves).
  async handle(st) {
    const h = this.proc(st);
    return h.p ?? h.sb.process(h.id);
  }

  async step(st) {
    let c = st.badToken ? this.bad : this.c;
    if (st.asToken) {
      const t = this.tokens[st.asToken];
      if (!t) throw new Error(`no token ${st.asToken} in the scenario`);
      c = new Berth({ url: this.stack.url, token: t.token });
    }
    const name = this.name(st.sandbox ?? "");
    const sb = c.sandbox(name);
    const ms = (k) => st[k];
    switch (st.op) {
      case "create": {
        const o = st.options ?? {};
        const info = await c.createSandbox(name, {
          keepAlive: o.keepAlive, env: o.env, image: o.image,
          dozeAfter: o.dozeAfter === undefined ? undefined : o.dozeAfter * 1000,
        });
        this.created.push(name);
        return { created: info.created };
      }
      case "info": {
        const info = await sb.info();
        const got = { status: info.status, env: info.env, image: info.image ?? "", hasImageDigest: !!info.imageDigest };
        if (info.egress) got.egress = info.egress;
        return got;
      }
      case "waitStatus": {
        // Polls the state (never thaws or wakes) until the status or timeoutMs.
        const deadline = Date.now() + ms("timeoutMs");
        for (;;) {
          const info = await sb.info();
          if (info.status === st.status || Date.now() > deadline) return { status: info.status };
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      case "sleep":
        await sb.sleep();
        return;
      case "start":
        await sb.start();
        return;
      case "destroy":
        await sb.destroy();
        return;
      case "setEnv":
        await sb.setEnvVars(st.env);
        return;
      case "exec": {
        const p = await sb.exec(st.argv, { cwd: st.cwd, env: st.env, timeout: ms("timeoutMs"), user: st.user });
        if (st.as) this.procs[st.as] = { p, sb };
        const other = st.expect?.idDiffersFrom;
        if (other && this.procs[other].p.id === p.id) throw new Error(`a new process has the id ${p.id} of an earlier one`);
        return { hasPid: p.pid > 0, id: p.id, idDiffersFrom: other };
      }
      case "run":
        return outputMap(await sb.run(st.argv, { cwd: st.cwd, env: st.env, timeout: ms("timeoutMs"), encoding: st.encoding, user: st.user }));
      case "output": {
        const p = await this.handle(st);
        return outputMap(await p.output({ encoding: st.encoding, maxBytes: st.maxBytes, timeout: ms("timeoutMs") }));
      }
      case "status":
      case "waitForExit":
      case "kill": {
        const p = await this.handle(st);
        const info =
          st.op === "status" ? await p.status() : st.op === "waitForExit" ? await p.waitForExit({ timeout: ms("timeoutMs") }) : await p.kill(st.signal);
        const m = { state: info.state, id: info.id };
        if (info.exit) Object.assign(m, { exitCode: info.exit.code, timedOut: info.exit.timedOut });
        return m;
      }
      case "getProcess": {
        const { p, sb: psb } = this.proc(st);
        return { found: (await psb.getProcess(p.id)) !== null };
      }
      case "waitForLog": {
        const m = await (await this.handle(st)).waitForLog(st.pattern, { timeout: ms("timeoutMs") });
        if (st.saveCursor) this.cursors[st.saveCursor] = m.cursor;
        return { line: m.line };
      }
      case "waitForPort":
        await (await this.handle(st)).waitForPort(st.port, { timeout: ms("timeoutMs") });
        return;
      case "writeStdin":
        await (await this.handle(st)).writeStdin(st.text);
        return;
      case "logs":
        return this.logs(st);
      case "writeFile": {
        const fi = await sb.writeFile(st.path, Buffer.from(st.base64, "base64"), { mkdir: st.mkdir });
        return { size: fi.size };
      }
      case "readFile":
        return { base64: b64(await sb.readFile(st.path)) };
      case "stat": {
        const fi = await sb.stat(st.path);
        return { type: fi.type, size: fi.size };
      }
      case "list":
        return { names: (await sb.list(st.path)).map((f) => f.name) };
      case "remove":
        await sb.remove(st.path);
        return;
      case "events": {
        const types = [];
        for await (const ev of sb.events()) types.push(ev.type.split("/").pop());
        return { types };
      }
      case "backup":
        await sb.createBackup();
        return;
      case "listBackups":
        return { count: (await sb.backups()).length };
      case "fork": {
        const to = this.name(st.to);
        await sb.fork(to);
        this.created.push(to);
        return;
      }
      case "getSecret":
        await c.getSecret(this.name(st.secret));
        return;
      case "unexposePort":
        await sb.unexposePort(st.port);
        return;
    }
    const got = await featureStep(this, c, sb, name, st);
    if (got !== unknownOp) return got;
    throw new Error(`unknown op ${st.op}`);
  }

  async logs(st) {
    const p = await this.handle(st);
    const since = this.cursors[st.since] ?? st.since;
    const stream = await p.logs({ since, replay: st.replay ?? true, follow: st.follow ?? false, signal: AbortSignal.timeout(60_000) });
    const out = [];
    const err = [];
    const got = {};
    let n = 0;
    for await (const ev of stream) {
      n++;
      if (ev.type === "stdout") out.push(ev.data);
      else if (ev.type === "stderr") err.push(ev.data);
      else if (ev.type === "exit") got.exitCode = ev.exit.code;
      got.lastType = ev.type;
      if (st.saveCursor) this.cursors[st.saveCursor] = ev.cursor;
      if (n === st.restartGatewayAfter) await restartGateway();
      if (st.take && n >= st.take) break;
    }
    got.stdout = Buffer.concat(out).toString("utf8");
    got.stderr = Buffer.concat(err).toString("utf8");
    got.count = n;
    return got;
  }
}
