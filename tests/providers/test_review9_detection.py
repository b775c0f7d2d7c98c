"""Review 9's findings on ``auto`` and JSON-framed input (F1-F3, F6, F7).

- F1: a first SSE message that carries nothing (an empty ``data:``, ``{}``, ``null``,
  a bare value: keep-alives, as the decoders take them) decides nothing; the next
  message names the wire.
- F2: a first piece that holds the whole common first block is decided as the
  detector decides it, whose first ``DETECT_LIMIT`` bytes decide: the same in any split.
- F3: a registered format's recogniser that raises is not that format, never an
  exception out of the parser; a recogniser that is not callable is refused when it is
  registered.
- F6: junk between a JSON stream's objects is reported where it stood, in any split.
- F7: a stream's messages saved as JSON objects (JSON lines of SDK events) are read
  as the stream, not refused as a body of several values (nothing lost).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from corpus import real_captures
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.events import Event, StreamResult
from toolwire.parser import StreamParser, parse_stream
from toolwire.providers import DECODERS, OpenAIChatDecoder, register_decoder
from toolwire.providers.detect import DETECT_LIMIT, RECOGNISERS, FormatDetector

CHUNK = (
    b'data: {"id":"x","object":"chat.completion.chunk",'
    b'"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
)


def parse(data: bytes, cuts: list[int] | tuple[int, ...] = (), fmt: str = "auto") -> Any:
    parser = StreamParser(fmt)
    events: list[Event] = []
    at = 0
    for cut in [*sorted({c for c in cuts if 0 < c < len(data)}), len(data)]:
        events += parser.feed(data[at:cut])
        at = cut
    events += parser.close()
    return parser.format, StreamResult.collect(events)


@pytest.mark.parametrize(
    "head",
    [
        b"data: \n\n",
        b"data:\n\n",
        b"event: ping\ndata: \n\n",
        b"data: {}\n\n",
        b"data: null\n\n",
        b'data: ""\n\n',
        b"data: {}\n\ndata: \n\n: comment\n\n",
    ],
)
def test_F1_a_first_message_that_carries_nothing_decides_nothing(head: bytes) -> None:
    data = head + CHUNK
    for cuts in ([], [len(head)], list(range(1, len(data)))):
        fmt, result = parse(data, cuts)
        assert (fmt, result.text, result.finish_reason) == ("openai-chat", "hi", "stop")


@pytest.mark.parametrize("head", [b"data: hello\n\n", b'data: {"token":"a"}\n\n'])
def test_F1_a_first_message_of_no_wire_still_makes_the_input_text(head: bytes) -> None:
    fmt, result = parse(head + CHUNK)
    assert fmt == "text:auto"
    assert result.text == (head + CHUNK).decode()


def test_F2_a_leading_member_past_the_limit_decides_the_same_in_any_split() -> None:
    data = (
        b'data: {"id":"' + b"x" * (DETECT_LIMIT + 10) + b'","object":"chat.completion.chunk",'
        b'"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
    )
    results = {parse(data, cuts)[0] for cuts in ([], [10], [DETECT_LIMIT])}
    assert len(results) == 1
    detector = FormatDetector()
    assert results == {detector.feed(data) or detector.close()}


@pytest.fixture
def registered() -> Any:
    """Registers formats for a test and removes them after it."""
    names: list[str] = []

    def register(name: str, recognise: Any) -> None:
        names.append(name)
        register_decoder(name, type("Mine", (OpenAIChatDecoder,), {}), recognise)

    yield register
    for name in names:
        DECODERS.pop(name, None)
        RECOGNISERS.pop(name, None)


def test_F3_a_recogniser_that_raises_is_not_that_format(registered: Any) -> None:
    registered("mine", lambda value: value["kind"] == "x")  # KeyError on other JSON
    for data in (b'{"other":1}', b'data: {"other":1}\n\n'):
        fmt, result = parse(data)
        assert fmt == "text:auto"
        assert result.text == data.decode()
    fmt, _ = parse(b'{"kind":"x"}')
    assert fmt == "mine"


def test_F3_substring_markers_are_refused_when_registered() -> None:
    with pytest.raises(TypeError, match="callable"):
        register_decoder("mine", OpenAIChatDecoder, ('"kind"',))  # type: ignore[arg-type]
    assert "mine" not in DECODERS


OLLAMA = (
    b'{"model":"m","message":{"role":"assistant","content":"a"},"done":false}\n'
    b'xx {"model":"m","message":{"role":"assistant","content":5},"done":false}\n'
    b'{"model":"m","message":{"role":"assistant","content":""},"done":true,'
    b'"done_reason":"stop"} yy\n'
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, len(OLLAMA) - 1), max_size=12))
def test_F6_junk_is_reported_where_it_stood_in_any_split(cuts: list[int]) -> None:
    fmt, whole = parse(OLLAMA)
    assert fmt == "ollama"
    messages = [error.message for error in whole.errors]
    assert messages[0].startswith("unexpected text between")
    assert "is a number" in messages[1]
    assert messages[2].startswith("unexpected text between")
    assert parse(OLLAMA, cuts) == (fmt, whole)
    assert parse(OLLAMA, list(range(1, len(OLLAMA)))) == (fmt, whole)


def saved_messages(capture: Path, *, pretty: bool = False) -> bytes:
    """A capture's messages as JSON lines (or pretty-printed), as SDK events are saved."""
    lines = []
    for line in capture.read_bytes().splitlines():
        if line.startswith(b"data: ") and line != b"data: [DONE]":
            value = json.loads(line[6:])
            lines.append(json.dumps(value, indent=2 if pretty else None).encode())
    return b"\n".join(lines) + b"\n"


def calls(result: StreamResult) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.status, c.arguments, c.repairs) for c in result.calls]


@pytest.mark.parametrize("capture", real_captures(), ids=lambda path: path.name)
@pytest.mark.parametrize("pretty", [False, True])
def test_F7_saved_stream_messages_read_as_their_stream(capture: Path, pretty: bool) -> None:
    stream = parse_stream(capture.read_bytes())
    saved = saved_messages(capture, pretty=pretty)
    wire = "anthropic" if "anthropic" in str(capture) else "openai-chat"
    for fmt in ("auto", wire):
        for cuts in ([], [len(saved) // 3, len(saved) // 2]):
            got_format, result = parse(saved, cuts, fmt)
            assert got_format == wire
            assert calls(result) == calls(stream)
            assert (result.text, result.finish_reason, result.usage) == (
                stream.text,
                stream.finish_reason,
                stream.usage,
            )
            assert not result.errors


def test_F7_junk_and_a_cut_off_message_in_saved_messages_are_reported() -> None:
    capture = next(path for path in real_captures() if path.name == "tool_use_response.sse")
    saved = saved_messages(capture)
    cut = saved + b'oops {"type":"content_block_delta","index":1,"delta":{"ty'
    result = parse_stream(cut)
    assert calls(result) == calls(parse_stream(capture.read_bytes()))
    assert [error.message for error in result.errors] == [
        "unexpected text between anthropic messages",
        "the anthropic messages ended inside a JSON object",
    ]
