"""Claude Code itself (the npm package, headless) through ``toolwire serve`` in front
of a replayed open-model server whose Bash call arrives broken: Claude Code must run
the repaired call and send its result back, and the model's next turn reaches it."""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from e2e.clients import npm_client
from gateway.serving import GatewayServer

from toolwire.audit import MemorySink
from toolwire.gateway import GatewayConfig
from toolwire.replay import (
    DONE,
    Dialogue,
    ReplayServer,
    Script,
    WireCall,
    anthropic_answer,
    call_stream,
    chat_chunk,
    text_stream,
    usage_chunk,
)

pytestmark = pytest.mark.e2e

MARKER = "toolwire-e2e-ok"
COMMAND = f"echo {MARKER}"
ANSWER = f"The command printed {MARKER}."


def llama_cpp_call(name: str, fragments: list[str]) -> list[bytes]:
    """A call as llama-cpp-python streams it (F32): every chunk repeats the call's id
    and name, and mirrors the arguments in the legacy ``function_call``."""
    call_id = f"call__0_{name}_cmpl-5f1c0e8a"
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    for fragment in fragments:
        call = {"index": 0, "id": call_id, "type": "function"}
        function = {"name": name, "arguments": fragment}
        delta = {
            "content": None,
            "function_call": function,
            "tool_calls": [{**call, "function": function}],
        }
        chunks.append(chat_chunk(delta))
    return [*chunks, chat_chunk({}, "tool_calls"), usage_chunk(900, 20), DONE]


# each: the broken call, as the upstream streams it, and the repair it needs
BROKEN_CALLS: dict[str, tuple[list[bytes], str]] = {
    "python-dict": (
        call_stream(
            "Bash",
            [f"{{'command': '{COMMAND}', ", "'description': 'Print a marker',}"],
            "tool_calls",
        ),
        "python_literal",
    ),
    "llama-cpp-repeated-ids": (
        llama_cpp_call("Bash", ['{"command": "echo ', f'{MARKER}", "descr', 'iption": "Print"}']),
        "",
    ),
}


@pytest.fixture(scope="module")
def claude() -> Path:
    return npm_client("claude")


@pytest.fixture(params=list(BROKEN_CALLS))
def broken(request: pytest.FixtureRequest) -> tuple[str, list[bytes], str]:
    chunks, repair = BROKEN_CALLS[request.param]
    return request.param, chunks, repair


def stream_json(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def blocks(events: list[dict[str, Any]], role: str, kind: str) -> list[dict[str, Any]]:
    return [
        block
        for event in events
        if event.get("type") == role
        for block in event["message"]["content"]
        if isinstance(block, dict) and block.get("type") == kind
    ]


def run_claude(
    claude: Path, gateway: GatewayServer, home: Path
) -> subprocess.CompletedProcess[str]:
    """Claude Code, headless, asked to run the marker command through ``gateway``."""
    env = {
        **os.environ,
        "HOME": str(home),  # no user settings, no login
        "ANTHROPIC_BASE_URL": gateway.url,
        "ANTHROPIC_API_KEY": "any",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
    }
    return subprocess.run(
        [
            str(claude),
            "-p",
            "Run the shell command that prints the marker, then tell me what it printed.",
            "--output-format",
            "stream-json",
            "--verbose",
            "--allowedTools",
            "Bash(echo:*)",
        ],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def served(
    broken: tuple[str, list[bytes], str],
) -> Iterator[tuple[ReplayServer, GatewayServer, MemorySink]]:
    _name, chunks, _repair = broken
    # any model Claude Code asks for gets the dialogue: the broken call, then text
    dialogue = Dialogue([Script(chunks), Script(text_stream([ANSWER]))])
    sink = MemorySink()
    with ReplayServer({"dialogue": dialogue}, default="dialogue") as upstream:
        config = GatewayConfig(upstream_url=upstream.url, audit=sink)
        with GatewayServer(config) as gateway:
            yield upstream, gateway, sink


def test_claude_code_runs_the_repaired_call_and_returns_its_result(
    claude: Path,
    served: tuple[ReplayServer, GatewayServer, MemorySink],
    broken: tuple[str, list[bytes], str],
    tmp_path: Path,
) -> None:
    upstream, gateway, sink = served
    _name, _chunks, repair = broken
    started = time.monotonic()
    done = run_claude(claude, gateway, tmp_path)
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-2000:]
    events = stream_json(done.stdout)

    (use,) = blocks(events, "assistant", "tool_use")
    assert use["name"] == "Bash"
    assert use["input"]["command"] == COMMAND
    (result,) = blocks(events, "user", "tool_result")
    assert result["tool_use_id"] == use["id"]
    assert not result.get("is_error")
    assert MARKER in json.dumps(result["content"])
    final = [e for e in events if e.get("type") == "result"]
    assert final and final[-1]["result"] == ANSWER, took

    # the second turn upstream carries the tool's output as a tool message
    turns = [r.body for r in upstream.requests if r.path == "/v1/chat/completions"]
    assert len(turns) >= 2
    second = turns[-1]["messages"]
    (answered,) = [m for m in second if m.get("role") == "tool"]
    assert MARKER in orjson.dumps(answered["content"]).decode()
    (asked,) = [m for m in second if m.get("role") == "assistant" and m.get("tool_calls")]
    assert asked["tool_calls"][0]["id"] == answered["tool_call_id"]
    assert json.loads(asked["tool_calls"][0]["function"]["arguments"])["command"] == COMMAND

    (record,) = [r for r in sink.records if r.tool_name == "Bash"]
    assert record.extra["delivered"] is True
    if repair:
        assert repair in record.repairs


# -- behind an Anthropic upstream: its redacted thinking comes back -------------------

REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmK"


def anthropic_upstream(body: Any) -> Script:
    """Anthropic's rule: a tool result whose tool-use turn comes back without its
    thinking blocks (here the redacted one) is refused with 400."""
    messages = body["messages"]
    last = messages[-1]["content"]
    if not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in last or []):
        arguments = json.dumps({"command": COMMAND, "description": "Print a marker"})
        call = WireCall("toolu_01E2E", "Bash", arguments)
        return anthropic_answer(calls=[call], redacted=[REDACTED], usage=(900, 30))
    turn = messages[-2]["content"]
    if {"type": "redacted_thinking", "data": REDACTED} not in turn:
        return Script([], always_fail=(400, None))
    return anthropic_answer(ANSWER)


def test_claude_code_sends_an_anthropic_upstreams_redacted_thinking_back(
    claude: Path, tmp_path: Path
) -> None:
    with ReplayServer({"m": anthropic_upstream}, default="m") as upstream:
        config = GatewayConfig(upstream_url=upstream.url + "/v1", upstream_format="anthropic")
        with GatewayServer(config) as gateway:
            done = run_claude(claude, gateway, tmp_path)
            requests = [r.body for r in upstream.requests if r.path.endswith("/messages")]
    assert done.returncode == 0, done.stderr[-2000:]
    events = stream_json(done.stdout)
    final = [e for e in events if e.get("type") == "result"]
    assert final and final[-1]["result"] == ANSWER
    (result,) = blocks(events, "user", "tool_result")
    assert MARKER in json.dumps(result["content"])
    sent_back = requests[-1]["messages"][-2]["content"]
    assert {"type": "redacted_thinking", "data": REDACTED} in sent_back
