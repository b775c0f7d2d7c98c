"""``toolwire chat --prompt``: MCP servers from ``--mcp``, and the run's limits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.replay import text_stream

from .scripted import calls_answer, serve

runner = CliRunner()


def chat(url: str, *more: str) -> list[str]:
    return ["chat", "--base-url", url, "--model", "m", "--prompt", "go", "--json", *more]


def test_chat_runs_mcp_tools_from_an_mcp_servers_file(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    server = {"command": sys.executable, "args": ["-m", "mcp_server_time"]}
    config.write_text(json.dumps({"mcpServers": {"time": server}}))
    turn = calls_answer(("t1", "get_current_time", "{'timezone': 'Europe/Rome'}"))
    with serve(turn, text_stream(["Noon."])) as up:
        # a process of its own: the MCP server's stderr needs a real file descriptor
        args = [sys.executable, "-m", "toolwire", *chat(up.url, "--mcp", str(config))]
        out = subprocess.run(
            [*args, "--audit", "none"], capture_output=True, text=True, timeout=120
        )
        second = up.requests[1].body
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["stop"] == "done"
    assert [(c["name"], c["status"]) for c in result["calls"]] == [("get_current_time", "ok")]
    [reply] = [m for m in second["messages"] if m["role"] == "tool"]
    assert reply["tool_call_id"] == "t1" and "Europe/Rome" in reply["content"]


def test_chat_limits_end_the_run_with_their_stop_reason() -> None:
    tools = ["--tools", "tests.agent.chat_tools:add", "--audit", "none"]
    two = calls_answer(("c1", "add", '{"a": 1, "b": 2}'), ("c2", "add", '{"a": 3, "b": 4}'))
    with serve(two, text_stream(["ok"])) as up:
        calls = runner.invoke(app, [*chat(up.url, "--max-tool-calls", "1"), *tools])
    with serve(two, text_stream(["ok"])) as up:
        tokens = runner.invoke(app, [*chat(up.url, "--token-budget", "50"), *tools])
    for out, stop in ((calls, "max_tool_calls"), (tokens, "max_total_tokens")):
        assert out.exit_code == 1, out.output
        assert json.loads(out.stdout)["stop"] == stop
        assert out.stderr.count("\n") == 1 and stop in out.stderr
    assert [c["status"] for c in json.loads(calls.stdout)["calls"]] == ["ok", "denied"]
    assert [c["status"] for c in json.loads(tokens.stdout)["calls"]] == ["denied", "denied"]
