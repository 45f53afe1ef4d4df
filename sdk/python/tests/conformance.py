"""The Python runner of the language-neutral scenarios in sdk/conformance.

Each scenario's steps run with berth.Client against the stack at BERTH_URL;
``expect`` is compared by the rules sdk/conformance/scenario_test.go
documents, ``expectError`` by the error's class, status and retryable.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import time
import urllib.request
from pathlib import Path
from typing import Any, Optional

import berth
from conformance_features import Features

SCENARIOS = Path(__file__).resolve().parents[2] / "conformance"


def scenarios() -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(SCENARIOS.glob("*.json"))]


def sandbox_name(scenario: str, label: str) -> str:
    short = scenario.replace("-", "")[:12]
    return f"py-{short}-{label}-{secrets.token_hex(3)}"


def check_expect(expect: dict[str, Any], got: dict[str, Any]) -> None:
    for k in sorted(expect):
        want = expect[k]
        for suffix in ("EndsWith", "MaxLen", "Trimmed", "Include", "AtLeast"):
            if k.endswith(suffix):
                base = k[: -len(suffix)]
                v = got.get(base)
                ok = {
                    "EndsWith": lambda: isinstance(v, str) and v.endswith(want),
                    "MaxLen": lambda: isinstance(v, str) and len(v.encode()) <= want,
                    "Trimmed": lambda: isinstance(v, str) and v.strip() == want,
                    "Include": lambda: all(str(x) in [str(y) for y in (v or [])] for x in want),
                    "AtLeast": lambda: isinstance(v, (int, float)) and v >= want,
                }[suffix]()
                if not ok:
                    raise AssertionError(f"{base}: {v!r} fails {suffix} {want!r}")
                break
        else:
            same(k, want, got.get(k))


def same(k: str, want: Any, got: Any) -> None:
    if isinstance(want, dict):
        got = got or {}
        for kk, wv in want.items():
            if wv is None:
                if kk in got:
                    raise AssertionError(f"{k}.{kk}: {got[kk]!r}, want absent")
                continue
            same(f"{k}.{kk}", wv, got.get(kk))
        return
    if want != got or type(want) is bool and type(got) is not bool:
        raise AssertionError(f"{k}: {got!r}, want {want!r}")


def check_error(err: BaseException, want: dict[str, Any]) -> None:
    code = want["code"]
    cls = berth.ERROR_CLASSES[code]
    if not isinstance(err, cls):
        raise AssertionError(f"error {type(err).__name__}: {err}, want {cls.__name__}")
    assert isinstance(err, berth.BerthError)
    if err.code != code:
        raise AssertionError(f"code {err.code}, want {code}")
    if "status" in want and err.status != want["status"]:
        raise AssertionError(f"status {err.status}, want {want['status']}")
    if "retryable" in want and err.retryable != want["retryable"]:
        raise AssertionError(f"retryable {err.retryable}, want {want['retryable']}")
    if not err.hint:
        raise AssertionError(f"{cls.__name__} has no hint")


def restart_gateway() -> None:
    req = urllib.request.Request(os.environ["BERTH_CONTROL"] + "/restart-gateway", method="POST")
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 204


def secs(step: dict[str, Any], k: str) -> Optional[float]:
    return step[k] / 1000 if k in step else None


class Runner:
    def __init__(self, client: berth.Client, bad: berth.Client, scenario: str) -> None:
        self.c, self.bad, self.scenario = client, bad, scenario
        self.names: dict[str, str] = {}
        self.procs: dict[str, berth.Process] = {}
        self.cursors: dict[str, str] = {}
        self.created: list[str] = []
        self.f = Features(self)

    def name(self, label: str) -> str:
        if label not in self.names:
            self.names[label] = sandbox_name(self.scenario, label)
        return self.names[label]

    def proc(self, st: dict[str, Any]) -> berth.Process:
        if "processId" in st:
            return self.c.sandbox(self.name(st["sandbox"])).process(st["processId"])
        return self.procs[st["process"]]

    def run(self, sc: dict[str, Any]) -> None:
        try:
            for i, st in enumerate(sc["steps"], 1):
                where = f"step {i} ({st['op']})"
                try:
                    got = self.step(st)
                except berth.BerthError as e:
                    if "expectError" in st:
                        try:
                            check_error(e, st["expectError"])
                        except AssertionError as ae:
                            raise AssertionError(f"{where}: {ae}") from e
                        continue
                    raise AssertionError(f"{where}: {type(e).__name__}: {e}") from e
                if "expectError" in st:
                    raise AssertionError(f"{where}: no error, want {st['expectError']['code']}")
                if "expect" in st:
                    try:
                        check_expect(st["expect"], got or {})
                    except AssertionError as ae:
                        raise AssertionError(f"{where}: {ae}") from None
        finally:
            self.f.close()
            for n in self.created:
                try:
                    self.c.sandbox(n).destroy()
                except berth.BerthError:
                    pass

    def step(self, st: dict[str, Any]) -> Optional[dict[str, Any]]:
        c = self.bad if st.get("badToken") else self.c
        if "asToken" in st:
            c = self.f.client_of(st["asToken"])
        op = st["op"]
        name = self.name(st.get("sandbox", ""))
        sb = c.sandbox(name)
        if op == "create":
            o = st.get("options", {})
            info, created = c.create_info(name, keep_alive=o.get("keepAlive"), env=o.get("env"), image=o.get("image"),
                                          doze_after=o.get("dozeAfter"))
            self.created.append(name)
            return {"created": created}
        if op == "info":
            info = sb.info()
            got = {"status": info.status, "env": info.env, "image": info.image or "", "hasImageDigest": bool(info.image_digest)}
            if info.egress is not None:
                got["egress"] = info.egress
            return got
        if op == "waitStatus":
            # Polls the state (never thaws or wakes) until the status or timeoutMs.
            deadline = time.monotonic() + st["timeoutMs"] / 1000
            while True:
                status = sb.info().status
                if status == st["status"] or time.monotonic() > deadline:
                    return {"status": status}
                time.sleep(0.2)
        if op == "sleep":
            sb.sleep()
            return None
        if op == "start":
            sb.start()
            return None
        if op == "destroy":
            sb.destroy()
            return None
        if op == "setEnv":
            sb.set_env(st["env"])
            return None
        if op == "exec":
            p = sb.exec(st["argv"], cwd=st.get("cwd"), env=st.get("env"), timeout=secs(st, "timeoutMs"), user=st.get("user"))
            if "as" in st:
                self.procs[st["as"]] = p
            other = st.get("expect", {}).get("idDiffersFrom")
            if other and self.procs[other].id == p.id:
                raise AssertionError(f"a new process has the id {p.id} of an earlier one")
            return {"hasPid": p.pid > 0, "id": p.id, "idDiffersFrom": other}
        if op == "run":
            r = sb.run(st["argv"], cwd=st.get("cwd"), env=st.get("env"), timeout=secs(st, "timeoutMs"), encoding=st.get("encoding"),
                       user=st.get("user"))
            return output_map(r)
        if op == "output":
            o = self.proc(st).output(encoding=st.get("encoding"), max_bytes=st.get("maxBytes"), timeout=secs(st, "timeoutMs"))
            return output_map(o)
        if op in ("status", "waitForExit", "kill"):
            p = self.proc(st)
            if op == "status":
                info = p.status()
            elif op == "waitForExit":
                info = p.wait(timeout=secs(st, "timeoutMs"))
            else:
                info = p.kill(st.get("signal"))
            m: dict[str, Any] = {"state": info.state, "id": info.id}
            if info.exit:
                m["exitCode"], m["timedOut"] = info.exit.code, info.exit.timed_out
            return m
        if op == "getProcess":
            p = self.proc(st)
            return {"found": p.sandbox.get_process(p.id) is not None}
        if op == "waitForLog":
            m2 = self.proc(st).wait_for_log(st["pattern"], timeout=secs(st, "timeoutMs"))
            if "saveCursor" in st:
                self.cursors[st["saveCursor"]] = m2.cursor
            return {"line": m2.line}
        if op == "waitForPort":
            self.proc(st).wait_for_port(st["port"], timeout=secs(st, "timeoutMs"))
            return None
        if op == "writeStdin":
            self.proc(st).write_stdin(st["text"])
            return None
        if op == "logs":
            return self.logs(st)
        if op == "writeFile":
            fi = sb.write_file(st["path"], base64.b64decode(st["base64"]), mkdir=st.get("mkdir"))
            return {"size": fi.size}
        if op == "readFile":
            return {"base64": base64.b64encode(sb.read_file(st["path"])).decode()}
        if op == "stat":
            fi = sb.stat(st["path"])
            return {"type": fi.type, "size": fi.size}
        if op == "list":
            return {"names": [f.name for f in sb.list(st["path"])]}
        if op == "remove":
            sb.remove(st["path"])
            return None
        if op == "events":
            return {"types": [ev.short_type for ev in sb.events()]}
        if op == "backup":
            sb.create_backup()
            return None
        if op == "listBackups":
            return {"count": len(sb.backups())}
        if op == "fork":
            to = self.name(st["to"])
            sb.fork(to)
            self.created.append(to)
            return None
        if op == "getSecret":
            c.get_secret(self.name(st["secret"]))
            return None
        if op == "unexposePort":
            sb.unexpose_port(st["port"])
            return None
        found, got = self.f.step(c, sb, name, st)
        if found:
            return got
        raise AssertionError(f"unknown op {op!r}")

    def logs(self, st: dict[str, Any]) -> dict[str, Any]:
        since = self.cursors.get(st.get("since", ""), st.get("since"))
        stream = self.proc(st).logs(since=since, replay=st.get("replay", True), follow=st.get("follow", False))
        out, err, n, got = b"", b"", 0, {}
        for ev in stream:
            n += 1
            if ev.type == "stdout":
                out += ev.data
            elif ev.type == "stderr":
                err += ev.data
            elif ev.type == "exit" and ev.exit:
                got["exitCode"] = ev.exit.code
            got["lastType"] = ev.type
            if "saveCursor" in st:
                self.cursors[st["saveCursor"]] = ev.cursor
            if n == st.get("restartGatewayAfter"):
                restart_gateway()
            if st.get("take") and n >= st["take"]:
                break
        got.update(stdout=out.decode(errors="replace"), stderr=err.decode(errors="replace"), count=n)
        return got


def output_map(o: berth.Output) -> dict[str, Any]:
    return {"stdout": o.stdout, "stderr": o.stderr, "exitCode": o.exit_code, "timedOut": o.timed_out, "truncated": o.truncated}
