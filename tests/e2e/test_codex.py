"""Codex CLI itself (the npm package, ``codex exec``) through ``toolwire serve``'s
``/v1/responses`` in front of a replayed open-model server whose shell call arrives as
a Python dict with a number as a string: Codex must run the repaired call and send its
output back, and the model's next turn reaches it."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from e2e.clients import npm_client

from toolwire.audit import MemorySink
from toolwire.gateway import GatewayConfig
from toolwire.gateway.background import BackgroundGateway
from toolwire.replay import Dialogue, ReplayServer, Script, call_stream, text_stream

pytestmark = pytest.mark.e2e

MARKER = "toolwire-e2e-ok"
ANSWER = f"It printed {MARKER}."
BROKEN = call_stream(
    "exec_command", [f"{{'cmd': 'echo {MARKER}', ", "'yield_time_ms': '2000',}"], "tool_calls"
)


@pytest.fixture(scope="module")
def codex() -> Path:
    return npm_client("codex")


@pytest.fixture
def served() -> Iterator[tuple[ReplayServer, BackgroundGateway, MemorySink]]:
    dialogue = Dialogue([Script(BROKEN), Script(text_stream([ANSWER]))])
    sink = MemorySink()
    with ReplayServer({"dialogue": dialogue}, default="dialogue") as upstream:
        config = GatewayConfig(upstream_url=upstream.url, audit=sink)
        with BackgroundGateway(config) as gateway:
            yield upstream, gateway, sink


def test_codex_runs_the_repaired_call_and_returns_its_output(
    codex: Path, served: tuple[ReplayServer, BackgroundGateway, MemorySink], tmp_path: Path
) -> None:
    upstream, gateway, sink = served
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text(
        'model = "open-model"\n'
        'model_provider = "toolwire"\n'
        "[model_providers.toolwire]\n"
        'name = "toolwire"\n'
        f'base_url = "{gateway.url}/v1"\n'
        'wire_api = "responses"\n'
        'env_key = "TOOLWIRE_TEST_KEY"\n'
    )
    env = {**os.environ, "HOME": str(tmp_path), "CODEX_HOME": str(home), "TOOLWIRE_TEST_KEY": "any"}
    done = subprocess.run(
        [str(codex), "exec", "--skip-git-repo-check", "--json", "Print the marker with echo."],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    items = [
        json.loads(line)["item"]
        for line in done.stdout.splitlines()
        if line.startswith("{") and json.loads(line).get("type") == "item.completed"
    ]
    (command,) = [i for i in items if i["type"] == "command_execution"]
    assert command["command"].endswith(f"echo {MARKER}'")
    assert command["exit_code"] == 0
    assert MARKER in command["aggregated_output"]
    messages = [i["text"] for i in items if i["type"] == "agent_message"]
    assert messages == [ANSWER]

    turns = [r.body for r in upstream.requests if r.path == "/v1/chat/completions"]
    assert len(turns) == 2
    (asked,) = [m for m in turns[1]["messages"] if m.get("tool_calls")]
    assert json.loads(asked["tool_calls"][0]["function"]["arguments"]) == {
        "cmd": f"echo {MARKER}",
        "yield_time_ms": 2000,
    }
    (answered,) = [m for m in turns[1]["messages"] if m.get("role") == "tool"]
    assert answered["tool_call_id"] == asked["tool_calls"][0]["id"]
    assert MARKER in orjson.dumps(answered["content"]).decode()
    (record,) = sink.records
    assert "python_literal" in record.repairs
    assert "coerce:yield_time_ms:string->number" in record.repairs
