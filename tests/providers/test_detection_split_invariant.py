"""``auto`` decides the wire from the input's structure, the same however it is split,
and nothing the model said is lost without an error event (review 7, findings A-E).

- A, B: the first complete message's JSON decides (its ``type``, ``object``, keys),
  never a wire's name found anywhere in what happened to be buffered: a stream whose
  text mentions another wire, a head of comment lines, model text that mentions
  ``"choices"`` (which stays text, its calls and words kept).
- C: a byte order mark before a JSON body is dropped before the body is read.
- D: bytes that are not UTF-8 in model text are replaced and named (``invalid_utf8``
  on a call that holds one) the same way in any split; input whose first bytes are
  not UTF-8 is still refused as no text.
- E: a wire message the repair ladder had to guess at is read and reported.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from corpus import real_captures, stream_cases
from hypothesis import example, given, settings
from hypothesis import strategies as st
from weather import WEATHER

from toolwire.events import Event, StreamResult
from toolwire.parser import StreamParser
from toolwire.providers import DECODERS, OpenAIChatDecoder, detect_format, register_decoder
from toolwire.providers.detect import DETECT_LIMIT, RECOGNISERS, FormatDetector


def parse(data: bytes, cuts: list[int] | tuple[int, ...] = (), fmt: str = "auto") -> Any:
    """The parser's format and the result of ``data`` fed in pieces cut at ``cuts``."""
    parser = StreamParser(fmt, [WEATHER])
    events: list[Event] = []
    at = 0
    for cut in [*sorted({c for c in cuts if 0 < c < len(data)}), len(data)]:
        events += parser.feed(data[at:cut])
        at = cut
    events += parser.close()
    return parser.format, StreamResult.collect(events)


def splits(data: bytes) -> list[list[int]]:
    """Whole, in halves, at every line end, and byte by byte."""
    lines = [i + 1 for i, b in enumerate(data) if b == 0x0A]
    return [[], [len(data) // 2], lines, list(range(1, len(data)))]


def anthropic_stream(text: str, lead: bytes = b"") -> bytes:
    events = [
        {"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": text},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]
    body = "".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n" for e in events
    )
    return lead + body.encode()


def responses_stream(instructions: str) -> bytes:
    response = {
        "id": "resp_1",
        "object": "response",
        "status": "in_progress",
        "instructions": instructions,
        "output": [],
    }
    events = [
        {"type": "response.created", "sequence_number": 0, "response": response},
        {
            "type": "response.output_text.delta",
            "sequence_number": 1,
            "item_id": "m1",
            "output_index": 0,
            "content_index": 0,
            "delta": "Hi",
        },
        {
            "type": "response.completed",
            "sequence_number": 2,
            "response": {
                **response,
                "status": "completed",
                "usage": {"input_tokens": 3, "output_tokens": 1},
            },
        },
    ]
    return b"".join(
        f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n\n".encode()
        for e in events
    )


CHAT_BODY = json.dumps(
    {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "hi",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
    }
).encode()

HERMES = b'<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'

# model text that mentions the names of wires and their fields
MENTIONS = [
    HERMES + b'The "choices" list is empty.',
    b'Sure.\n\nIn the response, "choices" is a list of completions.\n',
    b'The API returns "choices" here.',
    b"Use chat.completion objects.\n",
    b'Check "candidates" first.\nThen more.',
    b'Ollama replied {"done": false} mid-stream.\n',
    b'"type": "message_start" opens an Anthropic stream.\n\ndata: is a field.\n',
    b'event: a word\n\nthen "response.created" and "content_block_delta".\n',
    b'data: {"answer": "choices"}\n\nmore text\n',
]


def test_detection_split_invariant_finding_A_text_naming_another_wire() -> None:
    """A stream of one wire whose text names another (and a head of comment lines
    that pushes its first message far from the start) is its own wire in any split."""
    for lead in (b"", b": OPENROUTER PROCESSING\n\n" * 12):
        data = anthropic_stream('A chat.completion chunk with "choices"', lead)
        for cuts in splits(data):
            fmt, result = parse(data, cuts)
            assert fmt == "anthropic", cuts
            assert result.text == 'A chat.completion chunk with "choices"'
            assert (result.finish_reason, result.errors) == ("stop", [])
            assert result.usage is not None and result.usage.output_tokens == 5


def test_detection_split_invariant_finding_B_responses_instructions_name_chat() -> None:
    data = responses_stream("You convert chat.completion payloads with their choices.")
    for cuts in splits(data):
        fmt, result = parse(data, cuts)
        assert fmt == "openai-responses"
        assert (result.text, result.finish_reason, result.errors) == ("Hi", "stop", [])
        assert result.usage is not None and result.usage.input_tokens == 3
    assert detect_format(data) == "openai-responses"


@pytest.mark.parametrize("text", MENTIONS)
def test_detection_split_invariant_finding_B_model_text_mentioning_wires(text: bytes) -> None:
    """Model text stays text, whole or split: its words and its calls kept."""
    whole = parse(text)
    assert whole[0] == "text:auto" and whole[1].errors == []
    assert whole[1].finish_reason in ("stop", "tool_calls")
    if text.startswith(HERMES):
        assert [(c.name, c.status, c.arguments) for c in whole[1].calls] == [
            ("get_weather", "complete", {"city": "Paris"})
        ]
        assert whole[1].text == '\nThe "choices" list is empty.'
    else:
        assert whole[1].text == text.decode()
    for cuts in splits(text):
        assert parse(text, cuts) == whole, cuts


def test_detection_split_invariant_finding_C_bom_before_a_json_body() -> None:
    data = b"\xef\xbb\xbf" + CHAT_BODY
    want = [("get_weather", "complete", {"city": "Paris"})]
    for fmt in ("auto", "openai-chat"):
        for cuts in [[], [1], [2], [3], [4], [100], [200], list(range(1, len(data)))]:
            got, result = parse(data, cuts, fmt)
            assert got == "openai-chat", (fmt, cuts)
            assert [(c.name, c.status, c.arguments) for c in result.calls] == want
            assert (result.text, result.errors) == ("hi", [])


def test_detection_split_invariant_finding_D_invalid_utf8_in_model_text() -> None:
    after_call = b"Hello there.\n\n" + HERMES + "Caf\xe9 ".encode() + b"\xff done."
    in_call = b"Hello there.\n" + HERMES.replace(b"Paris", b"Par\xffis")
    # a U+FFFD the model sent, in a call read before the first bad byte: not named
    # repaired, whether that byte comes in the same piece or a later one (review 8)
    sent_before = HERMES.replace(b"Paris", "Par\ufffdis".encode()) + b"more \xff end"
    for data, status, repairs, city in [
        (after_call, "complete", (), "Paris"),
        (in_call, "repaired", ("invalid_utf8",), "Par\ufffdis"),
        (sent_before, "complete", (), "Par\ufffdis"),
    ]:
        whole = parse(data)
        fmt, result = whole
        assert fmt == "text:auto" and result.errors == []
        assert [(c.status, c.repairs, c.arguments) for c in result.calls] == [
            (status, repairs, {"city": city})
        ]
        assert "\ufffd" in result.text or status == "repaired"
        for cuts in splits(data):
            assert parse(data, cuts) == whole, cuts


def test_detection_split_invariant_finding_D_binary_input_is_refused_in_any_split() -> None:
    data = gzip.compress(anthropic_stream("hi"))
    for cuts in splits(data):
        _fmt, result = parse(data, cuts)
        assert (result.text, result.calls, result.finish_reason) == ("", [], "error")
        assert [e.message for e in result.errors] == [
            "the input is not UTF-8 text (compressed or binary data?)"
        ]


def test_detection_split_invariant_finding_E_repaired_wire_message_is_reported() -> None:
    data = (
        b'data: {"choices":[{"index":0,"delta":{"content":"Hello "}}]}\n\n'
        b'data: {"choices":[{"index":0,"delt\ndata: a":{"content":"world"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    for cuts in splits(data):
        fmt, result = parse(data, cuts)
        assert (fmt, result.text, result.finish_reason) == ("openai-chat", "Hello ", "stop")
        (error,) = result.errors
        assert "control_character" in error.message and '"world"' in error.raw


def test_finding_E_python_style_chunk_is_read_as_meant_without_a_report() -> None:
    data = (
        b"data: {'choices': [{'index': 0, 'delta': {'content': 'hi'}, 'finish_reason': None}]}"
        b'\n\ndata: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    )
    for cuts in splits(data):
        fmt, result = parse(data, cuts)
        assert (fmt, result.text, result.errors) == ("openai-chat", "hi", [])


def test_finding_E_json5_style_chunk_is_read_as_meant_without_a_report() -> None:
    """Comments, bare keys and odd white space sit between tokens: reading past them
    changes nothing the message held, so they are not reported (a report ends an
    agent run); a raw control character is, as finding E's cut string shows."""
    quiet = (
        b'data: {choices: [{"index": 0, "delta": {"content": "hi"}}]} // proxy\n\n'
        b'data: {"choices":\xc2\xa0[{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\n'
    )
    for cuts in splits(quiet):
        fmt, result = parse(quiet, cuts)
        assert (fmt, result.text, result.finish_reason, result.errors) == (
            "openai-chat",
            "hi",
            "stop",
            [],
        )
    loud = b'data: {"choices":[{"index":0,"delta":{"content":"a\tb"}}]}\n\ndata: [DONE]\n\n'
    _fmt, result = parse(loud)
    assert result.text == "a\tb"
    (error,) = result.errors
    assert "control_character" in error.message


def test_detection_split_invariant_at_the_limit() -> None:
    """The first ``DETECT_LIMIT`` bytes decide, as if the input ended there: a first
    message longer than that still names its wire, and a head of comments that long
    is no wire (it decides the same in any split)."""
    long_first = responses_stream("x" * DETECT_LIMIT)
    comments = b": keep-alive\n\n" * (DETECT_LIMIT // 14 + 1) + anthropic_stream("hi")
    for data, want in [(long_first, "openai-responses"), (comments, "text:auto")]:
        results = {parse(data, cuts)[0] for cuts in ([], [7], [DETECT_LIMIT - 1], [DETECT_LIMIT])}
        assert results == {want}


# -- every split of real captures, corpus streams and text that mentions wires ---------

_WIRE_INPUTS = [path.read_bytes() for path in real_captures()] + [
    case["input"].encode("utf-8", "surrogatepass")
    for case in stream_cases()
    if not case["format"].startswith("text:")
]
_TEXT_INPUTS = MENTIONS + [
    case["input"].encode("utf-8", "surrogatepass")
    for case in stream_cases()
    if case["format"].startswith("text:")
]
# what real servers put before or around a stream's first message
_LEADS = [
    b"",
    b": OPENROUTER PROCESSING\n\n",
    b": ping\n\n",
    b"\xef\xbb\xbf",
    b"\n\n",
    b"retry: 3000\n\n",
    b"data: \n\n",  # an empty message: a keep-alive (review 9, finding F1)
    b"data: {}\n\n",
]


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(_WIRE_INPUTS + _TEXT_INPUTS),
    st.sampled_from(_LEADS),
    st.booleans(),
    st.lists(st.integers(0, 4000), max_size=8),
)
@example(_WIRE_INPUTS[0], b"", False, [1])
def test_detection_split_invariant_over_captures_corpus_and_text(
    data: bytes, lead: bytes, crlf: bool, cuts: list[int]
) -> None:
    if lead and data in _WIRE_INPUTS:
        data = lead + data
    if crlf:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    whole = parse(data)
    assert parse(data, cuts) == whole
    assert detect_format(data) == (whole[0] if whole[0] != "text:auto" else None)


# -- review 9: keep-alive first messages, the limit, recognisers, JSON objects -----
# - F1: a first SSE message that carries nothing (an empty ``data:``, ``{}``, ``null``,
#   a bare value: keep-alives, as the decoders take them) decides nothing; the next
#   message names the wire.
# - F2: a first piece that holds the whole common first block is decided as the
#   detector decides it, whose first ``DETECT_LIMIT`` bytes decide: the same in any split.
# - F3: a registered format's recogniser that raises is not that format, never an
#   exception out of the parser; a recogniser that is not callable is refused when it is
#   registered.
# - F6: junk between a JSON stream's objects is reported where it stood, in any split.
# - F7: a stream's messages saved as JSON objects (JSON lines of SDK events) are read
#   as the stream, not refused as a body of several values (nothing lost).

CHUNK = (
    b'data: {"id":"x","object":"chat.completion.chunk",'
    b'"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
)


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


def call_list(result: StreamResult) -> list[tuple[Any, ...]]:
    return [(c.id, c.name, c.status, c.arguments, c.repairs) for c in result.calls]


@pytest.mark.parametrize("capture", real_captures(), ids=lambda path: path.name)
@pytest.mark.parametrize("pretty", [False, True])
def test_F7_saved_stream_messages_read_as_their_stream(capture: Path, pretty: bool) -> None:
    stream = parse(capture.read_bytes())[1]
    saved = saved_messages(capture, pretty=pretty)
    wire = "anthropic" if "anthropic" in str(capture) else "openai-chat"
    for fmt in ("auto", wire):
        for cuts in ([], [len(saved) // 3, len(saved) // 2]):
            got_format, result = parse(saved, cuts, fmt)
            assert got_format == wire
            assert call_list(result) == call_list(stream)
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
    result = parse(cut)[1]
    assert call_list(result) == call_list(parse(capture.read_bytes())[1])
    assert [error.message for error in result.errors] == [
        "unexpected text between anthropic messages",
        "the anthropic messages ended inside a JSON object",
    ]


def test_a_json_framed_stream_cut_inside_an_object_is_reported_as_saved_messages_are() -> None:
    """The one report of input that ended inside a JSON object
    (``WireDecoder.ended_inside_object``), for a JSON-framed stream too."""
    cut = b'{"model":"m","mess'
    result = parse(OLLAMA.splitlines(keepends=True)[0] + cut)[1]
    assert [(e.message, e.raw) for e in result.errors] == [
        ("the Ollama stream ended inside a JSON object", cut.decode()),
        ("the stream ended without a finish reason (connection dropped?)", ""),
    ]


# review 10, on the JSON lines above: any input of several objects is a stream's
# messages (Azure's first chunk is no chat.completion.chunk); bytes that are not UTF-8
# are named there and in a body (F29); one Responses event alone is still no body
AZURE = [
    b'{"choices":[],"created":0,"id":"","model":"","object":"",'
    b'"prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}',
    b'{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]}',
    b'{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},'
    b'"finish_reason":"stop"}]}',
]


def test_review10_saved_messages_whatever_the_first_one_is() -> None:
    sse = b"".join(b"data: " + chunk + b"\n\n" for chunk in AZURE) + b"data: [DONE]\n\n"
    want = parse(sse)
    for saved in (b"\n".join(AZURE), b"[" + b",\n".join(AZURE) + b"]"):
        fmt, result = parse(saved)
        assert (fmt, result.text, result.finish_reason) == ("openai-chat", "Hi", "stop")
        assert (result.errors, result.text) == (want[1].errors, want[1].text)


def test_review10_a_done_line_in_saved_messages_is_the_end_marker_not_junk() -> None:
    """Review 10: the ``[DONE]`` line of a stream saved line by line, its data lines'
    JSON and the end marker, was reported as junk (its brackets taken for an array).
    It is read as the stream reads ``data: [DONE]``: Chat's end, no error, even
    without a finish reason; text around it on its line is still reported."""
    for chunks in (AZURE, AZURE[:2]):  # (the second: no finish reason, only the marker)
        sse = b"".join(b"data: " + chunk + b"\n\n" for chunk in chunks) + b"data: [DONE]\n\n"
        want = parse(sse)[1]
        assert not want.errors
        for done in (b"[DONE]\n", b"[DONE]", b"  [DONE] \r\n", b"[DONE]\n\n"):
            saved = b"\n".join(chunks) + b"\n" + done
            for cuts in ([], [len(saved) - 3], list(range(1, len(saved)))):
                fmt, result = parse(saved, cuts)
                assert fmt == "openai-chat"
                assert result == want, (done, cuts)
    for garbage in (b"[DONE]x\n", b"[DONE] x\n", b"[ DONE ]\n", b"x [DONE]\n", b"[DONE\n"):
        result = parse(b"\n".join(AZURE) + b"\n" + garbage)[1]
        assert result.text == "Hi"
        assert result.errors, garbage
    # a wire whose stream has no such marker reports it, as that stream does
    capture = next(path for path in real_captures() if path.name == "tool_use_response.sse")
    sse = parse(capture.read_bytes().rstrip() + b"\n\ndata: [DONE]\n\n")[1]
    saved = parse(saved_messages(capture) + b"[DONE]\n")[1]
    for result in (sse, saved):
        (error,) = result.errors
        assert error.raw == "[DONE]"
    assert call_list(saved) == call_list(sse)


def test_review10_bytes_that_are_not_utf8_are_named_in_saved_messages_and_bodies() -> None:
    capture = next(path for path in real_captures() if path.name == "tool_use_response.sse")
    saved = saved_messages(capture).replace(b'"ar"', b'"a\xffr"')  # (Pa|ris)
    body = json.dumps(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "t", "name": "get_weather", "input": {"city": "Os"}}
            ],
            "stop_reason": "tool_use",
        }
    ).encode()
    for data in (saved, body.replace(b"Os", b"Os\xfflo")):
        (call,) = parse(data)[1].calls
        assert call.status != "complete"  # (the capture's call has no city: invalid)
        assert "invalid_utf8" in call.repairs
        assert "\ufffd" in json.dumps(call.arguments, ensure_ascii=False)


def test_review10_one_responses_event_alone_is_no_finished_body() -> None:
    done = {
        "type": "response.completed",
        "response": {
            "object": "response",
            "status": "completed",
            "output": [
                {
                    "type": "function_call",
                    "call_id": "call_1",
                    "name": "get_weather",
                    "arguments": '{"city":"Oslo"}',
                }
            ],
        },
    }
    fmt, result = parse(json.dumps(done).encode())
    assert fmt == "openai-responses"
    assert result.errors  # never a clean, empty stop


def chat_body(number: int, city: str) -> dict[str, Any]:
    call = {
        "id": f"call_{number}",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
    }
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    return {
        "id": f"c{number}",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }


ANTHROPIC_BODY = {
    "id": "m",
    "type": "message",
    "role": "assistant",
    "content": [{"type": "text", "text": "hi"}],
    "stop_reason": "end_turn",
}


@pytest.mark.parametrize(
    "values",
    [
        [chat_body(1, "Paris"), chat_body(2, "Rome")],
        [chat_body(1, "Paris"), {"error": {"message": "busy", "type": "server_error"}}],
        [ANTHROPIC_BODY, ANTHROPIC_BODY],
    ],
    ids=["two chat bodies", "a chat body and an error", "two anthropic bodies"],
)
def test_review11_several_whole_bodies_are_never_read_as_one_stream(
    values: list[dict[str, Any]],
) -> None:
    """Whole answers one after another are no stream's messages: never merged into one
    answer (review 11b), but refused as several values, as a body of them always was."""
    data = "\n".join(json.dumps(value) for value in values).encode()
    _, result = parse(data)
    assert result.calls == []
    assert result.finish_reason == "error"
    assert any("several top-level values" in error.message for error in result.errors)


@pytest.mark.parametrize("capture", real_captures(), ids=lambda path: path.name)
def test_review11_pieces_of_any_bytes_type_read_as_bytes(capture: Path) -> None:
    """A bytearray or memoryview piece reads as the same bytes would (review 11a: the
    block readers told a match by identity, which a bytearray's copies defeat)."""
    data = capture.read_bytes()
    cuts = [len(data) // 5, len(data) // 2, len(data) - 3]
    want = parse(data, cuts)
    for kind in (bytearray, memoryview):
        parser = StreamParser("auto", [WEATHER])
        events: list[Event] = []
        at = 0
        for cut in [*cuts, len(data)]:
            events += parser.feed(kind(data[at:cut]))  # type: ignore[arg-type]
            at = cut
        events += parser.close()
        assert (parser.format, StreamResult.collect(events)) == want
