"""The synchronous client. berth.aio has the same API with async/await."""

from __future__ import annotations

import json
import time
from typing import Any, Iterator, Optional, Union

import httpx

from . import _http as h
from ._base import BerthError
from .errors import ProcessNotFoundError, StaleProcessHandleError
from .terminal import Refused, refused_error
from .terminal_sync import Terminal, connect_sync
from .types import (Backup, Event, ExposedPort, FileInfo, LogEvent, LogMatch, Output, ProcessInfo, RunResult, SandboxInfo,
                    SandboxStats, Token)


class Client:
    """A client of one Berth gateway (default: ``BERTH_URL`` and ``BERTH_TOKEN``)."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, http: Optional[httpx.Client] = None) -> None:
        self.url, token = h.settings(url, token)
        self._http = http or httpx.Client(timeout=h.TIMEOUT)
        self._headers = h.headers(token)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- transport ---

    def _request(self, method: str, path: str, *, params: Optional[dict[str, Any]] = None, json_body: Any = None,
                 content: Any = None, headers: Optional[dict[str, str]] = None) -> httpx.Response:
        hdrs = dict(self._headers)
        hdrs.update(headers or {})
        try:
            resp = self._http.request(method, self.url + path, params=params, json=json_body, content=content, headers=hdrs)
        except httpx.TransportError as e:
            raise h.to_transport_error(e) from e
        return h.check(resp)

    def _call(self, method: str, path: str, **kw: Any) -> Any:
        resp = self._request(method, path, **kw)
        return resp.json() if resp.content else None

    def _stream_lines(self, path: str, params: dict[str, Any]) -> Iterator[str]:
        """One streamed GET; raises the API error of a refused one before yielding."""
        hdrs = dict(self._headers, Accept="text/event-stream")
        try:
            with self._http.stream("GET", self.url + path, params=params, headers=hdrs) as resp:
                if resp.status_code >= 400:
                    resp.read()
                    raise h.decode_error(resp.status_code, resp.text, resp.headers)
                yield from resp.iter_lines()
        except httpx.TransportError as e:
            raise h.to_transport_error(e) from e

    # --- sandboxes ---

    def sandbox(self, name: str) -> "Sandbox":
        """A handle on a sandbox by name (no round trip)."""
        return Sandbox(self, name)

    def create(self, name: str, *, instance_type: Optional[str] = None, sleep_after: Optional[float] = None,
               keep_alive: Optional[bool] = None, env: Optional[dict[str, str]] = None, start: Optional[bool] = None,
               egress: Optional[dict[str, Any]] = None, image: Optional[str] = None,
               doze_after: Optional[float] = None) -> "Sandbox":
        """Claims a name; an identical repeat is fine, a different configuration is NameConflictError.

        ``image`` is the sandbox's own image (any ref Docker can pull), fixed for its life. ``doze_after``
        (seconds; 0 never) is the time without a client before the sandbox dozes: frozen in place, thawed
        by the next call."""
        self._request("POST", "/v1/sandboxes", json_body=h.body(name=name, instanceType=instance_type, sleepAfter=sleep_after,
                                                                keepAlive=keep_alive, env=env, start=start, egress=egress,
                                                                image=image, dozeAfter=doze_after))
        return self.sandbox(name)

    def create_info(self, name: str, **kw: Any) -> tuple[SandboxInfo, bool]:
        """Like create, and answers the sandbox's state and whether this call claimed the name."""
        resp = self._request("POST", "/v1/sandboxes", json_body=h.body(name=name, **_create_fields(kw)))
        return SandboxInfo.from_json(resp.json()), resp.status_code == 201

    def list(self, status: Optional[str] = None) -> list[SandboxInfo]:
        return [SandboxInfo.from_json(d) for d in self._call("GET", "/v1/sandboxes", params=h.query(status=status))]

    def events(self, *, after: Optional[int] = None, follow: bool = False) -> Iterator[Event]:
        """The catalogue stream (one create-requested per claim)."""
        return _events(self, "/v1/events", after, follow)

    # secrets (values are write-only: never answered)
    def set_secret(self, name: str, value: str, hosts: list[str]) -> dict[str, Any]:
        return self._call("PUT", "/v1/secrets/" + h.quote(name, safe=""), json_body={"value": value, "hosts": hosts})

    def get_secret(self, name: str) -> dict[str, Any]:
        return self._call("GET", "/v1/secrets/" + h.quote(name, safe=""))

    def secrets(self) -> list[dict[str, Any]]:
        return self._call("GET", "/v1/secrets")

    def delete_secret(self, name: str) -> None:
        self._request("DELETE", "/v1/secrets/" + h.quote(name, safe=""))

    # scoped tokens (the admin token only)
    def create_token(self, name: str, *, scopes: list[str], ttl: float, sandboxes: Optional[list[str]] = None) -> Token:
        """Mints a token limited to sandboxes (names, or prefixes ending in ``*``), scopes and a lifetime
        (seconds). Its value is in the answer's ``token`` only."""
        return Token.from_json(self._call("POST", "/v1/tokens", json_body=h.body(name=name, sandboxes=sandboxes, scopes=scopes, ttl=ttl)))

    def tokens(self) -> list[Token]:
        """The tokens not revoked, never their values."""
        return [Token.from_json(d) for d in self._call("GET", "/v1/tokens")]

    def revoke_token(self, id: str) -> None:
        """Revokes a token (TokenNotFoundError when there is none)."""
        self._request("DELETE", "/v1/tokens/" + h.quote(id, safe=""))


def _create_fields(kw: dict[str, Any]) -> dict[str, Any]:
    names = {"instance_type": "instanceType", "sleep_after": "sleepAfter", "keep_alive": "keepAlive", "env": "env",
             "start": "start", "egress": "egress", "image": "image", "doze_after": "dozeAfter"}
    return {names[k]: v for k, v in kw.items() if v is not None}


def _events(c: Client, path: str, after: Optional[int], follow: bool) -> Iterator[Event]:
    rc = h.Reconnector()
    while True:
        progressed, err = False, None
        try:
            for _, kind, data in h.sse_events(c._stream_lines(path, h.query(after=after, follow=follow))):
                if kind == "error":
                    raise h.decode_error(503, data)
                ev = Event.from_json(json.loads(data))
                after, progressed = ev.offset, True
                yield ev
        except BerthError as e:
            err = e
        if err is None and not follow:
            return
        time.sleep(rc.delay(progressed, err))


class Sandbox:
    """A handle on one sandbox by name. The same name need not mean the same container."""

    def __init__(self, client: Client, name: str) -> None:
        self.client = client
        self.name = name

    def _p(self, rest: str = "") -> str:
        return h.sandbox_path(self.name, rest)

    # lifecycle
    def info(self) -> SandboxInfo:
        """The sandbox's state (never wakes it)."""
        return SandboxInfo.from_json(self.client._call("GET", self._p()))

    def start(self, *, backup_id: Optional[str] = None, allow_rollback: Optional[bool] = None) -> SandboxInfo:
        return SandboxInfo.from_json(self.client._call("POST", self._p("/start"), json_body=h.body(backupId=backup_id, allowRollback=allow_rollback)))

    def sleep(self) -> SandboxInfo:
        """Backs /workspace up and removes the container; process handles become stale."""
        return SandboxInfo.from_json(self.client._call("POST", self._p("/sleep")))

    def destroy(self) -> SandboxInfo:
        return SandboxInfo.from_json(self.client._call("DELETE", self._p()))

    def update(self, *, sleep_after: Optional[float] = None, keep_alive: Optional[bool] = None) -> SandboxInfo:
        return SandboxInfo.from_json(self.client._call("PATCH", self._p(), json_body=h.body(sleepAfter=sleep_after, keepAlive=keep_alive)))

    def set_env(self, env: dict[str, Optional[str]]) -> SandboxInfo:
        """Sets sandbox-wide variables for later execs; None unsets one."""
        return SandboxInfo.from_json(self.client._call("PATCH", self._p("/env"), json_body={"env": env}))

    def set_egress(self, mode: str, *, domains: Optional[list[str]] = None, cidrs: Optional[list[str]] = None) -> SandboxInfo:
        return SandboxInfo.from_json(self.client._call("PUT", self._p("/egress"), json_body=h.body(mode=mode, domains=domains, cidrs=cidrs)))

    def fork(self, new_name: str, *, backup_id: Optional[str] = None) -> "Sandbox":
        """A new sandbox from this one's workspace (a fresh snapshot of a running one, or a backup)."""
        self.client._request("POST", "/v1/sandboxes", json_body={"name": new_name, "from": h.body(sandbox=self.name, backupId=backup_id)})
        return self.client.sandbox(new_name)

    def events(self, *, after: Optional[int] = None, follow: bool = False) -> Iterator[Event]:
        """The sandbox's event stream; following resumes after dropped connections."""
        return _events(self.client, self._p("/events"), after, follow)

    # processes
    def exec(self, argv: list[str], *, cwd: Optional[str] = None, env: Optional[dict[str, Optional[str]]] = None,
             timeout: Optional[float] = None, stdin: bool = False, user: Optional[str] = None) -> "Process":
        """Starts argv (no shell is added) and answers once it runs.

        ``timeout`` (seconds) is a deadline on the process itself; ``user`` runs it as another user than
        the image's USER (a name or uid, either with ":group"; "root" always works)."""
        d = self.client._call("POST", self._p("/processes"), json_body=h.body(argv=argv, cwd=cwd, env=env, timeout=timeout,
                                                                              stdin="pipe" if stdin else None, user=user))
        return Process(self, ProcessInfo.from_json(d))

    def run(self, argv: list[str], *, cwd: Optional[str] = None, env: Optional[dict[str, Optional[str]]] = None,
            timeout: Optional[float] = None, max_bytes: Optional[int] = None, encoding: Optional[str] = None,
            user: Optional[str] = None) -> RunResult:
        """Starts argv and answers once it exited, with its output (one round trip)."""
        d = self.client._call("POST", self._p("/processes"), json_body=h.body(argv=argv, cwd=cwd, env=env, timeout=timeout, wait=True,
                                                                              maxBytes=max_bytes, encoding=encoding, user=user))
        return RunResult.from_json(d)

    def get_process(self, id: str) -> Optional["Process"]:
        """The process of the current container with this id, or None (no container, or an id of an earlier one). Never wakes."""
        try:
            d = self.client._call("GET", self._p(f"/processes/{h.quote(id, safe='')}"))
        except (ProcessNotFoundError, StaleProcessHandleError):
            return None
        return Process(self, ProcessInfo.from_json(d))

    def process(self, id: str) -> "Process":
        """A handle for a stored id without a round trip."""
        return Process(self, ProcessInfo(id=id, pid=0, state=""))

    def processes(self) -> list["Process"]:
        return [Process(self, ProcessInfo.from_json(d)) for d in self.client._call("GET", self._p("/processes"))]

    # files
    def read_file(self, path: str) -> bytes:
        return self.client._request("GET", h.file_path(self.name, path)).content

    def read_text(self, path: str) -> str:
        return self.read_file(path).decode("utf-8")

    def write_file(self, path: str, data: Union[bytes, str], *, mode: Optional[str] = None, mkdir: Optional[bool] = None) -> FileInfo:
        """Writes a file atomically."""
        content = data.encode() if isinstance(data, str) else data
        return FileInfo.from_json(self.client._call("PUT", h.file_path(self.name, path), params=h.query(mode=mode, mkdir=mkdir),
                                                    content=content, headers={"Content-Type": "application/octet-stream"}))

    def stat(self, path: str) -> FileInfo:
        return FileInfo.from_json(self.client._call("GET", h.file_path(self.name, path), params=h.query(stat=True)))

    def exists(self, path: str) -> bool:
        try:
            self.client._request("HEAD", h.file_path(self.name, path))
            return True
        except BerthError as e:
            if e.status == 404 and e.code != "SANDBOX_NOT_FOUND":
                return False
            raise

    def list(self, path: str, *, recursive: Optional[bool] = None, include_hidden: Optional[bool] = None) -> list[FileInfo]:
        d = self.client._call("GET", h.file_path(self.name, path), params=h.query(list=True, recursive=recursive, includeHidden=include_hidden))
        return [FileInfo.from_json(x) for x in d]

    def remove(self, path: str, *, recursive: Optional[bool] = None) -> None:
        self.client._request("DELETE", h.file_path(self.name, path), params=h.query(recursive=recursive))

    def mkdir(self, path: str, *, mode: Optional[str] = None) -> FileInfo:
        return FileInfo.from_json(self.client._call("POST", h.file_path(self.name, path), params=h.query(op="mkdir", mode=mode)))

    def move(self, src: str, dst: str, *, overwrite: Optional[bool] = None) -> FileInfo:
        return FileInfo.from_json(self.client._call("POST", h.file_path(self.name, src), params=h.query(op="move", to=dst, overwrite=overwrite)))

    # backups, ports
    def backups(self) -> list[Backup]:
        return [Backup.from_json(d) for d in self.client._call("GET", self._p("/backups"))]

    def create_backup(self) -> Backup:
        return Backup.from_json(self.client._call("POST", self._p("/backups")))

    def expose_port(self, port: int, *, public: Optional[bool] = None) -> ExposedPort:
        return ExposedPort.from_json(self.client._call("POST", self._p("/ports"), json_body=h.body(port=port, public=public)))

    def ports(self) -> list[ExposedPort]:
        return [ExposedPort.from_json(d) for d in self.client._call("GET", self._p("/ports"))]

    def unexpose_port(self, port: int) -> None:
        self.client._request("DELETE", self._p(f"/ports/{port}"))

    def stats(self) -> SandboxStats:
        """What the sandbox uses now (live figures while it runs); never wakes it."""
        return SandboxStats.from_json(self.client._call("GET", self._p("/stats")))

    # terminals (PTY sessions)
    def create_terminal(self, argv: Optional[list[str]] = None, *, cwd: Optional[str] = None,
                        cols: Optional[int] = None, rows: Optional[int] = None) -> dict[str, Any]:
        """Opens a PTY session (a shell by default); attach with connect_terminal."""
        return self.client._call("POST", self._p("/terminals"), json_body=h.body(argv=argv, cwd=cwd, cols=cols, rows=rows))

    def terminals(self) -> list[dict[str, Any]]:
        """The current container's terminals (never wakes the sandbox)."""
        return self.client._call("GET", self._p("/terminals"))

    def connect_terminal(self, id: str, *, cursor: Optional[str] = None, cols: Optional[int] = None,
                         rows: Optional[int] = None) -> Terminal:
        """Attaches to a terminal over WebSocket; a cursor from an earlier connection replays what was missed."""
        token = self.client._headers.get("Authorization", "").removeprefix("Bearer ")
        path = self._p(f"/terminals/{h.quote(id, safe='')}")
        try:
            return connect_sync(self.client.url, token, path + "/connect", cursor, cols, rows)
        except Refused as r:
            state_error: Optional[BerthError] = None
            try:
                self.client._call("GET", path)
            except BerthError as e:
                state_error = e
            raise refused_error(r, state_error) from None

    def close_terminal(self, id: str) -> dict[str, Any]:
        """Ends a terminal's process group."""
        return self.client._call("POST", self._p(f"/terminals/{h.quote(id, safe='')}/close"))

    # services (declared commands every boot starts)
    def services(self) -> dict[str, Any]:
        """The declared services and their states: {"services": [...]}."""
        return self.client._call("GET", self._p("/services"))

    def set_service(self, name: str, argv: list[str], *, restart: str = "always", cwd: Optional[str] = None,
                    env: Optional[dict[str, str]] = None, port: Optional[int] = None) -> dict[str, Any]:
        return self.client._call("PUT", self._p(f"/services/{h.quote(name, safe='')}"),
                                 json_body=h.body(argv=argv, restart=restart, cwd=cwd, env=env, port=port))

    def delete_service(self, name: str) -> None:
        self.client._request("DELETE", self._p(f"/services/{h.quote(name, safe='')}"))


class Process:
    """A process handle, valid while the process lives in the sandbox's
    current container; afterwards every call raises StaleProcessHandleError."""

    def __init__(self, sandbox: Sandbox, info: ProcessInfo) -> None:
        self.sandbox = sandbox
        self.info = info
        self.id = info.id
        self.pid = info.pid

    def _p(self, rest: str = "") -> str:
        return self.sandbox._p(f"/processes/{h.quote(self.id, safe='')}{rest}")

    def _c(self) -> Client:
        return self.sandbox.client

    def status(self) -> ProcessInfo:
        """The state now (never wakes a sleeping sandbox)."""
        return ProcessInfo.from_json(self._c()._call("GET", self._p()))

    def output(self, *, encoding: Optional[str] = None, max_bytes: Optional[int] = None, timeout: Optional[float] = None) -> Output:
        """Waits for the exit; the buffered stdout and stderr. ``timeout`` ends only the wait."""
        return Output.from_json(self._c()._call("GET", self._p("/output"), params=h.query(encoding=encoding, maxBytes=max_bytes, timeout=timeout)))

    def wait(self, timeout: Optional[float] = None) -> ProcessInfo:
        """Waits for the exit; ``timeout`` ends only the wait (WaitTimeoutError)."""
        return ProcessInfo.from_json(self._c()._call("POST", self._p("/wait"), json_body=h.body(timeout=timeout)))

    def wait_for_port(self, port: int, *, timeout: Optional[float] = None, mode: Optional[str] = None, path: Optional[str] = None) -> None:
        self._c()._call("POST", self._p("/wait-for-port"), json_body=h.body(port=port, timeout=timeout, mode=mode, path=path))

    def wait_for_log(self, pattern: str, *, stream: Optional[str] = None, timeout: Optional[float] = None) -> LogMatch:
        d = self._c()._call("POST", self._p("/wait-for-log"), json_body=h.body(pattern=pattern, stream=stream, timeout=timeout))
        return LogMatch(line=d.get("line", ""), stream=d.get("stream", ""), cursor=d.get("cursor", ""))

    def kill(self, signal: Union[str, int, None] = None) -> ProcessInfo:
        return ProcessInfo.from_json(self._c()._call("POST", self._p("/kill"), json_body=h.body(signal=signal)))

    def write_stdin(self, data: Union[bytes, str]) -> int:
        if isinstance(data, str):
            d = self._c()._call("POST", self._p("/stdin"), json_body={"text": data})
        else:
            d = self._c()._call("POST", self._p("/stdin"), content=data, headers={"Content-Type": "application/octet-stream"})
        return int(d.get("written", 0))

    def close_stdin(self) -> None:
        self._c()._call("POST", self._p("/stdin/close"))

    def logs(self, *, since: Optional[str] = None, replay: bool = True, follow: bool = False) -> "LogStream":
        """The log events, each with its cursor. Following, a dropped connection
        resumes from the last cursor: no gap, no duplicate. A stale handle or a
        bad cursor raises on the first iteration."""
        return LogStream(self, since, replay, follow)


class LogStream:
    """An iterator of LogEvents; ``cursor`` is the latest event's cursor."""

    def __init__(self, proc: Process, since: Optional[str], replay: bool, follow: bool) -> None:
        self.proc, self.cursor, self.replay, self.follow = proc, since, replay, follow

    def __iter__(self) -> Iterator[LogEvent]:
        rc = h.Reconnector()
        replay = self.replay
        while True:
            progressed, err = False, None
            params = h.query(since=self.cursor, replay=replay, follow=self.follow)
            try:
                for _, kind, data in h.sse_events(self.proc._c()._stream_lines(self.proc._p("/logs"), params)):
                    if kind == "error":
                        raise h.stream_error(data)
                    ev = h.log_event(data)
                    self.cursor, progressed, replay = ev.cursor, True, True
                    yield ev
                    if ev.type == "exit":
                        return
            except BerthError as e:
                err = e
            if err is None and not self.follow:
                return
            time.sleep(rc.delay(progressed, err))
