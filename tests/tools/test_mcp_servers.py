"""Real MCP servers from PyPI (mcp-server-time, mcp-server-git) and an in-repo test
server, over stdio and streamable HTTP; no network beyond loopback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from gitrepo import make_git_repo

from toolwire.audit import MemorySink
from toolwire.engine import ToolEngine
from toolwire.tools import ToolRegistry
from toolwire.tools.mcp import MCPServerError, MCPToolError, MCPToolset
from toolwire.tools.mcp_config import parse_server

pytestmark = pytest.mark.anyio
TEST_SERVER = str(Path(__file__).with_name("mcp_test_server.py"))


def stdio(name: str, *args: str) -> MCPToolset:
    return MCPToolset(parse_server(name, {"command": sys.executable, "args": list(args)}))


@pytest.fixture(scope="module")
async def time_server() -> AsyncIterator[MCPToolset]:
    async with stdio("time", "-m", "mcp_server_time", "--local-timezone", "UTC") as ts:
        yield ts


@pytest.fixture(scope="module")
def git_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_git_repo(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
async def git_server(git_repo: Path) -> AsyncIterator[MCPToolset]:
    async with stdio("git", "-m", "mcp_server_git", "--repository", str(git_repo)) as ts:
        yield ts


@pytest.fixture(scope="module")
async def test_server() -> AsyncIterator[MCPToolset]:
    async with stdio("test", TEST_SERVER, "stdio") as ts:
        yield ts


def engine_for(*toolsets: MCPToolset, **kw: object) -> tuple[ToolEngine, MemorySink]:
    sink = MemorySink()
    return ToolEngine(ToolRegistry(toolsets), sinks=[sink], **kw), sink  # type: ignore[arg-type]


# ---------------------------------------------------------------- mcp-server-time


async def test_time_discovery_keeps_schema_and_hints(time_server: MCPToolset) -> None:
    tools = {t.name: t for t in time_server.tools}
    assert set(tools) == {"get_current_time", "convert_time"}
    t = tools["get_current_time"]
    assert t.spec.parameters["required"] == ["timezone"]
    assert t.hints.read_only is True and t.hints.destructive is False
    assert t.origin == "mcp:time" and t.executor == "mcp"


async def test_time_call_ok_with_structured_content(time_server: MCPToolset) -> None:
    engine, sink = engine_for(time_server)
    r = await engine.call("get_current_time", {"timezone": "Asia/Tokyo"})
    assert r.status == "ok", r.content
    assert r.structured["timezone"] == "Asia/Tokyo"
    assert '"Asia/Tokyo"' in r.content
    assert [x.status for x in sink.records] == ["ok"]
    rec = sink.records[0]
    assert rec.tool_type == "extension" and rec.tool_origin == "mcp:time"
    assert rec.result_tokens > 0 and rec.duration_ms > 0


async def test_time_is_error_result_is_tool_error(time_server: MCPToolset) -> None:
    engine, sink = engine_for(time_server)
    r = await engine.call("get_current_time", {"timezone": "Not/AZone"})
    assert r.status == "tool_error"
    assert "Invalid timezone" in r.content
    assert r.record.error_type == "tool_reported_error"
    assert len(sink.records) == 1


async def test_time_invalid_args_never_reach_the_server(time_server: MCPToolset) -> None:
    engine, sink = engine_for(time_server)
    r = await engine.call("convert_time", {"time": "10:00"})
    assert r.status == "invalid_args"
    assert "source_timezone" in r.content and "target_timezone" in r.content
    assert len(sink.records) == 1


async def test_unknown_tool_lists_closest_tools(time_server: MCPToolset) -> None:
    engine, sink = engine_for(time_server)
    r = await engine.call("get_time", {})
    assert r.status == "invalid_args" and r.record.error_type == "unknown_tool"
    assert "get_current_time" in r.content
    assert len(sink.records) == 1


async def test_server_side_unknown_tool_is_a_protocol_error(time_server: MCPToolset) -> None:
    with pytest.raises(MCPToolError) as info:
        await time_server.call("nope", {})
    assert info.value.code == -32602


async def test_time_timeout_then_session_still_works(time_server: MCPToolset) -> None:
    engine, sink = engine_for(time_server, timeout=1e-4)
    r = await engine.call("get_current_time", {"timezone": "UTC"})
    assert r.status == "timeout"
    engine2, _ = engine_for(time_server)
    assert (await engine2.call("get_current_time", {"timezone": "UTC"})).status == "ok"
    assert [x.status for x in sink.records] == ["timeout"]


# ----------------------------------------------------------------- mcp-server-git


async def test_git_read_only_call_runs(git_server: MCPToolset, git_repo: Path) -> None:
    engine, _ = engine_for(git_server)
    r = await engine.call("git_log", {"repo_path": str(git_repo)})
    assert r.status == "ok" and "first" in r.content


async def test_git_reset_waits_for_approval(git_server: MCPToolset, git_repo: Path) -> None:
    hints = {t.name: t.hints for t in git_server.tools}
    assert hints["git_reset"].destructive is True
    (git_repo / "b.txt").write_text("two\n")
    engine, sink = engine_for(git_server)
    assert (await engine.call("git_add", {"repo_path": str(git_repo), "files": ["b.txt"]})).ok
    status = await engine.call("git_status", {"repo_path": str(git_repo)})
    assert "b.txt" in status.content

    pending = await engine.call("git_reset", {"repo_path": str(git_repo)})
    assert pending.status == "pending_approval" and pending.approval_id
    assert pending.approval_id in pending.content
    staged = await engine.call("git_diff_staged", {"repo_path": str(git_repo)})
    assert "b.txt" in staged.content  # nothing was reset yet

    done = await engine.approve(pending.approval_id)
    assert done.status == "ok", done.content
    staged = await engine.call("git_diff_staged", {"repo_path": str(git_repo)})
    assert "b.txt" not in staged.content
    resets = [r for r in sink.records if r.tool_name == "git_reset"]
    assert [(r.status, r.policy_decision) for r in resets] == [
        ("pending_approval", "approval_required"),
        ("ok", "approved"),
    ]
    assert resets[0].approval_id == resets[1].approval_id == pending.approval_id


async def test_git_reset_rejected(git_server: MCPToolset, git_repo: Path) -> None:
    engine, sink = engine_for(git_server)
    pending = await engine.call("git_reset", {"repo_path": str(git_repo)})
    assert pending.approval_id is not None
    rejected = engine.reject(pending.approval_id, "not now")
    assert rejected.status == "denied" and "not now" in rejected.content
    assert [r.status for r in sink.records] == ["pending_approval", "denied"]


# ------------------------------------------------------ in-repo server over stdio


async def test_discovery_follows_pages(test_server: MCPToolset) -> None:
    # The test server serves 2 tools per page.
    assert [t.name for t in test_server.tools] == ["echo", "slow", "fail", "progress", "wipe"]


async def test_progress_reaches_listener_and_record(test_server: MCPToolset) -> None:
    seen: list[tuple[str, float, float | None, str | None]] = []
    engine, sink = engine_for(test_server, on_progress=lambda *a: seen.append(a))
    r = await engine.call("progress", {}, id="c1")
    assert r.ok
    assert [s[1:] for s in seen] == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    assert all(s[0] == "c1" for s in seen)
    assert sink.records[0].extra["progress_events"] == 3


async def test_slow_tool_times_out_and_session_survives(test_server: MCPToolset) -> None:
    engine, sink = engine_for(test_server, timeout=0.3)
    t0 = time.perf_counter()
    r = await engine.call("slow", {"seconds": 10})
    assert r.status == "timeout" and time.perf_counter() - t0 < 3
    assert (await engine.call("echo", {"text": "still here"})).content == "still here"
    assert [x.status for x in sink.records] == ["timeout", "ok"]


async def test_cancel_a_running_mcp_call(test_server: MCPToolset) -> None:
    engine, sink = engine_for(test_server)
    results = []

    async def run() -> None:
        results.append(await engine.call("slow", {"seconds": 10}, id="slow-1"))

    async with anyio.create_task_group() as tg:
        tg.start_soon(run)
        await anyio.sleep(0.2)
        assert engine.cancel("slow-1")
    assert results[0].status == "cancelled"
    assert [x.status for x in sink.records] == ["cancelled"]


async def test_destructive_annotation_needs_approval(test_server: MCPToolset) -> None:
    engine, _ = engine_for(test_server)
    assert (await engine.call("wipe", {})).status == "pending_approval"
    # Without the default policies nothing asks for approval.
    engine_open, _ = engine_for(test_server, policies=[])
    assert (await engine_open.call("wipe", {})).status == "ok"


async def test_mcp_is_error_and_structured(test_server: MCPToolset) -> None:
    engine, _ = engine_for(test_server)
    failed = await engine.call("fail", {})
    assert failed.status == "tool_error" and failed.content == "it broke"
    echoed = await engine.call("echo", {"text": "abc"})
    assert echoed.structured == {"text": "abc", "length": 3}


async def test_colliding_names_are_namespaced(test_server: MCPToolset) -> None:
    async with stdio("other", TEST_SERVER, "stdio") as other:
        registry = ToolRegistry([test_server, other])
        assert "test__echo" in registry and "other__echo" in registry
        assert "echo" not in registry
        engine = ToolEngine(registry, sinks=[])
        r = await engine.call("other__echo", {"text": "x"})
        assert r.ok and r.content == "x"


async def test_a_server_that_never_lists_its_tools_fails_within_its_timeout() -> None:
    # Before: entering the toolset waited forever (issue 11).
    cfg = parse_server(
        "mute",
        {"command": sys.executable, "args": [TEST_SERVER, "stdio", "hang-list"], "timeout": 1},
    )
    t0 = time.perf_counter()
    with anyio.fail_after(30), pytest.raises(MCPServerError) as info:
        async with MCPToolset(cfg):
            pass
    assert "did not start and list its tools within 1 s" in str(info.value)
    assert time.perf_counter() - t0 < 15


async def test_a_crashed_server_is_started_again_on_the_next_call(tmp_path: Path) -> None:
    # Before: after a crash every later call failed with "Connection closed" (issue 11).
    marker = tmp_path / "crashed-once"
    cfg = parse_server(
        "fragile",
        {"command": sys.executable, "args": [TEST_SERVER, "stdio", "crash-once", str(marker)]},
    )
    async with MCPToolset(cfg) as ts:
        ts.restart_wait = 30  # the restart serves the call, however loaded the machine
        engine, sink = engine_for(ts)
        crashed = await engine.call("crash", {})
        assert crashed.status == "tool_error" and "Connection closed" in crashed.content
        again = await engine.call("crash", {})
        assert again.status == "ok" and again.content == "survived"
        assert (await engine.call("echo", {"text": "back"})).content == "back"
        assert ts.restarts == 1
        assert [r.status for r in sink.records] == ["tool_error", "ok", "ok"]


async def test_a_server_that_stalls_when_started_again_does_not_hold_calls(
    tmp_path: Path,
) -> None:
    """The restart runs in the background: the call waits for it only ``restart_wait``
    (before: the whole start-up timeout, recorded as a timeout)."""
    stall, never = tmp_path / "stall", tmp_path / "never"
    wrapper = (
        f"if [ -e {stall} ]; then exec sleep 1000; fi; "
        f"exec {sys.executable} {TEST_SERVER} stdio down-while {never}"
    )
    cfg = parse_server("frail", {"command": "sh", "args": ["-c", wrapper], "timeout": 10})
    async with MCPToolset(cfg) as ts:
        ts.restart_wait = 0.5
        engine, sink = engine_for(ts)
        stall.touch()
        assert (await engine.call("crash", {})).status == "tool_error"
        with anyio.fail_after(5):
            first = await engine.call("echo", {"text": "x"})
            second = await engine.call("echo", {"text": "y"})
        for r in (first, second):
            assert r.status == "tool_error" and "being started again" in r.content
        assert ts.restarts == 1 and [t.remote_name for t in ts.tools].count("echo") == 1
        assert [r.status for r in sink.records] == ["tool_error"] * 3


# --------------------------------------------------------------- streamable HTTP


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, TEST_SERVER, "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the HTTP test server did not start")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait()


async def test_streamable_http_server(http_url: str) -> None:
    cfg = parse_server("web", {"type": "http", "url": http_url, "headers": {"X-Test": "1"}})
    async with MCPToolset(cfg) as ts:
        assert len(ts.tools) == 5
        engine = ToolEngine(ToolRegistry([ts]), sinks=[], timeout=0.5)
        r = await engine.call("echo", {"text": "over http"})
        assert r.ok and r.structured == {"text": "over http", "length": 9}
        assert (await engine.call("fail", {})).status == "tool_error"
        assert (await engine.call("slow", {"seconds": 5})).status == "timeout"
        assert (await engine.call("echo", {"text": "after"})).content == "after"


async def test_a_server_that_cannot_start_or_quits_at_once_is_named() -> None:
    """One error naming the server and what happened, not the SDK's exception group."""
    missing = MCPToolset(parse_server("ghost", {"command": "no-such-mcp-server-x"}))
    with pytest.raises(MCPServerError) as info:
        async with missing:
            pass
    assert str(info.value) == (
        "MCP server 'ghost': command 'no-such-mcp-server-x' not found "
        "(is it installed and on PATH?)"
    )
    assert not info.value.exited
    quitter = stdio("quitter", "-c", "import sys; sys.exit(3)")
    with open(os.devnull, "w") as devnull:
        quitter = MCPToolset(quitter.config, errlog=devnull)
        with pytest.raises(MCPServerError) as info:
            async with quitter:
                pass
    assert info.value.server == "quitter" and info.value.exited
    assert "exited before it answered" in str(info.value)


# --------------------------------------------------------------- tool list changes


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_a_tool_the_server_adds_is_listed_and_announced(
    mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Both eras: a 2026 listen event and a handshake-era tools/list_changed."""
    if mode == "legacy":
        import mcp

        real = mcp.Client

        def legacy_client(*args: object, **kw: object) -> object:
            return real(*args, mode="legacy", **kw)  # type: ignore[arg-type]

        monkeypatch.setattr("toolwire.tools.mcp.Client", legacy_client)
    announced = anyio.Event()

    async def listener(ts: MCPToolset) -> None:
        announced.set()

    async with stdio("growing", TEST_SERVER, "stdio", "grow") as ts:
        ts.on_tools_changed.append(listener)
        assert "grown" not in {t.name for t in ts.tools}
        engine, _ = engine_for(ts)
        assert (await engine.call("grow", {})).content == "grew"
        with anyio.fail_after(10):
            await announced.wait()
        assert "grown" in {t.name for t in ts.tools}


async def test_a_failing_tool_change_listener_does_not_end_the_session() -> None:
    heard = anyio.Event()

    async def broken(ts: MCPToolset) -> None:
        heard.set()
        raise RuntimeError("listener bug")

    async with stdio("growing", TEST_SERVER, "stdio", "grow") as ts:
        ts.on_tools_changed.append(broken)
        engine, _ = engine_for(ts)
        assert (await engine.call("grow", {})).content == "grew"
        with anyio.fail_after(10):
            await heard.wait()
        assert (await engine.call("echo", {"text": "still"})).content == "still"
        assert ts.restarts == 0 and "grown" in {t.name for t in ts.tools}
