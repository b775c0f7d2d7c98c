"""The loop with real tools: MCP servers from an ``mcpServers`` configuration
(``mcp-server-time``, ``mcp-server-git`` on a temporary repository) next to a Python
``@tool``, and calls the model wrote in its text (F35, Hermes), all against the
replay server; checked on what the model receives on the next turn."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from gitrepo import make_git_repo

from toolwire.agent import open_agent
from toolwire.audit.sinks import MemorySink
from toolwire.replay import Script, sse_messages, text_stream
from toolwire.replay.recorded import read_cases
from toolwire.tools import tool

from .scripted import calls_answer, client_for, replies, serve

pytestmark = pytest.mark.anyio


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


WEATHER: list[dict[str, Any]] = []


@tool
def get_weather(city: str, unit: str = "celsius", days: int = 1) -> str:
    """The weather in a city."""
    WEATHER.append({"city": city, "unit": unit, "days": days})
    return f"Sunny in {city}"


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    return make_git_repo(tmp_path, "first commit")


def mcp_config(repo: Path) -> dict[str, Any]:
    """An ``mcpServers`` object as Claude Desktop and Cursor write it."""
    return {
        "mcpServers": {
            "time": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            },
            "git": {"command": sys.executable, "args": ["-m", "mcp_server_git", "-r", str(repo)]},
        }
    }


async def test_parallel_calls_to_real_mcp_servers_and_a_python_tool(git_repo: Path) -> None:
    """Four calls in one turn, run in parallel: Python-style arguments (repaired), a
    decorated name (``functions.git_status``, normalized), an MCP call and a Python
    one. The next request carries each under the model's id, named as declared, with
    the repaired JSON, and each real result as its one reply."""
    repo = str(git_repo)
    turn = calls_answer(
        ("t1", "get_current_time", "{'timezone': 'Asia/Tokyo'}"),
        ("g1", "functions.git_status", f'{{"repo_path": "{repo}"}}'),
        ("g2", "git_log", f'{{"repo_path": "{repo}"}}'),
        ("a1", "add", '{"a": 1, "b": 2}'),
    )
    sink = MemorySink()
    with serve(turn, text_stream(["All done."])) as up:
        client = client_for(up)
        options = {"sinks": [sink]}
        async with open_agent(
            client, mcp=mcp_config(git_repo), tools=[add], engine_options=options
        ) as agent:
            names = set(agent.engine.registry.names)
            result = await agent.run("status?")
        await client.aclose()
        first, second = (r.body for r in up.requests)
    assert {"get_current_time", "git_status", "git_log", "add"} <= names
    assert {t["function"]["name"] for t in first["tools"]} == names
    assert result.stop == "done" and result.text == "All done."
    assert [c.status for c in result.calls] == ["ok", "ok", "ok", "ok"]
    sent = second["messages"][1]["tool_calls"]
    assert [(c["id"], c["function"]["name"]) for c in sent] == [
        ("t1", "get_current_time"),
        ("g1", "git_status"),
        ("g2", "git_log"),
        ("a1", "add"),
    ]
    assert sent[0]["function"]["arguments"] == '{"timezone":"Asia/Tokyo"}'
    got = dict(replies(second["messages"]))
    assert '"Asia/Tokyo"' in got["t1"]
    assert "On branch" in got["g1"] or "branch" in got["g1"].lower()
    assert "first commit" in got["g2"]
    assert got["a1"] == "3"
    # the audit: the wire's repairs and the engine's, the turn, the turn's usage
    records = {r.call_id: r for r in sink.records}
    assert records["t1"].repairs and records["t1"].tool_origin == "mcp:time"
    assert records["g1"].repairs and records["g1"].name_as_sent == "functions.git_status"
    assert records["g1"].tool_name == "git_status"
    assert all(r.turn == 1 for r in records.values())
    assert all(
        r.extra["turn_usage"]["input_tokens"] == 40 and r.extra["model"] == "m"
        for r in records.values()
    )
    assert [c.repairs for c in result.calls][:2] == [records["t1"].repairs, records["g1"].repairs]


def recorded(case_id: str) -> Any:
    [case] = [
        c for c in read_cases("servers.jsonl") + read_cases("streams.jsonl") if c.name == case_id
    ]
    return case


@pytest.mark.parametrize("family", ["agent", "auto"])
async def test_f35_a_call_written_as_fenced_json_in_the_text_is_run(family: str) -> None:
    """F35 as a local server without a tool parser sends it (the recorded stream):
    under text extraction the fenced call runs and is answered like any other."""
    WEATHER.clear()
    case = recorded("F35-fenced-json")
    sink = MemorySink()
    with serve(Script(sse_messages(case.data)), text_stream(["Sunny."])) as up:
        client = client_for(up)
        async with open_agent(
            client, tools=[get_weather], text_format=family, engine_options={"sinks": [sink]}
        ) as agent:
            result = await agent.run("weather in Rome?")
        await client.aclose()
        second = up.requests[1].body
    assert WEATHER == [{"city": "Rome", "unit": "celsius", "days": 1}]
    assert result.stop == "done" and result.turns == 2
    [call] = result.calls
    assert call.status == "ok" and call.call.name == "get_weather"
    assistant = second["messages"][1]
    assert "```" not in (assistant["content"] or "")  # the markup is the call, not text
    [sent] = assistant["tool_calls"]
    assert sent["function"]["arguments"] == '{"city":"Rome"}'
    assert replies(second["messages"]) == [(sent["id"], "Sunny in Rome")]
    assert [r.status for r in sink.records] == ["ok"]


async def test_hermes_calls_in_the_text_run_in_parallel_with_ids_of_their_own() -> None:
    """Two Hermes ``<tool_call>`` blocks in plain text (no ids on the wire): both run,
    each gets its own id and one reply, and the text before them stays text."""
    WEATHER.clear()
    text = recorded("hermes-two-calls").data.decode()
    pieces = [text[i : i + 17] for i in range(0, len(text), 17)]
    with serve(text_stream(pieces), text_stream(["Both sunny."])) as up:
        client = client_for(up)
        async with open_agent(
            client, tools=[get_weather], text_format="hermes", engine_options={"sinks": []}
        ) as agent:
            result = await agent.run("Oslo and Bern?")
        await client.aclose()
        second = up.requests[1].body
    assert sorted(w["city"] for w in WEATHER) == ["Bern", "Oslo"]
    assistant = second["messages"][1]
    assert assistant["content"] == "I will check both.\n"
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert len(set(ids)) == 2 and all(ids)
    assert replies(second["messages"]) == [(ids[0], "Sunny in Oslo"), (ids[1], "Sunny in Bern")]
    assert result.stop == "done" and result.text == "Both sunny."
