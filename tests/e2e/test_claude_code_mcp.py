"""Claude Code itself (the npm package, headless) as the MCP client of ``toolwire mcp
serve`` in front of the real ``mcp-server-time`` (issue 14). Its model is a scripted
Anthropic-format upstream (``toolwire.replay``) whose first turn calls the fronted tool
by Claude Code's own name for it, ``mcp__<server>__<tool>``: the call must go through
the front (one audit record, with Claude Code as the client) and its result must reach
the upstream in the next turn's ``tool_result``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agent.test_loop import anthropic_call, anthropic_text
from e2e.clients import npm_client
from e2e.test_claude_code import blocks, stream_json
from mcpfront.test_front_backends import records

from toolwire.replay import Dialogue, ReplayServer, Script

pytestmark = pytest.mark.e2e

SERVER = "front"
TOOL = f"mcp__{SERVER}__get_current_time"
ANSWER = "It is a fine time in Tokyo."


def test_claude_code_calls_a_tool_through_the_mcp_front(tmp_path: Path) -> None:
    claude = npm_client("claude")
    db = tmp_path / "audit.db"
    backends = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    (tmp_path / "backends.json").write_text(json.dumps({"mcpServers": backends}))
    front = [
        "-m",
        "toolwire",
        "mcp",
        "serve",
        "--config",
        str(tmp_path / "backends.json"),
        "--audit",
        str(db),
    ]
    mcp_config = tmp_path / "claude-mcp.json"
    mcp_config.write_text(
        json.dumps({"mcpServers": {SERVER: {"command": sys.executable, "args": front}}})
    )
    arguments = json.dumps({"timezone": "Asia/Tokyo"})
    # any model Claude Code asks for gets the dialogue: the MCP call, then text
    dialogue = Dialogue(
        [Script(anthropic_call("toolu_front_1", TOOL, arguments)), Script(anthropic_text(ANSWER))]
    )
    with ReplayServer({"dialogue": dialogue}, default="dialogue") as upstream:
        env = {
            **os.environ,
            "HOME": str(tmp_path),  # no user settings, no login
            "ANTHROPIC_BASE_URL": upstream.url.removesuffix("/v1"),
            "ANTHROPIC_API_KEY": "any",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "MCP_TIMEOUT": "60000",  # the front starts its backend first, on a busy machine
        }
        done = subprocess.run(
            [
                str(claude),
                "-p",
                "What time is it in Tokyo? Use the time tool.",
                "--mcp-config",
                str(mcp_config),
                "--strict-mcp-config",
                "--output-format",
                "stream-json",
                "--verbose",
                "--allowedTools",
                TOOL,
            ],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=180,
        )
        requests = [r.body for r in upstream.requests if r.path.startswith("/v1/messages")]
    assert done.returncode == 0, done.stderr[-2000:]
    events = stream_json(done.stdout)
    [init] = [e for e in events if e.get("type") == "system" and e.get("subtype") == "init"]
    servers = {s["name"]: s["status"] for s in init["mcp_servers"]}
    assert servers == {SERVER: "connected"}
    assert TOOL in init["tools"]

    [use] = blocks(events, "assistant", "tool_use")
    assert use["name"] == TOOL
    [result] = blocks(events, "user", "tool_result")
    assert result["tool_use_id"] == use["id"] and not result.get("is_error")
    final = [e for e in events if e.get("type") == "result"]
    assert final and final[-1]["result"] == ANSWER

    # the front ran the call: one record, ok, with Claude Code named as the client
    [record] = records(db)
    assert (record["tool_name"], record["status"]) == ("get_current_time", "ok")
    assert record["tool_origin"] == "mcp:time"
    client = json.loads(record["extra"])["client"]
    assert client["name"] and "claude" in client["name"].lower(), client

    # the tool's result reached the upstream in the next turn
    second = requests[-1]["messages"]
    returned = [
        b
        for m in second
        if m.get("role") == "user" and isinstance(m.get("content"), list)
        for b in m["content"]
        if isinstance(b, dict) and b.get("type") == "tool_result"
    ]
    [returned_block] = returned
    assert returned_block["tool_use_id"] == "toolu_front_1"
    said = json.dumps(returned_block["content"])
    assert "Asia/Tokyo" in said and "is_dst" in said
