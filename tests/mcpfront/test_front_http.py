"""``toolwire mcp serve --http``: the streamable HTTP transport, driven by the official
client's streamable HTTP client (issue 14)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.mcpfront.test_front_backends import backend, records, text_of

pytestmark = pytest.mark.anyio


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the front quit: {proc.stderr.read().decode() if proc.stderr else ''}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail("the front did not start listening")


@pytest.fixture(scope="module")
def front_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("http")
    (tmp / "mcp.json").write_text(json.dumps({"mcpServers": {"t": backend()}}))
    port = _free_port()
    db = tmp / "audit.db"
    cmd = [sys.executable, "-m", "toolwire", "mcp", "serve", "--config", str(tmp / "mcp.json")]
    cmd += ["--audit", str(db), "--http", f"127.0.0.1:{port}", "--api-key", "k-1"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(port, proc)
        yield f"http://127.0.0.1:{port}/mcp", db
    finally:
        proc.terminate()
        proc.wait(timeout=20)


async def test_list_call_and_audit_over_streamable_http(front_url: tuple[str, Path]) -> None:
    url, db = front_url
    async with httpx.AsyncClient(headers={"Authorization": "Bearer k-1"}) as http:
        transport = streamable_http_client(url, http_client=http)
        info = types.Implementation(name="http-tests", version="2")
        for mode in ("auto", "legacy"):
            async with Client(transport, mode=mode, client_info=info, cache=None) as client:
                names = {t.name for t in (await client.list_tools()).tools}
                assert {"echo", "slow", "wipe"} <= names
                r = await client.call_tool("echo", {"text": mode})
                assert (r.is_error, text_of(r)) == (False, mode)
                assert r.structured_content == {"text": mode, "length": len(mode)}
                held = await client.call_tool("wipe", {})
                assert held.is_error and "Approval required" in text_of(held)
            transport = streamable_http_client(url, http_client=http)
    rows = records(db)
    assert [(r["name_as_sent"], r["status"]) for r in rows] == [
        ("echo", "ok"),
        ("wipe", "pending_approval"),
        ("echo", "ok"),
        ("wipe", "pending_approval"),
    ]
    assert {json.loads(r["extra"])["client"]["name"] for r in rows} == {"http-tests"}
    # the handshake-era client has an Mcp-Session-Id, so an audit session of its own
    assert rows[0]["session_id"] != rows[2]["session_id"] == rows[3]["session_id"]


async def test_a_request_without_the_key_is_refused(front_url: tuple[str, Path]) -> None:
    url, _ = front_url
    async with httpx.AsyncClient() as http:
        r = await http.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert r.status_code == 401


def test_http_without_a_key_off_loopback_is_refused_in_one_line() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "toolwire", "mcp", "serve", "--tools", "x:y", "--http", "0.0.0.0:1"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "without a key" in proc.stderr
