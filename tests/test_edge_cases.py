"""Edge cases found in review: each one lost a call, raised, or mislabelled a status."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.events import StreamResult
from toolwire.parser import StreamParser, parse_stream
from toolwire.spec import ToolSpec


def openai(*fragments: dict[str, Any], finish: str | None = "tool_calls") -> str:
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [f]}}]} for f in fragments]
    if finish:
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"


def frag(index: int | None, id: str | None, name: str | None, args: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"function": {}}
    if index is not None:
        out["index"] = index
    if id is not None:
        out["id"] = id
    if name is not None:
        out["function"]["name"] = name
    if args is not None:
        out["function"]["arguments"] = args
    return out


def anthropic(*events: dict[str, Any]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_unresolvable_ref_in_a_tool_schema_keeps_the_call_invalid() -> None:
    tool = ToolSpec("t", {"type": "object", "properties": {"x": {"$ref": "#/definitions/no"}}})
    result = parse_stream(openai(frag(0, "c", "t", '{"x": 1}')), "openai-chat", [tool])
    (call,) = result.calls
    assert call.status == "invalid"
    assert any("schema" in e for e in call.errors), call.errors


def test_auto_detection_waits_past_a_leading_sse_comment() -> None:
    stream = ": OPENROUTER PROCESSING\n\n" + openai(frag(0, "c", "t", "{}"))
    whole = parse_stream(stream, "auto")
    parser = StreamParser("auto")
    events = parser.feed(stream[:26].encode())
    events += parser.feed(stream[26:].encode())
    events += parser.close()
    split = StreamResult.collect(events)
    assert [c.name for c in whole.calls] == [c.name for c in split.calls] == ["t"]


@pytest.mark.parametrize("lead", ["\n\n", "\r\n\r\n", "\ufeff\n\n\n"])
def test_auto_detection_reads_a_stream_after_leading_blank_lines_in_any_split(lead: str) -> None:
    # blank lines before the first field are not a block of text: a cut inside the
    # first field's name ("e" | "vent: ...") must wait for the rest, not give up on SSE
    stream = (
        lead
        + "event: content_block_delta\n"
        + 'data: {"type":"content_block_delta","index":0,'
        + '"delta":{"type":"text_delta","text":"Hello"}}\n\n'
    )
    data = stream.encode()
    for cut in range(len(lead.encode()), len(lead.encode()) + 12):
        parser = StreamParser("auto")
        events = parser.feed(data[:cut]) + parser.feed(data[cut:]) + parser.close()
        assert parser.format == "anthropic", cut
        assert StreamResult.collect(events).text == "Hello", cut


def test_header_then_arguments_at_one_index_without_ids_are_two_calls_F3() -> None:
    stream = openai(
        frag(0, None, "a", ""),
        frag(0, None, None, '{"x": 1}'),
        frag(0, None, "b", ""),
        frag(0, None, None, '{"y": 2}'),
    )
    result = parse_stream(stream, "openai-chat")
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("a", {"x": 1}, "complete"),
        ("b", {"y": 2}, "complete"),
    ]


def test_a_new_id_for_a_whole_call_without_id_is_a_new_call_F19() -> None:
    stream = openai(frag(0, None, "a", '{"x": 1}'), frag(0, "c2", "b", '{"y": 2}'))
    result = parse_stream(stream, "openai-chat")
    assert [(c.id, c.name) for c in result.calls] == [(None, "a"), ("c2", "b")]


def test_a_repeated_full_snapshot_is_not_a_second_call_F7() -> None:
    stream = openai(
        frag(0, "c", "a", '{"x"'), frag(0, None, None, ": 1}"), frag(0, None, None, '{"x": 1}')
    )
    (call,) = parse_stream(stream, "openai-chat").calls
    assert call.arguments == {"x": 1}


def test_anthropic_block_closed_then_max_tokens_is_truncated_F1() -> None:
    stream = anthropic(
        {"type": "message_start", "message": {"usage": {"input_tokens": 1}}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
        {"type": "message_stop"},
    )
    (call,) = parse_stream(stream, "anthropic").calls
    assert call.status == "truncated"
    assert call.arguments is None


def test_anthropic_blocks_closed_then_tool_use_are_complete() -> None:
    stream = anthropic(
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {}},
        {"type": "message_stop"},
    )
    (call,) = parse_stream(stream, "anthropic").calls
    assert (call.status, call.arguments) == ("complete", {"a": 1})


@pytest.mark.parametrize("value", [float("inf"), float("-inf")])
def test_infinite_numbers_are_checked_against_bounds(value: float) -> None:
    from toolwire.schemacheck import compile_check

    check = compile_check({"maximum": 10, "minimum": 0})
    assert check is not None and not check(value)


def test_stringified_array_is_decoded_even_when_other_fields_fit_F26() -> None:
    tool = ToolSpec(
        "t",
        {
            "type": "object",
            "properties": {"todos": {"items": {"type": "object"}}, "n": {"type": "integer"}},
        },
    )
    args = json.dumps({"todos": '[{"t": "x"}]', "n": 1})
    (call,) = parse_stream(openai(frag(0, "c", "t", args)), "openai-chat", [tool]).calls
    assert call.arguments == {"todos": [{"t": "x"}], "n": 1}
    assert call.status == "repaired"


def test_integral_float_for_an_integer_becomes_an_int() -> None:
    tool = ToolSpec("t", {"type": "object", "properties": {"a": {"type": "integer"}}})
    (call,) = parse_stream(openai(frag(0, "c", "t", '{"a": 3.0}')), "openai-chat", [tool]).calls
    assert call.arguments == {"a": 3}
    assert type(call.arguments["a"]) is int


def test_big_integers_survive_the_cli() -> None:
    result = CliRunner().invoke(app, ["repair", '{"a": 123456789012345678901234567890}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"a": 123456789012345678901234567890}


def test_unknown_text_family_is_a_clear_error() -> None:
    result = CliRunner().invoke(app, ["parse", "--format", "text:nope", "-"], input="x")
    assert result.exit_code == 2
    assert "nope" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "event",
    [
        {"type": "message_delta", "delta": {"stop_reason": 1}, "usage": {}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        {"type": "error", "error": "overloaded"},
    ],
)
def test_anthropic_fields_of_the_wrong_type_do_not_raise(event: dict[str, Any]) -> None:
    result = parse_stream(anthropic(event), "anthropic")
    assert isinstance(result.text, str)
    if event["type"] == "error":
        assert any("overloaded" in e.message for e in result.errors)


def test_choice_without_index_is_the_first_choice_on_both_paths() -> None:
    chunks = [
        {"choices": [{"index": None, "delta": {"tool_calls": [frag(0, "c", "t", "")]}}]},
        {"choices": [{"index": None, "delta": {"tool_calls": [frag(0, None, None, '{"a"')]}}]},
        {"choices": [{"delta": {"tool_calls": [frag(0, None, None, ": 1}")]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    stream = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    (call,) = parse_stream(stream, "openai-chat").calls
    assert (call.status, call.arguments) == ("complete", {"a": 1})


def test_a_second_name_for_one_call_is_a_conflict_not_a_rename_F8() -> None:
    stream = openai(frag(0, "c", "read_file", '{"p": 1'), frag(0, "c", "read_file_lines", "}"))
    (call,) = parse_stream(stream, "openai-chat").calls
    assert call.name == "read_file"
    assert call.status == "invalid"


@pytest.mark.parametrize("cut", [0, 1, 2, 3, 4])
def test_a_leading_byte_order_mark_is_dropped(cut: int) -> None:
    data = b"\xef\xbb\xbf" + openai(frag(0, "c", "t", "{}")).encode()
    parser = StreamParser("openai-chat")
    events = parser.feed(data[:cut]) + parser.feed(data[cut:]) + parser.close()
    assert [c.name for c in StreamResult.collect(events).calls] == ["t"]


@pytest.mark.anyio
async def test_engine_result_with_a_big_integer_is_returned_and_recorded() -> None:
    from toolwire.audit import MemorySink
    from toolwire.engine import ToolEngine
    from toolwire.tools import tool

    @tool
    def big() -> int:
        """A number beyond 64 bits."""
        return 10**30

    sink = MemorySink()
    engine = ToolEngine([big], sinks=[sink])
    result = await engine.call("big", {})
    assert (result.status, result.content) == ("ok", str(10**30))
    assert len(sink.records) == 1


def test_a_python_style_call_envelope_is_reported_repaired() -> None:
    text = "<tool_call>{'name': 'f', 'arguments': {'a': 1}}</tool_call>"
    (call,) = parse_stream(text, "text:hermes").calls
    assert call.arguments == {"a": 1}
    assert call.status == "repaired"
    assert call.repairs


def test_one_id_at_two_indexes_is_two_calls_in_any_order_F3() -> None:
    """A server that reuses one id for two parallel calls (at indexes 0 and 1) sent
    them merged into one invalid call; each index is its own call, whichever way the
    fragments interleave and whether or not they repeat the id."""

    def chunk(entry: dict[str, object], finish: str | None = None) -> str:
        choice = {"index": 0, "delta": {"tool_calls": [entry]}, "finish_reason": finish}
        return "data: " + json.dumps({"choices": [choice]}) + "\n\n"

    def head(index: int, name: str) -> dict[str, object]:
        fn = {"name": name, "arguments": ""}
        return {"index": index, "id": "call_1", "type": "function", "function": fn}

    def part(index: int, text: str, with_id: bool) -> dict[str, object]:
        entry: dict[str, object] = {"index": index, "function": {"arguments": text}}
        return {**entry, "id": "call_1"} if with_id else entry

    for with_id in (False, True):
        stream = (
            chunk(head(0, "a"))
            + chunk(head(1, "b"))
            + chunk(part(0, '{"x": ', with_id))
            + chunk(part(1, '{"y": 2}', with_id))
            + chunk(part(0, "1}", with_id))
            + 'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
            + "data: [DONE]\n\n"
        )
        calls = parse_stream(stream, format="openai-chat").calls
        assert [(c.name, c.status, c.arguments) for c in calls] == [
            ("a", "complete", {"x": 1}),
            ("b", "complete", {"y": 2}),
        ], with_id
