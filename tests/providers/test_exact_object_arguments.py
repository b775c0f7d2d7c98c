"""Arguments a wire carries as a JSON object keep their numbers as sent: an integer
beyond 64 bits, which orjson reads as the nearest float, comes out exact, as the same
call streamed as argument text gives it (F10, F34); a float stays a float. Where a
number cannot be read exactly, the call says so and is not ``complete``."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from corpus_cases import same_json
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.events import StreamResult, ToolCall
from toolwire.parser import parse_stream
from toolwire.providers.exact import NOT_EXACT, exact_part

BIG = 123456789012345678901234567890
EDGES = (2**64, -(2**63) - 1, 2**64 + 1, -(10**30))  # the first integers orjson makes floats
NUMBER_TOOLS = [
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "number"}, "i": {"type": "integer"}},
        },
    }
]


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _sse(events: list[dict[str, Any]], named: bool = True) -> str:
    return "".join(
        (f"event: {e['type']}\n" if named else "") + f"data: {_json(e)}\n\n" for e in events
    )


# -- each wire's message carrying one call's arguments (as an object, or as text) -------


def anthropic_body(*inputs: Any) -> str:
    blocks = [
        {"type": "tool_use", "id": f"toolu_{i}", "name": "f", "input": value}
        for i, value in enumerate(inputs)
    ]
    return _json(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": blocks,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 1, "output_tokens": 2},
        }
    )


def _anthropic_events(inputs: list[Any], as_text: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        }
    ]
    for i, value in enumerate(inputs):
        block = {"type": "tool_use", "id": f"toolu_{i}", "name": "f", "input": {}}
        if not as_text:
            block["input"] = value
        events.append({"type": "content_block_start", "index": i, "content_block": block})
        if as_text:
            delta = {"type": "input_json_delta", "partial_json": _json(value)}
            events.append({"type": "content_block_delta", "index": i, "delta": delta})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    events.append({"type": "message_stop"})
    return events


def anthropic_stream(*inputs: Any, as_text: bool = False) -> str:
    """Each input in its block's start (as a whole message's block has it), or
    streamed as argument text."""
    return _sse(_anthropic_events(list(inputs), as_text))


def anthropic_saved_messages(*inputs: Any) -> str:
    """The stream's events saved as JSON lines (an SDK's stream objects)."""
    return "\n".join(_json(e) for e in _anthropic_events(list(inputs), as_text=False))


def _openai_call(i: int, arguments: Any) -> dict[str, Any]:
    return {
        "index": i,
        "id": f"call_{i}",
        "type": "function",
        "function": {"name": "f", "arguments": arguments},
    }


def openai_stream(*arguments: Any, as_text: bool = False) -> str:
    calls = [_openai_call(i, _json(a) if as_text else a) for i, a in enumerate(arguments)]
    chunk = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"tool_calls": calls}, "finish_reason": None}],
    }
    finish = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}
    return _sse([chunk, finish], named=False) + "data: [DONE]\n\n"


def openai_body(*arguments: Any, as_text: bool = False) -> str:
    calls = [_openai_call(i, _json(a) if as_text else a) for i, a in enumerate(arguments)]
    for call in calls:
        del call["index"]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls"}
    return _json({"id": "c", "object": "chat.completion", "model": "m", "choices": [choice]})


def _gemini_chunk(arguments: list[Any]) -> dict[str, Any]:
    parts = [{"functionCall": {"name": "f", "args": a}} for a in arguments]
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "responseId": "r1",
    }


def gemini_body(*arguments: Any) -> str:
    return _json(_gemini_chunk(list(arguments)))


def gemini_stream(*arguments: Any) -> str:
    """The default framing, a JSON array, its calls in a chunk after a text chunk."""
    text = {"candidates": [{"content": {"role": "model", "parts": [{"text": "ok"}]}}]}
    return "[" + _json(text) + ",\n" + _json(_gemini_chunk(list(arguments))) + "]"


def gemini_sse(*arguments: Any) -> str:
    return f"data: {_json(_gemini_chunk(list(arguments)))}\n\n"


def ollama_stream(*arguments: Any) -> str:
    calls = [{"function": {"name": "f", "arguments": a}} for a in arguments]
    head = {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "ok"}}
    last = {
        "model": "m",
        "created_at": "t",
        "message": {"role": "assistant", "content": "", "tool_calls": calls},
        "done": True,
        "done_reason": "stop",
    }
    return _json(head) + "\n" + _json(last) + "\n"


def responses_body(*arguments: Any) -> str:
    items = [
        {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "f"}
        | {"arguments": _json(a), "status": "completed"}
        for i, a in enumerate(arguments)
    ]
    return _json({"id": "resp_1", "object": "response", "status": "completed", "output": items})


def responses_stream(*arguments: Any) -> str:
    events: list[dict[str, Any]] = []
    for i, a in enumerate(arguments):
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": f"call_{i}", "name": "f"}
        events.append(
            {
                "type": "response.output_item.added",
                "output_index": i,
                "item": {**item, "arguments": ""},
            }
        )
        delta = {
            "type": "response.function_call_arguments.delta",
            "output_index": i,
            "delta": _json(a),
        }
        events.append(delta)
        done = {**item, "arguments": _json(a), "status": "completed"}
        events.append({"type": "response.output_item.done", "output_index": i, "item": done})
    events.append({"type": "response.completed", "response": {"status": "completed"}})
    return _sse(events)


# wire -> (its format, the message with the arguments as an object: whole body or stream)
OBJECT_SOURCES = {
    "anthropic body": ("anthropic", anthropic_body),
    "anthropic content_block_start": ("anthropic", anthropic_stream),
    "anthropic saved messages": ("anthropic", anthropic_saved_messages),
    "openai chunk": ("openai-chat", openai_stream),
    "openai body": ("openai-chat", openai_body),
    "gemini body": ("gemini", gemini_body),
    "gemini array": ("gemini", gemini_stream),
    "gemini sse": ("gemini", gemini_sse),
    "ollama": ("ollama", ollama_stream),
}
# the same calls streamed as argument text, where the wire has such a path
TEXT_FORMS = {
    "anthropic": lambda *a: anthropic_stream(*a, as_text=True),
    "openai-chat": lambda *a: openai_stream(*a, as_text=True),
}


def _calls(text: str, fmt: str, tools: Any = None) -> list[ToolCall]:
    result: StreamResult = parse_stream(text.encode(), fmt, tools)
    assert not result.errors, result.errors
    return result.calls


def _shown(calls: list[ToolCall]) -> list[tuple[Any, ...]]:
    return [(c.name, c.arguments, c.status, c.repairs, c.errors) for c in calls]


@pytest.mark.parametrize("source", OBJECT_SOURCES)
def test_an_integer_beyond_64_bits_in_object_arguments_is_exact(source: str) -> None:
    fmt, write = OBJECT_SOURCES[source]
    sent = [{"n": BIG}, {"i": -BIG}, {"l": [1e20, BIG, {"k": 2**64}], "i": 3}]
    calls = _calls(write(*sent), fmt, NUMBER_TOOLS)
    assert [c.status for c in calls] == ["complete"] * 3, _shown(calls)
    for call, value in zip(calls, sent, strict=True):
        assert same_json(call.arguments, value), (call.arguments, value)
        assert call.raw_arguments == _json(value)  # as sent, not a float's digits
    text_form = TEXT_FORMS.get(fmt)
    if text_form is not None:  # the same calls streamed as text: the same calls (F34)
        assert _shown(calls) == _shown(_calls(text_form(*sent), fmt, NUMBER_TOOLS))


@pytest.mark.parametrize("write", [responses_body, responses_stream])
def test_responses_arguments_text_keeps_an_integer_beyond_64_bits(write: Any) -> None:
    # the Responses API sends arguments as text only, in its body as in its stream
    calls = _calls(write({"i": BIG}), "openai-responses", NUMBER_TOOLS)
    assert [(c.arguments, c.status) for c in calls] == [({"i": BIG}, "complete")]


@pytest.mark.parametrize("source", OBJECT_SOURCES)
def test_two_calls_that_differ_beyond_a_floats_precision_stay_apart(source: str) -> None:
    fmt, write = OBJECT_SOURCES[source]
    # all four are the same float: each call is found by its place, not its value
    sent = [{"n": edge} for edge in (2**64, 2**64 + 1, 2**64 + 2, 2**64 + 3)]
    calls = _calls(write(*sent), fmt)
    assert all(same_json(c.arguments, value) for c, value in zip(calls, sent, strict=True))


def test_a_repeated_key_keeps_the_last_value_as_every_reading_does() -> None:
    # the block's "input" twice: orjson and the standard library keep the last; the
    # exact reading of that one is taken, never the first's
    body = anthropic_body({"n": 2**64 + 7}).replace('"input":', '"input":{"n":1},"input":')
    assert body.count('"input"') == 2
    (call,) = _calls(body, "anthropic")
    assert (call.arguments, call.status) == ({"n": 2**64 + 7}, "complete")


def test_float_literals_stay_floats() -> None:
    value = {"a": 1e20, "b": -1.5e300, "c": 9.3e18, "d": 0.5, "e": 18446744073709551616.0}
    for source, (fmt, write) in OBJECT_SOURCES.items():
        (call,) = _calls(write(value), fmt)
        assert same_json(call.arguments, value), (source, call.arguments)
        assert call.status == "complete"


def test_an_integer_and_a_bad_byte_in_one_message() -> None:
    # the bytes that are not UTF-8 are named (F29); the integer is still exact
    data = anthropic_body({"n": BIG, "s": "aXb"}).encode().replace(b"aXb", b"a\xffb")
    (call,) = parse_stream(data, "anthropic").calls
    assert call.arguments == {"n": BIG, "s": "a\ufffdb"}
    assert (call.status, call.repairs) == ("repaired", ("invalid_utf8",))


def test_usage_beyond_64_bits_reads_alike_from_a_body_and_its_stream() -> None:
    # not a count any server sends: neither reading takes the float orjson makes of it
    body = json.loads(anthropic_body({"n": 1}))
    body["usage"] = {"input_tokens": 2**64, "output_tokens": 3}
    stream = anthropic_stream({"n": 1}).replace(
        '"content":[]}', f'"content":[],"usage":{{"input_tokens":{2**64},"output_tokens":3}}}}'
    )
    from_body = parse_stream(_json(body).encode(), "anthropic").usage
    from_stream = parse_stream(stream.encode(), "anthropic").usage
    assert from_body == from_stream


# -- where no exact reading can be had ------------------------------------------------


def test_a_message_the_standard_library_cannot_read_is_named_not_guessed() -> None:
    deep = "[" * 1010 + "]" * 1010  # orjson reads 1,024 levels, the stdlib fewer
    text = f'{{"args":{{"n":{BIG}}},"deep":{deep}}}'
    message = orjson.loads(text)
    assert exact_part(message["args"], message, text) == (message["args"], NOT_EXACT)


def test_a_call_whose_number_cannot_be_read_exactly_is_not_complete() -> None:
    # another block of the message nested deeper than the standard library reads
    body = anthropic_body({"n": BIG}).replace(
        '"content":[', '"content":[{"type":"odd","deep":' + "[" * 1010 + "]" * 1010 + "},"
    )
    (call,) = parse_stream(body.encode(), "anthropic").calls
    assert (call.status, call.arguments, call.errors) == ("invalid", None, (NOT_EXACT,))


def test_arguments_not_found_in_their_message_are_named() -> None:
    text = f'{{"args":{{"n":{BIG}}}}}'
    message = orjson.loads(text)
    stranger = {"n": float(BIG)}  # equal to the message's arguments, but not them
    assert exact_part(stranger, message, text) == (stranger, NOT_EXACT)
    assert exact_part(message["args"], message, text) == ({"n": BIG}, "")


def test_values_read_by_the_stdlib_or_the_ladder_are_taken_as_they_are() -> None:
    text = f"{{'args': {{'n': {BIG}, 'f': 1e20}}}}"  # Python-style: not JSON, not re-read
    value = {"n": BIG, "f": 1e20}
    assert exact_part(value, {"args": value}, text) == (value, "")
    assert exact_part(value, {"args": value}, "") == (value, "")  # an SDK's objects


# -- any numbers ------------------------------------------------------------------------

_NUMBERS = st.one_of(
    st.integers(min_value=2**64, max_value=10**330),
    st.integers(min_value=-(10**330), max_value=-(2**63) - 1),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.sampled_from(EDGES),
    st.floats(allow_nan=False, allow_infinity=False),
)
_ARGUMENTS = st.dictionaries(
    st.text(max_size=3),
    st.recursive(_NUMBERS, lambda inner: st.lists(inner, max_size=3), max_leaves=6),
    max_size=4,
)


@settings(max_examples=100, deadline=None)
@given(first=_ARGUMENTS, second=_ARGUMENTS, source=st.sampled_from(sorted(OBJECT_SOURCES)))
def test_object_arguments_keep_every_number_as_sent(
    first: dict[str, Any], second: dict[str, Any], source: str
) -> None:
    fmt, write = OBJECT_SOURCES[source]
    calls = _calls(write(first, second), fmt)
    assert [c.status for c in calls] == ["complete", "complete"], _shown(calls)
    assert same_json(calls[0].arguments, first) and same_json(calls[1].arguments, second)
    text_form = TEXT_FORMS.get(fmt)
    if text_form is not None:
        assert _shown(calls) == _shown(_calls(text_form(first, second), fmt))
