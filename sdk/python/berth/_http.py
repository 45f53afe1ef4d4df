"""Request building, error decoding, SSE parsing and reconnect pacing, shared
by the sync and async clients."""

from __future__ import annotations

import base64
import json
import os
import time
from typing import Any, Iterable, Iterator, Optional
from urllib.parse import quote

import httpx

from ._base import BerthError, ConnectionError
from .errors import ERROR_CLASSES, HINTS
from .types import ExitStatus, LogEvent

DEFAULT_URL = "http://127.0.0.1:8080"

# Waits and streams are bounded by the server (a wait's own timeout) or
# by the caller; a read timeout would cut a quiet follow stream.
TIMEOUT = httpx.Timeout(connect=10.0, read=None, write=60.0, pool=10.0)


def settings(url: Optional[str], token: Optional[str]) -> tuple[str, str]:
    return (url or os.environ.get("BERTH_URL") or DEFAULT_URL).rstrip("/"), token if token is not None else os.environ.get("BERTH_TOKEN", "")


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def sandbox_path(name: str, rest: str = "") -> str:
    return f"/v1/sandboxes/{quote(name, safe='')}{rest}"


def file_path(name: str, path: str) -> str:
    if not path.startswith("/"):
        raise ValueError(f"berth: file paths are absolute: {path!r}")
    rest = path.lstrip("/")
    if not rest:
        return sandbox_path(name, "/files")
    return sandbox_path(name, "/files/" + "/".join(quote(p, safe="") for p in rest.split("/")))


def query(**kw: Any) -> dict[str, Any]:
    """Drops None values and spells booleans as the API does."""
    out: dict[str, Any] = {}
    for k, v in kw.items():
        if v is None:
            continue
        out[k] = ("true" if v else "false") if isinstance(v, bool) else v
    return out


def body(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


def decode_error(status: int, text: str, hdrs: Optional[httpx.Headers] = None) -> BerthError:
    """The error class of an error answer's code."""
    e: dict[str, Any] = {}
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            e = parsed["error"]
    except ValueError:
        pass  # not JSON: a proxy's page
    gateway_down = status in (502, 503, 504)
    code = e.get("code") or ("UNAVAILABLE" if gateway_down else f"HTTP_{status}")
    retry_after: Optional[float] = None
    if "retryAfterMs" in e:
        retry_after = e["retryAfterMs"] / 1000
    elif hdrs is not None and (hdrs.get("Retry-After") or "").isdigit():
        retry_after = float(hdrs["Retry-After"])
    cls = ERROR_CLASSES.get(code, BerthError)
    return cls(
        code,
        e.get("message") or text[:200],
        status,
        retryable=e.get("retryable", gateway_down),
        retry_after=retry_after,
        context=e.get("context"),
        hint=HINTS.get(code, ""),
        request_id=hdrs.get("X-Request-Id") if hdrs is not None else None,
    )


def check(resp: httpx.Response) -> httpx.Response:
    if resp.status_code >= 400:
        raise decode_error(resp.status_code, resp.text, resp.headers)
    return resp


def json_of(resp: httpx.Response) -> Any:
    check(resp)
    return resp.json() if resp.content else None


class SSEParser:
    """Feeds lines, yields (id, event, data) of each dispatched event."""

    def __init__(self) -> None:
        self.id: Optional[str] = None
        self.event: Optional[str] = None
        self.data: list[str] = []

    def feed(self, line: str) -> Optional[tuple[Optional[str], Optional[str], str]]:
        line = line.rstrip("\r\n")
        if line == "":
            out = None
            if self.data:
                out = (self.id, self.event, "\n".join(self.data))
            self.data, self.event = [], None
            return out
        if line.startswith(":"):
            return None  # keep-alive comment
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            self.data.append(value)
        elif field == "id":
            self.id = value
        elif field == "event":
            self.event = value
        return None


def sse_events(lines: Iterable[str]) -> Iterator[tuple[Optional[str], Optional[str], str]]:
    p = SSEParser()
    for line in lines:
        ev = p.feed(line)
        if ev is not None:
            yield ev


def log_event(data: str) -> LogEvent:
    w = json.loads(data)
    return LogEvent(
        type=w["type"],
        cursor=w["cursor"],
        timestamp=w.get("timestamp", ""),
        data=base64.b64decode(w["data"]) if "data" in w else b"",
        exit=ExitStatus.from_json(w.get("exit")),
    )


def stream_error(data: str) -> BerthError:
    """An SSE `error` event: the API error of a failure after the stream began."""
    try:
        code = json.loads(data).get("error", {}).get("code")
    except (ValueError, AttributeError):
        code = None
    return decode_error(409 if code == "STALE_PROCESS_HANDLE" else 503, data)


def retryable(err: BaseException) -> bool:
    if isinstance(err, BerthError):
        return err.retryable
    return isinstance(err, (httpx.TransportError, ConnectionError))


class Reconnector:
    """Paces the reconnects of a following stream: backoff from 0.1 s to 2 s
    (or the server's retry_after), reset by every attempt that received
    something; it gives up on an error that is not retryable, or after
    ``window`` seconds without progress."""

    def __init__(self, window: float = 30.0) -> None:
        self.window = window
        self.failing_since = 0.0
        self.backoff = 0.1

    def delay(self, progressed: bool, err: Optional[BaseException]) -> float:
        """Seconds to wait before the next attempt; raises the error that ends the stream."""
        now = time.monotonic()
        if progressed or self.failing_since == 0.0:
            self.failing_since, self.backoff = now, 0.1
        if err is not None and not retryable(err):
            raise err
        if now - self.failing_since > self.window:
            raise err or ConnectionError("the stream ended before its end")
        d = self.backoff
        ra = getattr(err, "retry_after", None)
        if ra and ra > d:
            d = ra
        self.backoff = min(self.backoff * 2, 2.0)
        return d


def to_transport_error(err: httpx.TransportError) -> ConnectionError:
    return ConnectionError(f"{type(err).__name__}: {err}")
