"""The Python runner's operations on terminals, services, egress, previews,
scoped tokens, stats and conditional file reads (the rest are in
conformance.py)."""

from __future__ import annotations

import base64
import queue
import secrets
import time
from typing import Any, Optional

import httpx

import berth


# What arrived after the text a read waited for, per connection: the next
# read starts with it (a replay arrives in one chunk).
_rest: dict[int, bytes] = {}


def read_terminal(t: berth.Terminal, until: Optional[str], timeout: float) -> dict[str, Any]:
    """Reads until the output holds ``until`` (without: until it ends), within timeout."""
    got = _rest.pop(id(t), b"")
    deadline = time.monotonic() + timeout
    while not (until and until.encode() in got):
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {until!r} in the terminal's output within {timeout} s: {got!r}")
        try:
            chunk = t.read(timeout=left)
        except queue.Empty:
            continue
        if chunk is None:
            if until:
                raise AssertionError(f"the terminal's output ended without {until!r}: {got!r}")
            return {"matched": False}
        got += chunk
    _rest[id(t)] = got[got.index(until.encode()) + len(until):]
    return {"matched": True}


class Features:
    def __init__(self, runner: Any) -> None:
        self.r = runner
        self.url = runner.c.url
        self.token = runner.c._headers.get("Authorization", "").removeprefix("Bearer ")
        self.terms: dict[str, dict[str, Any]] = {}
        self.conns: dict[str, berth.Terminal] = {}
        self.etags: dict[str, str] = {}
        self.tokens: dict[str, berth.Token] = {}
        self.ports: dict[str, berth.ExposedPort] = {}
        self.clients: list[berth.Client] = []

    def close(self) -> None:
        for t in self.conns.values():
            t.close()
        for c in self.clients:
            c.close()

    def client_of(self, label: str) -> berth.Client:
        c = berth.Client(self.url, self.tokens[label].token)
        self.clients.append(c)
        return c

    def step(self, c: berth.Client, sb: berth.Sandbox, name: str, st: dict[str, Any]) -> tuple[bool, Optional[dict[str, Any]]]:
        op = st["op"]
        if op == "createTerminal":
            self.terms[st["as"]] = sb.create_terminal(st.get("argv"), cols=st.get("cols"), rows=st.get("rows"))
            return True, None
        if op == "connectTerminal":
            t = sb.connect_terminal(self.terms[st["terminal"]]["id"], cursor=self.r.cursors.get(st.get("since", "")))
            if "saveCursor" in st:
                self.r.cursors[st["saveCursor"]] = t.cursor
            self.conns[st["as"]] = t
            return True, {"hasCursor": bool(t.cursor)}
        if op in ("terminalSend", "terminalResize", "terminalRead", "terminalDetach"):
            t = self.conns[st["conn"]]
            if op == "terminalSend":
                t.send(st["text"])
                return True, None
            if op == "terminalResize":
                t.resize(st["cols"], st["rows"])
                return True, None
            if op == "terminalDetach":
                del self.conns[st["conn"]]
                t.close()
                return True, None
            got = read_terminal(t, st.get("until"), st["timeoutMs"] / 1000)
            if t.exit_code is not None:
                got["exitCode"] = t.exit_code
            return True, got
        if op == "setService":
            sb.set_service(st["service"], st["argv"], restart=st.get("restart", "always"))
            return True, None
        if op == "services":
            return True, {"names": [s["name"] for s in sb.services()["services"]]}
        if op == "waitService":
            deadline = time.monotonic() + st["timeoutMs"] / 1000
            while True:
                got: dict[str, Any] = {"state": ""}
                for s in sb.services()["services"]:
                    if s["name"] == st["service"]:
                        got = {"state": s.get("state", ""), "hasProcessId": bool(s.get("processId"))}
                if got["state"] == st["state"] or time.monotonic() > deadline:
                    return True, got
                time.sleep(0.2)
        if op == "setEgress":
            p = st["policy"]
            sb.set_egress(p["mode"], domains=p.get("domains"), cidrs=p.get("cidrs"))
            return True, None
        if op == "exposePort":
            p = sb.expose_port(st["port"])
            self.ports[f"{name}/{p.port}"] = p
            return True, {"port": p.port, "public": p.public, "hasToken": bool(p.token)}
        if op == "fetchPreview":
            p = self.ports[f"{name}/{st['port']}"]
            # As a browser-less caller: the port's preview token, no bearer token.
            headers = {} if st.get("withoutToken") else {"X-Berth-Preview-Token": p.token or ""}
            resp = httpx.get(p.path_url.rstrip("/") + st["path"], headers=headers, timeout=60)
            return True, {"status": resp.status_code, "body": resp.text}
        if op == "createToken":
            t = c.create_token(f"py-{st['token']}-{secrets.token_hex(3)}", sandboxes=[self.r.name(lb) for lb in st["sandboxes"]],
                               scopes=st["scopes"], ttl=st["ttlSeconds"])
            self.tokens[st["token"]] = t
            return True, {"scopes": t.scopes, "hasValue": bool(t.token)}
        if op == "listTokens":
            want = self.tokens.get(st["token"])
            found = [t for t in c.tokens() if want and t.id == want.id]
            return True, {"listed": bool(found), "valueShown": bool(found and found[0].token)}
        if op == "revokeToken":
            c.revoke_token(self.tokens[st["token"]].id)
            return True, None
        if op == "stats":
            s = sb.stats()
            got = {"status": s.status, "live": s.live, "hasCpu": s.cpu is not None, "hasMemory": s.memory is not None}
            if s.pids is not None:
                got["pids"] = s.pids["current"]
            return True, got
        if op == "readFileConditional":
            # The API's own request: the SDK has no conditional read.
            headers = {"Authorization": f"Bearer {self.token}"}
            if "ifNoneMatch" in st:
                headers["If-None-Match"] = self.etags[st["ifNoneMatch"]]
            url = f"{self.url}/v1/sandboxes/{name}/files/{st['path'].lstrip('/')}"
            resp = httpx.get(url, headers=headers, timeout=60)
            if resp.status_code >= 400:
                raise AssertionError(f"GET {st['path']}: {resp.status_code} {resp.text}")
            etag = resp.headers.get("etag", "")
            if "saveEtag" in st:
                self.etags[st["saveEtag"]] = etag
            return True, {"status": resp.status_code, "base64": base64.b64encode(resp.content).decode(), "hasEtag": bool(etag)}
        return False, None
