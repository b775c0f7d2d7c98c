"""The front's lean paths (issue 14, performance): ``tools/call`` lines it answers
itself on stdio (``fast``) and ``tools/call`` it writes on a stdio backend's pipes
(``backend``). Each must say exactly what the SDK's path says, and leave to the SDK
what it does not handle."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import methods
from mcpfront.test_front_backends import records

from toolwire.audit.sinks import MemorySink
from toolwire.engine.engine import ToolEngine
from toolwire.mcpfront.backend import BackendPipes, backend_stdio, output_of
from toolwire.mcpfront.fast import (
    ANSWERED_VERSIONS,
    CLIENT_CAPABILITIES,
    CLIENT_INFO,
    PROTOCOL_VERSION,
    FastCalls,
)
from toolwire.mcpfront.front import TASK_META_KEY, MCPFront
from toolwire.tools.function import function_tool
from toolwire.tools.mcp import output_from_result

pytestmark = pytest.mark.anyio

TEST_SERVER = str(Path(__file__).parents[1] / "tools" / "mcp_test_server.py")
VERSION = "2026-07-28"
CLIENT = {"name": "fast-test", "version": "1.2"}


def envelope(**more: Any) -> dict[str, Any]:
    return {PROTOCOL_VERSION: VERSION, CLIENT_CAPABILITIES: {}, CLIENT_INFO: CLIENT, **more}


def line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def call_line(request_id: int, name: Any, arguments: Any, **params: Any) -> bytes:
    params = {"name": name, "arguments": arguments, "_meta": envelope(), **params}
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


DISCOVER = line(
    {"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {"_meta": envelope()}}
)


def add(a: int, b: int) -> dict[str, int]:
    """Add two numbers."""
    return {"sum": a + b}


def blocks() -> list[dict[str, Any]]:
    """Content blocks of its own."""
    return [
        {"type": "text", "text": "one"},
        {"type": "image", "data": "AAAA", "mimeType": "image/png"},
    ]


def broken() -> str:
    """Always raises."""
    raise ValueError("no luck")


def odd() -> str:
    """Text UTF-8 cannot hold."""
    return "a\ud800b"


async def nap(seconds: float) -> str:
    """Sleep."""
    await anyio.sleep(seconds)
    return "rested"


class Fast:
    def __init__(self, front: MCPFront, sink: MemorySink) -> None:
        self.front = front
        self.sink = sink
        self.written: list[dict[str, Any]] = []
        assert front.tasks is not None
        self.calls = FastCalls(front, front.tasks, self._write)

    async def _write(self, data: bytes) -> None:
        assert data.endswith(b"\n") and data.count(b"\n") == 1
        self.written.append(json.loads(data))

    async def answer(self, count: int = 1) -> list[dict[str, Any]]:
        with anyio.fail_after(10):
            while len(self.written) < count:
                await anyio.sleep(0.01)
        return self.written


@asynccontextmanager
async def fast_front() -> AsyncIterator[Fast]:
    sink = MemorySink()
    tools = [function_tool(f) for f in (add, blocks, broken, nap, odd)]
    engine = ToolEngine(tools, sinks=[sink])
    front = MCPFront(engine)
    async with front.running(), front._lifespan(front.server):
        yield Fast(front, sink)
    engine.close()


async def test_a_simple_call_is_answered_by_the_front_and_recorded_once() -> None:
    async with fast_front() as fast:
        assert not fast.calls.take(DISCOVER)  # the SDK decides the era on it too
        meta = envelope(**{TASK_META_KEY: "t-9"})
        params = {"name": "add", "arguments": {"a": "2", "b": 3}, "_meta": meta}
        request = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
        assert fast.calls.take(line(request))
        [answer] = await fast.answer()
        [record] = fast.sink.records
    assert answer == {
        "jsonrpc": "2.0",
        "id": 7,
        "result": {
            "content": [{"type": "text", "text": '{"sum":5}'}],
            "isError": False,
            "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": fast.front.server.server_info_stamp},
        },
    }
    connection = fast.front.stdio_connection
    assert connection is not None
    assert (record.status, record.task_id, record.session_id) == (
        "ok",
        "t-9",
        connection.session_id,
    )
    assert record.extra["client"] == CLIENT
    assert record.repairs == ("coerce:a:string->integer",)


async def test_text_utf8_cannot_hold_is_answered_escaped() -> None:
    async with fast_front() as fast:
        fast.calls.take(DISCOVER)
        assert fast.calls.take(call_line(3, "odd", {}))
        [answer] = await fast.answer()
    assert answer["result"]["content"][0]["text"] in ("a\ud800b", "a\ufffdb")
    assert fast.sink.records[0].status == "ok"


@pytest.mark.parametrize("version", [*ANSWERED_VERSIONS, VERSION])
@pytest.mark.parametrize(
    ("name", "arguments"),
    [
        ("add", {"a": 1, "b": 2}),
        ("add", {"a": "x"}),  # invalid: isError naming what is wrong
        ("ad", {"a": 1, "b": 2}),  # unknown: isError naming the closest tool
        ("blocks", {}),  # the tool's own content blocks
        ("broken", {}),
    ],
)
async def test_the_answer_is_what_the_sdk_would_send(
    name: str, arguments: dict[str, Any], version: str
) -> None:
    """``result_dict`` against the SDK's own wire form of ``_result``: the model dumped
    and shaped by the protocol version's surface, as the SDK's server does."""
    async with fast_front() as fast:
        result = await fast.front.run_call(name, arguments, task=None, client=CLIENT)
        model = fast.front._result(result, asked=False)
    dumped = model.model_dump(by_alias=True, mode="json", exclude_none=True)
    fast_wire = fast.front.result_dict(result, version)
    if version == VERSION:
        fast_wire["resultType"] = "complete"  # as ``FastCalls._wire`` adds it
    assert fast_wire == methods.serialize_server_result("tools/call", version, dumped)


@pytest.mark.parametrize(
    "request_line",
    [
        call_line(1, "add", {}, _meta=envelope(progressToken=5)),
        call_line(1, "add", {}, _meta=envelope(**{CLIENT_CAPABILITIES: {"elicitation": {}}})),
        call_line(1, "add", {}, requestState="abc"),
        call_line(1, "add", {}, _meta={PROTOCOL_VERSION: "2025-06-18", CLIENT_CAPABILITIES: {}}),
        call_line(1, "add", {}, _meta=envelope(**{CLIENT_INFO: {"name": 3}})),
        call_line(1, 5, {}),
        call_line(1, "add", [1, 2]),
        line({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": envelope()}}),
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ',
    ],
    ids=[
        "progress",
        "elicitation",
        "round",
        "old-version",
        "bad-client",
        "bad-name",
        "bad-arguments",
        "other-method",
        "not-json",
    ],
)
async def test_what_the_front_does_not_answer_itself_goes_to_the_sdk(request_line: bytes) -> None:
    async with fast_front() as fast:
        assert not fast.calls.take(DISCOVER)
        assert not fast.calls.take(request_line)
        assert not fast.sink.records


def initialize(version: str = "2025-11-25", **capabilities: Any) -> bytes:
    params = {"protocolVersion": version, "capabilities": capabilities, "clientInfo": CLIENT}
    return line({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})


INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def handshake_call(request_id: int, **meta: Any) -> bytes:
    params = {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}
    return line({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


async def test_a_handshake_era_call_is_answered_once_the_client_is_initialized() -> None:
    async with fast_front() as fast:
        assert not fast.calls.take(initialize())
        assert not fast.calls.take(handshake_call(1))  # before initialized: the SDK's
        assert not fast.calls.take(INITIALIZED)
        assert fast.calls.take(handshake_call(2, **{TASK_META_KEY: "t"}))
        [answer] = await fast.answer()
        [record] = fast.sink.records
    content = [{"type": "text", "text": '{"sum":3}'}]
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"content": content, "isError": False}}
    assert (record.task_id, record.extra["client"]) == ("t", CLIENT)


@pytest.mark.parametrize(
    ("opening", "call"),
    [
        (initialize(elicitation={}), handshake_call(1)),  # it can be asked
        (initialize("2024-11-05"), handshake_call(1)),  # no structuredContent then
        (initialize("2099-01-01"), handshake_call(1)),  # the SDK serves another version
        (initialize(), handshake_call(1, progressToken=1)),
        (initialize(), call_line(1, "add", {"a": 1, "b": 2})),  # a 2026 envelope: refused
    ],
    ids=["elicitation", "old-version", "unknown-version", "progress", "envelope"],
)
async def test_handshake_era_calls_the_front_leaves_to_the_sdk(opening: bytes, call: bytes) -> None:
    async with fast_front() as fast:
        assert not fast.calls.take(opening)
        assert not fast.calls.take(INITIALIZED)
        assert not fast.calls.take(call)


async def test_a_call_the_client_cancels_is_recorded_and_not_answered() -> None:
    cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 4}}
    async with fast_front() as fast:
        fast.calls.take(DISCOVER)
        assert fast.calls.take(call_line(4, "nap", {"seconds": 30}))
        await anyio.sleep(0.2)
        assert fast.calls.take(line(cancel))
        assert fast.calls.take(call_line(5, "nap", {"seconds": 0}))
        [answer] = await fast.answer()
        await anyio.sleep(0.2)
        assert [r.status for r in fast.sink.records] == ["cancelled", "ok"]
    assert answer["id"] == 5 and len(fast.written) == 1
    # Not one of its calls: the SDK's to handle.
    assert not fast.calls.take(line({**cancel, "params": {"requestId": 4}}))


# ------------------------------------------------------------------ the backend's pipes


@pytest.mark.parametrize(
    "raw",
    [
        {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        {
            "content": [{"type": "text", "text": "x"}],
            "isError": True,
            "structuredContent": {"a": 1},
        },
        {"content": [], "structuredContent": {"a": 1}, "resultType": "complete"},
        {"content": [{"type": "text", "text": "x", "annotations": {"priority": 0.5}}]},
        {"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]},
        {"content": [{"type": "text", "text": "x"}], "structuredContent": {"k": [1, 2]}},
    ],
)
def test_a_raw_result_maps_as_the_sdks_model_does(raw: dict[str, Any]) -> None:
    expected = output_from_result(types.CallToolResult.model_validate(raw, by_name=False))
    assert output_of(raw) == expected


def test_a_raw_result_the_sdk_would_refuse_is_refused() -> None:
    with pytest.raises(ValueError):
        output_of({"content": [{"type": "text"}], "isError": "maybe"})


@asynccontextmanager
async def piped_backend() -> AsyncIterator[tuple[Client, BackendPipes]]:
    opened: list[BackendPipes] = []
    params = StdioServerParameters(command=sys.executable, args=[TEST_SERVER, "stdio"])
    with open("/dev/null", "w") as quiet:
        transport = backend_stdio(params, quiet, opened.append)
        async with Client(transport, cache=None) as client:
            await client.list_tools()  # as discovery does: the envelope is known after it
            yield client, opened[0]


async def test_raw_calls_share_the_pipes_with_the_sdks_session() -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def report(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))

    async with piped_backend() as (client, pipes):
        assert pipes.usable(client.protocol_version)
        echoed, listed, reported = await _together(
            pipes.call_tool("echo", {"text": "hi"}, None),
            client.list_tools(),
            pipes.call_tool("progress", {}, report),
        )
        with pytest.raises(MCPError) as refused:
            await pipes.call_tool("nope", {}, None)
    assert output_of(echoed).value == "hi" and output_of(echoed).structured == {
        "text": "hi",
        "length": 2,
    }
    assert [t.name for t in listed.tools] == ["echo", "slow"]  # the first page
    assert output_of(reported).value == "done"
    assert reports == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]
    assert refused.value.code == -32602 and "Unknown tool: nope" in refused.value.message


async def test_a_raw_call_the_caller_gives_up_is_cancelled_at_the_backend(tmp_path: Path) -> None:
    flag = tmp_path / "cancelled"
    async with piped_backend() as (_, pipes):
        with anyio.move_on_after(1):
            await pipes.call_tool("slow", {"seconds": 30, "cancelled": str(flag)}, None)
        with anyio.fail_after(10):
            while not flag.exists():
                await anyio.sleep(0.05)
        answered = await pipes.call_tool("echo", {"text": "after"}, None)
    assert output_of(answered).value == "after"


async def test_a_raw_call_ends_when_the_backend_dies() -> None:
    async with piped_backend() as (_, pipes):
        pipes._process.kill()
        with anyio.fail_after(10), pytest.raises(MCPError) as closed:
            await pipes.call_tool("slow", {"seconds": 30}, None)
        assert not pipes.usable(None)
    assert closed.value.code == types.CONNECTION_CLOSED


async def _together(*calls: Any) -> list[Any]:
    out: list[Any] = [None] * len(calls)

    async def run(i: int) -> None:
        out[i] = await calls[i]

    async with anyio.create_task_group() as tasks:
        for i in range(len(calls)):
            tasks.start_soon(run, i)
    return out


# ------------------------------------------------------------------ through the real front


async def _elicit(ctx: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


CALLS: list[tuple[str, dict[str, Any]]] = [
    ("echo", {"text": "hi"}),  # structured content from the backend
    ("fail", {}),  # the backend's isError
    ("ech", {"text": "hi"}),  # a near miss
    ("echo", {"txt": "hi"}),  # a schema violation
    ("echo", {"arguments": {"text": "wrapped"}}),  # F25, repaired
]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_front_answers_as_the_sdk_path_does(tmp_path: Path, mode: str) -> None:
    """The same calls from a client that cannot be asked (answered by the front
    itself) and from one that can (the SDK's path): the same results and records."""
    db = tmp_path / "audit.db"
    servers = {"t": {"command": sys.executable, "args": [TEST_SERVER, "stdio"]}}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    args = ["-m", "toolwire", "mcp", "serve", "--config", str(tmp_path / "mcp.json")]
    params = StdioServerParameters(command=sys.executable, args=[*args, "--audit", str(db)])
    answers: list[list[dict[str, Any]]] = []
    for elicit in (None, _elicit):
        async with Client(
            stdio_client(params), mode=mode, elicitation_callback=elicit, cache=None
        ) as client:
            answers.append([(await client.call_tool(n, a)).model_dump() for n, a in CALLS])
    assert answers[0] == answers[1]
    assert answers[0][0]["structured_content"] == {"text": "hi", "length": 2}
    rows = records(db)
    keep = ("name_as_sent", "tool_name", "status", "error_message", "arguments", "repairs")
    kept = [{k: r[k] for k in keep} for r in rows]
    assert len(rows) == 2 * len(CALLS) and kept[: len(CALLS)] == kept[len(CALLS) :]
    statuses = [(r["status"], r["error_type"]) for r in rows[: len(CALLS)]]
    assert statuses == [
        ("ok", None),
        ("tool_error", "tool_reported_error"),
        ("invalid_args", "unknown_tool"),
        ("invalid_args", "invalid_arguments"),
        ("ok", None),
    ]
    sessions = {r["session_id"] for r in rows}
    assert len(sessions) == 2  # one per connection, whichever path answered


def test_a_client_leaving_with_a_call_in_flight_stops_the_front_cleanly(tmp_path: Path) -> None:
    servers = {"t": {"command": sys.executable, "args": [TEST_SERVER, "stdio"]}}
    (tmp_path / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    args = ["-m", "toolwire", "mcp", "serve", "--config", str(tmp_path / "mcp.json")]
    front = subprocess.Popen(
        [sys.executable, *args, "--audit", "none"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert front.stdin is not None and front.stdout is not None
    front.stdin.write(DISCOVER)
    front.stdin.flush()
    assert b'"id":0' in front.stdout.readline()
    front.stdin.write(call_line(1, "slow", {"seconds": 30}))
    front.stdin.write(call_line(2, "echo", {"text": "hi"}))
    front.stdin.flush()
    assert b'"id":2' in front.stdout.readline()  # the slow one is under way
    _, err = front.communicate(timeout=30)  # closes stdin: the client is gone
    assert front.returncode == 0, err.decode()
    assert b"Traceback" not in err, err.decode()
