"""The per-feed short paths of text-format extractors: a delta the pending request
would take whole (prose without a marker's first character, argument text without a
bracket; ``TextScanner.plain_deltas``) goes straight to it, and the start of a marker
split across deltas is held without asking ``until`` (``Markers.holds``). They must
give exactly the events the requests give, in any chunking: each test here runs the
same chunks with the short paths and without them and compares every event."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_families import CASES
from tf_harness import TOOLS, check_split_invariance

from toolwire.assemble import CallAssembler, JsonScanner
from toolwire.events import Event
from toolwire.spec import ToolSpec
from toolwire.textformats import FAMILIES, make_extractor
from toolwire.textformats.scanner import Markers, TextScanner

_TOOLS = [ToolSpec.from_dict(t) for t in TOOLS]


@contextmanager
def _requests_only() -> Iterator[None]:
    """Every delta asks the pending request (the short paths never taken)."""
    with (
        mock.patch.object(TextScanner, "plain_deltas", lambda self, search, take: None),
        mock.patch.object(Markers, "holds", lambda self, rest: False),
    ):
        yield


def _events(family: str, chunks: list[str], tools: list[ToolSpec] = _TOOLS) -> list[Event]:
    sink = CallAssembler(tools)
    extractor = make_extractor(family, sink, tools)
    for chunk in chunks:
        extractor.feed(chunk)
    extractor.close()
    sink.end()
    return sink.events


def _check_same(family: str, chunks: list[str], tools: list[ToolSpec] = _TOOLS) -> None:
    fast = _events(family, chunks, tools)
    with _requests_only():
        slow = _events(family, chunks, tools)
    assert fast == slow, f"{family}: {chunks!r}"


def _chunkings(text: str, rng: random.Random) -> Iterator[list[str]]:
    yield [text]
    for size in (1, 4):
        yield [text[i : i + size] for i in range(0, len(text), size)]
    for _ in range(6):
        chunks, i = [], 0
        while i < len(text):
            n = rng.randint(1, rng.choice((3, 8, 32)))
            chunks.append(text[i : i + n])
            i += n
        yield chunks


@pytest.mark.parametrize("family", FAMILIES)
def test_every_family_case_gives_the_same_events_with_and_without_the_short_path(
    family: str,
) -> None:
    rng = random.Random(family)
    texts = [c.input for c in CASES if c.family == family or family == "auto"]
    assert texts or family not in {c.family for c in CASES}
    for text in texts:
        for chunks in _chunkings(text, rng):
            _check_same(family, chunks)


# pieces of the three families' markup, JSON that opens and closes, escapes, quotes,
# prose: the short path's conditions met and broken at every place
_PIECES = (
    "Sure, ",
    "let me check. ",
    "\n",
    "  ",
    "<",
    "<tool_call>",
    "</tool_call>",
    "<think>",
    "</think>",
    "<tool_",
    "<|python_tag|>",
    "<|eom_id|>",
    "; ",
    '{"name": "get_weather", "arguments": {',
    '{"name": "search", "parameters": {',
    '{"name": "get_weather", "id": "c1", "arguments": {',
    '"city": "Paris"',
    '"query": "a \\"b\\" c\\\\"',
    '"days": 3',
    ", ",
    "}",
    "}}",
    "[",
    "]",
    "{",
    "\\",
    "\\\\",
    '\\"',
    '"',
    "'",
    "x = 1  # ok\\n",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "function<｜tool▁sep｜>get_weather\n```json\n",
    "<｜tool▁sep｜>",
    "\n```",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
    "<｜",
    "```",
    "é",
)


@settings(max_examples=300, deadline=None)
@given(
    family=st.sampled_from(("hermes", "deepseek_v3", "llama3_json", "auto", "mistral")),
    pieces=st.lists(st.sampled_from(_PIECES), max_size=40),
    cuts=st.lists(st.integers(1, 9), min_size=1, max_size=12),
)
def test_markup_pieces_in_any_chunking_give_the_same_events(
    family: str, pieces: list[str], cuts: list[int]
) -> None:
    text = "".join(pieces)
    chunks, i, k = [], 0, 0
    while i < len(text):
        n = cuts[k % len(cuts)]
        chunks.append(text[i : i + n])
        i, k = i + n, k + 1
    _check_same(family, chunks)


def _call(family: str, args: str) -> str:
    if family == "hermes":
        return f'<tool_call>\n{{"name": "write_file", "arguments": {args}}}\n</tool_call>'
    if family == "llama3_json":
        return f'<|python_tag|>{{"name": "write_file", "parameters": {args}}}<|eom_id|>'
    return (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n"
        f"```json\n{args}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    )


_ARGS = '{"path": "a.py", "content": "s = \'x\\\\\\\\\' \\"q\\" \\u00e9\\n[1]"}'


@pytest.mark.parametrize("family", ["hermes", "llama3_json", "deepseek_v3"])
def test_a_marker_or_escape_split_at_every_point_reads_the_same(family: str) -> None:
    """Two calls with escapes, quotes and brackets in a string, prose around them:
    cut in two at every point (each marker, each escape split everywhere), then in
    4-character deltas from each offset; the calls read as sent, as fed whole."""
    text = f"Writing it <now>.\n{_call(family, _ARGS)}\n{_call(family, _ARGS)}"
    whole = _events(family, [text])
    calls = [e.call for e in whole if type(e).__name__ == "CallFinished"]
    assert [(c.name, c.status) for c in calls] == [("write_file", "complete")] * 2
    assert calls[0].arguments["content"] == "s = 'x\\\\' \"q\" é\n[1]"
    for i in range(len(text) + 1):
        _check_same(family, [text[:i], text[i:]])
        head = [text[:i]] if i else []
        _check_same(family, head + [text[j : j + 4] for j in range(i, len(text), 4)])
    check_split_invariance(family, text, TOOLS, f"plain deltas {family}")


@pytest.mark.parametrize("family", ["hermes", "llama3_json", "mistral"])
def test_text_after_arguments_that_close_with_their_header_split_anywhere(family: str) -> None:
    """An envelope whose arguments close in the delta that completes its header, then
    text where only its ``}`` belongs: that text is the envelope's, in any split."""
    body = '{"name": "ping", "arguments": {}<tool_call> x}'
    text = {
        "hermes": f"<tool_call>{body}</tool_call> ok",
        "llama3_json": f"<|python_tag|>{body} ok",
        "mistral": f"[TOOL_CALLS][{body}] ok",
    }[family]
    for i in range(len(text) + 1):
        for j in range(i, min(i + 12, len(text)) + 1):
            _check_same(family, [text[:i], text[i:j], text[j:]])
        _check_same(family, [text[:i]] + [text[j : j + 3] for j in range(i, len(text), 3)])
    check_split_invariance(family, text, TOOLS, f"args closed with the header {family}")


@pytest.mark.parametrize("family", ["hermes", "llama3_json", "deepseek_v3"])
def test_the_short_path_takes_most_deltas_of_a_stream(family: str) -> None:
    """The grammar is asked for few of the 4-character deltas of prose and a long
    string argument (else the short path would be dead code)."""
    args = '{"path": "a.py", "content": "' + "x = 1  # ok\\n" * 40 + '"}'
    text = "The model explains what it does. " * 8 + "\n" + _call(family, args)
    chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
    asked = 0
    drive = TextScanner._drive

    def counted(self: TextScanner) -> None:
        nonlocal asked
        asked += 1
        drive(self)

    with mock.patch.object(TextScanner, "_drive", counted):
        _events(family, chunks)
    assert asked < len(chunks) // 5, f"{family}: the grammar asked for {asked} of {len(chunks)}"
    _check_same(family, chunks)


def _scanner_state(scan: JsonScanner) -> tuple[Any, ...]:
    return tuple(getattr(scan, k) for k in JsonScanner.__slots__)


@settings(max_examples=500, deadline=None)
@given(
    before=st.text(alphabet="{}[]\"'\\ab", max_size=12),
    text=st.text(alphabet="\"'\\ab é", min_size=1, max_size=8),
    python_strings=st.booleans(),
)
def test_feed_open_is_feed_for_text_without_brackets(
    before: str, text: str, python_strings: bool
) -> None:
    fast, slow = (
        JsonScanner(python_strings=python_strings),
        JsonScanner(python_strings=python_strings),
    )
    fast.feed(before)
    slow.feed(before)
    fast.feed_open(text)
    assert slow.feed(text) == -1
    assert _scanner_state(fast) == _scanner_state(slow)
