"""Property tests: parsers never raise on arbitrary input; truncation is never 'complete'."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.parser import StreamParser, parse_stream
from toolwire.spec import ToolSpec

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=10,
)
ARGS = st.dictionaries(st.text(min_size=1, max_size=8), JSON_VALUES, min_size=1, max_size=4)


def openai_stream(name: str, args_text: str, pieces: list[int], finish: str | None) -> str:
    chunks = [
        {
            "index": 0,
            "id": "call_1",
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
    ]
    start = 0
    for cut in [*sorted(set(p for p in pieces if 0 < p < len(args_text))), len(args_text)]:
        chunks.append({"index": 0, "function": {"arguments": args_text[start:cut]}})
        start = cut
    lines = [
        json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [c]}, "finish_reason": None}]})
        for c in chunks
    ]
    if finish:
        lines.append(json.dumps({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}))
    return "".join(f"data: {line}\n\n" for line in lines) + ("data: [DONE]\n\n" if finish else "")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400), st.sampled_from(["auto", "openai-chat", "anthropic"]))
def test_parser_never_raises_on_arbitrary_bytes(data: bytes, fmt: str) -> None:
    parser = StreamParser(fmt)
    parser.feed(data[:13])
    parser.feed(data[13:])
    parser.close()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.sampled_from(["openai-chat", "anthropic"]))
def test_parser_never_raises_on_arbitrary_data_lines(text: str, fmt: str) -> None:
    payload = "".join(f"data: {line}\n\n" for line in text.split("\n"))
    parse_stream(payload, fmt, [ToolSpec("t")])


@settings(max_examples=200, deadline=None)
@given(ARGS, st.data())
def test_truncated_prefix_of_a_call_is_never_complete_F1(args: dict, data: st.DataObject) -> None:
    text = json.dumps(args)
    cut = data.draw(st.integers(1, len(text) - 1))
    pieces = data.draw(st.lists(st.integers(0, cut), max_size=5))
    ending = data.draw(st.sampled_from(["length", "stop", "tool_calls", None]))
    result = parse_stream(openai_stream("t", text[:cut], pieces, ending), "openai-chat")
    (call,) = result.calls
    assert call.status != "complete", (text[:cut], call)
    if call.status in ("truncated", "invalid"):
        assert call.arguments is None or call.status == "invalid"


@settings(max_examples=200, deadline=None)
@given(ARGS, st.lists(st.integers(0, 200), max_size=8))
def test_whole_call_in_any_pieces_is_complete_and_exact(args: dict, pieces: list[int]) -> None:
    text = json.dumps(args)
    result = parse_stream(openai_stream("t", text, pieces, "tool_calls"), "openai-chat")
    (call,) = result.calls
    assert call.status == "complete"
    assert call.arguments == args
