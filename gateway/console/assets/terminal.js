// The sandbox page's terminal: xterm.js over the gateway's terminal
// WebSocket. A dropped socket reconnects with the cursor of the last byte
// shown, so the supervisor replays exactly what was missed.
import { h, api, sbPath, act } from "./lib.js";

// Cursors are tc-<tag>-<n>-<offset>, offset the byte offset in the
// terminal's output.
function advance(cursor, bytes) {
  const i = cursor.lastIndexOf("-");
  const off = Number(cursor.slice(i + 1));
  return i < 0 || !Number.isSafeInteger(off) ? cursor : cursor.slice(0, i + 1) + (off + bytes);
}

// xterm.js (370 KB) loads when a terminal first opens, not with the page.
let xterm = null;
function loadXterm() {
  if (window.Terminal) return Promise.resolve();
  return (xterm ??= new Promise((ok, fail) => {
    const s = document.createElement("script");
    s.src = "/ui/assets/xterm/xterm.js";
    s.onload = ok;
    s.onerror = () => { xterm = null; fail(new Error("xterm.js did not load")); };
    document.head.append(s);
  }));
}

export function terminalView(name, el, onLeave) {
  const box = h("div", { id: "term", class: "term" });
  const state = h("small", { id: "term-state" }, "closed");
  const open = h("button", { id: "term-open" }, "Open terminal");
  const reconnect = h("button", { id: "term-reconnect", hidden: true, title: "Drop the connection and resume where it left off" }, "Reconnect");
  el.replaceChildren(h("h3", {}, "Terminal ", state), h("div", { class: "row" }, open, reconnect), box);
  let ws = null, id = null, cursor = "", term = null, closed = false, decoder = new TextDecoder();
  let connects = 0;
  const connect = () => {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const q = new URLSearchParams({ cols: term.cols, rows: term.rows });
    if (cursor) q.set("cursor", cursor);
    const sock = new WebSocket(proto + "//" + location.host + sbPath(name, "terminals", id, "connect") + "?" + q);
    ws = sock;
    sock.binaryType = "arraybuffer";
    sock.onopen = () => {
      connects++;
      el.dataset.connects = String(connects);
      state.textContent = "connected";
    };
    sock.onmessage = (m) => {
      if (typeof m.data !== "string") {
        // The cursor moves with every byte shown: a drop between a chunk
        // and its cursor frame must not replay the chunk.
        if (cursor) cursor = advance(cursor, m.data.byteLength);
        term.write(decoder.decode(m.data, { stream: true }));
        return;
      }
      const f = JSON.parse(m.data);
      if (f.cursor) cursor = f.cursor;
      if (f.type === "exit") { state.textContent = "exited " + (f.code ?? ""); closed = true; reconnect.hidden = true; }
    };
    sock.onclose = () => {
      if (closed || sock !== ws) return;
      state.textContent = "reconnecting…";
      setTimeout(() => !closed && sock === ws && connect(), 1000);
    };
  };
  open.addEventListener("click", act(async () => {
    open.disabled = true;
    await loadXterm();
    term = new window.Terminal({ cols: 100, rows: 24, rendererType: "dom" });
    term.open(box);
    try { window.XtermFit.fit(term); } catch {}
    const t = await api("POST", sbPath(name, "terminals"), { cols: term.cols, rows: term.rows });
    id = t.id;
    term.on("data", (d) => ws && ws.readyState === 1 && ws.send(new TextEncoder().encode(d)));
    term.on("resize", ({ cols, rows }) => ws && ws.readyState === 1 && ws.send(JSON.stringify({ type: "resize", cols, rows })));
    const fit = () => { try { window.XtermFit.fit(term); } catch {} };
    window.addEventListener("resize", fit);
    connect();
    reconnect.hidden = false;
    term.focus();
    onLeave(() => { closed = true; window.removeEventListener("resize", fit); ws && ws.close(); });
  }));
  // Dropping the socket takes the same way back as a network failure.
  reconnect.addEventListener("click", () => ws && ws.close());
}
