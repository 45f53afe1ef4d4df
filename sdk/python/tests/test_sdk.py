"""The Python SDK's methods beyond the shared scenarios, against the real stack:
the async client, follow across a gateway restart, files, events, an agent loop."""

import asyncio
import secrets

import pytest

import berth
from berth.aio import AsyncClient
from conformance import restart_gateway


def unique(prefix: str) -> str:
    return f"py-{prefix}-{secrets.token_hex(3)}"


@pytest.fixture()
def sandbox(stack):
    url, token = stack
    with berth.Client(url, token) as c:
        sb = c.create(unique("sdk"))
        try:
            yield sb
        finally:
            sb.destroy()


def test_agent_loop(sandbox) -> None:
    """Write code into a sandbox, run its tests, read the results."""
    sandbox.write_file("/workspace/proj/calc.sh", "add() { echo $(($1 + $2)); }\n", mkdir=True)
    sandbox.write_file(
        "/workspace/proj/test.sh",
        '. ./calc.sh\n[ "$(add 2 3)" = 5 ] && echo "PASS add" || { echo "FAIL add"; exit 1; }\n',
    )
    proc = sandbox.exec(["sh", "test.sh"], cwd="/workspace/proj")
    out = proc.output()
    assert (out.exit_code, out.stdout) == (0, "PASS add\n")
    # The agent breaks the code; the test says so.
    sandbox.write_file("/workspace/proj/calc.sh", "add() { echo $(($1 - $2)); }\n")
    res = sandbox.run(["sh", "test.sh"], cwd="/workspace/proj")
    assert (res.exit_code, res.stdout) == (1, "FAIL add\n")


def test_logs_follow_resumes_across_a_gateway_restart(sandbox) -> None:
    proc = sandbox.exec(["sh", "-c", "for i in 1 2 3 4 5 6; do echo $i; sleep 0.5; done"])
    stream = proc.logs(follow=True)
    got = []
    for ev in stream:
        got.append(ev.text if ev.type == "stdout" else ev.type)
        if len(got) == 2:
            restart_gateway()
    assert got == ["1\n", "2\n", "3\n", "4\n", "5\n", "6\n", "exit"]
    assert stream.cursor


def test_stale_and_errors(sandbox) -> None:
    proc = sandbox.exec(["sleep", "300"])
    assert sandbox.get_process(proc.id) is not None
    sandbox.sleep()
    assert sandbox.get_process(proc.id) is None
    with pytest.raises(berth.StaleProcessHandleError) as e:
        proc.output()
    assert e.value.status == 409 and not e.value.retryable and e.value.hint
    with pytest.raises(berth.SandboxNotFoundError):
        sandbox.client.sandbox(unique("ghost")).info()
    with pytest.raises(berth.BerthError) as ce:
        berth.Client("http://127.0.0.1:1", "x").list()
    assert ce.value.retryable


def test_files_and_events(sandbox) -> None:
    data = bytes(range(256)) * 3
    assert sandbox.write_file("/workspace/d/x.bin", data, mkdir=True).size == len(data)
    assert sandbox.read_file("/workspace/d/x.bin") == data
    assert sandbox.exists("/workspace/d/x.bin")
    sandbox.move("/workspace/d/x.bin", "/workspace/d/y.bin")
    assert [f.name for f in sandbox.list("/workspace/d")] == ["y.bin"]
    sandbox.remove("/workspace/d", recursive=True)
    assert not sandbox.exists("/workspace/d")
    types = [ev.short_type for ev in sandbox.events()]
    assert "created" in types and "started" in types


def test_async_client(stack) -> None:
    url, token = stack

    async def main() -> None:
        async with AsyncClient(url, token) as c:
            sb = await c.create(unique("aio"))
            try:
                proc = await sb.exec(["sh", "-c", "echo a; sleep 0.5; echo b >&2"])
                events = [ev async for ev in proc.logs(follow=True)]
                assert [(ev.type, ev.text) for ev in events[:-1]] == [("stdout", "a\n"), ("stderr", "b\n")]
                assert events[-1].type == "exit" and events[-1].exit.code == 0
                out = await proc.output()
                assert (out.stdout, out.stderr) == ("a\n", "b\n")
                # Two commands at once.
                r1, r2 = await asyncio.gather(sb.run(["echo", "one"]), sb.run(["echo", "two"]))
                assert (r1.stdout, r2.stdout) == ("one\n", "two\n")
                with pytest.raises(berth.ExecutableNotFoundError):
                    await sb.exec(["/no/such"])
                # Files, stdin, ports and settings, the async way.
                await sb.write_file("/workspace/a/x.txt", "x", mkdir=True)
                await sb.move("/workspace/a/x.txt", "/workspace/a/y.txt")
                assert not await sb.exists("/workspace/a/x.txt")
                assert await sb.read_file("/workspace/a/y.txt") == b"x"
                cat = await sb.exec(["cat"], stdin=True)
                await cat.write_stdin(b"piped")
                await cat.close_stdin()
                assert (await cat.output()).stdout == "piped"
                assert any(p.id == cat.id for p in await sb.processes())
                assert (await sb.expose_port(9000)).port == 9000
                assert [p.port for p in await sb.ports()] == [9000]
                assert (await sb.update(keep_alive=True)).keep_alive
                # Services: declared, started, listed, removed.
                await sb.set_service("tick", ["sh", "-c", "while :; do sleep 1; done"])
                for _ in range(100):
                    svc = {x["name"]: x for x in (await sb.services())["services"]}
                    if svc.get("tick", {}).get("state") == "running":
                        break
                    await asyncio.sleep(0.1)
                assert svc["tick"]["state"] == "running" and svc["tick"].get("processId")
                await sb.delete_service("tick")
                assert (await sb.services())["services"] == []
            finally:
                await sb.destroy()

    asyncio.run(main())


def test_terminal(stack) -> None:
    url, token = stack

    async def main() -> None:
        async with AsyncClient(url, token) as c:
            sb = await c.create(unique("term"))
            try:
                t = await sb.create_terminal(["sh"], cols=80, rows=24)
                conn = await sb.connect_terminal(t["id"])
                await conn.send("echo $((6 * 7)); exit 3\n")
                out = b""
                async for chunk in conn:
                    out += chunk
                assert b"42" in out
                assert conn.exit_code == 3
            finally:
                await sb.destroy()

    asyncio.run(main())


def read_until(t: berth.Terminal, text: bytes, timeout: float = 20) -> bytes:
    got = b""
    while text not in got:
        chunk = t.read(timeout=timeout)
        assert chunk is not None, f"the output ended without {text!r}: {got[-300:]!r}"
        got += chunk
    return got


def test_sync_terminal(sandbox) -> None:
    """The sync client's terminals (on a private event loop, as Debian's
    websockets 10.4 has no blocking client): type, read, resize, detach,
    reconnect from a cursor with replay, exit code, errors."""
    t = sandbox.create_terminal(["sh"], cols=80, rows=24)
    assert any(x["id"] == t["id"] for x in sandbox.terminals())
    with sandbox.connect_terminal(t["id"]) as conn:
        start = conn.cursor
        assert start
        conn.send("echo hi-$((6*7))\n")
        read_until(conn, b"hi-42")
        conn.resize(100, 30)
        conn.send("stty size\n")
        read_until(conn, b"30 100")
    # Detached: the terminal runs on; a reconnect from the first cursor replays.
    assert [x["state"] for x in sandbox.terminals() if x["id"] == t["id"]] == ["running"]
    with sandbox.connect_terminal(t["id"], cursor=start) as again:
        replay = read_until(again, b"30 100")
        assert b"hi-42" in replay
        again.send("exit 3\n")
        for _ in again:
            pass
        assert again.exit_code == 3
    # An id of this container that names no terminal (one of an earlier
    # container is STALE_PROCESS_HANDLE).
    with pytest.raises(berth.TerminalNotFoundError):
        sandbox.connect_terminal(t["id"].rsplit("-", 1)[0] + "-999999")


def test_tokens_and_stats(sandbox) -> None:
    c = sandbox.client
    sandbox.exec(["true"]).wait()
    s = sandbox.stats()
    assert s.status == "running" and s.live and s.cpu is not None and s.memory["usedBytes"] > 0
    tok = c.create_token(unique("tok"), sandboxes=[sandbox.name], scopes=["read"], ttl=600)
    assert tok.token and tok.scopes == ["read"]
    assert [t.token for t in c.tokens() if t.id == tok.id] == [None]
    with berth.Client(c.url, tok.token) as scoped:
        assert scoped.sandbox(sandbox.name).info().name == sandbox.name
        with pytest.raises(berth.ForbiddenError):
            scoped.sandbox(sandbox.name).exec(["true"])
        c.revoke_token(tok.id)
        with pytest.raises(berth.UnauthorizedError):
            scoped.sandbox(sandbox.name).info()
    with pytest.raises(berth.TokenNotFoundError):
        c.revoke_token(tok.id)


def test_secrets_and_ports(sandbox) -> None:
    c = sandbox.client
    name = unique("secret").replace("-", "_").upper()
    rec = c.set_secret(name, "s3cr3t", ["api.example.com"])
    assert rec["name"] == name and rec["version"] == 1
    assert "value" not in c.get_secret(name)
    assert any(s["name"] == name for s in c.secrets())
    c.delete_secret(name)
    with pytest.raises(berth.SecretNotFoundError):
        c.get_secret(name)
    port = sandbox.expose_port(8080)
    assert port.port == 8080 and port.url
    assert [p.port for p in sandbox.ports()] == [8080]
    sandbox.unexpose_port(8080)
