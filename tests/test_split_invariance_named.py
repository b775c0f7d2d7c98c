"""Named argument text in any split gives the same calls (F3, F8, F15).

With the name on every chunk and no id (F8), a value that opens after a whole one
starts a new call (F3), so one delta holding ``}{`` must give what two deltas cut at
the ``}`` give (review 9 F5), and text between two values in one delta must go where
the same text in its own delta goes (review 13 #9). After OpenAI's id-less header of a
second call (the same index, the name again, no text) white space goes to the call
that the text after it opens, however it was cut (review 9 F4). None of this may
undo cumulative snapshots (F7) or make a stream of many fragments quadratic (F22):
the reviewer's reproducers of a reverted attempt are here too. The properties' example
counts are multiplied by ``TOOLWIRE_FUZZ_SCALE``.
"""

from __future__ import annotations

import itertools
import re
import time
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.test_snapshots_or_concatenation import FIRST, args, index_calls, read_three_ways, sse
from tests.wirefuzz import SCALE
from toolwire.assemble import CallAssembler
from toolwire.events import ArgumentsDelta, StreamResult, ToolCall
from toolwire.parser import parse_stream

# (index, id, name, arguments: text, or an object as some servers send them, F10)
Fragment = tuple[int | None, str | None, str | None, Any]


def assemble(fragments: list[Fragment], finish: str = "tool_calls") -> CallAssembler:
    asm = CallAssembler()
    for index, id, name, text in fragments:
        asm.tool(index, id, name, text)
    asm.set_finish_reason(finish)
    asm.end()
    return asm


def read_snapshots(asm: CallAssembler) -> bool:
    """Some call of the stream was read as cumulative snapshots (F7), or was fed a
    delta that could be one (F28: both readings kept until one is ruled out)."""
    return any(slot.cumulative or slot.checked for slot in asm._slots)


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


def summary(calls: list[ToolCall]) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.raw_arguments, c.status, c.repairs) for c in calls]


def every_split(text: str) -> list[list[str]]:
    """``text`` cut at every subset of its character boundaries."""
    out = []
    for mask in range(1 << (len(text) - 1)):
        points = [0, *(i + 1 for i in range(len(text) - 1) if mask >> i & 1), len(text)]
        out.append([text[a:b] for a, b in itertools.pairwise(points)])
    return out


def named(text: str) -> dict[str, Any]:
    return {"function": {"name": "f", "arguments": text}}


HEADER: Fragment = (0, "c1", "f", "")


def named_splits(text: str, finish: str = "tool_calls") -> set[tuple[tuple[Any, ...], ...]]:
    """The distinct results of ``text`` with the name on every delta, in every split."""
    return {
        tuple(summary(calls_of([HEADER, *((0, None, "f", p) for p in pieces)], finish)))
        for pieces in every_split(text)
    }


# -- review 9 F4: white space after the id-less header of a second call -----------------


def test_white_space_after_a_name_alone_goes_with_the_text_after_it_F3_F15() -> None:
    """Review 9 F4: white space alone in its delta went to the first call, with the
    ``{`` to the second. The header says a call begins: the white space after it is
    the second call's when a second value follows, however it was cut."""
    name_alone = {"function": {"name": "f", "arguments": ""}}
    cuts = [
        [name_alone, args(' {"b":2}')],
        [name_alone, args(" "), args('{"b":2}')],
        [name_alone, args(" "), args("{"), args('"b":2}')],
        [name_alone, *map(args, ' {"b":2}')],
        [named(" "), args('{"b":2}')],
        [named(" "), named('{"b":2}')],
        [name_alone, named(" "), args(""), named('{"b":2}')],
    ]
    for cut in cuts:
        calls = read_three_ways(index_calls(FIRST + cut))
        assert [(c.id, c.raw_arguments, c.status) for c in calls] == [
            ("c1", '{"a":1}', "complete"),
            (None, ' {"b":2}', "complete"),
        ], cut


def test_white_space_after_a_name_alone_that_no_value_follows_is_the_call_s_F8() -> None:
    """Review 9 F4's other half: white space after the repeated name and no value
    after it (a name repeated on the last chunk, F8) stays the first call's, and so
    does white space before text that opens no value, in any cut and at any end."""
    name_alone = {"function": {"name": "f", "arguments": ""}}
    for finish in ("tool_calls", "length"):
        tails = [
            [name_alone, args(" \n")],
            [name_alone, args(" "), args("\n")],
            [named(" \n")],
            [named(" "), named("\n")],
        ]
        for tail in tails:
            (call,) = read_three_ways(index_calls(FIRST + tail, finish))
            assert call.raw_arguments == '{"a":1} \n', tail
        junk = [[name_alone, args(" x")], [name_alone, args(" "), args("x")]]
        results = [read_three_ways(index_calls(FIRST + tail, finish)) for tail in junk]
        assert results[0] == results[1]
        (call,) = results[0]
        assert (call.raw_arguments, call.repairs) == ('{"a":1} x', ("surrounding_text",))


def test_held_white_space_goes_to_the_call_a_new_id_opens_F3() -> None:
    """After the header alone, white space then text with a new id that opens a
    value: a second call with that id, the white space in its text as in one delta."""
    for tail in (
        [(0, None, None, " "), (0, "c2", None, '{"b":2}')],
        [(0, "c2", None, ' {"b":2}')],
    ):
        fragments: list[Fragment] = [(0, "c1", "f", '{"a":1}'), (0, None, "f", ""), *tail]
        assert summary(calls_of(fragments)) == [
            ("c1", "f", '{"a":1}', "complete", ()),
            ("c2", "f", ' {"b":2}', "complete", ()),
        ]


def test_held_white_space_is_the_first_call_s_when_another_name_follows_F3() -> None:
    """The header alone of a call named ``f``, white space, then a call of another
    name: that call is not the one the header announced; the white space stays with
    the call it came after (as with nothing after it)."""
    fragments: list[Fragment] = [
        (0, "c1", "f", '{"a":1}'),
        (0, None, "f", ""),
        (0, None, None, " "),
        (0, None, "g", '{"b":2}'),
    ]
    assert summary(calls_of(fragments)) == [
        ("c1", "f", '{"a":1} ', "complete", ()),
        (None, "g", '{"b":2}', "complete", ()),
    ]


# -- review 9 F5: a value that closes and another that opens in one named delta --------


def test_a_named_delta_holding_two_values_is_two_calls_in_any_split_F3_F15() -> None:
    """Review 9 F5: with the name on every chunk and no id, ``}{`` in one delta gave
    one invalid call, the same text in two deltas cut at the ``}`` two calls. Two
    calls in every split; white space between them goes with the second (as after a
    name alone, review 9 F4)."""
    for text, expected in (
        ('{"a":1}{"b":2}', ['{"a":1}', '{"b":2}']),
        ('{"a":1} {"b":2}', ['{"a":1}', ' {"b":2}']),
        ('{}\n{"c":3} ', ["{}", '\n{"c":3} ']),
    ):
        (result,) = named_splits(text)
        assert [(c[2], c[3]) for c in result] == [(e, "complete") for e in expected], text
        assert [c[0] for c in result] == ["c1"] + [None] * (len(expected) - 1)


def wire_calls(pieces: list[str]) -> list[ToolCall]:
    """The calls of OpenAI chunks: the header of call ``c1`` named ``f``, then each
    piece as argument text with the name, read the three ways ``read_three_ways``
    reads a stream."""
    header = {"id": "c1", "function": {"name": "f", "arguments": ""}}
    return read_three_ways(index_calls([header, *(named(p) for p in pieces)]))


def test_a_named_delta_holding_two_values_over_the_wire_F3_F15() -> None:
    """Review 9 F5 as OpenAI chunks: one delta or two, the same two calls."""
    cuts = [
        ['{"a":1}{"b":2}'],
        ['{"a":1', '}{"b":2}'],
        ['{"a":1}', '{"b":2}'],
        ['{"a":1}{', '"b":2}'],
    ]
    for cut in cuts:
        calls = wire_calls(cut)
        assert [(c.id, c.arguments, c.status) for c in calls] == [
            ("c1", {"a": 1}, "complete"),
            (None, {"b": 2}, "complete"),
        ], cut


def test_unnamed_text_holding_two_values_is_still_one_call_F3() -> None:
    """Only a name (or an id) opens a call: text with neither is never cut, in one
    delta or two ({..}{..}: one invalid call, the ladder refuses it)."""
    for tail in (['}{"b":2}'], ["}", '{"b":2}']):
        fragments: list[Fragment] = [HEADER, (0, None, "f", '{"a":1')]
        fragments += [(0, None, None, t) for t in tail]
        (call,) = calls_of(fragments)
        assert (call.raw_arguments, call.status) == ('{"a":1}{"b":2}', "invalid")


def test_text_with_an_id_is_that_call_s_however_many_values_F3() -> None:
    """Text that carries its call's id is that call's: never cut (llama-cpp-python
    sends id and name with every chunk, F32)."""
    for pieces in (['{"a":1}{"b":2}'], ['{"a":1}', '{"b":2}']):
        (call,) = calls_of([(0, "c1", "f", p) for p in pieces])
        assert (call.raw_arguments, call.status) == ('{"a":1}{"b":2}', "invalid")


def test_a_cut_keeps_each_part_s_invalid_utf8_repair_F29_F15() -> None:
    """Review 9 F5's cut with bytes that are not UTF-8 in one of the two values: the
    call whose text held them is repaired (F29), the other is not, in any cut."""
    header = {"id": "c1", "function": {"name": "f", "arguments": ""}}
    for first, second in (('{"a":"XX"}', '{"b":1}'), ('{"a":1}', '{"b":"XX"}')):
        expected = [
            (t.replace("XX", "\ufffd"), "repaired", ("invalid_utf8",))
            if "XX" in t
            else (t, "complete", ())
            for t in (first, second)
        ]
        for cut in ([first + second], [first, second]):
            wire = sse(index_calls([header, *map(named, cut)])).replace(b"XX", b"\xff")
            calls = parse_stream(wire, "openai-chat").calls
            assert [(c.raw_arguments, c.status, c.repairs) for c in calls] == expected, cut


# -- review 13 #9: text that is not blank between two values in one named delta -------


def test_text_between_two_named_values_goes_with_the_first_in_any_split_F15() -> None:
    """Review 13 #9: ``{"a":1},{"b":2}`` or ``{"a":1} x {"b":2}`` in one named delta
    gave one call, cut after the separator two. The finer cuts are the reference
    (each character its own delta: text after a whole value that opens none is more
    of that call, a value after it opens the next): the separator stays with the
    value before it, where the ladder names what it removed (``trailing_comma``,
    ``surrounding_text``), and white space just before the second value goes with it.
    The same in every split."""
    cases = {
        '{"a":1},{"b":2}': [
            ('{"a":1},', "repaired", ("trailing_comma",)),
            ('{"b":2}', "complete", ()),
        ],
        '{"a":1}, {"b":2}': [
            ('{"a":1},', "repaired", ("trailing_comma",)),
            (' {"b":2}', "complete", ()),
        ],
        '{"a":1} x {"b":2}': [
            ('{"a":1} x', "repaired", ("surrounding_text",)),
            (' {"b":2}', "complete", ()),
        ],
        '{} "}{" {"c":3}': [  # (a string after a value: the ladder reads two values)
            ('{} "}{"', "invalid", ()),
            (' {"c":3}', "complete", ()),
        ],
    }
    for text, expected in cases.items():
        (result,) = named_splits(text)
        assert [c[2:] for c in result] == expected, text


def test_a_separator_alone_after_the_value_then_the_next_value_F15() -> None:
    """Review 13 #9 as OpenAI chunks, one delta and the cuts around the comma."""
    cuts = [
        ['{"a":1},{"b":2}'],
        ['{"a":1}', ',{"b":2}'],
        ['{"a":1},', '{"b":2}'],
        ['{"a":1}', ",", '{"b":2}'],
    ]
    results = [wire_calls(cut) for cut in cuts]
    assert all(r == results[0] for r in results)
    assert [(c.arguments, c.status) for c in results[0]] == [
        ({"a": 1}, "repaired"),
        ({"b": 2}, "complete"),
    ]


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
    """16,000 deltas of 64 blanks each after a repeated name (the reviewer's case:
    the reverted attempt took 6 s, quadratic), with the name and without, and four
    times as many (quadratic time would take 16 times as long): well under a second
    each, bounded generously so this is no timing test."""
    blank = " " * 31 + "\n" + " " * 32
    for name, count in itertools.product(("f", None), (16_000, 64_000)):
        fragments: list[Fragment] = [(0, "c1", "f", '{"a":1}'), (0, None, "f", "")]
        fragments += [(0, None, name, blank)] * count
        fragments.append((0, None, "f", '{"b":2}'))
        started = time.perf_counter()
        events = assemble(fragments).drain()
        assert time.perf_counter() - started < 5.0
        calls = StreamResult.collect(events).calls
        assert [(c.arguments, c.status) for c in calls] == [
            ({"a": 1}, "complete"),
            ({"b": 2}, "complete"),
        ]
        sent = '{"a":1}' + blank * count + '{"b":2}'
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


def test_a_value_repeated_in_one_delta_is_two_calls_F3_F15() -> None:
    """Review 9 F5's cut, with the same value twice in one named delta: two calls,
    as in any cut that does not start a delta with the whole call so far (which may
    be a snapshot, F7, and is left to that reading)."""
    text = '{"a":1}{"a":1}'
    results = {
        tuple(summary(calls_of([HEADER, *((0, None, "f", p) for p in pieces)])))
        for pieces in every_split(text)
        if '{"a":1}' not in pieces[1:]  # (a delta that repeats its call whole: F7)
    }
    assert results == {
        (
            ("c1", "f", '{"a":1}', "complete", ()),
            (None, "f", '{"a":1}', "complete", ()),
        )
    }


# -- the property ----------------------------------------------------------------------

# Values that each open with a key of their own (``"#n"``, numbered across the script,
# and no ``#`` elsewhere): no delta can start with the whole text of its call so far
# once that holds a value, which only a delta's start could make a cumulative snapshot
# (F7); the property is about the cuts, not about F7. (A call whose text so far is
# blank, then a delta that starts with that blank, may still look like snapshots,
# F28: such runs are left out, below.)
SCALAR = st.one_of(
    st.integers(-5, 99).map(str),
    st.sampled_from(["true", "null", "1.5"]),
    st.text(alphabet='ab {}[],:\\"', max_size=5).map(
        lambda s: '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
    ),
)
INNER = st.recursive(
    SCALAR,
    lambda inner: (
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.lists(st.tuples(st.sampled_from("abc"), inner), max_size=2).map(
            lambda kv: "{" + ",".join(f'"{k}": {v}' for k, v in kv) + "}"
        )
    ),
    max_leaves=6,
)
BLANK = st.text(alphabet=" \n\t\u00a0", max_size=3)
SEPARATOR = st.one_of(
    BLANK,
    st.tuples(BLANK, st.sampled_from([",", "x", ";", '"s"', "]", "}", "'"]), BLANK).map("".join),
)


@st.composite
def named_stream(draw: st.DrawFn) -> str:
    """Values one after another with separators, maybe cut off."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        body = draw(INNER)
        if draw(st.booleans()):
            parts.append(f'{{"#": {body}}}')
        else:
            parts.append(f'["#", {body}]')
        parts.append(draw(SEPARATOR))
    text = "".join(parts)
    if draw(st.booleans()):
        text = text[: draw(st.integers(1, len(text)))]
    return text


@st.composite
def cut(draw: st.DrawFn, text: str) -> list[str]:
    """``text`` cut anywhere; white space often alone."""
    if len(text) < 2:
        return [text]
    points = set(draw(st.lists(st.integers(1, len(text) - 1), max_size=10)))
    points |= {i for i, c in enumerate(text) if c.isspace() and draw(st.booleans())}
    points |= {i + 1 for i, c in enumerate(text[:-1]) if c.isspace() and draw(st.booleans())}
    edges = [0, *sorted(points), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


# the chunks of a script: (id, name, text); a text chunk is cut keeping its id and name
CHUNK = st.one_of(
    st.tuples(st.none(), st.just("f"), named_stream()),  # the name on every chunk (F8)
    st.tuples(st.none(), st.none(), named_stream()),  # argument text alone
    st.tuples(st.none(), st.just("f"), BLANK),  # a name alone (OpenAI's header), or blank
    st.tuples(st.none(), st.none(), BLANK),
    st.tuples(st.sampled_from(["c2", "c3"]), st.just("f"), st.just("")),  # a header
    st.tuples(st.none(), st.just("g"), st.just("")),  # another tool's header
)


@settings(
    max_examples=int(400 * SCALE), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.lists(CHUNK, min_size=1, max_size=5),
    st.data(),
    st.sampled_from(["tool_calls", "length"]),
    st.sampled_from([0, None]),
)
def test_chunks_in_any_split_give_the_same_calls_F3_F4_F8_F15(
    script: list[tuple[str | None, str | None, str]],
    data: st.DataObject,
    finish: str,
    index: int | None,
) -> None:
    """Review 9 F4, F5 and review 13 #9 together: OpenAI-style chunks at one index
    (or without index, F4), the first with the call's id and name, then argument
    text with the name on every chunk or alone, blank text, names alone and headers
    with ids; each chunk's text cut into deltas anywhere (each keeping the chunk's id
    and name): the same calls, names, arguments, raw arguments, statuses and repairs
    as the chunks whole, and all the text in them."""
    keys = itertools.count()
    script = [
        (id, name, re.sub("#", lambda _: f"#{next(keys)}", text)) for id, name, text in script
    ]
    whole: list[Fragment] = [(index, "c1", "f", "")]
    whole += [(index, id, name, text) for id, name, text in script]
    split: list[Fragment] = [(index, "c1", "f", "")]
    for id, name, text in script:
        pieces = data.draw(cut(text)) if text else [text]
        split += [(index, id, name, piece) for piece in pieces]
    assume(not read_snapshots(assemble(whole)) and not read_snapshots(assemble(split)))
    reference = calls_of(whole, finish)
    calls = calls_of(split, finish)
    assert summary(calls) == summary(reference), split
    assert [(c.arguments, c.errors) for c in calls] == [(c.arguments, c.errors) for c in reference]
    assert "".join(c.raw_arguments for c in reference) == "".join(t for *_, t in whole)


def openai_chunks(fragments: list[Fragment], finish: str) -> bytes:
    """The fragments as OpenAI chat chunks, each at its index (a field for each part
    given)."""
    messages = []
    for index, id, name, text in fragments:
        call: dict[str, Any] = {"index": index, "function": {"arguments": text}}
        if id is not None:
            call["id"] = id
            call["type"] = "function"
        if name is not None:
            call["function"]["name"] = name
        messages.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    messages.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return sse(messages)


@settings(
    max_examples=int(150 * SCALE), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.lists(CHUNK, min_size=1, max_size=5),
    st.data(),
    st.sampled_from(["tool_calls", "length"]),
)
def test_openai_chunks_in_any_split_give_the_same_calls_F3_F8_F15(
    script: list[tuple[str | None, str | None, str]],
    data: st.DataObject,
    finish: str,
) -> None:
    """The property above over the wire: OpenAI chat chunks, each chunk's text cut
    into chunks of its own (keeping its id and name), read by the decoder with its
    fast paths: the same calls as the chunks whole, and as the assembler gives."""
    keys = itertools.count()
    script = [
        (id, name, re.sub("#", lambda _: f"#{next(keys)}", text)) for id, name, text in script
    ]
    whole: list[Fragment] = [(0, "c1", "f", "")]
    whole += [(0, id, name, text) for id, name, text in script]
    split: list[Fragment] = [(0, "c1", "f", "")]
    for id, name, text in script:
        pieces = data.draw(cut(text)) if text else [text]
        split += [(0, id, name, piece) for piece in pieces]
    assume(not read_snapshots(assemble(whole)) and not read_snapshots(assemble(split)))
    reference = parse_stream(openai_chunks(whole, finish), "openai-chat")
    result = parse_stream(openai_chunks(split, finish), "openai-chat")
    assert result.to_dict() == reference.to_dict(), split
    assert summary(reference.calls) == summary(calls_of(whole, finish))


# -- review of wt-split (2026-12-05) ------------------------------------------------------


def test_a_string_after_a_python_style_value_is_read_as_a_json_string_F12_F15() -> None:
    """After a value with Python's single quotes in an earlier delta, the scanner keeps
    its last string's quote kind; the cuts read the next string as a JSON one: the
    same calls as the finer split, and no text lost to a snapshot reading inside one
    delta (F7)."""
    first = [HEADER, (0, None, "f", "{'p':1}")]
    one = summary(calls_of([*first, (0, None, "f", '"q"{"b":2}')]))
    two = summary(calls_of([*first, (0, None, "f", '"q"'), (0, None, "f", '{"b":2}')]))
    assert one == two
    first = [HEADER, (0, None, "f", "{'a':1}")]
    sent = "\"'{'a':1}\"'"
    calls = calls_of([*first, (0, None, "f", sent)])
    assert "".join(c.raw_arguments for c in calls) == "{'a':1}" + sent
    assert all("cumulative_snapshots" not in c.repairs for c in calls)
    assert summary(calls) == summary(calls_of([*first, *((0, None, "f", ch) for ch in sent)]))


def test_a_call_renamed_by_every_delta_takes_linear_time_F8_F22() -> None:
    """Each other name is recorded once as a conflict (F8), in a set: searching the
    call's errors for it cost quadratic time (40,000 renaming deltas: 8 s)."""
    asm = CallAssembler()
    asm.tool(0, "c1", "f", '{"a": "')
    start = time.perf_counter()
    for i in range(40_000):
        asm.tool(0, None, f"g{i}", "x")
    asm.end()
    assert time.perf_counter() - start < 5.0
    (call,) = StreamResult.collect(asm.drain()).calls
    assert len([e for e in call.errors if "conflicting names" in e]) == 40_000


# -- review of wt-split's two commits (A, B): split-dependences they brought -------------


def test_blank_text_that_first_names_a_call_is_held_as_in_two_deltas_F4_F15() -> None:
    """A call with an id and text but no name, then blank text that names it, then a
    value with the name. In two deltas the second blank came after the name the first
    gave and was held for the next call (review 9 F4); in one delta it was the first
    call's text: the same hold for both, and the name waits with the text (the call
    the value opens takes both, as with the name and the value in one delta)."""
    for blank in (" ", "\n", "\u2028"):
        results = []
        for pieces in ([blank * 2], [blank, blank], [blank * 2 + '{"b":2}']):
            fragments: list[Fragment] = [(0, "c1", None, '{"a":1}')]
            fragments += [(0, None, "f", p) for p in pieces]
            if len(pieces[-1]) <= 2:
                fragments.append((0, None, "f", '{"b":2}'))
            results.append(summary(calls_of(fragments)))
        assert results[0] == results[1] == results[2], blank
        first, second = results[0]
        assert first[:4] == ("c1", "", '{"a":1}', "invalid")  # never named
        assert second[:3] == (None, "f", blank * 2 + '{"b":2}')
    # blank text that no value follows: the call's own, with the name
    for pieces in (["  "], [" ", " "]):
        tails: list[list[Fragment]] = [[], [(0, None, "f", "x")], [(0, None, None, "")]]
        for tail in tails:
            fragments = [(0, "c1", None, '{"a":1}'), *((0, None, "f", p) for p in pieces)]
            (call,) = calls_of(fragments + tail)
            assert (call.id, call.name, call.raw_arguments) == (
                "c1",
                "f",
                '{"a":1}  ' + "".join(t for *_, t in tail),
            )


def test_named_text_after_object_arguments_is_cut_as_finer_deltas_would_be_F10_F15() -> None:
    """Arguments that came as an object (F10), then named text. The text was never cut
    after an object, yet its first delta made the call one of text, which later deltas
    were cut against: white space ending ``{} \\n`` was held for the next call in
    ``{`` + ``} \\n`` but not in one delta (B), and ``{}{"z":0}`` was one call in one
    delta, two in finer ones (main too). Cut as after the object's JSON: the first
    piece is more of the object's call, as alone; the same calls in every split."""
    header: Fragment = (0, "c1", "f", {"o": 1})
    for text, tail, expected in (
        ("{} \n", '{"z":0}', [('{"o":1}{}', "invalid"), (' \n{"z":0}', "complete")]),
        ('{}{"z":0}', "", [('{"o":1}{}', "invalid"), ('{"z":0}', "complete")]),
        (' {"z":0}\t', "", [('{"o":1} {"z":0}\t', "invalid")]),
    ):
        results = set()
        for pieces in every_split(text):
            fragments = [header, *((0, None, "f", p) for p in pieces)]
            if tail:
                fragments.append((0, None, "f", tail))
            results.add(tuple((c[2], c[3]) for c in summary(calls_of(fragments))))
        assert results == {tuple(expected)}, text
    # text that repeats the object's JSON is still a snapshot (F7), never cut
    (call,) = calls_of([header, (0, None, "f", '{"o":1}{"z":0}')])
    assert (call.raw_arguments, call.repairs) == ('{"o":1}{"z":0}', ("cumulative_snapshots",))


# -- the property over scripts of named and unnamed deltas, ids and objects -------------

OBJECT, ARRAY = "\x00object", "\x00array"  # (made numbered objects, F10: never cut)
BLANKS = [" ", "\n", "\t", "\u2028", "\u00a0", " \n", "  ", "\u2028\u2028"]
PIECE = st.one_of(
    st.sampled_from(['{"#":1}', '["#"]', '{"#":"}{"}', "{'#':'}{'}", '{"#":[1,{}]}']),
    st.sampled_from(BLANKS),
    st.sampled_from([",", "x", "}{", "]", '"s"', "'"]),
    st.sampled_from(["{", "}", "[", '"', ":1", '{"q":']),
)
TEXT = st.lists(PIECE, min_size=1, max_size=4).map("".join)
ARGUMENTS = st.one_of(
    TEXT,
    TEXT.flatmap(lambda t: st.integers(0, len(t) - 1).map(lambda start: t[start:])),
    st.sampled_from(BLANKS),
    st.sampled_from(["", OBJECT, ARRAY]),
)
DELTA = st.tuples(
    st.one_of(st.none(), st.none(), st.none(), st.sampled_from(["c1", "c2", "c3"])),
    st.sampled_from([None, "f", "f", "g"]),
    ARGUMENTS,
)


def numbered(arguments: str, keys: Any) -> Any:
    """The script's arguments with each ``#`` a key of its own: no delta repeats its
    call so far, which only a delta's start could make a snapshot (F7)."""
    if arguments == OBJECT:
        return {f"#{next(keys)}": 1}
    if arguments == ARRAY:
        return [f"#{next(keys)}"]
    return re.sub("#", lambda _: f"#{next(keys)}", arguments)


def outcome(fragments: list[Fragment], finish: str) -> tuple[list[tuple[Any, ...]], bool]:
    """Each call's id, name, raw arguments, status, repairs, arguments, errors and
    the text streamed for it; and whether the stream may hold snapshots (F7, F28)."""
    asm = assemble(fragments, finish)
    events = asm.drain()
    streamed: dict[int, str] = {}
    for e in events:
        if isinstance(e, ArgumentsDelta):
            streamed[e.slot] = streamed.get(e.slot, "") + e.text
    calls = StreamResult.collect(events).calls
    return [
        (*row, c.arguments, c.errors, streamed.get(c.slot, ""))
        for row, c in zip(summary(calls), calls, strict=True)
    ], read_snapshots(asm)


@settings(
    max_examples=int(600 * SCALE), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(
    st.sampled_from([0, None]),
    st.sampled_from(["f", None]),
    st.sampled_from(["", OBJECT, '{"#":0}', '["#", {}]']),
    st.lists(DELTA, min_size=1, max_size=6),
    st.data(),
    st.sampled_from(["tool_calls", "length"]),
)
def test_any_script_in_any_split_gives_the_same_calls_F3_F4_F8_F10_F15(
    index: int | None,
    first_name: str | None,
    first: str,
    script: list[tuple[str | None, str | None, str]],
    data: st.DataObject,
    finish: str,
) -> None:
    """A first call (id ``c1``, named or not, with text, an object or nothing), then
    deltas with or without an id (known or new), a name (the call's or another) or
    none, and text (values, ``}{`` joins, separators, pieces of values, blanks of
    JSON and others: U+2028, U+00A0), objects (F10) or nothing. Each text delta cut
    anywhere, each piece with the delta's index, id and name: the same calls, ids,
    names, raw arguments, statuses, repairs, arguments, errors and streamed text
    (review 14b R2: a delta with a new id cut inside or just after the blank text it
    starts with, too)."""
    keys = itertools.count()
    whole: list[Fragment] = [(index, "c1", first_name, numbered(first, keys))]
    whole += [(index, id, name, numbered(text, keys)) for id, name, text in script]
    split: list[Fragment] = []
    for fragment in whole:
        text = fragment[3]
        if not isinstance(text, str) or len(text) < 2:
            split.append(fragment)
        else:
            points = data.draw(st.sets(st.integers(1, len(text) - 1)))
            edges = [0, *sorted(points), len(text)]
            split += [(*fragment[:3], text[a:b]) for a, b in itertools.pairwise(edges) if b > a]
    reference, snapshots = outcome(whole, finish)
    calls, split_snapshots = outcome(split, finish)
    assume(not (snapshots or split_snapshots))
    assert calls == reference, split


def test_a_call_opened_inside_a_named_delta_is_never_read_as_snapshots_F7() -> None:
    """Review 14b R1: ``{"a":1}{`` cut after the first value opens a call of ``{``; a
    next delta ``{}`` starts with that text, but no snapshot stream starts a call
    inside a fragment: it is more of that call, as ``{"a":1}{{}`` in one delta is.
    (Where ``{`` comes as a delta of its own, ``{`` then ``{}`` is the old ambiguity
    of F7, which the deltas alone cannot settle.)"""
    expected = [("c1", "f", '{"a":1}', "complete", ()), (None, "f", "{{}", "invalid", ())]
    for pieces in (['{"a":1}{{}'], ['{"a":1}{', "{}"], ['{"a":1}{', "{", "}"]):
        fragments = [HEADER, *((0, None, "f", p) for p in pieces)]
        assert summary(calls_of(fragments)) == expected, pieces


# -- review 14b R2: a new id that comes with blank text only ------------------------------

# a call without an id (its first fragment gave none) whose value is whole
NO_ID: Fragment = (0, None, "g", '{"a":1}')


def test_a_new_id_s_blank_text_cut_from_its_value_opens_that_id_s_call_F3_F15() -> None:
    """Review 14b R2: after a call without an id whose value is whole, one delta with a
    new id, `` {"b":2}``, opens that id's call (F3); cut after (or inside) its blank
    text, the blank piece was adopted as a late id by the call without one and the
    value became more of it. The blank text waits for the text after it: the same
    calls in every cut, with or without an index (F4), and with the name or without
    (a call that never got one)."""
    for index, name in itertools.product((0, None), ("g", None)):
        first: Fragment = (index, None, "g", '{"a":1}')
        expected = [
            (None, "g", '{"a":1}', "complete", ()),
            ("c2", name or "", ' \n {"b":2}', "complete" if name else "invalid", ()),
        ]
        for pieces in every_split(' \n {"b":2}'):
            fragments = [first, *((index, "c2", name, p) for p in pieces)]
            assert summary(calls_of(fragments)) == expected, (index, name, pieces)


def test_a_new_id_alone_then_its_value_is_that_id_s_call_F3_F15() -> None:
    """The same with the new id's first delta empty (a header with the id, no text, or
    no text at all), then its value with the id: as the id and the value in one
    delta, the new id's call, never more of the call before ({..}{..})."""
    for head in ("", None, " "):
        for name in ("g", None):
            fragments = [NO_ID, (0, "c2", name, head), (0, "c2", name, '{"b":2}')]
            calls = calls_of(fragments)
            assert [(c.id, c.raw_arguments) for c in calls] == [
                (None, '{"a":1}'),
                ("c2", (head or "") + '{"b":2}'),
            ], (head, name)


def test_a_new_id_s_blank_text_that_nothing_opens_after_is_a_late_id_F15() -> None:
    """What the wait must not change: where no value with the new id follows its blank
    text, the call without an id adopts the id (a late id, as servers that send the
    id after the arguments do) and takes the text, in one delta or cut, whatever
    comes next: the end (finish ``tool_calls`` or ``length``), text with the id that
    opens no value, another id, a name, text with neither, the call's close."""
    late = [("c2", "g", '{"a":1}  ', "complete", ())]
    cases: list[tuple[list[Fragment], list[tuple[Any, ...]]]] = [
        ([], late),
        ([(0, "c2", None, "x")], [("c2", "g", '{"a":1}  x', "repaired", ("surrounding_text",))]),
        ([(0, "c3", None, '{"b":2}')], [*late, ("c3", "", '{"b":2}', "invalid", ())]),
        ([(0, None, "g", '{"b":2}')], [*late, (None, "g", '{"b":2}', "complete", ())]),
        ([(0, None, "h", "")], [*late, (None, "h", "", "complete", ())]),  # (F2)
        ([(0, None, None, '{"b":2}')], [("c2", "g", '{"a":1}  {"b":2}', "invalid", ())]),
    ]
    for tail, expected in cases:
        for pieces in (["  "], [" ", " "]):
            fragments = [NO_ID, *((0, "c2", None, p) for p in pieces), *tail]
            assert summary(calls_of(fragments)) == expected, fragments
    for pieces in (["  "], [" ", " "]):
        asm = CallAssembler()
        for fragment in [NO_ID, *((0, "c2", None, p) for p in pieces)]:
            asm.tool(*fragment)
        asm.close_call(index=0)
        asm.end()
        assert summary(StreamResult.collect(asm.drain()).calls) == late
        (call,) = calls_of([NO_ID, *((0, "c2", None, p) for p in pieces)], "length")
        assert (call.id, call.raw_arguments, call.status) == ("c2", '{"a":1}  ', "truncated")
    # a late id with no text, after the value or before its end
    for fragments in (
        [NO_ID, (0, "late", None, "")],
        [NO_ID, (0, "late", None, None)],
        [(0, None, "g", '{"a":'), (0, "late", None, ""), (0, None, None, "1}")],
    ):
        assert summary(calls_of(fragments)) == [("late", "g", '{"a":1}', "complete", ())]


def test_a_new_id_s_blank_text_over_the_wire_F3_F15() -> None:
    """R2 as OpenAI chunks, read by the decoder with its fast paths: the value with
    the new id cut from its blank text is that id's call; argument text alone after
    the blank text (which the decoder appends without routing where it may) comes
    after it, in the call that adopted the id; bytes that are not UTF-8 in the value
    are repaired in the new call (F29)."""
    header = {"function": {"name": "g", "arguments": ""}}
    new = [{"id": "c2", "function": {"arguments": p}} for p in (" ", '{"b":2}')]
    calls = read_three_ways(index_calls([header, *map(args, '{"a":1}'), *new]))
    assert [(c.id, c.raw_arguments, c.status) for c in calls] == [
        (None, '{"a":1}', "complete"),
        ("c2", ' {"b":2}', "invalid"),  # (no name)
    ]
    tail = [new[0], args("x"), args("y")]
    (call,) = read_three_ways(index_calls([header, *map(args, '{"a":1}'), *tail]))
    assert (call.id, call.raw_arguments, call.repairs) == (
        "c2",
        '{"a":1} xy',
        ("surrounding_text",),
    )
    new = [{"id": "c2", "function": {"name": "g", "arguments": p}} for p in (" ", '{"b":"XX"}')]
    wire = sse(index_calls([header, args('{"a":1}'), *new])).replace(b"XX", b"\xff")
    calls = parse_stream(wire, "openai-chat").calls
    assert [(c.id, c.raw_arguments, c.status, c.repairs) for c in calls] == [
        (None, '{"a":1}', "complete", ()),
        ("c2", ' {"b":"\ufffd"}', "repaired", ("invalid_utf8",)),
    ]


def test_text_at_another_index_settles_a_wait_however_it_is_cut_F15() -> None:
    """Review 15 #1: while a new id's blank text waits, text at another call's index
    settles the wait as it came, whether that text is one delta (which the plain
    append refuses: it repeats the call's start, a possible snapshot) or cut into
    pieces the plain append would take: the same calls either way, assembled and over
    the wire."""
    head: list[Fragment] = [(0, None, "f", '{"a":1}'), (1, "c3", "g", "["), (1, None, None, "1,")]
    tail: list[Fragment] = [(0, "c2", None, '{"b":2}')]
    readings = []
    for pieces in (["[2]]"], ["[", "2]]"]):
        middle: list[Fragment] = [(0, "c2", None, " "), *((1, None, None, p) for p in pieces)]
        fragments = head + middle + tail
        calls = summary(calls_of(fragments))
        readings.append(calls)
        wire = openai_chunks(fragments, "tool_calls")
        assert summary(parse_stream(wire, "openai-chat").calls) == calls
    assert readings[0] == readings[1], readings
    assert [call[:3] for call in readings[0]] == [
        ("c2", "f", '{"a":1} {"b":2}'),
        ("c3", "g", "[1,[2]]"),
    ]


def test_a_new_id_s_many_blank_pieces_take_linear_time_F22() -> None:
    """64,000 blank pieces with the new id before its value (each waits with the
    ones before it, joined once): well under a second, bounded generously."""
    blank = " " * 31 + "\n"
    fragments: list[Fragment] = [NO_ID, *[(0, "c2", "g", blank)] * 64_000]
    fragments.append((0, "c2", "g", '{"b":2}'))
    started = time.perf_counter()
    calls = calls_of(fragments)
    assert time.perf_counter() - started < 5.0
    assert [(c.id, c.raw_arguments, c.status) for c in calls] == [
        (None, '{"a":1}', "complete"),
        ("c2", blank * 64_000 + '{"b":2}', "complete"),
    ]
