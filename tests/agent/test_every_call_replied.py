"""G5 as a property: for any script, every call of every turn gets exactly one reply,
in call order, on the next request."""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.agent import Agent, RunResult, check_history
from toolwire.audit.sinks import MemorySink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import DONE, ReplayServer, Script, chat_chunk, usage_chunk

from .chat_tools import add
from .scripted import ByTurn

# arguments a model may send: as JSON, as a Python dict, of the wrong type, unreadable
ARGUMENTS = ['{"a": 1, "b": 2}', "{'a': 1, 'b': 2}", '{"a": "one", "b": 2}', "{a: 1, b"]


def answer(calls: list[str], with_ids: bool) -> Script:
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    for index, arguments in enumerate(calls):
        head: dict[str, Any] = {"index": index, "type": "function"}
        if with_ids:
            head["id"] = f"id{index}"
        function = {"name": "add", "arguments": arguments}
        chunks.append(chat_chunk({"tool_calls": [{**head, "function": function}]}))
    return Script([*chunks, chat_chunk({}, "tool_calls"), usage_chunk(10, 5), DONE])


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(ARGUMENTS), min_size=1, max_size=4), max_size=3),
    st.booleans(),
    st.one_of(st.none(), st.integers(min_value=0, max_value=6)),
)
def test_g5_every_call_gets_one_reply_in_order(
    turns: list[list[str]], with_ids: bool, max_tool_calls: int | None
) -> None:
    """Ids as sent repeat every turn (F32) when given; a tool call limit may cut the
    run short, declining calls: every call still has one reply and one record."""
    scripts = [answer(calls, with_ids) for calls in turns]
    sink = MemorySink()

    async def run() -> RunResult:
        client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
        engine = ToolEngine([add], sinks=[sink])
        agent = Agent(client, engine, invalid_retries=100, max_tool_calls=max_tool_calls)
        result = await agent.run("go")
        await client.aclose()
        return result

    with ReplayServer({"m": ByTurn(scripts)}) as up:
        result = anyio.run(run)
        requests = [r.body for r in up.requests]
    total = sum(len(calls) for calls in turns)
    if max_tool_calls is not None and total > max_tool_calls:
        assert result.stop == "max_tool_calls"
        turns = turns[: len(requests)]
    else:
        assert result.stop == "done"
        assert len(requests) == len(turns) + 1
    check_history(result.messages)
    ids = [c["id"] for m in result.messages for c in m.get("tool_calls") or []]
    assert len(set(ids)) == len(ids) == len(sink.records)
    assert sorted(ids) == sorted(r.call_id or "" for r in sink.records)
    for turn, calls in enumerate(turns[: len(requests) - 1]):
        messages = requests[turn + 1]["messages"]
        assistants = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        at = assistants[turn]
        ids = [c["id"] for c in messages[at]["tool_calls"]]
        assert len(ids) == len(calls) and len(set(ids)) == len(ids)
        replies = messages[at + 1 : at + 1 + len(ids)]
        assert [(m["role"], m["tool_call_id"]) for m in replies] == [("tool", i) for i in ids]
        after = messages[at + 1 + len(ids) :]
        assert not after or after[0]["role"] == "assistant"


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(ARGUMENTS), min_size=1, max_size=3), min_size=1, max_size=3),
    st.integers(min_value=0, max_value=30),
)
def test_g5_a_run_closed_at_any_event_leaves_every_call_one_reply_and_one_record(
    turns: list[list[str]], stop_after: int
) -> None:
    """The caller stops iterating after any number of events (``aclose``): the run's
    history in ``last_result`` has one reply per call and the audit one record per
    call, and the history resumes (the next request is accepted as it is)."""
    scripts = [answer(calls, True) for calls in turns]
    sink = MemorySink()

    async def run() -> tuple[RunResult, RunResult]:
        client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
        agent = Agent(client, ToolEngine([add], sinks=[sink]), invalid_retries=100)
        async with aclosing(agent.stream("go")) as events:
            seen = 0
            async for _ in events:
                seen += 1
                if seen > stop_after:
                    break
        cut = agent.last_result
        assert cut is not None
        resumed = await agent.run("go on", history=json.loads(json.dumps(cut.messages)))
        await client.aclose()
        return cut, resumed

    with ReplayServer({"m": ByTurn(scripts)}) as up:
        cut, resumed = anyio.run(run)
    check_history(cut.messages)
    check_history(resumed.messages)
    ids = [c["id"] for m in resumed.messages for c in m.get("tool_calls") or []]
    assert len(set(ids)) == len(ids)
    assert sorted(ids) == sorted(r.call_id or "" for r in sink.records)
    assert resumed.stop == "done"
