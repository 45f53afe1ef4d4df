"""Berth's Python SDK: durable sandboxes, processes with resumable logs, files.

    from berth import Client
    with Client() as c:                       # BERTH_URL, BERTH_TOKEN
        sb = c.sandbox("user-123")
        proc = sb.exec(["python3", "--version"])
        print(proc.output().stdout)

berth.aio.AsyncClient is the same API for asyncio.
"""

from ._base import BerthError, ConnectionError
from .aio import AsyncClient, AsyncProcess, AsyncSandbox
from .client import Client, LogStream, Process, Sandbox
from .terminal import TerminalConnection
from .terminal_sync import Terminal
from .errors import *  # noqa: F401,F403 - one class per API code
from .errors import ERROR_CLASSES, HINTS
from .types import Backup, Event, ExitStatus, ExposedPort, FileInfo, LogEvent, LogMatch, Output, ProcessInfo, RunResult, SandboxInfo, SandboxStats, Token

__all__ = [
    "AsyncClient", "AsyncProcess", "AsyncSandbox", "Backup", "BerthError", "Client", "ConnectionError", "ERROR_CLASSES", "Event",
    "ExitStatus", "ExposedPort", "FileInfo", "HINTS", "LogEvent", "LogMatch", "LogStream", "Output", "Process", "ProcessInfo",
    "RunResult", "Sandbox", "SandboxInfo", "SandboxStats", "Terminal", "TerminalConnection", "Token",
]
