"""Text fed whole takes a faster path (``jsonend.container_end``, ``Markers.search``);
it must give exactly what the streaming path gives: the same calls, statuses, repairs
and text however the text is split (F15), and never raise or hang (F22)."""

from __future__ import annotations

import json
import os
import random
import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tf_harness import (
    TOOLS,
    check_split_invariance,
    feed_steps,
    parse_chunks,
    random_chunks,
    reading,
)

from toolwire.assemble import JsonScanner
from toolwire.events import ToolCall
from toolwire.textformats.jsonend import container_end
from toolwire.textformats.scanner import Markers

SECONDS = float(os.environ.get("TOOLWIRE_FUZZ_SECONDS", "1.0"))

# JSON-ish text dense in what decides a container's end: quotes, runs of backslashes
# before quotes, brackets of both kinds
_PIECES = ['"', "\\", "\\\\", '\\"', "{", "}", "[", "]", "a", " ", ":", ",", "\n", "é"]
json_ish = st.lists(st.sampled_from(_PIECES), max_size=40).map("".join)


@settings(max_examples=400, deadline=None)
@given(body=json_ish, opener=st.sampled_from(["{", "["]), lead=json_ish)
def test_container_end_is_where_the_streaming_scanner_closes_F22(
    body: str, opener: str, lead: str
) -> None:
    text = lead + opener + body
    pos = len(lead)
    expected = JsonScanner().scan_to_close(text, pos)
    assert container_end(text, pos) == expected
    # bounded: a close at or past ``stop`` is not seen
    for stop in range(pos, len(text) + 1):
        got = container_end(text, pos, stop)
        assert got == (expected if 0 <= expected <= stop else -1)


def test_container_end_needs_a_container_at_pos() -> None:
    assert container_end('"x"', 0) == -1
    assert container_end("", 0) == -1
    assert container_end('{"a": "\\\\"}', 0) == len('{"a": "\\\\"}')  # an escaped backslash
    assert container_end('{"a": "\\"}', 0) == -1  # an escaped quote: the string is open


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["<", "<t", "<tool", "<tool_call>", "{", "`", "```", "x", "\n"]),
        max_size=30,
    ).map("".join)
)
def test_markers_search_finds_what_the_regex_finds(text: str) -> None:
    markers = Markers("<tool_call>", "</tool_call>", "<", "{", "```")
    for pos in range(len(text) + 1):
        b = markers.regex.search(text, pos)
        for window in (None, 1, 5, 11, 12, 20):
            if window is None:
                a = markers.search(text, pos)
            else:  # a marker across the window's end too
                a = markers.search_near(text, pos, window)
            assert (a and (a.span(), a.group())) == (b and (b.span(), b.group()))


def test_markers_search_skips_long_prose_in_linear_time_F22() -> None:
    markers = Markers("<tool_call>", "```")
    prose = "word " * 400_000  # 2 MB without a marker's first character
    t0 = time.perf_counter()
    for _ in range(50):
        assert markers.search(prose + "<tool_call>", 0) is not None
    assert time.perf_counter() - t0 < 2.0  # memchr speed: about 50 x 2 MB


def _call(family: str, name: str, args: dict[str, object]) -> str:
    body = json.dumps({"name": name, "arguments": args})
    if family == "hermes":
        return f"<tool_call>\n{body}\n</tool_call>"
    if family == "llama3_json":
        return "<|python_tag|>" + json.dumps({"name": name, "parameters": args}) + "<|eom_id|>"
    sep, begin, end = (
        "<｜tool▁sep｜>",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>",
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    )
    return f"{begin}function{sep}{name}\n```json\n{json.dumps(args)}\n```{end}"


_VALUES = ['a"b', "c\\", "\\\\", '\\"', "}{", "][", "é世", "</tool_call>", "\n", "x" * 300]


@pytest.mark.parametrize("family", ["hermes", "deepseek_v3", "llama3_json"])
def test_whole_text_and_any_split_agree_on_generated_calls_F15(family: str) -> None:
    """Calls whose strings end in backslashes, hold quotes, brackets and markup, some cut
    off, some naming no declared tool, in prose: whole and split readings agree."""
    rng = random.Random(family)
    deadline = time.monotonic() + SECONDS
    runs = 0
    while time.monotonic() < deadline or runs < 5:
        parts = []
        for _ in range(rng.randint(1, 4)):
            args = {"path": rng.choice(_VALUES), "content": "".join(rng.choices(_VALUES, k=3))}
            name = rng.choice(["write_file", "search", "delete_everything"])
            parts.append(
                rng.choice(["", "Some prose. ", "a < b { c ` "]) + _call(family, name, args)
            )
        text = "\n".join(parts)
        if rng.random() < 0.3:
            text = text[: rng.randint(1, len(text))]  # cut off anywhere (F1)
        check_split_invariance(family, text, TOOLS, f"whole-{family}-{runs}", runs=3)
        runs += 1


def test_whole_text_reads_strings_with_escaped_quotes_and_backslashes() -> None:
    from toolwire.parser import parse_stream

    args = {"path": 'a\\"b\\', "content": 'say "hi" \\\\ }]'}
    text = "Before.\n" + _call("hermes", "write_file", args) + "\nAfter."
    result = parse_stream(text, "text:hermes", TOOLS)
    assert [(c.name, c.arguments, c.status) for c in result.calls] == [
        ("write_file", args, "complete")
    ]
    assert re.sub(r"\s+", " ", result.text).strip() == "Before. After."


# Calls near the shape the fast paths read at once (``jsoncalls.whole_envelope``,
# ``DeepSeekV3Extractor._whole``): each either is that shape or goes the streaming
# way, and the answer is the same in one feed and in any split.
_NEAR_HERMES = [
    '{"name": "search", "arguments": {"query": "a"}}',
    '{"name": "search", "parameters": {"query": "a"}}',
    '{"name": "se\\u0061rch", "arguments": {"query": "a"}}',
    '{"name": "search", "arguments": {"query": "a"}\n\t }',
    '{"name": "search", "arguments": {"query": "a"}\u2003\u00a0}',  # not JSON whitespace
    '{"name": "search", "arguments": {"query": "a"}}' + " " * 300,
    " " * 300 + '{"name": "search", "arguments": {"query": "a"}}',
    '{"name": "search", "arguments": {"query": "a"}, "id": "call_1"}',
    '{"name": "search", "arguments": {"query": "a"}, "arguments": {"query": "b"}}',
    '{"name": "search", "arguments": {"query": "a"}}{"name": "ping", "arguments": {}}',
    '{"name": "search", "arguments": {"query": "a"}}, {"name": "ping", "arguments": {}}',
    '[{"name": "search", "arguments": {"query": "a"}}]',
    '{"name": "search", "arguments": {\'query\': \'a\'}}',
    '{"name": "search", "arguments": {"query": "a", "query": "b"}}',
    '{"name": "search", "arguments": {"query": "a", "limit": 123456789012345678901234.5}}',
    '{"name": "search", "arguments": {"query": "</tool_call>"}}',
    '{"name": "search", "arguments": [1, 2]}',
    '{"name": "search", "arguments": {"query": "a"}',  # the object never closes
    '{"name": "nowhere", "arguments": {"query": "a"}}',
]
_DS = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
_DS_END = "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
_NEAR_DEEPSEEK = [
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"}\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"}<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜> search \n \n```json \n{"query": "a"}\u2003\n```\u2003'
    "<｜tool▁call▁end｜>",
    'function<｜tool▁sep｜>search\n```jsonx\n{"query": "a"}\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>[search]\n```json\n{"query": "a"}\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"}\n```\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"} and more\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "a", "query": "b"}\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "<｜tool▁call▁end｜>"}\n```'
    "<｜tool▁call▁end｜>",
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"}\n```<｜tool▁calls▁end｜>',
    'function<｜tool▁sep｜>search\n```json\n{"query": "a"\n```<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>\n```json\n{"query": "a"}\n```<｜tool▁call▁end｜>',
    'search<｜tool▁sep｜>{"query": "a"}<｜tool▁call▁end｜>',
    'function<｜tool▁sep｜>nowhere\n```json\n{"query": "a"}\n```<｜tool▁call▁end｜>',
]
_NEAR = [
    *(("hermes", f"<tool_call>\n{body}\n</tool_call>") for body in _NEAR_HERMES),
    *(("hermes", f"<tool_call>{body}" + " " * 300 + "</tool_call>") for body in _NEAR_HERMES[:2]),
    *(("deepseek_v3", f"{_DS}{body}<｜tool▁calls▁end｜>") for body in _NEAR_DEEPSEEK),
]


def _every_field(family: str, chunks: list[bytes]) -> tuple[list[ToolCall], str]:
    result = parse_chunks(family, chunks, TOOLS)
    return result.calls, result.text  # the calls' raw arguments too


@pytest.mark.parametrize(("family", "call"), _NEAR)
def test_calls_near_the_whole_shape_read_the_same_in_any_split_F15(family: str, call: str) -> None:
    ping = _call(family, "ping", {})
    rng = random.Random(call)
    for text in (f"Before. {call}\n{ping} after.", f"{call}{call}"):
        data = text.encode()
        whole = _every_field(family, [data])
        assert _every_field(family, [data[i : i + 1] for i in range(len(data))]) == whole
        for _ in range(10):
            assert _every_field(family, random_chunks(data, rng)) == whole


_SPACES = st.sampled_from([" ", "\n", "\t", "\r", "\u2003"])
_SPACE_PIECES = st.lists(_SPACES, max_size=3).map("".join)
_NAME_PIECES = ["a", "é", "\\", '\\"', "\\u0041", '"', "\n", "\x01", "\ud800", "{"]


@settings(max_examples=400, deadline=None)
@given(
    spaces=st.lists(_SPACE_PIECES, min_size=8, max_size=8),
    name=st.lists(st.sampled_from(_NAME_PIECES), max_size=6).map("".join),
    key=st.sampled_from(['"arguments"', '"parameters"', '"args"']),
    opener=st.sampled_from(["{", "[", '"', "1"]),
)
def test_the_whole_header_reads_what_the_streaming_header_reads(
    spaces: list[str], name: str, key: str, opener: str
) -> None:
    """Where ``whole_envelope``'s header matches, ``envelope``'s matches after the same
    whitespace, ends at the same place and decodes to the same name."""
    from toolwire.textformats.jsoncalls import _HEADER, _SPACED_HEADER, _decode_name

    a, b, c, d, e, f, g, h = spaces
    text = f'{a}{{{b}"name"{c}:{d}"{name}"{e},{f}{key}{g}:{h}{opener}'
    fast = _SPACED_HEADER.match(text)
    if fast is not None:
        start = len(text) - len(text.lstrip(" \t\r\n"))
        slow = _HEADER.match(text, start)
        assert slow is not None and slow.end() == fast.end()
        assert _decode_name(slow.group(1)) == fast.group(1)


@settings(max_examples=400, deadline=None)
@given(
    lead=st.sampled_from(["", " ", "\n", "\u2003"]),
    name=st.lists(st.sampled_from([*_NAME_PIECES, "a" * 250, "<|eom_id|>"]), max_size=4).map(
        "".join
    ),
    key=st.sampled_from(['"arguments"', '"parameters"', '"args"', ' "parameters"']),
    after=st.sampled_from(["{", "[", " {", '"', "1", ""]),
)
def test_the_header_as_models_write_it_is_read_as_the_pattern_reads_it(
    lead: str, name: str, key: str, after: str
) -> None:
    """``_whole_envelope_header`` reads the usual header without the regex: the same
    name and end as ``_SPACED_HEADER``, or None where it matches nothing, from any
    position."""
    from toolwire.textformats.jsoncalls import _SPACED_HEADER, _whole_envelope_header

    text = f'x{lead}{{"name": "{name}", {key}: {after}'
    m = _SPACED_HEADER.match(text, 1)
    assert _whole_envelope_header(text, 1) == (m and (m.group(1), m.end()))


# ``TextScanner._whole_text`` (text fed whole, read without the grammar's requests) must
# report exactly what the requests report: the same events, in the same order, text
# pieces included. Pieces near the shapes it reads, in any order, cut off anywhere.
_ARGS = ['{"query": "a"}', '{"query": "a</tool_call>b"}', "{'query': 'a'}", '{"query": "a"']
_DS_CALL = "<｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{}\n```<｜tool▁call▁end｜>"
_WHOLE_PIECES = {
    "hermes": [
        *(f'<tool_call>\n{{"name": "search", "arguments": {a}}}\n</tool_call>' for a in _ARGS),
        '<tool_call>{"name": "search", "arguments": {"query": "b"}}</tool_call>',
        '<tool_call>{"name": "nowhere", "arguments": {}}</tool_call>',
        '<tool_call>\n{"name": "ping", "arguments": {}, "id": "c1"}\n</tool_call>',
        '<tool_call>{"name": "ping", "arguments": {}}',
        '<tool_call>[{"name": "ping", "arguments": {}}]</tool_call>',
        "<tool_call>",
        "</tool_call>",
    ],
    "deepseek_v3": [
        *(f"<｜tool▁calls▁begin｜>{_DS_CALL.format(a)}<｜tool▁calls▁end｜>" for a in _ARGS),
        f"<｜tool▁calls▁begin｜>\n{_DS_CALL.format('{}')}\n{_DS_CALL.format('[]')}\n"
        "<｜tool▁calls▁end｜>",
        f"<｜tool▁calls▁begin｜>{_DS_CALL.format('{}')} x <｜tool▁calls▁end｜>",
        _DS_CALL.format('{"query": "b"}'),
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        'search<｜tool▁sep｜>{"query": "a"}',
        "<｜tool▁call▁end｜>",
        "<｜tool▁calls▁end｜>",
        "<｜tool▁sep｜>",
    ],
    "llama3_json": [
        *(f'<|python_tag|>{{"name": "search", "parameters": {a}}}' for a in _ARGS),
        '<|python_tag|>{"name": "search", "parameters": {"query": "b"}}<|eom_id|>',
        '{"name": "ping", "parameters": {}}',
        "; ",
        "<|python_tag|>",
        "<|eom_id|>",
        "<|eot_id|>",
    ],
}
_AROUND = [
    "Some prose, long enough for the whole-text reading to take the text after it.",
    "Some prose.",
    "a < b { c ` ",
    "<think>x</think>",
    "",
]
_SPACING = ["", "", "\n", " \n\t", " " * 70, " " * 300, "\u2003"]


def _events(family: str, text: str, split: int, cut: int, *, fast: bool) -> list[object]:
    """The events for ``text[:cut]`` fed in two parts at ``split``, with the whole-text
    reading or without it."""
    return _fed(family, [text[:split], text[split:cut], None], fast=fast)


def _fed(family: str, steps: list[str | None], *, fast: bool) -> list[object]:
    """The events for ``steps`` (text fed, or None: ``close``), with the whole-text
    reading or without it."""
    from toolwire.assemble import CallAssembler
    from toolwire.spec import ToolSpec
    from toolwire.textformats import EXTRACTORS, make_extractor

    tools = [ToolSpec.from_dict(t) for t in TOOLS]
    sink = CallAssembler(tools)
    extractor = make_extractor(family, sink, tools)
    with reading(EXTRACTORS[family], whole=fast):
        feed_steps(extractor, steps)
    sink.end()
    return sink.events


@settings(max_examples=300, deadline=None)
@given(data=st.data(), family=st.sampled_from(sorted(_WHOLE_PIECES)))
def test_text_fed_whole_reports_what_the_requests_report_F15(
    data: st.DataObject, family: str
) -> None:
    units = st.tuples(
        st.sampled_from(_AROUND), st.sampled_from(_WHOLE_PIECES[family]), st.sampled_from(_SPACING)
    ).map("".join)
    text = "".join(data.draw(st.lists(units, min_size=1, max_size=6)))
    # mostly whole (the path under test), sometimes cut off or fed in two parts
    cut = data.draw(st.sampled_from([len(text), len(text), data.draw(st.integers(0, len(text)))]))
    # a split inside a marker, or right after a call's object, where the whole-text
    # reading must leave the decision to the requests
    near = [i + 3 for i, c in enumerate(text[:cut]) if c == "<"]
    near += [i + 1 for i, c in enumerate(text[:cut]) if c == "}"]
    split = data.draw(st.sampled_from([0, 0, data.draw(st.integers(0, cut)), *near[:20]]))
    split = min(split, cut)

    assert _events(family, text, split, cut, fast=True) == _events(
        family, text, split, cut, fast=False
    )


def test_text_fed_whole_is_read_without_the_requests() -> None:
    """The bench's shape (prose, then a call, four times) goes the whole-text way, so
    the test above compares the two paths on it. (Llama 3 JSON's is read in one pass
    before, ``test_usual_text.py``; with a tail that pass declines, it goes this way.)"""
    from toolwire.assemble import CallAssembler
    from toolwire.spec import ToolSpec
    from toolwire.textformats import make_extractor

    for family in _WHOLE_PIECES:
        text = "".join(
            f"Some prose, long enough to read whole at once.\n{_call(family, 'ping', {})}\n"
            for _ in range(4)
        )
        if family == "llama3_json":
            text += "<|python_"
        tools = [ToolSpec.from_dict(t) for t in TOOLS]
        sink = CallAssembler(tools)
        extractor = make_extractor(family, sink, tools)
        calls: list[object] = []
        original = extractor.whole_calls

        def spy(marker: str, original: object = original, calls: list[object] = calls) -> object:
            found = original(marker)  # type: ignore[operator]
            calls.append(found)
            return found

        extractor.whole_calls = spy  # type: ignore[method-assign]
        extractor.feed(text)
        extractor.close()
        assert len(calls) == 4 and all(c is not None for c in calls), family


_PROSE = "Some prose, long enough for the whole-text reading to take the text after it."
_SPLIT_CASES = [
    ("hermes", '<tool_call>{"name": "ping", "arguments": {}}</tool_call>', "\n"),
    ("deepseek_v3", f"<｜tool▁calls▁begin｜>{_DS_CALL.format('{}')}<｜tool▁calls▁end｜>", "\n"),
    ("llama3_json", '<|python_tag|>{"name": "ping", "parameters": {}}', " "),
    ("llama3_json", '<|python_tag|>{"name": "ping", "parameters": {}}', "\u2003 "),
]


@pytest.mark.parametrize(("family", "call", "spacing"), _SPLIT_CASES)
def test_text_fed_whole_then_more_reports_what_the_requests_report_F15(
    family: str, call: str, spacing: str
) -> None:
    """Calls in the whole-text shape, the text split at every point: where the first
    part ends just after a call (a marker or separator may be on its way), the
    requests decide what comes next, as without the whole-text reading."""
    text = f"{_PROSE}{call}{spacing}{call}{spacing}{_PROSE}"
    if family == "llama3_json":  # and calls after a separator
        text += f'{call}{spacing}; {{"name": "ping", "parameters": {{}}}}{spacing}{_PROSE}'
    for split in range(len(text) + 1):
        fast = _events(family, text, split, len(text), fast=True)
        assert fast == _events(family, text, split, len(text), fast=False), split


@pytest.mark.parametrize(("family", "call", "spacing"), _SPLIT_CASES)
@pytest.mark.parametrize(
    "after", ["", "\n", " " * 70, "\nok", _PROSE, f"{_PROSE}<tool_ca", "<|eom", "<|eom_id|>\n<"]
)
def test_text_fed_whole_and_closed_twice_reports_what_the_requests_report_F15(
    family: str, call: str, spacing: str, after: str
) -> None:
    """Text read whole before the grammar starts (``TextScanner._start``), ending
    right after a call, in whitespace, in prose or in what may become a marker; then
    the same again after close."""
    text = f"{_PROSE}{call}{spacing}{call}{after}"
    twice = [text, None, text, None]  # content after the finish starts a fresh scan
    assert _fed(family, twice, fast=True) == _fed(family, twice, fast=False)


@pytest.mark.parametrize(("family", "call", "spacing"), _SPLIT_CASES)
@pytest.mark.parametrize("tail", ["<", "<tool_ca", "<|python_tag|", "<｜tool▁calls"])
def test_a_tail_fed_after_text_read_whole_is_read_at_the_end_as_the_requests_read_it_F35(
    family: str, call: str, spacing: str, tail: str
) -> None:
    """Text read whole up to its end, then a delta that may still become a marker, then
    the end: the tail is read as ``until`` reads it at the end, where ``<`` alone is a
    marker with tools declared (it was emitted as one piece of text)."""
    steps: list[str | None] = [f"{_PROSE}{call}{spacing}{_PROSE}", tail, None]
    assert _fed(family, steps, fast=True) == _fed(family, steps, fast=False)


def test_text_fed_whole_is_read_without_starting_the_grammar() -> None:
    """The bench's shape in Hermes, read whole and closed, never starts the grammar
    (its generators were a tenth of a 2 KB parse), nor does prose alone."""
    from toolwire.assemble import CallAssembler
    from toolwire.textformats.hermes import HermesExtractor

    call = '<tool_call>{"name": "ping", "arguments": {}}</tool_call>'
    text = f"{_PROSE}\n" + f"{call}\n{_PROSE}\n" * 3 + f"{call}\n"
    started: list[object] = []

    class Watched(HermesExtractor):
        def run(self, resume: bool | None = None):  # type: ignore[no-untyped-def]
            started.append(resume)
            return super().run(resume)

    sink = CallAssembler()
    extractor = Watched(sink)
    extractor.feed(text)
    extractor.close()
    assert started == []
    assert sum(type(e).__name__ == "CallFinished" for e in sink.events) == 4
    # prose alone (content after the finish): read, the grammar still not started
    extractor.feed(_PROSE)
    assert started == []
    # the start of a call: the requests take over where ``_whole_text`` stopped
    extractor.feed('<tool_call>{"name": "pi')
    assert started == [False]
    extractor.feed('ng", "arguments": {}}</tool_call>')
    extractor.close()
    assert sum(type(e).__name__ == "CallFinished" for e in sink.events) == 5


def test_a_failure_reading_text_whole_is_reported_not_raised_F22(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``_whole_text`` runs before the grammar, outside ``_drive``: an exception in it
    is reported as ``_drive`` reports one, and the text passes through."""
    from toolwire.assemble import CallAssembler
    from toolwire.events import StreamError, TextDelta
    from toolwire.textformats.hermes import HermesExtractor

    def broken(self: object, marker: str) -> None:
        raise ValueError("boom")

    monkeypatch.setattr(HermesExtractor, "whole_calls", broken)
    text = f'{_PROSE}<tool_call>{{"name": "ping", "arguments": {{}}}}</tool_call>'
    sink = CallAssembler()
    extractor = HermesExtractor(sink)
    extractor.feed(text)
    extractor.close()
    errors = [e for e in sink.events if isinstance(e, StreamError)]
    assert len(errors) == 1 and "boom" in errors[0].message
    # as from ``_drive``: the text from the position reached passes through (here
    # the call's object: its marker was consumed when ``whole_calls`` failed)
    passed = "".join(e.text for e in sink.events if isinstance(e, TextDelta))
    assert passed == text[text.index("<tool_call>") + len("<tool_call>") :]


_LLAMA_CALL = '<|python_tag|>{"name": "ping", "parameters": {}}'


@pytest.mark.parametrize(
    "after",
    [
        "",
        "\n",
        f"\n{_PROSE}",
        f"\n{_LLAMA_CALL}<|eom_id|>",
        f"{_LLAMA_CALL}<|eot_id|>\n",
        "<|eot_id|>",
        "<|eom_id|>\n<|python_tag|>",
        # (not "<|eom": fed after a first part that ends right after the tag, that
        # cut marker comes out as one text event, where the requests give two, "<"
        # and "|eom"; the same on main before the strays were read)
        "; ",
        " " * 70,
    ],
)
@pytest.mark.parametrize("tag", ["<|eom_id|>", "<|eot_id|>", " <|eom_id|>", "\n<|eot_id|>"])
def test_an_end_tag_left_right_after_a_call_is_dropped_as_the_requests_drop_it_F15(
    tag: str, after: str
) -> None:
    """Llama 3 JSON's calls leave their end tag in the text (``WHOLE_TAKE`` false);
    where it follows the ``}`` at once, the whole-text reading drops it without
    searching for it (``_whole_text``'s ``strays``): the same events as the requests,
    in any split, whatever follows it."""
    text = f"{_PROSE}\n{_LLAMA_CALL}{tag}{after}"
    for split in range(len(text) + 1):
        fast = _events("llama3_json", text, split, len(text), fast=True)
        assert fast == _events("llama3_json", text, split, len(text), fast=False), split


def test_an_end_tag_right_after_a_call_is_dropped_without_a_search(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One search fewer than with the tag after a space (the test above holds the
    two ways to the same events). (Without the one pass that reads such text first,
    ``test_usual_text.py``.)"""
    from toolwire.textformats.llama3_json import Llama3JsonExtractor
    from toolwire.textformats.scanner import Markers, TextScanner

    searches: list[int] = []
    original = Markers.search_near

    def counted(self: Markers, buf: str, pos: int, window: int = 512) -> object:
        searches.append(pos)
        return original(self, buf, pos, window)

    monkeypatch.setattr(Markers, "search_near", counted)
    monkeypatch.setattr(Llama3JsonExtractor, "usual_text", TextScanner.usual_text)
    _fed("llama3_json", [f"{_PROSE}\n{_LLAMA_CALL}<|eom_id|>{_PROSE}", None], fast=True)
    right_after = len(searches)
    searches.clear()
    _fed("llama3_json", [f"{_PROSE}\n{_LLAMA_CALL} <|eom_id|>{_PROSE}", None], fast=True)
    assert right_after == len(searches) - 1
