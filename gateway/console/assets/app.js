// The Berth console: plain ES module, no build step. Every call goes to
// the gateway's /v1 API with the session cookie; state-changing calls add
// the CSRF token from /ui/session.
import { state, h, api, sbPath, ago, act } from "./lib.js";
import { envView, egressView, servicesView } from "./settings.js";
import { terminalView } from "./terminal.js";

const app = document.getElementById("app");
let session = null;

const EVENT_TYPES = ["create-requested", "created", "start-requested", "started", "workspace-restored",
  "sleep-requested", "backup-created", "backup-failed", "stopped", "configured", "kill-requested",
  "destroy-requested", "destroyed", "egress-policy-changed", "egress-refused", "services-changed",
  "ports-changed", "host-lost", "workspace-rolled-back", "image-pulling", "start-failed"]
  .map((t) => "events.iterate.com/sandbox/" + t);

// cleanup holds what the current page must close when the route changes.
let cleanup = [];
function leave() { for (const f of cleanup) try { f(); } catch {} cleanup = []; }

// ---- sandbox list -------------------------------------------------------
async function listPage() {
  const filter = h("input", { type: "search", id: "filter", placeholder: "filter by name, status, host, image" });
  const body = h("tbody");
  const name = h("input", { id: "new-name", placeholder: "name", required: true, pattern: "[a-z0-9][a-z0-9-]{0,62}" });
  const type = h("input", { id: "new-type", placeholder: "instance type (basic)" });
  const create = h("form", { class: "row", id: "create", onsubmit: act(async () => {
    await api("POST", "/v1/sandboxes", { name: name.value, ...(type.value ? { instanceType: type.value } : {}) });
    location.hash = "#/s/" + name.value;
  }, "created") }, name, type, h("button", { type: "submit", id: "create-btn" }, "Create"));
  app.replaceChildren(h("h2", {}, "Sandboxes"), create, filter,
    h("table", { id: "sandboxes" }, h("thead", {}, h("tr", {}, ["Name", "Status", "Type", "Image", "Host", "Last activity", "Egress", ""].map((c) => h("th", {}, c)))), body));
  let rows = [];
  const render = () => {
    const q = filter.value.toLowerCase();
    const shown = rows.filter((s) => !q || [s.name, s.status, s.host, s.image, s.instanceType].some((v) => (v || "").toLowerCase().includes(q)));
    body.replaceChildren(...shown.map((s) => h("tr", { "data-name": s.name },
      h("td", {}, h("a", { href: "#/s/" + encodeURIComponent(s.name) }, s.name)),
      h("td", {}, h("span", { class: "status " + s.status }, s.status)), h("td", {}, s.instanceType), h("td", {}, s.image || "default"),
      h("td", {}, s.host || ""), h("td", { title: s.updatedAt }, ago(s.updatedAt)), h("td", {}, s.egress?.mode || "open"),
      h("td", { class: "actions" }, lifecycleButtons(s, refresh)))));
  };
  const refresh = async () => { rows = await api("GET", "/v1/sandboxes"); render(); };
  filter.addEventListener("input", render);
  let stopped = false, timer = 0;
  cleanup.push(() => { stopped = true; clearTimeout(timer); });
  // A long list paints its first page (the latest started) before asking
  // for the whole list, sorted by name: the two listings would otherwise
  // share the visibility store and the first would wait on the second.
  try {
    rows = await api("GET", "/v1/sandboxes?limit=100");
    render();
    body.dataset.page = "first";
  } catch {}
  if (stopped) return;
  await refresh();
  body.dataset.page = "all";
  // Polling a long list costs its listing each time: less often then.
  const poll = () => {
    timer = setTimeout(() => refresh().catch(() => {}).finally(() => !stopped && poll()), rows.length > 300 ? 15000 : 3000);
  };
  if (!stopped) poll();
}

function lifecycleButtons(s, after) {
  const op = (label, method, path, ok, confirmText) => h("button", { "data-op": label, onclick: act(async () => {
    if (confirmText && !confirm(confirmText)) return;
    await api(method, path);
    await after();
  }, ok) }, label);
  const fork = h("button", { "data-op": "fork", onclick: act(async () => {
    const n = prompt("Name of the fork of " + s.name);
    if (!n) return;
    await api("POST", "/v1/sandboxes", { name: n, from: { sandbox: s.name } });
    await after();
  }, "forked") }, "fork");
  return [op("start", "POST", sbPath(s.name, "start"), "started"), op("sleep", "POST", sbPath(s.name, "sleep"), "asleep"), fork,
    op("destroy", "DELETE", sbPath(s.name), "destroyed", "Destroy " + s.name + "? Its container and volume go; the name is never reused.")];
}

// ---- sandbox page -------------------------------------------------------
async function sandboxPage(name) {
  const s = await api("GET", sbPath(name));
  let reloadServices = async () => {};
  const head = h("div", { class: "row" }, h("h2", {}, s.name), h("span", { class: "status " + s.status, id: "status" }, s.status));
  const refresh = async () => {
    const v = await api("GET", sbPath(name));
    document.getElementById("status").textContent = v.status;
    document.getElementById("status").className = "status " + v.status;
    document.getElementById("info-host").textContent = v.host || "—";
    clearTimeout(refresh.backups);
    refresh.backups = setTimeout(() => { backupsView(name, sections.backups); reloadServices().catch(() => {}); }, 500);
  };
  const temporal = session.temporalUI ? h("a", { target: "_blank", rel: "noopener",
    href: session.temporalUI + "/namespaces/" + encodeURIComponent(session.namespace || "default") + "/workflows/" + encodeURIComponent("sandbox/" + name) }, "Workflow in the Temporal UI") : null;
  const dl = h("dl", { class: "info" }, ...[["Type", s.instanceType], ["Image", s.image || "default"], ["Host", s.host || "—"],
    ["Sleep after", s.sleepAfter + (s.keepAlive ? " (keep-alive)" : "")], ["Egress", s.egress?.mode || "open"], ["Created", s.createdAt]]
    .flatMap(([k, v]) => [h("dt", {}, k), h("dd", { id: "info-" + k.toLowerCase().replace(/ /g, "-") }, v)]));
  const changed = (v) => (document.getElementById("info-egress").textContent = v.egress?.mode || "open");
  const sections = {
    events: h("section", { id: "events" }),
    terminal: h("section", { id: "terminal" }),
    processes: h("section", { id: "processes" }),
    files: h("section", { id: "files" }),
    env: h("section", { id: "env" }),
    egress: h("section", { id: "egress" }),
    ports: h("section", { id: "ports" }),
    services: h("section", { id: "services" }),
    backups: h("section", { id: "backups" }),
  };
  app.replaceChildren(head, h("div", { class: "row" }, lifecycleButtons(s, refresh), temporal), dl,
    h("div", { class: "grid" }, Object.values(sections)));
  eventsView(name, sections.events, refresh);
  terminalView(name, sections.terminal, (f) => cleanup.push(f));
  processesView(name, sections.processes);
  filesView(name, sections.files, "/workspace");
  envView(s, sections.env, changed);
  egressView(s, sections.egress, changed);
  portsView(name, sections.ports);
  // A service's state changes without an event (it starts, exits,
  // restarts): looked at again every few seconds while the page is open.
  servicesView(name, sections.services).then((f) => (reloadServices = f));
  const timer = setInterval(() => reloadServices().catch(() => {}), 4000);
  cleanup.push(() => clearInterval(timer));
  backupsView(name, sections.backups);
}

function eventsView(name, el, onEvent) {
  const list = h("ol", { id: "event-list", class: "events" });
  el.replaceChildren(h("h3", {}, "Events ", h("small", { id: "event-count" }, "0")), list);
  const es = new EventSource(sbPath(name, "events") + "?follow=true");
  let n = 0;
  const add = (m) => {
    const ev = JSON.parse(m.data);
    n++;
    document.getElementById("event-count").textContent = String(n);
    const who = ev.actor ? (ev.actor.kind === "token" ? ev.actor.name + " (" + ev.actor.id + ")" : ev.actor.kind) : "";
    list.prepend(h("li", { "data-type": ev.type.split("/").pop() },
      h("span", { class: "off" }, ev.offset), " ", h("b", {}, ev.type.split("/").pop()), " ",
      h("time", {}, new Date(ev.createdAt).toLocaleTimeString()), who ? h("span", { class: "who" }, " by " + who) : "",
      h("details", {}, h("summary", {}, "payload"), h("pre", {}, JSON.stringify(ev.payload, null, 2)))));
    onEvent().catch(() => {});
  };
  for (const t of EVENT_TYPES) es.addEventListener(t, add);
  es.onmessage = add;
  cleanup.push(() => es.close());
}

function processesView(name, el) {
  const cmd = h("input", { id: "proc-cmd", placeholder: "shell command, e.g. for i in 1 2 3; do echo $i; sleep 1; done" });
  const list = h("ul", { id: "proc-list" });
  const logs = h("pre", { id: "proc-logs", class: "logs" });
  const dl = h("a", { id: "proc-download", hidden: true }, "download output");
  const refresh = async () => {
    const ps = await api("GET", sbPath(name, "processes"));
    list.replaceChildren(...(ps || []).map((p) => h("li", {}, h("a", { href: "#", "data-proc": p.id, onclick: (e) => { e.preventDefault(); follow(p.id); } },
      p.id), " ", (p.command || []).join(" ").slice(0, 80), " ", h("small", {}, p.exit ? "exit " + p.exit.code : p.state || ""))));
  };
  let es = null;
  const follow = (id) => {
    es && es.close();
    logs.replaceChildren();
    logs.dataset.proc = id;
    dl.href = sbPath(name, "processes", id, "output");
    dl.setAttribute("download", id + "-output.json");
    dl.hidden = false;
    es = new EventSource(sbPath(name, "processes", id, "logs") + "?follow=true");
    es.onmessage = (m) => {
      const ev = JSON.parse(m.data);
      if (ev.type === "stdout" || ev.type === "stderr") {
        const bytes = Uint8Array.from(atob(ev.data || ""), (c) => c.charCodeAt(0));
        logs.append(h("span", { class: ev.type }, new TextDecoder().decode(bytes)));
      } else if (ev.type === "exit") {
        logs.append(h("span", { class: "exit" }, "\n[exit " + (ev.exit?.code ?? "") + "]\n"));
        es.close();
        refresh().catch(() => {});
      }
    };
  };
  cleanup.push(() => es && es.close());
  const run = h("form", { class: "row", id: "proc-run", onsubmit: act(async () => {
    const p = await api("POST", sbPath(name, "processes"), { argv: ["sh", "-c", cmd.value] });
    await refresh();
    follow(p.id);
  }) }, cmd, h("button", { type: "submit", id: "proc-btn" }, "Run"));
  el.replaceChildren(h("h3", {}, "Processes"), run, list, dl, logs);
  refresh().catch(() => {});
}

function filesView(name, el, dir) {
  const up = h("input", { type: "file", id: "file-upload" });
  const table = h("ul", { id: "file-list", class: "files" });
  const load = async () => {
    const entries = await api("GET", sbPath(name, "files") + dir + "?list=true");
    const items = Array.isArray(entries) ? entries : entries.entries || [];
    table.replaceChildren(
      dir !== "/" ? h("li", {}, h("a", { href: "#", onclick: (e) => { e.preventDefault(); filesView(name, el, dir.replace(/\/[^/]+$/, "") || "/"); } }, "..")) : null,
      ...items.map((f) => {
        const p = (dir === "/" ? "" : dir) + "/" + f.name;
        const isDir = f.type === "directory";
        return h("li", { "data-file": f.name },
          isDir ? h("a", { href: "#", onclick: (e) => { e.preventDefault(); filesView(name, el, p); } }, f.name + "/")
            : h("a", { href: sbPath(name, "files") + p, download: f.name, "data-download": f.name }, f.name),
          " ", h("small", {}, isDir ? "" : (f.size ?? "") + " B"),
          isDir ? null : h("button", { class: "small", onclick: act(async () => {
            if (!confirm("Delete " + p + "?")) return;
            await api("DELETE", sbPath(name, "files") + p);
            await load();
          }, "deleted") }, "delete"));
      }));
  };
  up.addEventListener("change", act(async () => {
    const f = up.files[0];
    if (!f) return;
    await api("PUT", sbPath(name, "files") + (dir === "/" ? "" : dir) + "/" + encodeURIComponent(f.name), f, { headers: { "Content-Type": "application/octet-stream" } });
    up.value = "";
    await load();
  }, "uploaded"));
  el.replaceChildren(h("h3", {}, "Files ", h("small", { id: "file-dir" }, dir)), h("label", {}, "Upload here: ", up), table);
  load().catch((e) => table.replaceChildren(h("li", {}, e.message)));
}

async function portsView(name, el) {
  el.replaceChildren(h("h3", {}, "Ports"));
  try {
    const ps = await api("GET", sbPath(name, "ports"));
    el.append(h("ul", {}, ...(ps || []).map((p) => h("li", {}, p.port + " ", p.url ? h("a", { href: p.url, target: "_blank", rel: "noopener" }, "preview") : "", " ", p.public ? "public" : "private"))));
  } catch (e) { el.append(h("p", {}, e.message)); }
}

async function backupsView(name, el) {
  el.replaceChildren(h("h3", {}, "Backups"));
  try {
    const bs = await api("GET", sbPath(name, "backups"));
    el.append(h("ul", {}, ...(bs || []).map((b) => h("li", {}, b.backupId, " ", h("small", {}, b.bytes + " B, " + b.files + " files", b.bad ? " (bad)" : ""), " ",
      h("button", { class: "small", onclick: act(async () => {
        if (!confirm("Restore " + name + " from " + b.backupId + "? It must be asleep.")) return;
        await api("POST", sbPath(name, "start"), { backupId: b.backupId });
      }, "restored") }, "restore from")))));
  } catch (e) { el.append(h("p", {}, e.message)); }
}

// ---- hosts and secrets --------------------------------------------------
async function hostsPage() {
  const hs = await api("GET", "/v1/hosts");
  app.replaceChildren(h("h2", {}, "Hosts"), h("table", { id: "hosts" },
    h("thead", {}, h("tr", {}, ["Host", "Live", "Sandboxes", "Warm", "CPU used/capacity", "Memory MiB", "Draining", ""].map((c) => h("th", {}, c)))),
    h("tbody", {}, ...hs.map((x) => h("tr", {}, h("td", {}, x.id), h("td", {}, x.live ? "yes" : "no"), h("td", {}, x.sandboxes), h("td", {}, JSON.stringify(x.warm || {})),
      h("td", {}, (x.used?.milliCpu ?? 0) + "/" + (x.capacity?.milliCpu ?? 0)), h("td", {}, (x.used?.memoryMiB ?? 0) + "/" + (x.capacity?.memoryMiB ?? 0)),
      h("td", {}, x.draining ? "yes" : "no"),
      h("td", {}, h("button", { onclick: act(async () => { if (confirm((x.draining ? "Undrain " : "Drain ") + x.id + "?")) { await api(x.draining ? "DELETE" : "POST", "/v1/hosts/" + encodeURIComponent(x.id) + "/drain"); route(); } }) }, x.draining ? "undrain" : "drain")))))));
}

async function secretsPage() {
  const ss = await api("GET", "/v1/secrets");
  const sname = h("input", { id: "secret-name", placeholder: "name (github)", required: true });
  const hosts = h("input", { id: "secret-hosts", placeholder: "hosts, comma-separated (api.github.com)", required: true });
  const value = h("input", { id: "secret-value", type: "password", placeholder: "value (write-only)", required: true, autocomplete: "off" });
  const set = h("form", { class: "row", id: "secret-set", onsubmit: act(async () => {
    await api("PUT", "/v1/secrets/" + sname.value.split("/").map(encodeURIComponent).join("/"),
      { value: value.value, hosts: hosts.value.split(",").map((x) => x.trim()).filter(Boolean) });
    value.value = "";
    await secretsPage();
  }, "secret set (a new version if it existed)") }, sname, hosts, value, h("button", { type: "submit", id: "secret-btn" }, "Set or rotate"));
  app.replaceChildren(h("h2", {}, "Secrets"), h("p", {}, "Names, hosts and versions; values are write-only and never shown."), set,
    h("table", { id: "secrets" }, h("thead", {}, h("tr", {}, ["Name", "Hosts", "Version", "Updated"].map((c) => h("th", {}, c)))),
      h("tbody", {}, ...ss.map((x) => h("tr", {}, h("td", {}, x.name), h("td", {}, (x.hosts || []).join(", ")), h("td", {}, x.version), h("td", {}, x.updatedAt))))));
}

// ---- routing ------------------------------------------------------------
async function route() {
  leave();
  const hash = location.hash.slice(1) || "/";
  try {
    if (hash.startsWith("/s/")) await sandboxPage(decodeURIComponent(hash.slice(3)));
    else if (hash === "/hosts") await hostsPage();
    else if (hash === "/secrets") await secretsPage();
    else await listPage();
  } catch (e) {
    app.replaceChildren(h("p", { class: "bad" }, e.message));
  }
}

async function main() {
  const r = await fetch("/ui/session", { credentials: "same-origin" });
  if (!r.ok) { location.href = "/ui/login"; return; }
  session = state.session = await r.json();
  const who = session.actor?.kind === "token" ? session.actor.name + " (" + (session.scopes || []).join(", ") + ")" : "admin";
  document.getElementById("who").textContent = who;
  if (session.temporalUI) {
    const t = document.getElementById("temporal");
    t.href = session.temporalUI;
    t.hidden = false;
  }
  document.getElementById("signout").addEventListener("click", act(async () => {
    await api("POST", "/ui/logout");
    location.href = "/ui/login";
  }));
  window.addEventListener("hashchange", route);
  route();
}
main();
