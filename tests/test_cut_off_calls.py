"""A call cut off under the wrong finish reason (F33).

Servers report ``finish_reason: tool_calls`` (or ``stop``) although ``max_tokens`` cut
the arguments mid-value. The call is ``truncated`` (never ``invalid``, never
``complete``), and the stream's finish reason says the output was cut (``length``);
the reason as sent stays in ``raw_finish_reason``.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.assemble import CallAssembler
from toolwire.events import StreamFinished
from toolwire.parser import parse_stream

KEYS = st.text(min_size=1, max_size=6)
# strings that look like JSON structure once cut (the repair ladder misread those)
JSONISH = st.text(alphabet='{}[]":, ab\\', max_size=10)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10) | JSONISH,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=10,
)
ARGS = st.dictionaries(KEYS, VALUES, min_size=1, max_size=4)


def openai_stream(pieces: list[str], finish: str, mirror: bool) -> str:
    """OpenAI-shaped chunks; ``mirror``: llama-cpp-python's shape (header in every
    chunk, each mirrored in ``function_call``)."""
    chunks = []
    for i, piece in enumerate(pieces):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        delta: dict[str, Any] = {"tool_calls": [call]}
        if i == 0 or mirror:
            call.update(id="call_1", type="function")
            call["function"] = {"name": "f", "arguments": piece}
        if mirror:
            delta["function_call"] = {"name": "f", "arguments": piece}
        chunks.append({"choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def test_a_call_cut_mid_string_under_tool_calls_is_truncated_and_the_stream_cut_F33() -> None:
    result = parse_stream(openai_stream(['{"city": "Par'], "tool_calls", False), "openai-chat")
    (call,) = result.calls
    assert call.status == "truncated"
    assert call.arguments is None
    assert call.partial_arguments == {"city": "Par"}
    assert result.finish_reason == "length"


def test_a_cut_string_that_holds_brackets_is_truncated_not_invalid_F33() -> None:
    for reason in ("tool_calls", "length"):
        stream = openai_stream(['{"q": "a", "b": "{}[', "]"], reason, False)
        result = parse_stream(stream, "openai-chat")
        (call,) = result.calls
        assert call.status == "truncated", call
        assert call.partial_arguments == {"q": "a", "b": "{}[]"}
        assert result.finish_reason == "length"


def test_the_reason_as_sent_is_kept_beside_the_cut_F33() -> None:
    asm = CallAssembler()
    asm.tool(0, "c", "f", '{"a": [1, ')
    asm.set_finish_reason("stop")
    asm.end()
    (finished,) = [e for e in asm.drain() if isinstance(e, StreamFinished)]
    assert (finished.finish_reason, finished.raw_finish_reason) == ("length", "stop")


def test_whole_calls_keep_the_reason_sent_F33() -> None:
    for reason, expected in (("tool_calls", "tool_calls"), ("stop", "tool_calls")):
        result = parse_stream(openai_stream(['{"a": 1}'], reason, False), "openai-chat")
        assert result.calls[0].status == "complete"
        assert result.finish_reason == expected


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ARGS, st.data())
def test_any_cut_of_valid_arguments_is_truncated_never_invalid_F33(
    args: dict[str, Any], data: st.DataObject
) -> None:
    text = json.dumps(args, indent=data.draw(st.sampled_from([None, 1])))
    cut = data.draw(st.integers(1, len(text) - 1))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, cut - 1), max_size=5)))) if cut > 1 else []
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, cut], strict=True)]
    reason = data.draw(st.sampled_from(["tool_calls", "stop"]))
    mirror = data.draw(st.booleans())
    result = parse_stream(openai_stream(pieces, reason, mirror), "openai-chat")
    (call,) = result.calls
    assert call.status == "truncated", (text[:cut], call)
    assert call.arguments is None
    assert result.finish_reason == "length"
