"""The asyncio client: the API of berth.Client with async/await and ``async for``."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncIterator, Optional, Union

import httpx

from . import _http as h
from ._base import BerthError
from .terminal import Refused, TerminalConnection, connect, refused_error
from .errors import ProcessNotFoundError, StaleProcessHandleError
from .types import (Backup, Event, ExposedPort, FileInfo, LogEvent, LogMatch, Output, ProcessInfo, RunResult, SandboxInfo,
                    SandboxStats, Token)


class AsyncClient:
    """An asyncio client of one Berth gateway (default: ``BERTH_URL`` and ``BERTH_TOKEN``)."""

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *, http: Optional[httpx.AsyncClient] = None) -> None:
        self.url, token = h.settings(url, token)
        self._http = http or httpx.AsyncClient(timeout=h.TIMEOUT)
        self._headers = h.headers(token)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _request(self, method: str, path: str, *, params: Optional[dict[str, Any]] = None, json_body: Any = None,
                       content: Any = None, headers: Optional[dict[str, str]] = None) -> httpx.Response:
        hdrs = dict(self._headers)
        hdrs.update(headers or {})
        try:
            resp = await self._http.request(method, self.url + path, params=params, json=json_body, content=content, headers=hdrs)
        except httpx.TransportError as e:
            raise h.to_transport_error(e) from e
        return h.check(resp)

    async def _call(self, method: str, path: str, **kw: Any) -> Any:
        resp = await self._request(method, path, **kw)
        return resp.json() if resp.content else None

    async def _stream_lines(self, path: str, params: dict[str, Any]) -> AsyncIterator[str]:
        hdrs = dict(self._headers, Accept="text/event-stream")
        try:
            async with self._http.stream("GET", self.url + path, params=params, headers=hdrs) as resp:
                if resp.status_code >= 400:
                    await resp.aread()
                    raise h.decode_error(resp.status_code, resp.text, resp.headers)
                async for line in resp.aiter_lines():
                    yield line
        except httpx.TransportError as e:
            raise h.to_transport_error(e) from e

    def sandbox(self, name: str) -> "AsyncSandbox":
        return AsyncSandbox(self, name)

    async def create(self, name: str, **kw: Any) -> "AsyncSandbox":
        """Claims a name (keywords as berth.Client.create)."""
        await self.create_info(name, **kw)
        return self.sandbox(name)

    async def create_info(self, name: str, **kw: Any) -> tuple[SandboxInfo, bool]:
        from .client import _create_fields

        resp = await self._request("POST", "/v1/sandboxes", json_body=h.body(name=name, **_create_fields(kw)))
        return SandboxInfo.from_json(resp.json()), resp.status_code == 201

    async def list(self, status: Optional[str] = None) -> list[SandboxInfo]:
        return [SandboxInfo.from_json(d) for d in await self._call("GET", "/v1/sandboxes", params=h.query(status=status))]

    def events(self, *, after: Optional[int] = None, follow: bool = False) -> AsyncIterator[Event]:
        return _events(self, "/v1/events", after, follow)

    # scoped tokens (the admin token only), as berth.Client's
    async def create_token(self, name: str, *, scopes: list[str], ttl: float, sandboxes: Optional[list[str]] = None) -> Token:
        return Token.from_json(await self._call("POST", "/v1/tokens", json_body=h.body(name=name, sandboxes=sandboxes, scopes=scopes, ttl=ttl)))

    async def tokens(self) -> list[Token]:
        return [Token.from_json(d) for d in await self._call("GET", "/v1/tokens")]

    async def revoke_token(self, id: str) -> None:
        await self._request("DELETE", "/v1/tokens/" + h.quote(id, safe=""))


async def _sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[Optional[str], Optional[str], str]]:
    p = h.SSEParser()
    async for line in lines:
        ev = p.feed(line)
        if ev is not None:
            yield ev


async def _events(c: AsyncClient, path: str, after: Optional[int], follow: bool) -> AsyncIterator[Event]:
    rc = h.Reconnector()
    while True:
        progressed, err = False, None
        try:
            async for _, kind, data in _sse(c._stream_lines(path, h.query(after=after, follow=follow))):
                if kind == "error":
                    raise h.decode_error(503, data)
                ev = Event.from_json(json.loads(data))
                after, progressed = ev.offset, True
                yield ev
        except BerthError as e:
            err = e
        if err is None and not follow:
            return
        await asyncio.sleep(rc.delay(progressed, err))


class AsyncSandbox:
    def __init__(self, client: AsyncClient, name: str) -> None:
        self.client = client
        self.name = name

    def _p(self, rest: str = "") -> str:
        return h.sandbox_path(self.name, rest)

    async def info(self) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("GET", self._p()))

    async def start(self) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("POST", self._p("/start"), json_body={}))

    async def sleep(self) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("POST", self._p("/sleep")))

    async def destroy(self) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("DELETE", self._p()))

    async def update(self, *, sleep_after: Optional[float] = None, keep_alive: Optional[bool] = None) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("PATCH", self._p(), json_body=h.body(sleepAfter=sleep_after, keepAlive=keep_alive)))

    async def set_egress(self, mode: str, *, domains: Optional[list[str]] = None, cidrs: Optional[list[str]] = None) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("PUT", self._p("/egress"), json_body=h.body(mode=mode, domains=domains, cidrs=cidrs)))

    async def set_env(self, env: dict[str, Optional[str]]) -> SandboxInfo:
        return SandboxInfo.from_json(await self.client._call("PATCH", self._p("/env"), json_body={"env": env}))

    async def fork(self, new_name: str, *, backup_id: Optional[str] = None) -> "AsyncSandbox":
        await self.client._request("POST", "/v1/sandboxes", json_body={"name": new_name, "from": h.body(sandbox=self.name, backupId=backup_id)})
        return self.client.sandbox(new_name)

    def events(self, *, after: Optional[int] = None, follow: bool = False) -> AsyncIterator[Event]:
        return _events(self.client, self._p("/events"), after, follow)

    async def exec(self, argv: list[str], *, cwd: Optional[str] = None, env: Optional[dict[str, Optional[str]]] = None,
                   timeout: Optional[float] = None, stdin: bool = False, user: Optional[str] = None) -> "AsyncProcess":
        d = await self.client._call("POST", self._p("/processes"), json_body=h.body(argv=argv, cwd=cwd, env=env, timeout=timeout,
                                                                                    stdin="pipe" if stdin else None, user=user))
        return AsyncProcess(self, ProcessInfo.from_json(d))

    async def run(self, argv: list[str], *, cwd: Optional[str] = None, env: Optional[dict[str, Optional[str]]] = None,
                  timeout: Optional[float] = None, max_bytes: Optional[int] = None, encoding: Optional[str] = None) -> RunResult:
        d = await self.client._call("POST", self._p("/processes"), json_body=h.body(argv=argv, cwd=cwd, env=env, timeout=timeout, wait=True,
                                                                                    maxBytes=max_bytes, encoding=encoding))
        return RunResult.from_json(d)

    async def get_process(self, id: str) -> Optional["AsyncProcess"]:
        try:
            d = await self.client._call("GET", self._p(f"/processes/{h.quote(id, safe='')}"))
        except (ProcessNotFoundError, StaleProcessHandleError):
            return None
        return AsyncProcess(self, ProcessInfo.from_json(d))

    def process(self, id: str) -> "AsyncProcess":
        return AsyncProcess(self, ProcessInfo(id=id, pid=0, state=""))

    async def read_file(self, path: str) -> bytes:
        return (await self.client._request("GET", h.file_path(self.name, path))).content

    async def write_file(self, path: str, data: Union[bytes, str], *, mode: Optional[str] = None, mkdir: Optional[bool] = None) -> FileInfo:
        content = data.encode() if isinstance(data, str) else data
        return FileInfo.from_json(await self.client._call("PUT", h.file_path(self.name, path), params=h.query(mode=mode, mkdir=mkdir),
                                                          content=content, headers={"Content-Type": "application/octet-stream"}))

    async def stat(self, path: str) -> FileInfo:
        return FileInfo.from_json(await self.client._call("GET", h.file_path(self.name, path), params=h.query(stat=True)))

    async def list(self, path: str) -> list[FileInfo]:
        return [FileInfo.from_json(x) for x in await self.client._call("GET", h.file_path(self.name, path), params=h.query(list=True))]

    async def exists(self, path: str) -> bool:
        try:
            await self.client._request("HEAD", h.file_path(self.name, path))
            return True
        except BerthError as e:
            if e.status == 404 and e.code != "SANDBOX_NOT_FOUND":
                return False
            raise

    async def mkdir(self, path: str, *, mode: Optional[str] = None) -> FileInfo:
        return FileInfo.from_json(await self.client._call("POST", h.file_path(self.name, path), params=h.query(op="mkdir", mode=mode)))

    async def move(self, src: str, dst: str, *, overwrite: Optional[bool] = None) -> FileInfo:
        return FileInfo.from_json(await self.client._call("POST", h.file_path(self.name, src), params=h.query(op="move", to=dst, overwrite=overwrite)))

    async def processes(self) -> list["AsyncProcess"]:
        return [AsyncProcess(self, ProcessInfo.from_json(d)) for d in await self.client._call("GET", self._p("/processes"))]

    async def expose_port(self, port: int, *, public: Optional[bool] = None) -> ExposedPort:
        return ExposedPort.from_json(await self.client._call("POST", self._p("/ports"), json_body=h.body(port=port, public=public)))

    async def ports(self) -> list[ExposedPort]:
        return [ExposedPort.from_json(d) for d in await self.client._call("GET", self._p("/ports"))]

    async def remove(self, path: str, *, recursive: Optional[bool] = None) -> None:
        await self.client._request("DELETE", h.file_path(self.name, path), params=h.query(recursive=recursive))

    async def stats(self) -> SandboxStats:
        """What the sandbox uses now (live figures while it runs); never wakes it."""
        return SandboxStats.from_json(await self.client._call("GET", self._p("/stats")))

    async def backups(self) -> list[Backup]:
        return [Backup.from_json(d) for d in await self.client._call("GET", self._p("/backups"))]

    async def create_backup(self) -> Backup:
        return Backup.from_json(await self.client._call("POST", self._p("/backups")))

    async def create_terminal(self, argv: Optional[list[str]] = None, *, cwd: Optional[str] = None,
                              cols: Optional[int] = None, rows: Optional[int] = None) -> dict[str, Any]:
        """Opens a PTY session (a shell by default); attach with connect_terminal."""
        return await self.client._call("POST", self._p("/terminals"), json_body=h.body(argv=argv, cwd=cwd, cols=cols, rows=rows))

    async def connect_terminal(self, id: str, *, cursor: Optional[str] = None, cols: Optional[int] = None,
                               rows: Optional[int] = None) -> "TerminalConnection":
        """Attaches to a terminal over WebSocket; a cursor from an earlier connection replays what was missed."""
        token = self.client._headers.get("Authorization", "").removeprefix("Bearer ")
        path = self._p(f"/terminals/{h.quote(id, safe='')}")
        try:
            return await connect(self.client.url, token, path + "/connect", cursor, cols, rows)
        except Refused as r:
            state_error: Optional[BerthError] = None
            try:
                await self.client._call("GET", path)
            except BerthError as e:
                state_error = e
            raise refused_error(r, state_error) from None

    async def terminals(self) -> list[dict[str, Any]]:
        return await self.client._call("GET", self._p("/terminals"))

    async def close_terminal(self, id: str) -> dict[str, Any]:
        return await self.client._call("POST", self._p(f"/terminals/{h.quote(id, safe='')}/close"))

    async def unexpose_port(self, port: int) -> None:
        await self.client._request("DELETE", self._p(f"/ports/{port}"))

    # services (declared commands every boot starts)
    async def services(self) -> dict[str, Any]:
        """The declared services and their states: {"services": [...]}."""
        return await self.client._call("GET", self._p("/services"))

    async def set_service(self, name: str, argv: list[str], *, restart: str = "always", cwd: Optional[str] = None,
                          env: Optional[dict[str, str]] = None, port: Optional[int] = None) -> dict[str, Any]:
        return await self.client._call("PUT", self._p(f"/services/{h.quote(name, safe='')}"),
                                       json_body=h.body(argv=argv, restart=restart, cwd=cwd, env=env, port=port))

    async def delete_service(self, name: str) -> None:
        await self.client._request("DELETE", self._p(f"/services/{h.quote(name, safe='')}"))


class AsyncProcess:
    def __init__(self, sandbox: AsyncSandbox, info: ProcessInfo) -> None:
        self.sandbox = sandbox
        self.info = info
        self.id = info.id
        self.pid = info.pid

    def _p(self, rest: str = "") -> str:
        return self.sandbox._p(f"/processes/{h.quote(self.id, safe='')}{rest}")

    def _c(self) -> AsyncClient:
        return self.sandbox.client

    async def status(self) -> ProcessInfo:
        return ProcessInfo.from_json(await self._c()._call("GET", self._p()))

    async def output(self, *, encoding: Optional[str] = None, max_bytes: Optional[int] = None, timeout: Optional[float] = None) -> Output:
        return Output.from_json(await self._c()._call("GET", self._p("/output"), params=h.query(encoding=encoding, maxBytes=max_bytes, timeout=timeout)))

    async def wait(self, timeout: Optional[float] = None) -> ProcessInfo:
        return ProcessInfo.from_json(await self._c()._call("POST", self._p("/wait"), json_body=h.body(timeout=timeout)))

    async def wait_for_port(self, port: int, *, timeout: Optional[float] = None) -> None:
        await self._c()._call("POST", self._p("/wait-for-port"), json_body=h.body(port=port, timeout=timeout))

    async def wait_for_log(self, pattern: str, *, stream: Optional[str] = None, timeout: Optional[float] = None) -> LogMatch:
        d = await self._c()._call("POST", self._p("/wait-for-log"), json_body=h.body(pattern=pattern, stream=stream, timeout=timeout))
        return LogMatch(line=d.get("line", ""), stream=d.get("stream", ""), cursor=d.get("cursor", ""))

    async def kill(self, signal: Union[str, int, None] = None) -> ProcessInfo:
        return ProcessInfo.from_json(await self._c()._call("POST", self._p("/kill"), json_body=h.body(signal=signal)))

    async def write_stdin(self, data: Union[bytes, str]) -> int:
        if isinstance(data, str):
            d = await self._c()._call("POST", self._p("/stdin"), json_body={"text": data})
        else:
            d = await self._c()._call("POST", self._p("/stdin"), content=data, headers={"Content-Type": "application/octet-stream"})
        return int(d.get("written", 0))

    async def close_stdin(self) -> None:
        await self._c()._call("POST", self._p("/stdin/close"))

    def logs(self, *, since: Optional[str] = None, replay: bool = True, follow: bool = False) -> "AsyncLogStream":
        return AsyncLogStream(self, since, replay, follow)


class AsyncLogStream:
    """An async iterator of LogEvents; ``cursor`` is the latest event's cursor."""

    def __init__(self, proc: AsyncProcess, since: Optional[str], replay: bool, follow: bool) -> None:
        self.proc, self.cursor, self.replay, self.follow = proc, since, replay, follow

    async def __aiter__(self) -> AsyncIterator[LogEvent]:
        rc = h.Reconnector()
        replay = self.replay
        while True:
            progressed, err = False, None
            params = h.query(since=self.cursor, replay=replay, follow=self.follow)
            try:
                async for _, kind, data in _sse(self.proc._c()._stream_lines(self.proc._p("/logs"), params)):
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
            await asyncio.sleep(rc.delay(progressed, err))
