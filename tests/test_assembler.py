"""Slot routing and argument accumulation in the call assembler (F2–F8, F10, F17–F20)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.assemble import CallAssembler, JsonScanner, normalize_finish_reason
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    StreamError,
    StreamFinished,
    StreamResult,
    ToolCall,
)
from toolwire.spec import ToolSpec

WEATHER = ToolSpec("get_weather", {"type": "object", "properties": {"city": {"type": "string"}}})
READ = ToolSpec("read_file", {"type": "object", "properties": {"path": {"type": "string"}}})


def run(fragments: list[tuple[Any, ...]], finish: str | None = "tool_calls") -> StreamResult:
    asm = CallAssembler([WEATHER, READ])
    for frag in fragments:
        asm.tool(*frag)
    if finish:
        asm.set_finish_reason(finish)
    asm.end()
    return StreamResult.collect(asm.drain())


def summary(result: StreamResult) -> list[tuple[str | None, str, Any, str]]:
    return [(c.id, c.name, c.arguments, c.status) for c in result.calls]


def test_index_zero_is_an_index_F20() -> None:
    r = run([(0, "a", "get_weather", ""), (0, None, None, '{"city":'), (0, None, None, '"X"}')])
    assert summary(r) == [("a", "get_weather", {"city": "X"}, "complete")]


def test_new_id_at_used_index_opens_a_new_slot_F3() -> None:
    r = run(
        [
            (0, "a", "get_weather", '{"city": "A"}'),
            (0, "b", "read_file", ""),
            (0, None, None, '{"path": "p"}'),
        ]
    )
    assert summary(r) == [
        ("a", "get_weather", {"city": "A"}, "complete"),
        ("b", "read_file", {"path": "p"}, "complete"),
    ]


def test_second_call_at_same_index_without_ids_is_not_concatenated_F3() -> None:
    r = run([(0, None, "get_weather", '{"city": "A"}'), (0, None, "read_file", '{"path": "p"}')])
    assert [c.name for c in r.calls] == ["get_weather", "read_file"]
    assert "}{" not in r.calls[0].raw_arguments


def test_no_index_routes_by_id_then_open_call_F4() -> None:
    r = run(
        [(None, "a", "get_weather", ""), (None, None, None, '{"city"'), (None, "a", None, ': "R"}')]
    )
    assert summary(r) == [("a", "get_weather", {"city": "R"}, "complete")]


def test_late_id_is_adopted_by_its_index_slot() -> None:
    r = run([(1, None, "read_file", '{"path"'), (1, "late", None, ': "q"}')])
    assert summary(r) == [("late", "read_file", {"path": "q"}, "complete")]


def test_name_repeated_in_every_chunk_is_set_once_F8() -> None:
    r = run([(0, "a", "read_file", '{"path"'), (0, "a", "read_file", ': "x"}')])
    assert r.calls[0].name == "read_file"
    assert r.calls[0].status == "complete"


def test_conflicting_name_for_one_id_is_reported_F8() -> None:
    r = run([(0, "a", "read_file", '{"path": "x"}'), (0, "a", "get_weather", "")])
    (call,) = r.calls
    assert call.name == "read_file"
    assert call.status == "invalid"
    assert any("conflicting names" in e for e in call.errors)


def test_cumulative_snapshots_keep_only_the_new_suffix_F7() -> None:
    asm = CallAssembler([WEATHER])
    for text in ['{"ci', '{"city": "K', '{"city": "Kyoto"}', '{"city": "Kyoto"}']:
        asm.tool(0, "a", "get_weather", text)
    asm.end()
    events = asm.drain()
    deltas = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
    assert deltas == '{"city": "Kyoto"}'
    (call,) = StreamResult.collect(events).calls
    assert call.arguments == {"city": "Kyoto"}
    assert "cumulative_snapshots" in call.repairs


def test_object_arguments_are_accepted_F10() -> None:
    r = run([(0, "a", "get_weather", {"city": "Paris"})])
    assert summary(r) == [("a", "get_weather", {"city": "Paris"}, "complete")]


@pytest.mark.parametrize("text", ['{"city": "Oslo"}', '"x"', "}"])
def test_text_after_object_arguments_is_read_with_them_never_dropped_F10(text: str) -> None:
    # An Anthropic block started with a non-empty input, then input deltas: the call
    # came out complete with the object alone, the text silently dropped.
    r = run([(0, "a", "get_weather", {"city": "Paris"}), (0, None, None, text)])
    (call,) = r.calls
    assert call.raw_arguments == '{"city":"Paris"}' + text
    assert call.status != "complete"
    assert call.arguments != {"city": "Paris"} or call.repairs


def test_text_after_object_arguments_takes_the_full_path_not_the_plain_one_F10() -> None:
    # the decoders' hot path (``fast_arguments``) would append "}" plainly and keep
    # the object as the call's value
    asm = CallAssembler([WEATHER, READ])
    asm.tool(0, "a", "get_weather", {"city": "Paris"})
    assert not asm.fast_arguments(0, "}")
    asm.tool(0, None, None, "}")
    asm.end()
    (call,) = StreamResult.collect(asm.drain()).calls
    assert call.raw_arguments == '{"city":"Paris"}}'
    assert call.status == "repaired" and call.repairs  # the stray closer, named


def test_object_arguments_repeated_as_text_are_one_value_named_F7() -> None:
    r = run([(0, "a", "get_weather", {"city": "Paris"}), (0, None, None, '{"city":"Paris"}')])
    (call,) = r.calls
    assert call.arguments == {"city": "Paris"}
    assert call.repairs == ("cumulative_snapshots",)


def test_empty_or_absent_arguments_become_empty_object_F2() -> None:
    r = run([(0, "a", "read_file", None)])
    assert r.calls[0].arguments == {}
    assert r.calls[0].status in ("complete", "invalid")  # valid here: path is not required
    assert r.calls[0].status == "complete"


def test_stop_with_calls_reports_tool_calls_F17() -> None:
    assert run([(0, "a", "read_file", "{}")], finish="stop").finish_reason == "tool_calls"


def test_length_truncates_the_last_open_call_F1() -> None:
    r = run(
        [(0, "a", "read_file", '{"path": "x"}'), (1, "b", "read_file", '{"path": "y')], "length"
    )
    assert [c.status for c in r.calls] == ["complete", "truncated"]
    assert r.calls[1].arguments is None
    assert r.finish_reason == "length"


def test_length_truncates_the_last_open_call_not_the_last_call_F1() -> None:
    """Whole arguments, so only the finish reason can cut: the last of the calls still
    open is the cut one, though a call after it was closed; the other open call is
    complete."""
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", '{"path": "x"}')
    asm.tool(1, "b", "read_file", '{"path": "y"}')
    asm.tool(2, "c", "read_file", '{"path": "z"}')
    asm.close_call(index=2)  # finished at once
    asm.set_finish_reason("length")
    asm.end()
    calls = StreamResult.collect(asm.drain()).calls
    assert [(c.id, c.status) for c in calls] == [
        ("c", "complete"),
        ("a", "complete"),
        ("b", "truncated"),
    ]


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("end_turn", "stop"),
        ("END_TURN", "stop"),
        ("Tool_Use", "tool_calls"),
        ("MAX_TOKENS", "length"),
        ("Content_Filter", "content_filter"),
        ("something_new", "stop"),
        ("", "stop"),
        (None, None),
        (7, "stop"),
    ],
)
def test_finish_reasons_map_whatever_their_case(raw: object, reason: str | None) -> None:
    assert normalize_finish_reason(raw) == reason


def test_an_upper_case_length_still_truncates_and_keeps_the_raw_reason_F1() -> None:
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", '{"path": "y')
    asm.set_finish_reason("MAX_TOKENS")
    asm.end()
    events = asm.drain()
    r = StreamResult.collect(events)
    assert [c.status for c in r.calls] == ["truncated"]
    assert events[-1] == StreamFinished("length", None, "MAX_TOKENS")


def test_an_empty_finish_reason_after_a_real_one_does_not_replace_it() -> None:
    asm = CallAssembler([READ])
    asm.set_finish_reason("length")
    asm.set_finish_reason("")
    asm.end()
    assert asm.drain()[-1] == StreamFinished("length", None, "length")


def test_dropped_connection_truncates_and_reports_an_error_F1() -> None:
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", '{"path": "x"}')
    asm.end(dropped=True)
    r = StreamResult.collect(asm.drain())
    assert r.calls[0].status == "truncated"
    assert r.finish_reason == "error"
    assert r.errors


def test_event_order_started_deltas_finished_then_stream_finished() -> None:
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", '{"pa')
    asm.tool(0, None, None, 'th": "x"}')
    asm.set_finish_reason("tool_calls")
    asm.end()
    kinds = [type(e) for e in asm.drain()]
    assert kinds == [CallStarted, ArgumentsDelta, ArgumentsDelta, CallFinished, StreamFinished]


def test_a_call_named_after_its_first_text_streams_that_text_too() -> None:
    """The name comes after argument text (alone or with more text): the text before
    it is streamed after ``CallStarted`` too, so what a call streams is its raw
    arguments (it was lost: a client saw ``"x"}`` of ``{"path": "x"}``)."""
    for tail in ([(0, None, "read_file", "")], [(0, None, "read_file", '"x"}')]):
        asm = CallAssembler([READ])
        asm.tool(0, "a", None, '{"path": ')
        for fragment in tail:
            asm.tool(*fragment)
        asm.end()
        events = asm.drain()
        (call,) = StreamResult.collect(events).calls
        streamed = "".join(e.text for e in events if isinstance(e, ArgumentsDelta))
        assert streamed == call.raw_arguments == '{"path": ' + tail[0][3]
        assert [type(e) for e in events[:2]] == [CallStarted, ArgumentsDelta]


def test_arguments_after_finish_are_reported_not_lost() -> None:
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", "{}")
    asm.close_call(index=0)
    asm.tool(0, "a", None, "more")
    asm.end()
    errors = [e for e in asm.drain() if isinstance(e, StreamError)]
    assert [e.raw for e in errors] == ["more"]


def test_partial_arguments_on_demand() -> None:
    asm = CallAssembler([READ])
    asm.tool(0, "a", "read_file", '{"path": "src/ma')
    assert asm.partial_arguments(0) == {"path": "src/ma"}
    asm.tool(0, None, None, 'in.py"}')
    assert asm.partial_arguments(0) == {"path": "src/main.py"}


def test_json_scanner_reports_where_a_value_closes() -> None:
    scan = JsonScanner()
    assert scan.feed('{"a": "}\\"') == -1
    assert scan.feed('", "b": [1, {"c": 2}]} tail') == 22
    assert scan.balanced
    scan2 = JsonScanner()
    scan2.feed('{"a": "x\\')
    assert scan2.escape and not scan2.balanced
    assert scan2.feed('"y"}') == 4
    assert scan2.balanced


def _scan_by_char(pieces: list[str]) -> tuple[list[int], tuple[int, bool, bool, int]]:
    """A character-at-a-time reading of JSON structure, the oracle for JsonScanner."""
    depth, in_string, escape, closed, firsts = 0, False, False, 0, []
    for piece in pieces:
        first = -1
        for i, c in enumerate(piece):
            if escape:
                escape = False
            elif in_string:
                if c == "\\":
                    escape = True
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in "{[":
                depth += 1
            elif c in "}]" and depth > 0:
                depth -= 1
                if depth == 0:
                    closed += 1
                    first = i + 1 if first < 0 else first
        firsts.append(first)
    return firsts, (depth, in_string, escape, closed)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]"\\ a\n', max_size=60), st.lists(st.integers(0, 60), max_size=6))
def test_json_scanner_agrees_with_a_character_scan_however_split(
    text: str, cuts: list[int]
) -> None:
    points = sorted({c for c in cuts if c <= len(text)})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    scan = JsonScanner()
    firsts = [scan.feed(p) for p in pieces]
    assert (firsts, (scan.depth, scan.in_string, scan.escape, scan.values_closed)) == (
        _scan_by_char(pieces)
    )


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]"\\ a\n', max_size=60), st.integers(0, 60))
def test_json_scanner_scan_to_close_stops_where_the_value_closes_F22(text: str, start: int) -> None:
    # the text after the value is left alone, so a call never pays for what follows it
    start = min(start, len(text))
    scan = JsonScanner()
    end = scan.scan_to_close(text, start)
    [first], _ = _scan_by_char([text[start:]])
    assert end == (start + first if first >= 0 else -1)
    _, state = _scan_by_char([text[start : end if end >= 0 else len(text)]])
    assert (scan.depth, scan.in_string, scan.escape, scan.values_closed) == state


def test_toolcall_is_frozen_and_serializable() -> None:
    r = run([(0, "a", "read_file", '{"path": "x"}')])
    call: ToolCall = r.calls[0]
    assert call.to_dict()["arguments"] == {"path": "x"}


def test_a_routing_decision_scans_only_the_new_text() -> None:
    # joining the whole text for each decision would make a long call quadratic
    asm = CallAssembler([WEATHER])
    # (the name repeated in every chunk, F8: text with neither id nor name is never
    # another call, so only a fragment that names one needs the decision)
    asm.tool(0, "c1", "get_weather", '{"city": "')
    for _ in range(100):
        asm.tool(0, None, "get_weather", "{a")  # opens a value? needs the structure so far
    slot = asm._slots[0]
    assert len(slot.parts) > 100 and slot.scan.consumed == slot.size - len("{a")
    asm.tool(0, None, None, '"}')
    asm.end()
    (call,) = StreamResult.collect(asm.drain()).calls
    assert call.arguments == {"city": "{a" * 100}


FRAGMENT_TEXT = st.text(alphabet='{}[]"\\ a:,\n1', max_size=8)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(
                st.integers(0, 1), st.sampled_from(["get_weather", "read_file"]), FRAGMENT_TEXT
            ),
            st.tuples(st.integers(0, 1), st.none(), FRAGMENT_TEXT),
        ),
        max_size=12,
    )
)
def test_the_fast_argument_path_gives_what_the_full_one_gives(
    fragments: list[tuple[int, str | None, str]],
) -> None:
    """``fast_arguments`` (the decoders' hot path) takes a fragment only where ``tool``
    would have made no routing decision: the events are the same either way."""

    def events(fast: bool) -> list[Any]:
        asm = CallAssembler([WEATHER, READ])
        for index, name, text in fragments:
            if name is not None or not fast or not asm.fast_arguments(index, text):
                asm.tool(index, None, name, text)
        asm.set_finish_reason("tool_calls")
        asm.end()
        return asm.drain()

    assert events(fast=True) == events(fast=False)
