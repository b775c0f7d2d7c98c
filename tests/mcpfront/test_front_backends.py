"""``toolwire mcp serve`` in front of the in-repo test server, driven by the official
client: backends that change their tools, crash, hang or fail to start (issue 14)."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.anyio

TEST_SERVER = str(Path(__file__).parents[1] / "tools" / "mcp_test_server.py")


def front_params(tmp: Path, servers: dict[str, Any], *extra: str) -> StdioServerParameters:
    (tmp / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    args = ["-m", "toolwire", "mcp", "serve", "--config", str(tmp / "mcp.json")]
    return StdioServerParameters(command=sys.executable, args=[*args, *extra], cwd=str(tmp))


def backend(*args: str, **more: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [TEST_SERVER, "stdio", *args], **more}


def text_of(result: types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, types.TextContent))


def records(db: Path) -> list[dict[str, Any]]:
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute("SELECT * FROM tool_calls ORDER BY rowid")]
    finally:
        conn.close()


async def test_a_tool_a_backend_adds_reaches_a_listening_client(tmp_path: Path) -> None:
    """2026-era client: the change arrives on its subscriptions/listen stream."""
    params = front_params(tmp_path, {"g": backend("grow")}, "--audit", "none")
    async with Client(stdio_client(params), cache=None) as client:
        assert "grown" not in {t.name for t in (await client.list_tools()).tools}
        async with client.listen(tools_list_changed=True) as events:
            assert not (await client.call_tool("grow", {})).is_error
            with anyio.fail_after(15):
                async for _ in events:
                    break
        assert "grown" in {t.name for t in (await client.list_tools()).tools}
        r = await client.call_tool("grown", {})
        assert (r.is_error, text_of(r)) == (False, "grown")


async def test_a_tool_a_backend_adds_is_announced_to_a_handshake_era_client(
    tmp_path: Path,
) -> None:
    """Handshake-era client: ``notifications/tools/list_changed`` reaches it."""
    params = front_params(tmp_path, {"g": backend("grow")}, "--audit", "none")
    heard = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    client = Client(stdio_client(params), mode="legacy", message_handler=on_message, cache=None)
    async with client:
        assert client.server_capabilities.tools is not None
        assert client.server_capabilities.tools.list_changed
        await client.list_tools()
        assert not (await client.call_tool("grow", {})).is_error
        with anyio.fail_after(15):
            await heard.wait()
        assert "grown" in {t.name for t in (await client.list_tools()).tools}


async def test_a_crashed_backend_stays_listed_and_is_unavailable_until_back(
    tmp_path: Path,
) -> None:
    """A backend killed mid-session: its tools stay listed; calls get an isError "server
    unavailable" at once (recorded), never "Unknown tool", never a hang; the retries with
    backoff bring it back."""
    down = tmp_path / "down"
    servers = {"frail": backend("down-while", str(down)), "time": backend()}
    servers["time"]["args"] = ["-m", "mcp_server_time"]
    db = tmp_path / "audit.db"
    params = front_params(tmp_path, servers, "--audit", str(db))
    async with Client(stdio_client(params), cache=None) as client:
        crashed = await client.call_tool("crash", {})
        assert crashed.is_error and "server unavailable" in text_of(crashed)
        with anyio.fail_after(10):  # the restart fails: the server will not start
            again = await client.call_tool("echo", {"text": "x"})
        assert again.is_error and "server unavailable" in text_of(again)
        assert "could not be started again" in text_of(again)
        listed = {t.name for t in (await client.list_tools()).tools}
        assert {"echo", "crash", "get_current_time"} <= listed
        with anyio.fail_after(2):  # while it is tried again in the background: at once
            waiting = await client.call_tool("echo", {"text": "y"})
        assert waiting.is_error and "being started again" in text_of(waiting)
        assert not (await client.call_tool("get_current_time", {"timezone": "UTC"})).is_error
        down.unlink()
        with anyio.fail_after(20):
            while (back := await client.call_tool("echo", {"text": "back"})).is_error:
                await anyio.sleep(0.3)
        assert text_of(back) == "back"
    statuses = [(r["name_as_sent"], r["status"]) for r in records(db)]
    assert statuses[:4] == [
        ("crash", "tool_error"),
        ("echo", "tool_error"),
        ("echo", "tool_error"),
        ("get_current_time", "ok"),
    ]
    assert statuses[-1] == ("echo", "ok")


async def test_a_backend_that_stalls_when_started_again_does_not_hold_the_call(
    tmp_path: Path,
) -> None:
    """After a crash the backend hangs at start (npx fetching, a dead mount): the next
    call hears "server unavailable" after a short wait, not after the start-up timeout
    (before: it waited the whole 5 s and was recorded as a timeout)."""
    stall = tmp_path / "stall"
    never = tmp_path / "never"
    wrapper = (
        f"if [ -e {stall} ]; then exec sleep 1000; fi; "
        f"exec {sys.executable} {TEST_SERVER} stdio down-while {never}"
    )
    servers = {"frail": {"command": "sh", "args": ["-c", wrapper], "timeout": 5}}
    db = tmp_path / "audit.db"
    params = front_params(tmp_path, servers, "--audit", str(db))
    async with Client(stdio_client(params), cache=None) as client:
        assert not (await client.call_tool("echo", {"text": "up"})).is_error
        stall.touch()
        assert (await client.call_tool("crash", {})).is_error
        with anyio.fail_after(4):
            first = await client.call_tool("echo", {"text": "x"})
        assert first.is_error and "server unavailable" in text_of(first)
        assert "being started again" in text_of(first)
        with anyio.fail_after(1):  # the restart still going on: at once
            second = await client.call_tool("echo", {"text": "y"})
        assert second.is_error and "being started again" in text_of(second)
        assert "echo" in {t.name for t in (await client.list_tools()).tools}
    assert [r["status"] for r in records(db)] == ["ok", "tool_error", "tool_error", "tool_error"]


async def test_a_call_that_times_out_cancels_the_backend_call(tmp_path: Path) -> None:
    flag = tmp_path / "cancelled"
    db = tmp_path / "audit.db"
    params = front_params(tmp_path, {"t": backend()}, "--audit", str(db), "--timeout", "1")
    async with Client(stdio_client(params), cache=None) as client:
        with anyio.fail_after(15):
            r = await client.call_tool("slow", {"seconds": 30, "cancelled": str(flag)})
        assert r.is_error and "timed out after 1 s" in text_of(r)
        with anyio.fail_after(10):
            while not flag.exists():
                await anyio.sleep(0.1)
        assert text_of(await client.call_tool("echo", {"text": "still"})) == "still"
    assert [r["status"] for r in records(db)] == ["timeout", "ok"]


async def test_a_client_cancelling_a_call_cancels_the_backend_call(tmp_path: Path) -> None:
    """``notifications/cancelled`` from the client reaches the backend's call."""
    flag = tmp_path / "cancelled"
    db = tmp_path / "audit.db"
    params = front_params(tmp_path, {"t": backend()}, "--audit", str(db))
    async with Client(stdio_client(params), cache=None) as client:
        with anyio.move_on_after(1.5):
            await client.call_tool("slow", {"seconds": 30, "cancelled": str(flag)})
        with anyio.fail_after(10):
            while not flag.exists():
                await anyio.sleep(0.1)
        assert text_of(await client.call_tool("echo", {"text": "still"})) == "still"
    assert [r["status"] for r in records(db)] == ["cancelled", "ok"]


async def test_a_backend_that_fails_at_start_is_reported_and_the_others_served(
    tmp_path: Path,
) -> None:
    down = tmp_path / "down"
    down.touch()
    servers = {"late": backend("down-while", str(down)), "ghost": {"command": "no-such-x"}}
    servers["time"] = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    params = front_params(tmp_path, servers, "--audit", "none")
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "get_current_time" in names and "echo" not in names
            async with client.listen(tools_list_changed=True) as events:
                down.unlink()  # now it can start: a retry brings its tools
                with anyio.fail_after(20):
                    async for _ in events:
                        if "echo" in {t.name for t in (await client.list_tools()).tools}:
                            break
            assert text_of(await client.call_tool("echo", {"text": "late"})) == "late"
    said = log.read_text()
    assert "MCP server 'ghost': command 'no-such-x' not found" in said
    assert "serving the others" in said and "MCP server 'late'" in said


async def test_an_ambiguous_name_names_both_candidates_and_the_log_says_so(
    tmp_path: Path,
) -> None:
    params = front_params(tmp_path, {"a": backend(), "b": backend()}, "--audit", "none")
    log = tmp_path / "stderr.txt"
    with log.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), cache=None) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"a__echo", "b__echo"} <= names and "echo" not in names
            r = await client.call_tool("echo", {"text": "x"})
            assert r.is_error
            assert "ambiguous" in text_of(r)
            assert "'a__echo'" in text_of(r) and "'b__echo'" in text_of(r)
            ok = await client.call_tool("b__echo", {"text": "x"})
            assert text_of(ok) == "x"
    assert "tool name 'echo' is declared more than once; offered as a__echo, b__echo" in (
        log.read_text()
    )


def _answering(action: str, approve: bool | None = None) -> Any:
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        content = None if approve is None else {"approve": approve}
        return types.ElicitResult(action=action, content=content)  # type: ignore[arg-type]

    on_elicit.asked = asked  # type: ignore[attr-defined]
    return on_elicit


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize(
    ("action", "approve", "status", "decision"),
    [
        ("accept", True, "ok", "approved"),
        ("decline", None, "denied", "rejected"),
        ("cancel", None, "pending_approval", "approval_required"),
    ],
)
async def test_a_held_call_is_put_to_the_client_by_elicitation(
    tmp_path: Path, mode: str, action: str, approve: bool | None, status: str, decision: str
) -> None:
    """2026-era (input_required rounds) and handshake-era (elicitation/create) clients are
    asked; the call has one record, the executed one when approved."""
    db = tmp_path / "audit.db"
    params = front_params(tmp_path, {"t": backend()}, "--audit", str(db))
    on_elicit = _answering(action, approve)
    client = Client(stdio_client(params), mode=mode, elicitation_callback=on_elicit, cache=None)
    async with client:
        with anyio.fail_after(20):
            r = await client.call_tool("wipe", {})
    assert len(on_elicit.asked) == 1 and "Allow the call to wipe" in on_elicit.asked[0]
    assert r.is_error == (status != "ok")
    if status == "ok":
        assert text_of(r) == "wiped"
    elif status == "denied":
        assert "was not approved" in text_of(r)
    else:
        assert "Approval required" in text_of(r) and "did not approve" in text_of(r)
    [record] = records(db)
    assert (record["status"], record["policy_decision"]) == (status, decision)
    assert record["approval_id"]


async def test_a_client_that_cannot_be_asked_is_told_how_to_allow_the_tool(
    tmp_path: Path,
) -> None:
    params = front_params(tmp_path, {"t": backend()}, "--audit", "none")
    async with Client(stdio_client(params), cache=None) as client:
        r = await client.call_tool("wipe", {})
    assert r.is_error
    said = text_of(r)
    assert "does not support MCP elicitation" in said and '"allow" list' in said
    assert "--policy FILE" in said and "approval id" not in said


async def test_resources_and_prompts_are_passed_through_read_only(tmp_path: Path) -> None:
    params = front_params(tmp_path, {"a": backend(), "b": backend()}, "--audit", "none")
    async with Client(stdio_client(params), cache=None) as client:
        caps = client.server_capabilities
        assert caps.resources is not None and caps.prompts is not None
        resources = (await client.list_resources()).resources
        assert [str(r.uri) for r in resources] == ["test://greeting", "test://greeting"]
        read = await client.read_resource("test://greeting")
        [content] = read.contents
        assert isinstance(content, types.TextResourceContents)
        assert content.text == "hello from the test server"
        templates = (await client.list_resource_templates()).resource_templates
        assert [t.uri_template for t in templates] == ["test://echo/{text}"] * 2
        [echoed] = (await client.read_resource("test://echo/hi")).contents
        assert isinstance(echoed, types.TextResourceContents) and echoed.text == "hi"
        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == ["a__greet", "b__greet"]  # the names collide
        assert prompts[0].arguments and prompts[0].arguments[0].name == "who"
        got = await client.get_prompt("b__greet", {"who": "Ada"})
        [message] = got.messages
        assert isinstance(message.content, types.TextContent)
        assert message.content.text == "Say hello to Ada."
