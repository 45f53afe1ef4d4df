// Shared by the console's modules: element building, the API call with
// the session's CSRF token, small formatting helpers.
export const state = { session: null };

// h builds an element: h("a", {href: "#"}, "text", child…). Text is
// always set as text, never as HTML: names and output come from sandboxes.
export function h(tag, attrs = {}, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) el.append(k instanceof Node ? k : String(k));
  return el;
}

export function toast(msg, bad = true) {
  const t = document.getElementById("toast");
  t.textContent = msg;
  t.className = bad ? "bad" : "ok";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), 6000);
}

export async function api(method, path, body, opts = {}) {
  const headers = { ...(opts.headers || {}) };
  if (method !== "GET" && method !== "HEAD") headers["X-Berth-CSRF"] = state.session.csrf;
  let payload = body;
  if (body !== undefined && !(body instanceof Blob) && !(body instanceof ArrayBuffer)) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const r = await fetch(path, { method, headers, body: payload, credentials: "same-origin" });
  if (r.status === 401) { location.href = "/ui/login"; throw new Error("signed out"); }
  if (!r.ok) {
    let msg = r.status + " " + r.statusText;
    try { const e = await r.json(); msg = e.error.code + ": " + e.error.message; } catch {}
    throw new Error(msg);
  }
  if (opts.raw) return r;
  if (r.status === 204) return null;
  const ct = r.headers.get("Content-Type") || "";
  return ct.includes("json") ? r.json() : r.text();
}

export const sbPath = (name, ...rest) => "/v1/sandboxes/" + encodeURIComponent(name) + (rest.length ? "/" + rest.join("/") : "");
export const ago = (t) => { if (!t) return ""; const s = (Date.now() - new Date(t)) / 1000; return s < 60 ? Math.round(s) + "s ago" : s < 3600 ? Math.round(s / 60) + "m ago" : s < 86400 ? Math.round(s / 3600) + "h ago" : Math.round(s / 86400) + "d ago"; };
export const act = (fn, ok) => async (ev) => { ev?.preventDefault?.(); try { await fn(); if (ok) toast(ok, false); } catch (e) { toast(e.message); } };

