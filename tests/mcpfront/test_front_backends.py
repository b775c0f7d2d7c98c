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
