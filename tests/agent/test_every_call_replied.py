"""G5 as a property: for any script, every call of every turn gets exactly one reply,
in call order, on the next request."""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.agent import Agent
from toolwire.audit.sinks import MemorySink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import DONE, ReplayServer, Script, chat_chunk, text_stream, usage_chunk

from .chat_tools import add

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


class ByTurn:
    """Answers by the number of assistant messages in the request."""

    def __init__(self, turns: list[Script]) -> None:
        self.turns = turns

    def __call__(self, body: Any) -> Script:
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return self.turns[done] if done < len(self.turns) else Script(text_stream(["end"]))


@settings(max_examples=12, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(ARGUMENTS), min_size=1, max_size=4), max_size=3),
    st.booleans(),
)
def test_g5_every_call_gets_one_reply_in_order(turns: list[list[str]], with_ids: bool) -> None:
    scripts = [answer(calls, with_ids) for calls in turns]

    async def run() -> None:
        client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
        agent = Agent(client, ToolEngine([add], sinks=[MemorySink()]), invalid_retries=100)
        result = await agent.run("go")
        await client.aclose()
        assert result.stop == "done"

    with ReplayServer({"m": ByTurn(scripts)}) as up:
        anyio.run(run)
        requests = [r.body for r in up.requests]
    assert len(requests) == len(turns) + 1
    for turn, calls in enumerate(turns):
        messages = requests[turn + 1]["messages"]
        assistants = [i for i, m in enumerate(messages) if m["role"] == "assistant"]
        at = assistants[turn]
        ids = [c["id"] for c in messages[at]["tool_calls"]]
        assert len(ids) == len(calls) and len(set(ids)) == len(ids)
        replies = messages[at + 1 : at + 1 + len(ids)]
        assert [(m["role"], m["tool_call_id"]) for m in replies] == [("tool", i) for i in ids]
        after = messages[at + 1 + len(ids) :]
        assert not after or after[0]["role"] == "assistant"
