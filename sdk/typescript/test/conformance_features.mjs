// The TypeScript runner's operations on terminals, services, egress,
// previews, scoped tokens, stats and conditional file reads (the rest are
// in conformance.test.mjs).
import { randomBytes } from "node:crypto";

export const unknownOp = Symbol("unknown op");

// TermReader pumps a terminal connection's output into a queue, so that a
// read can stop at a deadline without ending the connection's iterator.
class TermReader {
  constructor(conn) {
    this.conn = conn;
    this.chunks = [];
    this.ended = false;
    this.wake = undefined;
    (async () => {
      try {
        for await (const b of conn) this.push(b);
      } catch (err) {
        this.error = err;
      }
      this.ended = true;
      this.push(undefined);
    })();
  }

  push(b) {
    if (b) this.chunks.push(b);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  // read reads until the output holds until (with until empty: until the
  // output ends), within timeoutMs.
  async read(until, timeoutMs) {
    // A replay arrives in one chunk: what follows the text waited for is
    // kept for the next read.
    let got = this.rest ?? "";
    this.rest = "";
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.chunks.length) got += Buffer.from(this.chunks.shift()).toString("utf8");
      const i = until ? got.indexOf(until) : -1;
      if (i >= 0) {
        this.rest = got.slice(i + until.length);
        return { matched: true };
      }
      if (this.ended) {
        if (until) throw new Error(`the terminal's output ended without ${JSON.stringify(until)}: ${JSON.stringify(got)}`);
        return { matched: false };
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${JSON.stringify(until)} in the terminal's output within ${timeoutMs} ms: ${JSON.stringify(got)}`);
      await new Promise((r) => {
        const timer = setTimeout(r, left);
        this.wake = () => {
          clearTimeout(timer);
          r();
        };
      });
    }
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function featureStep(r, c, sb, name, st) {
  switch (st.op) {
    case "createTerminal": {
      const t = await sb.createTerminal({ argv: st.argv, cols: st.cols, rows: st.rows });
      r.terms[st.as] = t;
      return;
    }
    case "connectTerminal": {
      const t = r.terms[st.terminal];
      if (!t) throw new Error(`no terminal ${st.terminal} in the scenario`);
      const conn = await sb.connectTerminal(t.id, { cursor: r.cursors[st.since] });
      if (st.saveCursor) r.cursors[st.saveCursor] = conn.cursor;
      r.conns[st.as] = new TermReader(conn);
      return { hasCursor: !!conn.cursor };
    }
    case "terminalSend":
    case "terminalResize":
    case "terminalRead":
    case "terminalDetach": {
      const t = r.conns[st.conn];
      if (!t) throw new Error(`no terminal connection ${st.conn} in the scenario`);
      if (st.op === "terminalSend") return void t.conn.send(st.text);
      if (st.op === "terminalResize") return void t.conn.resize(st.cols, st.rows);
      if (st.op === "terminalDetach") {
        delete r.conns[st.conn];
        return void t.conn.close();
      }
      const got = await t.read(st.until, st.timeoutMs);
      if (t.conn.exitCode !== undefined) got.exitCode = t.conn.exitCode;
      return got;
    }
    case "setService":
      await sb.setService(st.service, { argv: st.argv, restart: st.restart });
      return;
    case "services": {
      const res = await sb.services();
      return { names: (res.services ?? res).map((s) => s.name) };
    }
    case "waitService": {
      const deadline = Date.now() + st.timeoutMs;
      for (;;) {
        const res = await sb.services();
        const s = (res.services ?? res).find((x) => x.name === st.service);
        const got = s ? { state: s.state ?? "", hasProcessId: !!s.processId } : { state: "" };
        if (got.state === st.state || Date.now() > deadline) return got;
        await sleep(200);
      }
    }
    case "setEgress":
      await sb.setEgress(st.policy);
      return;
    case "exposePort": {
      const p = await sb.exposePort(st.port);
      r.ports[`${name}/${p.port}`] = p;
      return { port: p.port, public: p.public, hasToken: !!p.token };
    }
    case "fetchPreview": {
      const p = r.ports[`${name}/${st.port}`];
      if (!p) throw new Error(`port ${st.port} of ${st.sandbox} was not exposed in the scenario`);
      // As a browser-less caller: the port's preview token, no bearer token.
      const headers = st.withoutToken ? {} : { "X-Berth-Preview-Token": p.token };
      const resp = await fetch(p.pathUrl.replace(/\/$/, "") + st.path, { headers });
      return { status: resp.status, body: await resp.text() };
    }
    case "createToken": {
      const t = await c.createToken(`ts-${st.token}-${randomBytes(3).toString("hex")}`, {
        sandboxes: st.sandboxes.map((l) => r.name(l)),
        scopes: st.scopes,
        ttl: st.ttlSeconds * 1000,
      });
      r.tokens[st.token] = t;
      return { scopes: t.scopes, hasValue: !!t.token };
    }
    case "listTokens": {
      const want = r.tokens[st.token];
      const t = (await c.listTokens()).find((x) => x.id === want?.id);
      return { listed: !!t, valueShown: !!t?.token };
    }
    case "revokeToken":
      await c.revokeToken(r.tokens[st.token].id);
      return;
    case "stats": {
      const s = await sb.stats();
      const got = { status: s.status, live: s.live, hasCpu: !!s.cpu, hasMemory: !!s.memory };
      if (s.pids) got.pids = s.pids.current;
      return got;
    }
    case "readFileConditional": {
      // The API's own request: the SDK has no conditional read.
      const headers = { Authorization: `Bearer ${r.stack.token}` };
      if (st.ifNoneMatch) headers["If-None-Match"] = r.etags[st.ifNoneMatch];
      const u = `${r.stack.url}/v1/sandboxes/${encodeURIComponent(name)}/files/${st.path.replace(/^\//, "")}`;
      const resp = await fetch(u, { headers });
      const body = Buffer.from(await resp.arrayBuffer());
      if (resp.status >= 400) throw new Error(`GET ${st.path}: ${resp.status} ${body}`);
      const etag = resp.headers.get("etag") ?? "";
      if (st.saveEtag) r.etags[st.saveEtag] = etag;
      return { status: resp.status, base64: body.toString("base64"), hasEtag: !!etag };
    }
  }
  return unknownOp;
}
