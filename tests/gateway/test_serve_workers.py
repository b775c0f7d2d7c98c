"""``toolwire serve --workers N``: several processes behind one port, built from the
settings the command checked, each writing to the same audit database."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest
from gateway.serving import KEY
from upstream import WEATHER_SCHEMA, ScriptedUpstream

from toolwire.audit import read_sqlite

pytestmark = pytest.mark.gateway  # two worker processes start: a few seconds

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def worker_pids(parent: int) -> list[int]:
    """The uvicorn workers: the parent's children started by multiprocessing's spawn."""
    children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
    return [
        int(pid) for pid in children if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


def start_serve(upstream: ScriptedUpstream, audit: Path) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    args = ["serve", "--upstream", upstream.url, "--port", str(port), "--api-key", KEY]
    proc = subprocess.Popen(
        [sys.executable, "-m", "toolwire", *args, "--audit", str(audit), "--workers", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # two interpreters importing the gateway, under load
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    proc.kill()
    pytest.fail(f"toolwire serve --workers 2 did not answer within 60 s: {proc.communicate()}")


@pytest.fixture
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream() as server:
        yield server


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_two_workers_serve_every_request_and_stop_cleanly(
    upstream: ScriptedUpstream, tmp_path: Path, stop: signal.Signals
) -> None:
    audit = tmp_path / "audit.db"
    proc, url = start_serve(upstream, audit)
    try:
        assert len(worker_pids(proc.pid)) == 2
        client = openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
        messages = [{"role": "user", "content": "weather?"}]
        for i in range(6):
            if i % 2:
                done = client.chat.completions.create(
                    model="python-dict",
                    messages=messages,
                    tools=TOOLS,  # type: ignore[arg-type]
                )
                call = (done.choices[0].message.tool_calls or [])[0]
                assert call.type == "function"
                arguments = call.function.arguments
            else:
                arguments = ""
                stream = client.chat.completions.create(
                    model="python-dict",
                    messages=messages,  # type: ignore[arg-type]
                    tools=TOOLS,  # type: ignore[arg-type]
                    stream=True,
                )
                for chunk in stream:
                    for choice in chunk.choices:
                        for delta in choice.delta.tool_calls or []:
                            arguments += (delta.function and delta.function.arguments) or ""
            assert json.loads(arguments) == {"city": "Lima", "days": 2}
    finally:
        proc.send_signal(stop)
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"toolwire serve did not stop on {stop.name} within 30 s: {err}")
    assert proc.returncode == 0, err
    assert "Traceback" not in err, err
    assert "(2 workers)" in out
    # every worker wrote its calls to the one database, and closed it on the way out
    records, _ = read_sqlite(audit)
    assert len(records) == 6
    assert {r.extra["model"] for r in records} == {"python-dict"}
    assert not os.path.exists(f"{audit}-wal")
