// The sandbox page's settings: env, egress policy and services, each shown
// and edited through the sandbox's own API routes (PATCH .../env,
// PUT .../egress, PUT and DELETE .../services/{svc}).
import { h, api, sbPath, act } from "./lib.js";

// envView lists the sandbox's env with an unset button per variable and a
// form that sets one. onChange gets the sandbox as the change answered it.
export function envView(s, el, onChange) {
  const key = h("input", { id: "env-key", placeholder: "NAME", required: true, pattern: "[^=]+", autocomplete: "off" });
  const value = h("input", { id: "env-value", placeholder: "value", autocomplete: "off" });
  const change = async (env) => {
    const v = await api("PATCH", sbPath(s.name, "env"), { env });
    envView(v, el, onChange);
    onChange?.(v);
  };
  const rows = Object.entries(s.env || {}).sort(([a], [b]) => (a < b ? -1 : 1));
  el.replaceChildren(h("h3", {}, "Env"),
    h("table", { id: "env-list" }, h("tbody", {}, ...rows.map(([k, v]) => h("tr", { "data-env": k },
      h("td", {}, h("code", {}, k)), h("td", {}, h("code", {}, v)),
      h("td", {}, h("button", { class: "small", "data-unset": k, onclick: act(() => change({ [k]: null }), "unset " + k) }, "unset")))))),
    h("form", { class: "row", id: "env-set", onsubmit: act(() => change({ [key.value]: value.value }), "set") },
      key, value, h("button", { type: "submit", id: "env-btn" }, "Set")),
    h("p", {}, h("small", {}, "New processes see a change; running ones keep the env they started with.")));
}

const lines = (text) => text.split(/[\s,]+/).map((x) => x.trim()).filter(Boolean);

// egressView shows and edits the policy: its mode, the allow list (domains
// and CIDRs) and the secrets the egress proxy injects, by name and host
// only (the API never answers a value).
export async function egressView(s, el, onChange) {
  const p = s.egress || { mode: "open" };
  const mode = h("select", { id: "egress-mode" }, ["open", "allowlist", "none"].map((m) => h("option", { value: m, selected: m === p.mode }, m)));
  const domains = h("textarea", { id: "egress-domains", rows: 3, placeholder: "api.github.com\n*.pypi.org" }, (p.domains || []).join("\n"));
  const cidrs = h("textarea", { id: "egress-cidrs", rows: 2, placeholder: "140.82.112.0/20" }, (p.cidrs || []).join("\n"));
  const allow = h("div", { id: "egress-allow", hidden: mode.value !== "allowlist" },
    h("label", {}, "Domains", domains), h("label", {}, "CIDRs", cidrs));
  mode.addEventListener("change", () => (allow.hidden = mode.value !== "allowlist"));
  const secrets = h("div", { id: "egress-secrets" });
  const form = h("form", { id: "egress-set", onsubmit: act(async () => {
    const body = { mode: mode.value };
    if (mode.value === "allowlist") {
      body.domains = lines(domains.value);
      body.cidrs = lines(cidrs.value);
    }
    const v = await api("PUT", sbPath(s.name, "egress"), body);
    egressView(v, el, onChange);
    onChange?.(v);
  }, "egress policy changed") }, h("label", {}, "Mode ", mode), allow, h("button", { type: "submit", id: "egress-btn" }, "Apply"));
  el.replaceChildren(h("h3", {}, "Egress ", h("small", { id: "egress-current" }, p.mode)), form, secrets);
  secretsBound(p, secrets).catch(() => {});
}

// A domain pattern as the policy holds it: exact, or "*.suffix".
const matches = (pattern, host) => pattern.startsWith("*.") ? host.endsWith(pattern.slice(1)) : host === pattern;

// secretsBound lists the secrets with the hosts each may be sent to, and
// whether the policy lets the sandbox reach those hosts. A token without
// secrets-admin does not see the list (the page says so).
async function secretsBound(p, el) {
  let ss;
  try { ss = await api("GET", "/v1/secrets"); } catch (e) {
    el.replaceChildren(h("small", {}, "Secrets: " + e.message));
    return;
  }
  const reach = (host) => p.mode === "open" || (p.mode === "allowlist" && (p.domains || []).some((d) => matches(d, host)));
  el.replaceChildren(h("h4", {}, "Secrets bound to hosts"),
    ss.length ? h("ul", { id: "egress-secret-list" }, ...ss.map((x) => h("li", { "data-secret": x.name }, h("code", {}, x.name), " → ",
      (x.hosts || []).flatMap((host, i) => [i ? ", " : "", h("span", { class: reach(host) ? "" : "off", title: reach(host) ? "reachable" : "not reachable under this policy" }, host)]))))
      : h("p", {}, h("small", {}, "No secrets. Set them on the Secrets page; values are never shown.")));
}

const serviceState = (x) => [x.state || "not running", x.pid ? "pid " + x.pid : "", x.restarts ? x.restarts + " restarts" : "",
  x.lastExit ? "last exit " + x.lastExit.code : "", x.lastError || ""].filter(Boolean).join(", ");

// servicesView lists the declared services with how they run, a remove
// button each, and a form that declares one (a shell command).
export async function servicesView(name, el) {
  const sname = h("input", { id: "svc-name", placeholder: "name (web)", required: true, pattern: "[a-z0-9][a-z0-9-]{0,62}" });
  const cmd = h("input", { id: "svc-cmd", placeholder: "shell command, e.g. python3 -m http.server 8000", required: true });
  const port = h("input", { id: "svc-port", type: "number", min: 1, max: 65535, placeholder: "port" });
  const restart = h("select", { id: "svc-restart" }, h("option", { value: "always" }, "always"), h("option", { value: "on-failure" }, "on-failure"));
  const list = h("ul", { id: "svc-list" });
  const show = (ss) => list.replaceChildren(...ss.map((x) => h("li", { "data-svc": x.name, "data-state": x.state || "" },
    h("b", {}, x.name), " ", h("code", {}, (x.argv || []).join(" ")), x.port ? " :" + x.port : "", " ",
    h("small", { class: "svc-state" }, serviceState(x)), " ",
    h("button", { class: "small", "data-remove": x.name, onclick: act(async () => {
      if (!confirm("Remove service " + x.name + "? Its process is stopped.")) return;
      show((await api("DELETE", sbPath(name, "services", encodeURIComponent(x.name)))).services || []);
    }, "service removed") }, "remove"))));
  const load = async () => show((await api("GET", sbPath(name, "services"))).services || []);
  const form = h("form", { class: "row", id: "svc-set", onsubmit: act(async () => {
    const body = { argv: ["sh", "-c", cmd.value], restart: restart.value };
    if (port.value) body.port = Number(port.value);
    show((await api("PUT", sbPath(name, "services", encodeURIComponent(sname.value)), body)).services || []);
    sname.value = cmd.value = port.value = "";
  }, "service declared") }, sname, cmd, port, restart, h("button", { type: "submit", id: "svc-btn" }, "Declare"));
  el.replaceChildren(h("h3", {}, "Services ", h("button", { class: "small", id: "svc-refresh", onclick: act(load) }, "refresh")), list, form);
  await load().catch((e) => list.replaceChildren(h("li", {}, e.message)));
  return load;
}
