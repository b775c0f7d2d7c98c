"""Using toolwire with the SDK you already have: the official ``openai`` and
``anthropic`` clients stream from the replay upstream on loopback; their objects
(``ChatCompletionChunk``, ``RawMessageStreamEvent``, Responses events) fed to
``StreamParser.feed_object`` give the same calls, text, finish and usage as the raw
bytes of the same stream — broken arguments (F1) and a cut-off call (F2) included."""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import pytest

from toolwire import aparse_sdk_stream, parse_sdk_stream, parse_stream
from toolwire.events import StreamResult
from toolwire.parser import StreamParser
from toolwire.replay import (
    ReplayServer,
    WireCall,
    anthropic_answer,
    chat_answer,
    responses_answer,
)

pytestmark = pytest.mark.gateway

ADD = {
    "name": "add",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
}
PYTHON_DICT = "{'a': 4, 'b': 5,}"
CALLS = [WireCall("call_A", "add", PYTHON_DICT), WireCall("call_B", "add", '{"a": 1, "b": 2}')]
CUT = [WireCall("call_cut", "add", '{"a": 4, "b": ')]


def chat_objects(server: ReplayServer) -> list[Any]:
    client = openai.OpenAI(base_url=server.url, api_key="k", max_retries=0)
    stream = client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "add"}], stream=True
    )
    return list(stream)


def responses_objects(server: ReplayServer) -> list[Any]:
    client = openai.OpenAI(base_url=server.url, api_key="k", max_retries=0)
    return list(client.responses.create(model="m", input="add", stream=True))


def anthropic_objects(server: ReplayServer) -> list[Any]:
    root = server.url.removesuffix("/v1")
    client = anthropic.Anthropic(base_url=root, api_key="k", max_retries=0)
    stream = client.messages.create(
        model="m", max_tokens=100, messages=[{"role": "user", "content": "add"}], stream=True
    )
    return list(stream)


CASES = {
    "openai-chat": (chat_answer("Adding.", CALLS), chat_answer(calls=CUT, cut=True)),
    "openai-responses": (
        responses_answer("Adding.", CALLS),
        responses_answer(calls=CUT, cut=True),
    ),
    "anthropic": (anthropic_answer("Adding.", CALLS), anthropic_answer(calls=CUT, cut=True)),
}
CLIENTS = {
    "openai-chat": chat_objects,
    "openai-responses": responses_objects,
    "anthropic": anthropic_objects,
}


def summary(result: StreamResult) -> tuple[Any, ...]:
    return (result.calls, result.text, result.finish_reason, result.usage, result.errors)


@pytest.mark.parametrize("wire", list(CASES))
@pytest.mark.parametrize("which", ["broken", "cut"])
def test_f1_f2_sdk_objects_give_the_calls_their_bytes_give(wire: str, which: str) -> None:
    script = CASES[wire][0 if which == "broken" else 1]
    with ReplayServer({"m": script}) as up:
        objects = CLIENTS[wire](up)
    assert objects and all(not isinstance(o, dict) for o in objects)  # the SDK's own types
    from_bytes = parse_stream(b"".join(script.chunks), wire, [ADD])
    from_objects = parse_sdk_stream(objects, [ADD])  # the wire found from the objects
    assert summary(from_objects) == summary(from_bytes)
    calls = from_objects.calls
    if which == "broken":
        assert [c.id for c in calls] == ["call_A", "call_B"]
        assert [c.arguments for c in calls] == [{"a": 4, "b": 5}, {"a": 1, "b": 2}]
        assert calls[0].status == "repaired" and "python_literal" in calls[0].repairs
        assert from_objects.finish_reason == "tool_calls"
    else:
        assert [c.status for c in calls] == ["truncated"]
        assert from_objects.finish_reason == "length"


@pytest.mark.anyio
async def test_an_async_sdk_stream_fed_object_by_object() -> None:
    """The async client, and ``feed_object`` by hand (each object passed on as it
    comes): the same calls as the bytes."""
    script = chat_answer("Adding.", CALLS)
    with ReplayServer({"m": script}) as up:
        client = openai.AsyncOpenAI(base_url=up.url, api_key="k", max_retries=0)
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "add"}], stream=True
        )
        parser = StreamParser("openai-chat", [ADD])
        events = []
        async for chunk in stream:
            events += parser.feed_object(chunk)
        events += parser.close()
        again = await aparse_sdk_stream(
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "add"}], stream=True
            ),
            [ADD],
        )
        await client.close()
    by_hand = StreamResult.collect(events)
    from_bytes = parse_stream(b"".join(script.chunks), "openai-chat", [ADD])
    assert summary(by_hand) == summary(from_bytes) == summary(again)


def test_dicts_and_pydantic_models_are_read_and_other_objects_reported() -> None:
    """A dict is a message as it is; a helper's derived event is skipped; an object
    that is no message becomes an error event, never an exception."""
    parser = StreamParser("auto", [ADD])

    class HelperText:  # anthropic's ``messages.stream()`` adds these beside the raw events
        type = "text"
        text = "ignored"

    assert parser.feed_object(HelperText()) == []
    [error] = parser.feed_object(object())
    assert "not a stream message" in error.message  # type: ignore[attr-defined]
    parser = StreamParser("auto", [ADD])
    chunk = {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}
    result = StreamResult.collect(parser.feed_object(chunk) + parser.close())
    assert (result.text, result.finish_reason, result.errors) == ("hi", "stop", [])


def test_the_sdks_stream_helpers_events_give_the_same_calls() -> None:
    """``chat.completions.stream()`` wraps each chunk in a ``chunk`` event beside its
    own derived events, and ``messages.stream()`` adds ``text`` / ``input_json`` events
    with snapshots: fed everything, the parser reads each server message once. (With
    arguments that parse: the helpers themselves fail on broken ones.)"""
    clean = [WireCall("call_A", "add", '{"a": 4, "b": 5}')]
    chat = chat_answer("Adding.", clean)
    messages = anthropic_answer("Adding.", clean)
    with ReplayServer({"chat": chat, "messages": messages}) as up:
        oai = openai.OpenAI(base_url=up.url, api_key="k", max_retries=0)
        with oai.chat.completions.stream(
            model="chat", messages=[{"role": "user", "content": "add"}]
        ) as stream:
            chat_events = list(stream)
        claude = anthropic.Anthropic(base_url=up.url.removesuffix("/v1"), api_key="k")
        with claude.messages.stream(
            model="messages", max_tokens=100, messages=[{"role": "user", "content": "add"}]
        ) as stream:
            claude_events = list(stream)
    assert {e.type for e in chat_events} >= {"chunk", "content.delta"}
    assert {e.type for e in claude_events} >= {"text", "input_json", "content_block_delta"}
    for events, script, wire in (
        (chat_events, chat, "openai-chat"),
        (claude_events, messages, "anthropic"),
    ):
        from_bytes = parse_stream(b"".join(script.chunks), wire, [ADD])
        assert summary(parse_sdk_stream(events, [ADD])) == summary(from_bytes)
        assert [c.arguments for c in from_bytes.calls] == [{"a": 4, "b": 5}]
