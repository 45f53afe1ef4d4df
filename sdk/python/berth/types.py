"""The API's shapes (schemas/openapi.yaml, components/schemas) as dataclasses.

Each keeps the answer it was made from in ``raw``, so fields this SDK does
not know yet are still reachable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional


@dataclass
class ExitStatus:
    code: int
    """The exit code, or 128+signal."""
    timed_out: bool = False
    """The exec timeout ended the process."""
    signal: Optional[int] = None

    @classmethod
    def from_json(cls, d: Optional[dict[str, Any]]) -> Optional["ExitStatus"]:
        if d is None:
            return None
        return cls(code=d.get("code", 0), timed_out=d.get("timedOut", False), signal=d.get("signal"))


@dataclass
class SandboxInfo:
    name: str
    status: str
    instance_type: str = ""
    sleep_after: str = ""
    keep_alive: bool = False
    env: dict[str, str] = field(default_factory=dict)
    image: Optional[str] = None
    image_digest: Optional[str] = None
    last_backup_id: Optional[str] = None
    host: Optional[str] = None
    created_at: str = ""
    updated_at: str = ""
    # The egress policy in force: {"mode": ..., "domains": [...], "cidrs": [...]}.
    egress: Optional[dict[str, Any]] = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "SandboxInfo":
        return cls(
            name=d.get("name", ""),
            status=d.get("status", ""),
            instance_type=d.get("instanceType", ""),
            sleep_after=d.get("sleepAfter", ""),
            keep_alive=d.get("keepAlive", False),
            env=dict(d.get("env") or {}),
            image=d.get("image"),
            image_digest=d.get("imageDigest"),
            last_backup_id=d.get("lastBackupId"),
            host=d.get("host"),
            created_at=d.get("createdAt", ""),
            updated_at=d.get("updatedAt", ""),
            egress=d.get("egress"),
            raw=d,
        )


@dataclass
class ProcessInfo:
    id: str
    pid: int
    state: str
    """running, exited or error."""
    command: list[str] = field(default_factory=list)
    cwd: str = ""
    started_at: str = ""
    ended_at: Optional[str] = None
    exit: Optional[ExitStatus] = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "ProcessInfo":
        return cls(
            id=d["id"],
            pid=d.get("pid", 0),
            state=d.get("state", ""),
            command=list(d.get("command") or []),
            cwd=d.get("cwd", ""),
            started_at=d.get("startedAt", ""),
            ended_at=d.get("endedAt"),
            exit=ExitStatus.from_json(d.get("exit")),
            raw=d,
        )


@dataclass
class Output:
    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool
    """The exec timeout ended the process."""
    truncated: bool
    """Older output was dropped, or max_bytes cut it."""
    signal: Optional[int] = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Output":
        return cls(
            stdout=d.get("stdout", ""),
            stderr=d.get("stderr", ""),
            exit_code=d.get("exitCode", 0),
            timed_out=d.get("timedOut", False),
            truncated=d.get("truncated", False),
            signal=d.get("signal"),
        )


@dataclass
class RunResult(Output):
    id: str = ""
    pid: int = 0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "RunResult":
        o = Output.from_json(d)
        return cls(**o.__dict__, id=d.get("id", ""), pid=d.get("pid", 0))


@dataclass
class LogEvent:
    type: str
    """stdout, stderr, exit or truncated."""
    cursor: str
    """Resume point: logs(since=cursor) continues after this event."""
    timestamp: str
    data: bytes = b""
    exit: Optional[ExitStatus] = None

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


@dataclass
class LogMatch:
    line: str
    stream: str
    cursor: str


@dataclass
class Event:
    offset: int
    type: str
    payload: dict[str, Any]
    created_at: str
    path: str

    @property
    def short_type(self) -> str:
        """The type without its events.iterate.com/sandbox/ prefix."""
        return self.type.rsplit("/", 1)[-1]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Event":
        return cls(offset=d["offset"], type=d["type"], payload=d.get("payload") or {}, created_at=d.get("createdAt", ""), path=d.get("path", ""))


@dataclass
class Backup:
    backup_id: str
    size: int
    bytes: int
    files: int
    sha256: str
    created_at: str
    bad: bool = False

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Backup":
        return cls(
            backup_id=d["backupId"],
            size=d.get("size", 0),
            bytes=d.get("bytes", 0),
            files=d.get("files", 0),
            sha256=d.get("sha256", ""),
            created_at=d.get("createdAt", ""),
            bad=d.get("bad", False),
        )


@dataclass
class FileInfo:
    name: str
    path: str
    type: str
    size: int = 0
    mode: str = ""
    mtime: str = ""
    target: Optional[str] = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "FileInfo":
        return cls(
            name=d.get("name", ""),
            path=d.get("path", ""),
            type=d.get("type", ""),
            size=d.get("size", 0),
            mode=d.get("mode", ""),
            mtime=d.get("mtime", ""),
            target=d.get("target"),
        )


@dataclass
class ExposedPort:
    port: int
    public: bool
    url: str
    path_url: str
    token: Optional[str] = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "ExposedPort":
        return cls(port=d["port"], public=d.get("public", False), url=d.get("url", ""), path_url=d.get("pathUrl", ""), token=d.get("token"))


@dataclass
class Token:
    """A scoped token; ``token`` (its value) is set in create_token's answer only."""

    id: str
    name: str
    sandboxes: list[str]
    scopes: list[str]
    created_at: str
    expires_at: str
    token: Optional[str] = None

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Token":
        return cls(id=d["id"], name=d["name"], sandboxes=list(d.get("sandboxes") or []), scopes=list(d.get("scopes") or []),
                   created_at=d.get("createdAt", ""), expires_at=d.get("expiresAt", ""), token=d.get("token"))


@dataclass
class SandboxStats:
    """What a sandbox uses now. The figures (dicts as the API gives them:
    ``cpu``, ``memory``, ``pids``, ``disk``, ``network``) are present only
    when ``live``, except a ``disk`` marked ``lastKnown``."""

    name: str
    status: str
    live: bool
    at: Optional[str] = None
    cpu: Optional[dict[str, Any]] = None
    memory: Optional[dict[str, Any]] = None
    pids: Optional[dict[str, Any]] = None
    disk: Optional[dict[str, Any]] = None
    network: Optional[dict[str, Any]] = None
    raw: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "SandboxStats":
        return cls(name=d["name"], status=d["status"], live=d["live"], at=d.get("at"), cpu=d.get("cpu"), memory=d.get("memory"),
                   pids=d.get("pids"), disk=d.get("disk"), network=d.get("network"), raw=d)
