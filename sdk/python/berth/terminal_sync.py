"""Terminals for the synchronous client.

Debian's websockets (10.4) has no blocking client (websockets.sync came in
12), so a Terminal runs the asyncio connection of berth.terminal on an event
loop of its own, in a daemon thread; the calling thread only waits on it.
Output is pumped into a queue as it arrives, so a read with a timeout never
cancels the connection's reader.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from typing import Any, Iterator, Optional

from .terminal import TerminalConnection, connect

# The end of a terminal's output in the queue.
_END = object()


class Terminal:
    """An attached terminal: ``send`` input, iterate (or ``read``) output bytes.

    ``cursor`` is where a later connect_terminal(cursor=...) resumes;
    ``exit_code`` is set once the terminal's process exited.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, thread: threading.Thread, conn: TerminalConnection) -> None:
        self._loop, self._thread, self._conn = loop, thread, conn
        self._out: "queue.Queue[Any]" = queue.Queue()
        self._ended = False
        self._pump = asyncio.run_coroutine_threadsafe(self._read_all(), loop)

    async def _read_all(self) -> None:
        try:
            async for chunk in self._conn:
                self._out.put(chunk)
        finally:
            self._out.put(_END)

    def _run(self, coro: Any, timeout: Optional[float] = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    @property
    def cursor(self) -> str:
        return self._conn.cursor

    @property
    def exit_code(self) -> Optional[int]:
        return self._conn.exit_code

    def send(self, data: bytes | str) -> None:
        self._run(self._conn.send(data))

    def resize(self, cols: int, rows: int) -> None:
        self._run(self._conn.resize(cols, rows))

    def read(self, timeout: Optional[float] = None) -> Optional[bytes]:
        """The next output bytes; None once the output ended. A timeout
        that passes raises queue.Empty and leaves the connection as it was."""
        if self._ended:
            return None
        item = self._out.get(timeout=timeout)
        if item is _END:
            self._ended = True
            return None
        return item

    def __iter__(self) -> Iterator[bytes]:
        while (chunk := self.read()) is not None:
            yield chunk

    def close(self) -> None:
        """Detaches (the terminal keeps running; close_terminal ends it)."""
        if not self._loop.is_closed():
            try:
                self._run(self._conn.close(), timeout=10)
                self._pump.result(timeout=10)
            except Exception:
                pass
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
            self._loop.close()

    def __enter__(self) -> "Terminal":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def connect_sync(url: str, token: str, path: str, cursor: Optional[str] = None,
                 cols: Optional[int] = None, rows: Optional[int] = None) -> Terminal:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="berth-terminal", daemon=True)
    thread.start()
    try:
        conn = asyncio.run_coroutine_threadsafe(connect(url, token, path, cursor, cols, rows), loop).result(60)
    except BaseException:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()
        raise
    return Terminal(loop, thread, conn)
