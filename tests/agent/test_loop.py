"""The conversation loop against the replay server: what it returns, and what the
model receives on the next turn (the server's request log)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from toolwire.agent import (
    Agent,
    CallParsed,
    ReasoningOut,
    RunFinished,
    TextOut,
    ToolReplied,
    TurnFinished,
    cut_off_reply,
)
from toolwire.audit.sinks import MemorySink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import (
    DONE,
    Dialogue,
    ReplayServer,
    Script,
    call_stream,
    chat_chunk,
    text_stream,
    usage_chunk,
)
from toolwire.tools import tool

pytestmark = pytest.mark.anyio

RAN: list[tuple[int, int]] = []


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    RAN.append((a, b))
    return a + b


@pytest.fixture(autouse=True)
def _clear_ran() -> None:
    RAN.clear()


def two_calls(
    first: str, second: str, *, ids: tuple[str | None, str | None] = ("c1", "c2")
) -> list[bytes]:
    """One answer with two parallel ``add`` calls, arguments as given (no ``id`` field
    where the id is None)."""
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    for index, (call_id, arguments) in enumerate(zip(ids, (first, second), strict=True)):
        header: dict[str, Any] = {"index": index, "type": "function"}
        if call_id is not None:
            header["id"] = call_id
        chunks.append(
            chat_chunk(
                {"tool_calls": [{**header, "function": {"name": "add", "arguments": arguments}}]}
            )
        )
    return [*chunks, chat_chunk({}, "tool_calls"), usage_chunk(40, 12), DONE]


def serve(*turns: list[bytes], chunk_delay: float = 0.0) -> ReplayServer:
    dialogue = Dialogue([Script(chunks, chunk_delay=chunk_delay) for chunks in turns])
    return ReplayServer({"dialogue": dialogue}, default="dialogue")


def make_agent(server: ReplayServer, sink: MemorySink, **options: Any) -> Agent:
    client = ModelClient(
        "openai-chat", server.url, model="m", retry=RetryPolicy(attempts=1, backoff=0.01)
    )
    engine = ToolEngine([add], sinks=[sink])
    return Agent(client, engine, **options)


@pytest.fixture
def sink() -> Iterator[MemorySink]:
    yield MemorySink()


def tool_replies(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(m["tool_call_id"], m["content"]) for m in messages if m["role"] == "tool"]


async def test_g5_a_repaired_python_dict_call_runs_and_each_call_gets_one_reply_in_order(
    sink: MemorySink,
) -> None:
    """Turn 1: two parallel calls, the first with Python-dict arguments (repaired);
    turn 2: text. G5: the second request carries exactly one reply per call, in order."""
    with serve(two_calls("{'a': 2, 'b': 3}", '{"a": 10, "b": 20}'), text_stream(["Five."])) as up:
        agent = make_agent(up, sink)
        result = await agent.run("add things")
        second = up.requests[1].body
    assert result.stop == "done"
    assert result.text == "Five."
    assert result.turns == 2
    assert [c.call.status for c in result.calls] == ["repaired", "complete"]
    assert result.calls[0].repairs  # the wire repair is named
    assert [c.status for c in result.calls] == ["ok", "ok"]
    assert sorted(RAN) == [(2, 3), (10, 20)]
    assistant = second["messages"][1]
    assert [c["id"] for c in assistant["tool_calls"]] == ["c1", "c2"]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"a":2,"b":3}'
    assert tool_replies(second["messages"]) == [("c1", "5"), ("c2", "30")]
    assert second["messages"][2:] == [m for m in second["messages"] if m["role"] == "tool"]
    # usage per turn and in total, and on the run's engine task
    assert [u.input_tokens if u else None for u in result.usage_per_turn] == [40, 20]
    assert result.usage.input_tokens == 60
    assert result.usage.output_tokens == 12 + 1
    records = sink.records
    assert {r.task_id for r in records} == {result.task_id}
    assert {r.turn for r in records} == {1}
    task = agent.engine.tasks.get(result.task_id)
    assert task is not None and task.input_tokens == 60
    agent.finish(result, solved=True)
    assert sink.tasks[result.task_id].status == "solved"


async def test_g1_a_truncated_call_is_not_run_and_is_told_it_was_cut_off(
    sink: MemorySink,
) -> None:
    cut = call_stream("add", ['{"a": 2, "b": '], "length")
    with serve(cut, text_stream(["Sorry."])) as up:
        result = await make_agent(up, sink).run("add")
        second = up.requests[1].body
    assert RAN == []
    assert result.calls[0].call.status == "truncated"
    assert result.calls[0].status == "invalid_args"
    assert tool_replies(second["messages"]) == [("call_1", cut_off_reply("add"))]
    assert "cut off" in cut_off_reply("add")
    assert result.stop == "done"


async def test_g10_an_invalid_call_gets_its_validation_errors_back(sink: MemorySink) -> None:
    bad = call_stream("add", ['{"a": "two", "b": 3}'], "tool_calls")
    with serve(bad, text_stream(["ok"])) as up:
        result = await make_agent(up, sink).run("add")
        second = up.requests[1].body
    assert RAN == []
    [(call_id, reply)] = tool_replies(second["messages"])
    assert call_id == "call_1"
    assert reply == result.calls[0].result.content
    assert "Invalid arguments for add" in reply and "a" in reply
    assert "Correct the arguments" in reply
    assert result.stop == "done"


async def test_g10_the_invalid_retry_budget_ends_the_run(sink: MemorySink) -> None:
    bad = call_stream("add", ['{"a": "two", "b": 3}'], "tool_calls")
    with serve(bad) as up:
        result = await make_agent(up, sink, invalid_retries=2).run("add")
        requests = len(up.requests)
    assert result.stop == "invalid_retries"
    assert result.turns == 3 and requests == 3
    assert result.messages[-1]["role"] == "tool"  # the last call still got its reply


async def test_g10_a_valid_call_starts_the_tools_invalid_count_again(sink: MemorySink) -> None:
    """Six invalid calls to one tool over a long run, never more than two in a row: a
    budget of two in a row does not end it (the budget is not for the whole run)."""
    bad = call_stream("add", ['{"a": "two", "b": 3}'], "tool_calls")
    good = call_stream("add", ['{"a": 1, "b": 1}'], "tool_calls")
    with serve(bad, bad, good, bad, bad, good, bad, bad, text_stream(["done"])) as up:
        result = await make_agent(up, sink, invalid_retries=2).run("add")
    assert [c.status for c in result.calls].count("invalid_args") == 6
    assert (result.stop, result.turns, result.text) == ("done", 9, "done")


async def test_the_turn_limit_ends_the_run_with_every_call_answered(sink: MemorySink) -> None:
    good = call_stream("add", ['{"a": 1, "b": 1}'], "tool_calls")
    with serve(good) as up:
        result = await make_agent(up, sink, max_turns=3).run("add forever")
        requests = len(up.requests)
    assert result.stop == "max_turns"
    assert result.turns == 3 and requests == 3
    assert len(RAN) == 3
    # the server repeats call_1 every turn: later turns get ids of their own (F32)
    ids = [c["id"] for m in result.messages for c in m.get("tool_calls") or []]
    assert ids == ["call_1", "call_1_t2_0", "call_1_t3_0"]
    assert result.messages[-1] == {"role": "tool", "tool_call_id": ids[-1], "content": "2"}


async def test_calls_sent_without_ids_get_ids_of_their_own(sink: MemorySink) -> None:
    """A server that sends no call ids: each reply still names its own call (G5)."""
    same = two_calls('{"a": 1, "b": 2}', '{"a": 3, "b": 4}', ids=(None, None))
    with serve(same, text_stream(["done"])) as up:
        await make_agent(up, sink).run("add")
        second = up.requests[1].body
    ids = [c["id"] for c in second["messages"][1]["tool_calls"]]
    assert len(set(ids)) == 2
    assert all(ids)
    assert tool_replies(second["messages"]) == [(ids[0], "3"), (ids[1], "7")]


async def test_reasoning_is_batched_apart_from_text(sink: MemorySink) -> None:
    """Reasoning (``reasoning_content``) comes out as ReasoningOut, never as text."""
    chunks = [chat_chunk({"reasoning_content": "think " * 5}), chat_chunk({"content": "answer"})]
    with serve([*chunks, chat_chunk({}, "stop"), DONE]) as up:
        events = [e async for e in make_agent(up, sink).stream("go")]
    thought = "".join(e.text for e in events if isinstance(e, ReasoningOut))
    said = "".join(e.text for e in events if isinstance(e, TextOut))
    assert (thought, said) == ("think " * 5, "answer")


async def test_stream_batches_text_and_reports_calls_turns_and_the_end(sink: MemorySink) -> None:
    pieces = ["x" * 60] * 5
    # each piece in a read of its own (a decoder hands on the text of one read as one
    # delta): the agent, not the decoder, must batch them by size
    first, second = call_stream("add", ['{"a": 1, "b": 2}'], "tool_calls"), text_stream(pieces)
    with serve(first, second, chunk_delay=0.05) as up:
        agent = make_agent(up, sink, text_size=150, text_interval=3600.0)
        events = [event async for event in agent.stream("go")]
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "CallStreaming",
        "CallParsed",
        "TurnFinished",
        "ToolStarted",
        "ToolReplied",
        "TextOut",
        "TextOut",
        "TurnFinished",
        "RunFinished",
    ]
    texts = [e for e in events if isinstance(e, TextOut)]
    assert [len(e.text) for e in texts] == [180, 120]  # by size, then the final flush
    assert "".join(e.text for e in texts) == "x" * 300
    parsed = events[1]
    assert isinstance(parsed, CallParsed) and parsed.call.status == "complete"
    replied = events[4]
    assert isinstance(replied, ToolReplied) and replied.outcome.reply == "3"
    turn = events[2]
    assert isinstance(turn, TurnFinished) and turn.finish_reason == "tool_calls"
    end = events[-1]
    assert isinstance(end, RunFinished) and end.result.stop == "done"


async def test_an_upstream_error_ends_the_run_with_its_message(sink: MemorySink) -> None:
    failing = Script([], always_fail=(400, None))
    with ReplayServer({"m": failing}) as up:
        client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
        result = await Agent(client, ToolEngine([add], sinks=[sink])).run("hi")
    assert result.stop == "upstream_error"
    assert result.error is not None and "400" in result.error


def anthropic_sse(events: list[dict[str, Any]]) -> list[bytes]:
    return [f"event: {e['type']}\ndata: {orjson.dumps(e).decode()}\n\n".encode() for e in events]


def anthropic_call(call_id: str, name: str, arguments: str) -> list[bytes]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "usage": {"input_tokens": 30, "output_tokens": 1},
    }
    return anthropic_sse(
        [
            {"type": "message_start", "message": message},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": arguments},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 9},
            },
            {"type": "message_stop"},
        ]
    )


def anthropic_text(text: str) -> list[bytes]:
    message = {
        "id": "msg_2",
        "type": "message",
        "role": "assistant",
        "content": [],
        "model": "m",
        "usage": {"input_tokens": 50, "output_tokens": 1},
    }
    return anthropic_sse(
        [
            {"type": "message_start", "message": message},
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": 3},
            },
            {"type": "message_stop"},
        ]
    )


async def test_an_anthropic_upstream_drives_a_tool_round_trip(sink: MemorySink) -> None:
    """The same loop over the Anthropic wire: the request is translated by the client,
    the answer read by the parser; the reply goes back as a tool_result block."""
    turns = [
        Script(anthropic_call("toolu_1", "add", "{'a': 4, 'b': 5}")),
        Script(anthropic_text("Nine.")),
    ]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        client = ModelClient("anthropic", up.url, model="m", retry=RetryPolicy(attempts=1))
        result = await Agent(client, ToolEngine([add], sinks=[sink])).run("add 4 and 5")
        second = up.requests[1]
    assert second.path == "/v1/messages"
    assert result.stop == "done" and result.text == "Nine."
    assert result.calls[0].call.status == "repaired" and result.calls[0].status == "ok"
    assert RAN == [(4, 5)]
    blocks = [
        b for m in second.body["messages"] for b in m["content"] if isinstance(m["content"], list)
    ]
    uses = [b for b in blocks if b["type"] == "tool_use"]
    replies = [b for b in blocks if b["type"] == "tool_result"]
    assert [u["id"] for u in uses] == ["toolu_1"] and uses[0]["input"] == {"a": 4, "b": 5}
    assert [r["tool_use_id"] for r in replies] == ["toolu_1"]
    assert "9" in str(replies[0]["content"])
    assert result.usage.input_tokens == 80
