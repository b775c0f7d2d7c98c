"""Named argument text in any split gives the same calls (F3, F8, F15).

First, what a fix of review 9 F4/F5 must not break: the reviewer's reproducers of the
reverted attempt (bba7866, 8f8624c), which hold on main too: cumulative snapshots
stay one call (F7), blank fragments after a repeated name and many values in one
delta take linear time (F22), and no text of a value repeated within one delta is
lost.
"""

from __future__ import annotations

import time

from toolwire.assemble import CallAssembler
from toolwire.events import ArgumentsDelta, StreamResult, ToolCall

Fragment = tuple[int | None, str | None, str | None, str]


def assemble(fragments: list[Fragment], finish: str = "tool_calls") -> CallAssembler:
    asm = CallAssembler()
    for index, id, name, text in fragments:
        asm.tool(index, id, name, text)
    asm.set_finish_reason(finish)
    asm.end()
    return asm


def calls_of(fragments: list[Fragment], finish: str = "tool_calls") -> list[ToolCall]:
    events = assemble(fragments, finish).drain()
    calls = StreamResult.collect(events).calls
    # what was streamed of each call is its raw arguments, nothing more nor less
    shown: dict[int, list[str]] = {}
    for e in events:
        if isinstance(e, ArgumentsDelta):
            shown.setdefault(e.slot, []).append(e.text)
    for call in calls:
        assert "".join(shown.get(call.slot, [])) == call.raw_arguments, call
    return calls


HEADER: Fragment = (0, "c1", "f", "")


# -- the reviewer's reproducers of the reverted attempt (bba7866, 8f8624c) --------------


def test_a_cumulative_snapshot_repeated_whole_is_one_call_F7() -> None:
    """A stream that sends the whole text so far again (``{"a":1}\\n`` twice) is one
    call, never two that would run twice: with the name on every chunk, with id and
    name on every chunk, and with the name on the first only."""
    snapshot = '{"a":1}\n'
    shapes: list[list[Fragment]] = [
        [HEADER, (0, None, "f", snapshot), (0, None, "f", snapshot)],
        [(0, "c1", "f", snapshot), (0, "c1", "f", snapshot)],
        [HEADER, (0, None, None, snapshot), (0, None, None, snapshot)],
        [(0, "c1", "f", snapshot), (0, None, "f", snapshot)],
        [HEADER, (0, None, "f", '{"a":'), (0, None, "f", snapshot), (0, None, "f", snapshot)],
    ]
    for fragments in shapes:
        for finish in ("tool_calls", "length"):
            (call,) = calls_of(fragments, finish)
            assert call.raw_arguments == snapshot, fragments
            assert call.repairs == ("cumulative_snapshots",)
            if finish == "tool_calls":
                assert (call.arguments, call.status) == ({"a": 1}, "repaired")
            else:  # (cut off where the stream was, F1)
                assert call.status == "truncated"


def test_blank_fragments_after_a_repeated_name_take_linear_time_F22() -> None:
    """16,000 deltas of 64 blanks each after a repeated name (held until the text
    after them says which call they go to) and 16,000 without the name: well under
    a second each (the reverted attempt took 6 s, quadratic); bounded generously so
    this is no timing test."""
    blank = " " * 31 + "\n" + " " * 32
    for name in ("f", None):
        fragments: list[Fragment] = [(0, "c1", "f", '{"a":1}'), (0, None, "f", "")]
        fragments += [(0, None, name, blank)] * 16_000
        fragments.append((0, None, "f", '{"b":2}'))
        started = time.perf_counter()
        events = assemble(fragments).drain()
        assert time.perf_counter() - started < 5.0
        calls = StreamResult.collect(events).calls
        assert [(c.arguments, c.status) for c in calls] == [
            ({"a": 1}, "complete"),
            ({"b": 2}, "complete"),
        ]
        sent = '{"a":1}' + blank * 16_000 + '{"b":2}'
        assert "".join(c.raw_arguments for c in calls) == sent


def test_a_value_repeated_within_one_delta_loses_no_text_F7() -> None:
    """The reverted attempt read a value repeated within one named delta as a
    snapshot and dropped it: a snapshot is a delta that repeats all of its call so
    far, so only a delta's start can be one."""
    for text in ('{"a":1}{"a":1}', '{"a":1}\n{"a":1}\n', '{"a":1} {"a":1}{"a":1}'):
        shapes: list[list[Fragment]] = [
            [HEADER, (0, None, "f", text)],
            [(0, "c1", "f", '{"a":'), (0, None, "f", text[5:])],
        ]
        for fragments in shapes:
            calls = calls_of(fragments)
            assert "".join(c.raw_arguments for c in calls) == text
            assert not any(c.repairs or c.errors for c in calls if c.status != "invalid")
            assert not any("cumulative_snapshots" in c.repairs for c in calls)


def test_many_values_in_one_delta_take_linear_time_and_lose_nothing_F22() -> None:
    """300 values in one named delta (a call each) and 300 repeats of one value: no
    text is lost (a value repeated within one delta is no snapshot, F7, which only a
    delta's start can be) and it takes well under a second (bounded generously)."""
    for values in (
        [f'{{"n":{n}}}' for n in range(300)],
        ['{"a":1}'] * 300,
        [f'[{n}, "}}{{"]' for n in range(300)],
    ):
        for separator in ("", " ", ",", "\n"):
            text = separator.join(values)
            started = time.perf_counter()
            calls = calls_of([HEADER, (0, None, "f", text)])
            assert time.perf_counter() - started < 5.0
            assert "".join(c.raw_arguments for c in calls) == text
            assert not any("cumulative_snapshots" in c.repairs for c in calls)
    # a long text with many values: the cut reads each character once
    text = " ".join(f'{{"n":{n},"s":"{"x" * 50}"}}' for n in range(20_000))
    started = time.perf_counter()
    calls = calls_of([HEADER, (0, None, "f", text)])
    assert time.perf_counter() - started < 5.0
    assert "".join(c.raw_arguments for c in calls) == text
