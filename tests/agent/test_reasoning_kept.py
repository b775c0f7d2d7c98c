"""The model's reasoning stays in the history and goes back in each wire's own shape,
also after a JSON round trip of the history and a resumed run: DeepSeek's rule
(``reasoning_content`` on every tool-call turn, else 400), Anthropic's (a tool-call
turn's signed thinking blocks back verbatim, first in the turn) and Gemini's (a call's
``thoughtSignature`` back on its part). The request log shows what the server got."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from toolwire.agent import Agent
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import (
    Dialogue,
    ReplayServer,
    Script,
    WireCall,
    anthropic_answer,
    call_stream,
    chat_chunk,
    gemini_answer,
    gemini_compat_answer,
    text_stream,
)
from toolwire.replay.wires import anthropic_events

from .test_loop import RAN, _clear_ran, add  # noqa: F401 (the autouse fixture too)

pytestmark = pytest.mark.anyio

THOUGHT = "Two numbers; call add."


def client(server: ReplayServer, wire: str, base: str = "/v1") -> ModelClient:
    url = f"http://127.0.0.1:{server.port}{base}"
    return ModelClient(wire, url, model="m", retry=RetryPolicy(attempts=1))


def history_again(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A history as it comes back from a file."""
    loaded: list[dict[str, Any]] = json.loads(json.dumps(messages))
    return loaded


# -- DeepSeek: reasoning_content --------------------------------------------------------

REASONING_CALL = [
    chat_chunk({"reasoning_content": "Two numbers; "}),
    chat_chunk({"reasoning_content": "call add."}),
    *call_stream("add", ['{"a": 2, "b": 3}'], "tool_calls", "call_ds"),
]


def deepseek(body: Any) -> Script:
    """A turn after the user's message: reasoning and a call. Any other: 400 unless
    every assistant tool-call turn carries its reasoning_content, as DeepSeek checks."""
    messages = body["messages"]
    if messages[-1]["role"] == "user":
        return Script(REASONING_CALL)
    for message in messages:
        bare = message.get("tool_calls") and message.get("reasoning_content") != THOUGHT
        if message["role"] == "assistant" and bare:
            return Script([], always_fail=(400, None))
    return Script(text_stream(["Five."]))


async def test_deepseek_gets_each_tool_call_turn_back_with_its_reasoning() -> None:
    with ReplayServer({"m": deepseek}) as up:
        agent = Agent(client(up, "openai-chat"), ToolEngine([add]))
        first = await agent.run("2 + 3?")
        assert (first.stop, first.error, first.text) == ("done", None, "Five.")
        again = await agent.run("And again?", history=history_again(first.messages))
        assert (again.stop, again.error, again.text) == ("done", None, "Five.")
        last = up.requests[-1].body["messages"]
    turns = [m for m in last if m["role"] == "assistant" and m.get("tool_calls")]
    assert [m["reasoning_content"] for m in turns] == [THOUGHT, THOUGHT]
    finished = [m for m in last if m["role"] == "assistant" and not m.get("tool_calls")]
    assert finished and all("reasoning_content" not in m for m in finished)


# -- Anthropic: signed thinking blocks --------------------------------------------------

SIG = "EqQBsig"


def delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


SIGNED = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    },
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    delta(0, {"type": "thinking_delta", "thinking": "Two "}),
    delta(0, {"type": "thinking_delta", "thinking": "numbers."}),
    delta(0, {"type": "signature_delta", "signature": SIG}),
    {"type": "content_block_stop", "index": 0},
    {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "redacted_thinking", "data": "EmwKAhgBredacted"},
    },
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": '{"a": 2, "b": 3}'},
    },
    {"type": "content_block_stop", "index": 2},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 20}},
    {"type": "message_stop"},
]  # fmt: skip

BLOCKS = [
    {"type": "thinking", "thinking": "Two numbers.", "signature": SIG},
    {"type": "redacted_thinking", "data": "EmwKAhgBredacted"},
]


@pytest.mark.parametrize(
    "request_fields",
    [
        {"reasoning_effort": "low"},
        {"thinking": {"type": "enabled", "budget_tokens": 1024}},
    ],
    ids=["reasoning_effort", "thinking"],
)
async def test_anthropic_gets_a_tool_call_turn_back_with_its_signed_thinking(
    request_fields: dict[str, Any],
) -> None:
    turns = [Script(anthropic_events(SIGNED)), anthropic_answer("Five.")]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        options = {"max_tokens": 4000, **request_fields}
        agent = Agent(client(up, "anthropic"), ToolEngine([add]), request=options)
        first = await agent.run("2 + 3?")
        again = await agent.run("And again?", history=history_again(first.messages))
        bodies = [r.body for r in up.requests]
    assert (first.stop, again.stop) == ("done", "done")
    assert all(b["thinking"]["type"] == "enabled" for b in bodies)  # on every request
    if "thinking" in request_fields:
        assert all(b["thinking"] == request_fields["thinking"] for b in bodies)
    for body in bodies[1:]:  # the tool-call turn, as the server must get it back
        sent = next(m for m in body["messages"] if m["role"] == "assistant")
        assert sent["content"] == [
            *BLOCKS,
            {"type": "tool_use", "id": "toolu_01", "name": "add", "input": {"a": 2, "b": 3}},
        ]


# -- Gemini: thought signatures on calls ------------------------------------------------


def gemini_signed_calls() -> Script:
    """Gemini 3's shape: thoughts, then parallel calls, the signature on the first."""
    parts = [
        {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}, "thoughtSignature": "sigA"},
        {"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}},
    ]
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": THOUGHT, "thought": True}]}}]},
        {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5},
        },
    ]
    return Script([b"data: " + orjson.dumps(c) + b"\r\n\r\n" for c in chunks])


async def test_gemini_gets_each_call_back_with_its_thought_signature() -> None:
    with ReplayServer({"m": Dialogue([gemini_signed_calls(), gemini_answer("Five.")])}) as up:
        agent = Agent(client(up, "gemini", "/v1beta"), ToolEngine([add]))
        first = await agent.run("2 + 3?")
        again = await agent.run("And again?", history=history_again(first.messages))
        bodies = [r.body for r in up.requests]
    assert (first.stop, again.stop) == ("done", "done")
    for body in bodies[1:]:
        model = next(c for c in body["contents"] if c["role"] == "model")
        signatures = [p.get("thoughtSignature") for p in model["parts"] if "functionCall" in p]
        assert signatures == ["sigA", None]


# -- Gemini's OpenAI-compatible API: the signature in a call's extra_content ------------


def gemini_compat_signed_calls() -> Script:
    """Gemini's OpenAI-compatible stream: both calls whole in one chunk, the signature
    on the first, in ``extra_content.google.thought_signature``."""
    calls = [
        WireCall("function-call-1", "add", '{"a":2,"b":3}'),
        WireCall("function-call-2", "add", '{"a":1,"b":1}'),
    ]
    return gemini_compat_answer(calls, "sigA")


def test_the_chat_decoder_reads_a_calls_gemini_signature() -> None:
    from toolwire.events import CallStarted, ReasoningSignature
    from toolwire.parser import StreamParser

    parser = StreamParser("openai-chat")
    events = [*parser.feed(b"".join(gemini_compat_signed_calls().chunks)), *parser.close()]
    signatures = [e for e in events if isinstance(e, ReasoningSignature)]
    assert signatures == [ReasoningSignature("thought_signature", "sigA", "function-call-1", 0)]
    assert isinstance(events[events.index(signatures[0]) + 1], CallStarted)  # before its call


async def test_gemini_compat_gets_each_call_back_with_its_thought_signature() -> None:
    """Gemini 3 answers 400 to a call sent back without its signature."""
    script = Dialogue([gemini_compat_signed_calls(), Script(text_stream(["Five."]))])
    with ReplayServer({"m": script}) as up:
        agent = Agent(client(up, "openai-chat"), ToolEngine([add]))
        first = await agent.run("2 + 3?")
        again = await agent.run("And again?", history=history_again(first.messages))
        bodies = [r.body for r in up.requests]
    assert (first.stop, again.stop) == ("done", "done")
    for body in bodies[1:]:
        turn = next(m for m in body["messages"] if m.get("tool_calls"))
        extra = [c.get("extra_content") for c in turn["tool_calls"]]
        assert extra == [{"google": {"thought_signature": "sigA"}}, None]


async def test_calls_under_one_id_go_back_each_with_its_own_gemini_signature() -> None:
    """A server that gives two calls one id: the history gives the second a fresh id,
    and each call keeps its own signature (not the last one read under that id)."""
    calls = [WireCall("dup", "add", '{"a":2,"b":3}'), WireCall("dup", "add", '{"a":1,"b":1}')]
    script = Dialogue([gemini_compat_answer(calls, ["sigA", "sigB"]), Script(text_stream(["7."]))])
    with ReplayServer({"m": script}) as up:
        agent = Agent(client(up, "openai-chat"), ToolEngine([add]))
        result = await agent.run("2 + 3, 1 + 1?")
        body = up.requests[1].body
    assert result.stop == "done"
    turn = next(m for m in body["messages"] if m.get("tool_calls"))
    sent = [(c["function"]["arguments"], c.get("extra_content")) for c in turn["tool_calls"]]
    assert sent == [
        ('{"a":2,"b":3}', {"google": {"thought_signature": "sigA"}}),
        ('{"a":1,"b":1}', {"google": {"thought_signature": "sigB"}}),
    ]
    assert len({c["id"] for c in turn["tool_calls"]}) == 2
