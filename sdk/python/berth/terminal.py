"""Terminals (PTY sessions) over WebSocket, for the asyncio client.

Binary frames are the terminal's input and output bytes; JSON text frames
carry ``ready {cursor}`` (first), ``resize {cols, rows}`` and ``exit {code}``.
Reconnecting with the last cursor replays what was missed.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Optional

import websockets

from . import _http as h
from ._base import BerthError


class Refused(Exception):
    """A refused upgrade: websockets keeps only its status, so the caller
    reads the terminal's state for the API error behind it (refused_error)."""

    def __init__(self, status: int) -> None:
        super().__init__(f"the terminal refused the WebSocket upgrade ({status})")
        self.status = status


def refused_error(r: Refused, state_error: Optional[BerthError]) -> BerthError:
    """The error of a refused upgrade: the terminal state's error (no such
    terminal, a stale one, a bad token), else one of the upgrade's status
    (a bad cursor is the one thing the state does not show)."""
    return state_error or h.decode_error(r.status, "", None)


class TerminalConnection:
    """An attached terminal: ``send`` input, ``async for`` output bytes."""

    def __init__(self, ws: Any, cursor: str) -> None:
        self._ws = ws
        self.cursor = cursor
        self.exit_code: Optional[int] = None

    async def send(self, data: bytes | str) -> None:
        await self._ws.send(data.encode() if isinstance(data, str) else bytes(data))

    async def resize(self, cols: int, rows: int) -> None:
        await self._ws.send(json.dumps({"type": "resize", "cols": cols, "rows": rows}))

    async def close(self) -> None:
        await self._ws.close()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for msg in self._ws:
                if isinstance(msg, bytes):
                    yield msg
                    continue
                frame = json.loads(msg)
                if frame.get("type") == "exit":
                    self.exit_code = frame.get("code")
                    return
                if frame.get("cursor"):
                    self.cursor = frame["cursor"]
        except websockets.ConnectionClosed:
            return


async def connect(url: str, token: str, path: str, cursor: Optional[str] = None,
                  cols: Optional[int] = None, rows: Optional[int] = None) -> TerminalConnection:
    q = h.query(cursor=cursor, cols=cols, rows=rows)
    qs = "&".join(f"{k}={v}" for k, v in q.items())
    uri = "ws" + url[len("http"):] + path + ("?" + qs if qs else "")
    headers = h.headers(token)
    # websockets 14 renamed extra_headers (Debian bookworm has 10.4).
    key = "additional_headers" if int(websockets.__version__.split(".")[0]) >= 14 else "extra_headers"
    try:
        ws = await websockets.connect(uri, max_size=4 << 20, **{key: headers})
    except websockets.InvalidHandshake as e:
        status = getattr(e, "status_code", None) or getattr(getattr(e, "response", None), "status_code", 502)
        raise Refused(status) from e
    first = json.loads(await ws.recv())
    if first.get("type") != "ready":
        await ws.close()
        raise BerthError("INTERNAL", "the terminal connection did not start with a ready frame", 502)
    return TerminalConnection(ws, first.get("cursor", ""))
