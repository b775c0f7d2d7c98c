"""Fuzzing the five wire decoders with mutated valid streams (issue 11).

Each format gets a few hundred inputs per run, within a wall-clock budget of about
two seconds (``wirefuzz.run_budgeted``; ``TOOLWIRE_FUZZ_SCALE`` runs more). For every
input: ``StreamParser`` fed in random pieces and closed, and ``parse_stream`` on the
whole, never raise and never hang (a watchdog per input), every event has the types
the event model promises, and the stream ends with exactly one ``StreamFinished``.
Then every encoder (stream and whole body) takes the decoded events without raising.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
import wirefuzz
from weather import WEATHER_WITH_DAYS as WEATHER
from wirefuzz import (
    SEEDS,
    WireSeed,
    fuzzed_stream,
    joined_text,
    pieces,
    run_budgeted,
    watchdog,
)

from toolwire.encoders import ENCODERS, make_encoder
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    Event,
    ReasoningDelta,
    ReasoningSignature,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
)
from toolwire.parser import StreamParser, parse_stream

INPUTS = 400  # per format and run
SECONDS = 2.0  # per format and run
HANG = 10.0  # seconds one small input may take before it counts as a hang


def _str_or_none(value: object) -> bool:
    return value is None or isinstance(value, str)


def check_events(events: list[Event]) -> None:
    """The event model's promises: text is str, slots are ints, one StreamFinished, last."""
    for event in events:
        if isinstance(event, TextDelta | ReasoningDelta):
            assert isinstance(event.text, str), event
        elif isinstance(event, CallStarted):
            assert type(event.slot) is int and isinstance(event.name, str), event
            assert _str_or_none(event.id), event
        elif isinstance(event, ArgumentsDelta):
            assert type(event.slot) is int and isinstance(event.text, str), event
        elif isinstance(event, CallFinished):
            call = event.call
            assert isinstance(call, ToolCall), event
            assert isinstance(call.name, str) and isinstance(call.raw_arguments, str), call
            assert _str_or_none(call.id), call
            assert call.arguments is None or isinstance(call.arguments, dict), call
        elif isinstance(event, StreamError):
            assert isinstance(event.message, str) and isinstance(event.raw, str), event
        elif isinstance(event, ReasoningSignature):
            assert isinstance(event.value, str) and event.value, event
            assert _str_or_none(event.call_id), event
        else:
            assert isinstance(event, StreamFinished), event
    finished = [e for e in events if isinstance(e, StreamFinished)]
    assert len(finished) == 1 and events[-1] is finished[0], events[-3:]


def decode_fuzzed(seed: WireSeed, rng: random.Random, number: int) -> None:
    data = fuzzed_stream(seed, rng)
    context = f"{seed.name} fuzz seed {number}: {data!r}"
    try:
        with watchdog(HANG):
            parser = StreamParser(seed.format, [WEATHER])
            events: list[Event] = []
            for piece in pieces(rng, data):
                events.extend(parser.feed(piece))
            events.extend(parser.close())
            check_events(events)
            whole = StreamParser(seed.format, [WEATHER])
            check_events(whole.feed(data) + whole.close())
            parse_stream(data, seed.format, [WEATHER])
            for target in ENCODERS:
                for whole in (False, True):  # the stream, and the response body
                    make_encoder(target, whole=whole, message_id="m", created=1).encode(events)
    except Exception as exc:
        raise AssertionError(context) from exc


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_decoders_never_raise_or_hang_on_mutated_streams(seed: WireSeed) -> None:
    ran = run_budgeted(INPUTS, SECONDS, lambda rng, n: decode_fuzzed(seed, rng, n))
    assert ran >= 20


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_seed_streams_decode_cleanly(seed: WireSeed) -> None:
    """The unmutated seeds are valid streams: no error, calls complete (so the
    mutations above start from streams that exercise the readers)."""
    data = seed.frame(seed.messages(), random.Random(0))
    result = parse_stream(data, seed.format, [WEATHER])
    assert not result.errors, result.errors
    assert result.calls and all(c.status == "complete" for c in result.calls), result.calls
    assert result.finish_reason == "tool_calls"


# -- every field of every seed, as each other type -------------------------------------

OTHER_TYPES = (5, True, None, "x", [1], {"a": 1})
# fields that carry what the model said: one of another type is an error event that
# names the field, never text passed on or dropped without a word
TEXT_FIELDS = {
    "openai-chat": ("content", "reasoning_content"),
    "anthropic": ("text", "thinking", "partial_json"),
    "openai-responses": ("delta", "arguments", "text"),
    "gemini-sse": ("text",),
    "gemini-array": ("text",),
    "ollama": ("content", "thinking"),
}
# text fields the decoder rightly does not read: a Responses message item, or a call's
# .done arguments, that come whole after their deltas repeat them (F7)
UNREAD = {("openai-responses", "5.item.content.0.text"), ("openai-responses", "9.arguments")}


def retyped(seed: WireSeed) -> list[tuple[str, str, object, bytes]]:
    """(dotted path, last key, new value, framed stream) for every field and type."""
    out = []
    rng = random.Random(0)
    messages = seed.messages()
    for m, message in enumerate(messages):
        for path in wirefuzz.paths(message):
            for value in OTHER_TYPES:
                copy = seed.messages()
                parent = wirefuzz.at(copy[m], path[:-1])
                if parent[path[-1]] == value:
                    continue
                parent[path[-1]] = value
                name = ".".join(map(str, (m, *path)))
                out.append((name, str(path[-1]), value, seed.frame(copy, rng).encode()))
    return out


@pytest.mark.parametrize("seed", SEEDS, ids=[s.name for s in SEEDS])
def test_every_field_of_another_type_is_read_or_reported(seed: WireSeed) -> None:
    """Issue 11: a wrong-typed field never raises; one that carries text is an error
    event naming the field."""
    for name, key, value, data in retyped(seed):
        try:
            parser = StreamParser(seed.format, [WEATHER])
            events = parser.feed(data) + parser.close()
            check_events(events)
        except Exception as exc:
            raise AssertionError(f"{seed.name}: field {name} = {value!r}") from exc
        carries_text = key in TEXT_FIELDS[seed.name] and (seed.name, name) not in UNREAD
        if (
            carries_text
            and isinstance(value, int | list | dict)
            and not (key == "content" and isinstance(value, list) and seed.format == "openai-chat")
        ):
            errors = [e.message for e in events if isinstance(e, StreamError)]
            assert any(f"{key} is " in m and "not a string" in m for m in errors), (
                f"{seed.name}: field {name} = {value!r} gave {errors}"
            )


def same_without(
    seed: WireSeed, data: bytes | str, rng: random.Random, cls: type, flag: str, number: int
) -> None:
    """``data`` cut at random gives the same events with ``cls.flag`` off (the path
    it turns on replaced by the one before it)."""
    from unittest import mock

    split = rng.randrange(1 << 30)
    fast = fed_events(seed, data, random.Random(split))
    with mock.patch.object(cls, flag, False):
        slow = fed_events(seed, data, random.Random(split))
    assert fast == slow, f"{seed.name} seed {number}: {data!r}"


def fed_events(seed: WireSeed, data: bytes | str, rng: random.Random) -> list[list[Event]]:
    """The events each ``feed`` (and the ``close``) gives, as ``split_events`` cuts
    ``data``, each run of text deltas joined (a decoder may hand on the text of the
    messages one ``feed`` reads as one delta)."""
    parser = StreamParser(seed.format, [WEATHER])
    out = [joined_text(parser.feed(piece)) for piece in pieces(rng, data)]
    return [*out, joined_text(parser.close())]


def split_events(seed: WireSeed, data: bytes | str, rng: random.Random) -> list[Event]:
    """The events of ``data`` in ``seed``'s format, fed in pieces ``rng`` cuts."""
    parser = StreamParser(seed.format, [WEATHER])
    out: list[Event] = []
    for piece in pieces(rng, data):
        out.extend(parser.feed(piece))
    return out + parser.close()


@pytest.mark.parametrize(
    "seed", [s for s in SEEDS if s.name == "openai-responses"], ids=lambda s: s.name
)
def test_responses_events_read_from_bytes_give_what_their_messages_give(seed: WireSeed) -> None:
    """The Responses decoder reads a common block (one data line holding an object) by
    parsing its bytes (``reads_json``); every event, in any split of the seed and of
    mutated streams, must be what reading each block as an SSE message gives."""

    from toolwire.providers.openai_responses import OpenAIResponsesDecoder

    # events the mutations rarely make: a type only in the event line, a handler that
    # fails on the event's shape (a message lost), a type that is no string, an error
    odd = [
        'event: response.output_text.delta\ndata: {"item_id":"m","delta":"by line"}',
        'data: {"type":"response.output_text.delta","item_id":"m","delta":"no line"}',
        'event: x\ndata: {"type":"response.completed","response":[1]}',
        'data: {"type":"response.output_item.added","output_index":0,"item":'
        '{"type":"function_call","id":"fc","call_id":"c","name":"get_weather","arguments":7}}',
        'data: {"type":5,"delta":"x"}',
        'event: error\ndata: {"message":"busy"}',
        "data: {'type': 'response.output_text.delta', 'delta': 'python'}",
    ]

    def case(rng: random.Random, number: int) -> None:
        if number < len(odd) * 16:  # each odd event after each of the seed's messages
            blocks = seed.frame(seed.messages(), rng).split("\n\n")
            at = min(number // len(odd), len(blocks) - 1)
            blocks.insert(at, odd[number % len(odd)])
            data = "\n\n".join(blocks)
        else:
            data = fuzzed_stream(seed, rng) if number % 7 else seed.frame(seed.messages(), rng)
        same_without(seed, data, rng, OpenAIResponsesDecoder, "reads_json", number)

    assert run_budgeted(INPUTS, SECONDS, case) >= 20


@pytest.mark.parametrize(
    "seed", [s for s in SEEDS if s.name in ("ollama", "gemini-array")], ids=lambda s: s.name
)
def test_objects_read_by_lines_give_what_the_splitter_gives(seed: WireSeed) -> None:
    """A JSON-object stream reads each whole line that is one object at once, without
    the splitter (``JsonStreamDecoder.reads_lines``); every event, in any split of the
    seed and of mutated streams, must be what the splitter alone gives. (Inside a JSON
    array every piece goes to the splitter: the Gemini array's seed checks that, and
    the lines after its ``]``.)"""

    from toolwire.providers.base import JsonStreamDecoder

    # lines the mutations rarely make: two objects on a line, an object over two
    # lines, junk, a blank line, a CR, bytes that are not UTF-8, a comma, a cut line
    odd = [
        '{"message":{"role":"assistant","content":"a"},"done":false}{"done":false}',
        '{"message":{"role":"assistant",\n"content":"b"},"done":false}',
        "data: junk",
        "",
        '{"message":{"role":"assistant","content":"c"},"done":false}\r',
        b'{"message":{"role":"assistant","content":"\xff"},"done":false}',
        ',{"message":{"role":"assistant","content":"d"},"done":false},',
        '   {"message":{"role":"assistant","content":"e"},"done":false}   ',
        '{"message":{"role":"assistant","content":"f"}',
        "7",
        '["a", {"done": true}]',
        '"text"',
        "null",
    ]

    def case(rng: random.Random, number: int) -> None:
        if number < len(odd) * 8:  # each odd line after each of the seed's first lines
            framed = seed.frame(seed.messages(), rng)
            text = framed.encode() if isinstance(framed, str) else framed
            lines = text.split(b"\n")
            line = odd[number % len(odd)]
            lines.insert(
                min(number // len(odd), len(lines)),
                line if isinstance(line, bytes) else line.encode(),
            )
            data: bytes | str = b"\n".join(lines)
        else:
            data = fuzzed_stream(seed, rng) if number % 7 else seed.frame(seed.messages(), rng)
        same_without(seed, data, rng, JsonStreamDecoder, "reads_lines", number)

    assert run_budgeted(INPUTS, SECONDS, case) >= 20


def test_object_streams_take_pieces_of_any_bytes_type() -> None:
    """A ``memoryview`` or ``bytearray`` piece reads as its bytes (review of
    2026-12-05: the line reading looked for line ends with ``find``, which a
    memoryview lacks)."""
    from toolwire.assemble import CallAssembler
    from toolwire.providers import GeminiDecoder, OllamaDecoder

    for make in (memoryview, bytearray, bytes):
        decoder = OllamaDecoder(CallAssembler())
        decoder.feed(b'{"message":{"content":"a"}}\n')
        decoder.feed(make(b'{"message":{"content":"b"}}\n{"message":'))
        decoder.feed(make(b'{"content":"c"}}\n'))
        decoder.close()
        assert [getattr(e, "text", None) for e in decoder.sink.drain()] == ["a", "b", "c"]
        gemini = GeminiDecoder(CallAssembler())
        gemini.feed(b'{"candidates":[]}\n')
        gemini.feed(make(b'{"candidates":[{"content":{"parts":[{"text":"hi"}]}}]}\n'))
        gemini.close()
        assert [getattr(e, "text", None) for e in gemini.sink.drain()] == ["hi"]


# -- the fast paths of the long streams (issue 15 §3), against the paths they skip -----


def _mixed_line_ends(rng: random.Random, text: bytes) -> bytes:
    """``text`` with each LF made LF, CRLF or CR: one style for all, or mixed."""
    style = rng.choice((b"\n", b"\r\n", b"\r", None))
    if style is not None:
        return text.replace(b"\n", style)
    lines = text.split(b"\n")
    out = [lines[0]]
    for line in lines[1:]:
        out += [rng.choice((b"\n", b"\r\n", b"\r")), line]
    return b"".join(out)


def _long_mixed_stream(
    rng: random.Random, plain: list[bytes], odd: list[bytes], between: bytes
) -> bytes:
    """Many plain messages with odd ones among them, sometimes cut off at the end."""
    messages = [rng.choice(plain) for _ in range(rng.randint(0, 40))]
    for _ in range(rng.randint(0, 6)):
        messages.insert(rng.randint(0, len(messages)), rng.choice(odd))
    data = b"".join(m + between for m in messages)
    if rng.random() < 0.2:
        data = data[: rng.randint(0, len(data))]
    return data


def _gemini_block(text: str, usage: object = None, **extra: object) -> bytes:
    chunk: dict[str, object] = {
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}],
        "responseId": "r7",
    }
    if usage is not None:
        chunk["usageMetadata"] = usage
    chunk.update(extra)
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode("utf-8", "surrogatepass")


GEMINI_PLAIN = [
    _gemini_block("def f(x):", {"promptTokenCount": 3, "candidatesTokenCount": 1}),
    _gemini_block("    return x", {"promptTokenCount": 3, "candidatesTokenCount": 2}),
    _gemini_block("Zürich ☃ "),
    _gemini_block("", {"candidatesTokenCount": 4, "thoughtsTokenCount": 2}),
]
# blocks the fast paths must leave to ``on_chunk`` or the SSE reading, or read as it
GEMINI_ODD = [
    b'data: {"error":{"code":500,"message":"busy"}}',
    b'data: {"error":null,"candidates":[{"content":{"parts":[{"text":"n"}]}}]}',
    _gemini_block("end.", {"promptTokenCount": 9}).replace(
        b'"index": 0', b'"index": 0, "finishReason": "STOP"'
    ),
    _gemini_block("bad", None).replace(b'"index": 0', b'"finishReason": "MALFORMED_FUNCTION_CALL"'),
    b'data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"get_weather",'
    b'"args":{"city":"Oslo","days":18446744073709551616}}}]},"index":0}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"hm","thought":true}]}}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"s","thoughtSignature":"c2ln"}]}}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"a"},{"text":"b"}]}}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"x","extra":1}]}}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":5}]}}]}',
    b'data: {"candidates":[{"content":{"parts":{"text":"d"}}}]}',
    b'data: {"candidates":[{"content":{"parts":["t"]}}]}',
    b'data: {"candidates":[{"content":["parts"]}]}',
    b'data: {"candidates":{"c":{"content":{"parts":[{"text":"e"}]}}}}',
    b'data: {"candidates":"c"}',
    b'data: {"candidates":[]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"i1"}]},"index":1}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"f"}]},"index":false}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"g"}]},"index":0.0}]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"h"}]}},{"content":{}}]}',
    _gemini_block("u1", [1]),
    _gemini_block("u2", {"promptTokenCount": True, "candidatesTokenCount": "3"}),
    _gemini_block("u3", {}),
    _gemini_block("n", None, usageMetadata=None),
    b'data: {"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":6}}',
    b'data: {"usageMetadata":{"promptTokenCount":7},"responseId":"r8"}',
    _gemini_block("p", None, promptFeedback={"blockReason": "SAFETY"}),
    _gemini_block("q", None, responseId=5),
    _gemini_block("lone \ud800"),
    b'data: {"candidates":[{"content":{"parts":[{"text":"\xff\xfe"}]}}]}',
    b": keep-alive",
    b'data:{"candidates":[{"content":{"parts":[{"text":"nospace"}]}}]}',
    b'event: message\ndata: {"candidates":[{"content":{"parts":[{"text":"ev"}]}}]}',
    b'id: 4\ndata: {"candidates":[{"content":{"parts":[{"text":"id"}]}}]}',
    b'data: {"candidates":[{"content":\ndata: {"parts":[{"text":"two lines"}]}}]}',
    b'data: {"candidates":\n[]}',
    b'data: {"candidates":[{"content":{"parts":[{"text":"sp"}]}}]}  \t',
    b"data: [DONE]",
    b"data: 5",
    b"data: {'candidates': [{'content': {'parts': [{'text': 'python'}]}}]}",
    b"data: ",
]


def _gemini_stream(rng: random.Random) -> bytes:
    data = _long_mixed_stream(rng, GEMINI_PLAIN, GEMINI_ODD, b"\n\n")
    return _mixed_line_ends(rng, data)


# Gemini text chunks as the API writes them and as bench/streams.py does, %s the
# text's JSON, %d the counts: the envelope reads such runs (``reads_envelope``)
GEMINI_SHAPES = [
    b'data: {"candidates": [{"content": {"parts": [{"text": %s}],"role": "model"},'
    b'"index": 0}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": %d,'
    b'"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 8}]'
    b'},"modelVersion": "gemini-2.5-flash","responseId": "mGVYadKvO8yp"}',
    b'data: {"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"index":0}],'
    b'"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":%d,"totalTokenCount":%d},'
    b'"modelVersion":"gemini-2.5-flash","responseId":"r1"}',
]
GEMINI_TEXTS = ["def f(x):", "", ' "q" \\ ', "Zürich ☃ \U0001f600", "\n\t", "\u2028", "lone \ud800"]
# bytes a mutation puts in a chunk: digits, zeros, signs, letters, JSON's punctuation,
# a line end, a byte that is not UTF-8
GEMINI_BYTES = b'00123456789-x"\\{}[],: \n\xff'


def _gemini_usage_stream(rng: random.Random) -> bytes:
    """Runs of text chunks of one shape whose counts grow (some by a digit), a few
    with a byte changed, put in or dropped (most often after the text, where the
    envelope lets integers differ), with odd blocks among them, sometimes cut off."""
    shape = rng.choice(GEMINI_SHAPES)
    count = rng.choice((0, 5, 95, 990))
    blocks = []
    for _ in range(rng.randint(1, 40)):
        count += rng.choice((0, 1, 1, 2, 7))
        text = rng.choice(GEMINI_TEXTS)
        block = shape % (json.dumps(text).encode(), count, count + 8)
        if rng.random() < 0.15:
            at = rng.randrange(len(block) // 3, len(block))
            kind = rng.random()
            digits = [i for i in range(at, len(block)) if block[i] in b"0123456789"]
            if kind < 0.3 and digits:  # a digit made another (a 0 most often)
                at = rng.choice(digits)
                block = block[:at] + rng.choice((b"0", b"1", b"9")) + block[at + 1 :]
            elif kind < 0.7:
                block = block[:at] + bytes([rng.choice(GEMINI_BYTES)]) + block[at + 1 :]
            elif kind < 0.85:
                block = block[:at] + bytes([rng.choice(GEMINI_BYTES)]) + block[at:]
            else:
                block = block[:at] + block[at + 1 :]
        elif rng.random() < 0.05:
            block = rng.choice(GEMINI_ODD)
        blocks.append(block)
    data = b"".join(b + b"\n\n" for b in blocks)
    if rng.random() < 0.2:
        data = data[: rng.randint(0, len(data))]
    return _mixed_line_ends(rng, data)


def test_gemini_envelopes_read_what_whole_chunks_give() -> None:
    """A Gemini chunk of one part's text read by the envelope of the last one read
    whole, the integers of its usage let differ (``reads_envelope``): every event, in
    any split of runs of such chunks, some changed a byte or cut off, with odd blocks
    among them (and of mutated seeds), must be what each chunk read whole gives."""
    from unittest import mock

    from toolwire.providers import GeminiDecoder

    seed = next(s for s in SEEDS if s.name == "gemini-sse")

    def case(rng: random.Random, number: int) -> None:
        data = fuzzed_stream(seed, rng) if number % 5 == 4 else _gemini_usage_stream(rng)
        # (learning from the first chunk of text on, or as the decoder does)
        with mock.patch.object(GeminiDecoder, "learn_after", rng.choice((0, 0, 1, 8))):
            same_without(seed, data, rng, GeminiDecoder, "reads_envelope", number)

    assert run_budgeted(INPUTS, SECONDS, case) >= 20


@pytest.mark.parametrize("flag", ["reads_text", "reads_bytes", "reads_envelope"])
def test_gemini_chunks_read_apart_give_what_on_chunk_gives(flag: str) -> None:
    """Gemini's SSE blocks are parsed from their bytes (``reads_bytes``), and a chunk
    holding nothing but one part's text skips ``on_chunk``, its usage made a Usage
    once, at the end (``reads_text``); every event, in any split of long streams of
    such chunks with odd blocks among them (and of mutated seeds), line ends of every
    kind, must be what the path each flag turns on replaces gives (text deltas of one
    ``feed`` may come joined)."""
    from toolwire.providers import GeminiDecoder

    seed = next(s for s in SEEDS if s.name == "gemini-sse")

    def case(rng: random.Random, number: int) -> None:
        data = fuzzed_stream(seed, rng) if number % 5 == 4 else _gemini_stream(rng)
        same_without(seed, data, rng, GeminiDecoder, flag, number)

    assert run_budgeted(INPUTS, SECONDS, case) >= 20


def _ollama_line(content: object, **extra: object) -> bytes:
    chunk = {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z"}
    chunk |= {"message": {"role": "assistant", "content": content}, "done": False}
    chunk.update(extra)
    return json.dumps(chunk, ensure_ascii=False).encode("utf-8", "surrogatepass")


OLLAMA_PLAIN = [
    _ollama_line("def f(x):"),
    _ollama_line(" Zürich ☃"),
    _ollama_line(""),
    # reasoning alone (qwen3, deepseek-r1 with ``think``): the text empty
    b'{"model":"qwen3","message":{"role":"assistant","content":"","thinking":"Hm, "},"done":false}',
    b'{"message":{"role":"assistant","content":"","thinking":"\\u00e9 \\ud83d\\ude00"}}',
]
OLLAMA_ODD = [
    b'{"error":"model not found"}',
    _ollama_line("e", error=None),
    _ollama_line("t", thinking="top"),
    _ollama_line("r", response="gen"),
    _ollama_line("", done=True, done_reason="stop", prompt_eval_count=3, eval_count=4),
    _ollama_line("d", done=None),
    b'{"message":{"role":"assistant","content":"m","thinking":"hm"},"done":false}',
    b'{"message":{"role":"assistant","thinking":"no content"},"done":false}',
    b'{"message":{"role":"assistant","content":null,"thinking":"null content"}}',
    b'{"message":{"role":"assistant","content":"","thinking":5}}',
    b'{"message":{"role":"assistant","content":"","thinking":null}}',
    b'{"message":{"role":"assistant","content":"","thinking":"t","tool_calls":[{"function":'
    b'{"name":"get_weather","arguments":{"city":"Oslo"}}}]},"done":false}',
    b'{"message":{"role":"assistant","content":"","thinking":"\xff"}}',
    b'{"thinking":"top","message":{"role":"assistant","content":"","thinking":"both"}}',
    b'{"message":{"role":"assistant","content":"","thinking":"d"},"done":true}',
    b'{"message":{"role":"assistant","content":"","tool_calls":[{"function":'
    b'{"name":"get_weather","arguments":{"city":"Oslo"}}}]},"done":false}',
    b'{"message":{"role":"assistant","tool_calls":null},"done":false}',
    _ollama_line(5),
    _ollama_line(None),
    b'{"message":"text","done":false}',
    b'{"done":false}',
    b'{"model":"other","created_at":"x","message":{"content":"first"}}',
    _ollama_line("lone \ud800"),
    b'{"message":{"role":"assistant","content":"\xff"},"done":false}',
    b'{"message":{"content":"a"}}{"message":{"content":"b"}}',
    b'{"message":{"content":\n"over two lines"}}',
    b"   \t",
    b"junk",
    b"[1, 2]",
    b'  {"message":{"content":"padded"}}  ',
]


@pytest.mark.parametrize("seed", [s for s in SEEDS if s.name == "ollama"], ids=lambda s: s.name)
def test_ollama_text_chunks_read_apart_give_what_on_chunk_gives(seed: WireSeed) -> None:
    """An Ollama chunk holding nothing but message text skips ``on_chunk``
    (``OllamaDecoder.reads_text``); every event, in any split of long streams of such
    lines with odd lines among them (and of mutated seeds), must be what ``on_chunk``
    gives (text deltas of one ``feed`` may come joined)."""
    from toolwire.providers import OllamaDecoder

    def case(rng: random.Random, number: int) -> None:
        if number % 5 == 4:
            data = fuzzed_stream(seed, rng)
        else:
            data = _long_mixed_stream(rng, OLLAMA_PLAIN, OLLAMA_ODD, b"\n")
            if rng.random() < 0.3:
                data = data.replace(b"\n", b"\r\n")
        same_without(seed, data, rng, OllamaDecoder, "reads_text", number)

    assert run_budgeted(INPUTS, SECONDS, case) >= 20


def _stamped_line(stamp: str, content: str, **extra: object) -> bytes:
    """An Ollama text chunk as Ollama writes it: compact, ``<``, ``>`` and ``&``
    escaped (Go's encoding/json)."""
    chunk = {"model": "qwen3", "created_at": stamp}
    chunk |= {"message": {"role": "assistant", "content": content}, "done": False}
    chunk.update(extra)
    return _go_json(chunk)


def _go_json(value: object) -> bytes:
    """``value`` as Go's encoding/json writes it: compact, ``<``, ``>`` and ``&``
    escaped."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.encode("utf-8", "surrogatepass")


def _odd_bodies(make: Callable[[str, object], bytes]) -> list[bytes]:
    """Lines ``make`` writes, their string body or their end damaged: a surrogate
    pair's halves, escaped, on two lines; a character's bytes on two; bodies that are
    no string token; a last brace lost; bytes after the object."""
    line = make("2025-06-01T10:00:00Z", "z")

    def body(raw: bytes) -> bytes:
        return line.replace(b'"z"', raw, 1)

    return [
        body(b'"lone \\ud83d"') + b"\n" + body(b'"\\ude00 other half"'),
        body(b'"cut \xe2\x98"') + b"\n" + body(b'"\x83 rest"'),
        body(b'"bad \\x escape"'),
        body(b'"raw \x01 control"'),
        body(b'"bad \xff byte"'),
        body(b'"ends \\\\"'),
        body(b'"two" "strings"'),
        line[:-1],
        line + b"\r",
        line + b" ",
        line + b'{"message":{"content":"more"}}',
    ]


# stamps as servers write them and texts as models write them: (stamp, text)
STAMPED_TEXTS = [
    ("2025-06-01T10:00:00.123456789Z", "def f(x):"),
    ("2023-08-04T08:52:19.385406455-07:00", " a < b && c > d"),
    ("2025-06-01T10:00:01Z", ""),
    ("2025-06-01T10:00:02.5+02:00", ' "quoted" \\ back\nline\ttab } { ] ['),
    ("", " Zürich ☃ 😀"),
]
OLLAMA_STAMPED = [_stamped_line(stamp, text) for stamp, text in STAMPED_TEXTS]
# lines of that shape (or nearly) that the envelope must leave to the line-by-line
# reading, or read as it does
OLLAMA_STAMPED_ODD = [
    _stamped_line("STAMP", "injected").replace(b"STAMP", b'2025","done":true,"x":"'),
    _stamped_line("STAMP", "injected").replace(b"STAMP", b'2025","message":{"content":"m'),
    _stamped_line('2025", "done": true, "x": "', "escaped quotes in the stamp"),
    _stamped_line("2025\\u0022", "escaped stamp"),
    _stamped_line("2025 06 01", "space in stamp"),
    _stamped_line("2025-06-01T10:00:00Zé", "non-ASCII stamp"),
    _stamped_line("2025\t", "tab in stamp"),
    _stamped_line("2025-06-01T10:00:00Z", "x", done=True, done_reason="stop"),
    _stamped_line("2025-06-01T10:00:00Z", "y", extra=1),
    *_odd_bodies(_stamped_line),
    _stamped_line("2025-06-01T10:00:00Z", "t", thinking="top"),
    b"",
]


@pytest.mark.parametrize("learn_after", [0, 2])
def test_ollama_lines_read_by_their_envelope_give_what_parsing_them_gives(
    learn_after: int,
) -> None:
    """Once a text chunk's line taught the decoder its bytes around the timestamp and
    the text (``OllamaDecoder.reads_envelope``), runs of such lines are read at once;
    every event, in any split of long streams of such lines with other stamps and
    texts (Go's escapes, quotes, backslashes, surrogate pairs, no stamp), with lines of
    nearly that shape among them (a quote, escape, space or letter in the stamp, other
    members, a surrogate's halves on two lines, bytes that are not UTF-8 or cut
    characters, a raw control character, lost braces, CR, two objects, blank lines)
    and with other odd lines, must be what parsing each line gives."""
    from unittest import mock

    from toolwire.providers import OllamaDecoder
    from toolwire.providers import ollama as ollama_module

    seed = next(s for s in SEEDS if s.name == "ollama")

    def case(rng: random.Random, number: int) -> None:
        odd = OLLAMA_STAMPED_ODD if number % 3 else OLLAMA_STAMPED_ODD + OLLAMA_ODD
        data = _long_mixed_stream(rng, OLLAMA_STAMPED, odd, b"\n")
        same_without(seed, data, rng, OllamaDecoder, "reads_envelope", number)

    # (learning from a line once that many lines came in the pieces after it)
    with mock.patch.object(ollama_module, "_LEARN_AFTER", learn_after):
        assert run_budgeted(INPUTS, SECONDS, case) >= 20


def test_ollama_lines_are_read_by_their_envelope_once_learned() -> None:
    """The envelope is learned from a text chunk's line read whole, once
    ``_LEARN_AFTER`` lines came in the pieces after it (a stream that ends sooner never
    learns), and then reads whole runs of lines (not ``read_lines``), from the piece
    whose lines made it learn on; a run with one line of another shape is read line by
    line, and says the same; one whose last line is of another shape has the lines
    before it read by the envelope, and that one by ``read_lines``."""
    from unittest import mock

    from toolwire.assemble import CallAssembler
    from toolwire.providers import OllamaDecoder
    from toolwire.providers.ollama import _LEARN_AFTER

    def piece(tag: str, count: int) -> list[bytes]:
        stamps = (f"2025-06-02T00:00:{n % 60:02d}.5+01:00" for n in range(count))
        return [
            _stamped_line(stamp, f'<{tag}{n}> \\ "x" 😀') + b"\n" for n, stamp in enumerate(stamps)
        ]

    def said(lines: list[bytes]) -> str:
        return "".join(_said(line) for line in lines)

    decoder = OllamaDecoder(CallAssembler())
    first, few, run = piece("a", 3), piece("f", _LEARN_AFTER - 1), piece("r", 2)
    decoder.feed(b"".join(first))
    decoder.feed(b"".join(few))
    assert decoder._text.envelope is None  # (a stream that ends here never learns)
    with mock.patch.object(OllamaDecoder, "read_lines", side_effect=AssertionError):
        decoder.feed(b"".join(run))
    assert decoder._text.envelope is not None
    odd = _stamped_line("2025\\u0022", "odd") + b"\n"
    decoder.feed(run[0] + odd + run[1])
    last = _stamped_line("2025-06-02T00:00:01Z", "", done=True, done_reason="length") + b"\n"
    reading = OllamaDecoder.read_lines
    with mock.patch.object(OllamaDecoder, "read_lines", autospec=True) as read_lines:
        read_lines.side_effect = reading
        decoder.feed(run[1] + run[0] + last)
    assert [call.args[1] for call in read_lines.call_args_list] == [[last[:-1]]]
    decoder.close()
    text = "".join(getattr(e, "text", "") for e in decoder.sink.drain())
    assert text == said(first + few + run + [run[0], odd, run[1], run[1], run[0]])
    assert decoder.finished  # (the last line read)


def _said(line: bytes) -> str:
    """The text of an Ollama line (of a chunk of text)."""
    import orjson

    return str(orjson.loads(line)["message"]["content"])


def test_an_envelope_of_lines_that_reads_few_pieces_is_dropped() -> None:
    """Pieces with a line of another shape each are read line by line, the envelope's
    pattern having looked at them in vain: a few more such pieces than it read whole,
    and the decoder stops looking (the text the same throughout)."""
    from toolwire.assemble import CallAssembler
    from toolwire.providers import OllamaDecoder
    from toolwire.providers.ollama import _LEARN_AFTER, _SPARE_MISSES

    decoder = OllamaDecoder(CallAssembler())
    lines = [_stamped_line(f"2025-06-01T10:00:{n:02d}Z", f"t{n}") + b"\n" for n in range(40)]
    decoder.feed(b"".join(lines[:3]))
    decoder.feed(b"".join(lines[:_LEARN_AFTER]))  # (learned, and read whole: one run)
    assert decoder._text.envelope is not None
    odd = _stamped_line("2025-06-01T10:00:00Z", "odd", extra=1) + b"\n"
    for n in range(1 + _SPARE_MISSES + 1):  # (one more than the run and the spares)
        assert decoder._text.envelope is not None, n
        decoder.feed(odd + lines[0])
    assert decoder._text.envelope is None
    decoder.feed(lines[1] + lines[2])
    decoder.close()
    text = "".join(getattr(e, "text", "") for e in decoder.sink.drain())
    expected = ["t0", "t1", "t2"] + [f"t{n}" for n in range(_LEARN_AFTER)]
    expected += ["oddt0"] * (_SPARE_MISSES + 2) + ["t1t2"]
    assert text == "".join(expected)


def test_an_envelope_of_lines_is_learned_only_where_a_probe_reads_back() -> None:
    """``learn_stamped_line`` refuses a line whose stamp has other characters, whose
    keys come twice or in a place the reader does not take them from."""
    import orjson

    from toolwire.providers.envelope import learn_stamped_line

    def learn(line: bytes) -> object:
        chunk = orjson.loads(line)

        def expected(stamp: str, content: str) -> object:
            message = chunk.get("message") or {}
            return chunk | {"created_at": stamp, "message": message | {"content": content}}

        return learn_stamped_line(line, "created_at", "content", expected)

    assert learn(_stamped_line("2025-06-01T10:00:00Z", "a")) is not None
    assert learn(_stamped_line("2025-06-01 10:00:00Z", "a")) is None  # (a space)
    assert learn(_stamped_line("2025-06-01T10:00:00Z", "a", created_at="x")) is None
    twice = b'{"created_at":"1","message":{"content":"a","content":"b"},"done":false}'
    assert learn(twice) is None
    elsewhere = b'{"created_at":"1","message":{"role":"x"},"x":{"content":"a"}}'
    assert learn(elsewhere) is None
    stamp_nested = b'{"x":{"created_at":"1"},"message":{"content":"a"}}'
    assert learn(stamp_nested) is None
    # (a line whose other members are long: its pattern would be long to make)
    assert learn(_stamped_line("2025-06-01T10:00:00Z", "a", pad="x" * 4000)) is None
    assert learn(_stamped_line("2025-06-01T10:00:00Z", "a" * 8000, pad="x" * 3000))


def test_a_line_cut_after_its_envelope_was_learned_is_held_as_parsing_would_hold_it() -> None:
    """Each piece gives the events it gives without the envelope, however the lines
    after the learned ones are cut: a line cut inside its stamp, its gap or its string
    is held for the next piece (``LineEnvelope.begun``), one cut after its string's
    closing quote, or a whole object without its LF, is what the reading without
    the envelope makes of it."""
    from unittest import mock

    from toolwire.providers import OllamaDecoder
    from toolwire.providers import ollama as ollama_module

    head = b"".join(_stamped_line(f"2025-01-01T00:00:{n:02d}Z", f"t{n}") + b"\n" for n in range(3))
    line = _stamped_line("2025-01-01T00:01:00.5Z", 'cut } { "here" \\')
    tails = [
        line + b"\n" + line + b"\n",
        line + b'{"message":{"content":"more"}}\n',
        line[:-1] + b"}" + line + b"\n",
        line.replace(b"2025-01-01", b'2025","x":"') + b"\n",
        line.replace(b"here", b'here\\"},"done":true,"x":"') + b"\n",
    ]

    def per_piece(parts: list[bytes]) -> list[list[Event]]:
        parser = StreamParser("ollama", [WEATHER])
        return [*(joined_text(parser.feed(p)) for p in parts), joined_text(parser.close())]

    with mock.patch.object(ollama_module, "_LEARN_AFTER", 0):
        for tail in tails:
            for cut in range(len(tail) + 1):
                parts = [head, head, tail[:cut], tail[cut:]]  # (learned: the second)
                fast = per_piece(parts)
                with mock.patch.object(OllamaDecoder, "reads_envelope", False):
                    assert fast == per_piece(parts), (tail, cut)


def _stamped_thought(stamp: str, thought: object, **extra: object) -> bytes:
    """An Ollama chunk of reasoning alone (``think``), the text empty, as Ollama writes
    it (see ``_stamped_line``)."""
    line = _stamped_line(stamp, "", **extra)
    return line.replace(b'"content":""', b'"content":"","thinking":' + _go_json(thought), 1)


OLLAMA_THOUGHTS = [_stamped_thought(stamp, text) for stamp, text in STAMPED_TEXTS]
# lines of nearly that shape, and of reasoning with text, that the reasoning's envelope
# must leave to the line-by-line reading, or read as it does
OLLAMA_THOUGHTS_ODD = [
    _stamped_thought("2025-06-01T10:00:00Z", "t").replace(b'"content":""', b'"content":"x"'),
    _stamped_thought("2025-06-01T10:00:00Z", "t").replace(b'"content":"",', b""),
    _stamped_thought("2025-06-01T10:00:00Z", "t").replace(b'"content":""', b'"content":null'),
    _stamped_thought("2025-06-01T10:00:00Z", 5),
    _stamped_thought("2025-06-01T10:00:00Z", None),
    _stamped_thought("2025-06-01T10:00:00Z", "t", done=True, done_reason="stop"),
    _stamped_thought("2025-06-01T10:00:00Z", "t", thinking="top"),
    _stamped_thought("2025-06-01T10:00:00Z", "t", extra=1),
    _stamped_thought("2025 06 01", "space in stamp"),
    _stamped_thought("STAMP", "t").replace(b"STAMP", b'2025","done":true,"x":"'),
    _stamped_thought("2025-06-01T10:00:00Z", "z").replace(b'"z"', b'"z","thinking":"twice"'),
    _stamped_thought("2025-06-01T10:00:00Z", "z").replace(b'"z"', b'"z"},"message":{"a":"b"'),
    _stamped_thought("2025-06-01T10:00:00Z", "z").replace(b'"z"', b'"z","tool_calls":[]'),
    *_odd_bodies(_stamped_thought),
    # text and reasoning the other way round in the message
    b'{"model":"qwen3","created_at":"2025-06-01T10:00:00Z","message":{"role":"assistant",'
    b'"thinking":"first","content":""},"done":false}',
    b'{"model":"qwen3","created_at":"2025-06-01T10:00:00Z","message":{"role":"assistant",'
    b'"content":"","thinking":"t","tool_calls":[{"function":{"name":"get_weather",'
    b'"arguments":{"city":"Oslo"}}}]},"done":false}',
    b"",
]


def _reasoning_then_text(rng: random.Random) -> bytes:
    """Runs of reasoning lines and of text lines (most often reasoning, then text, as
    a model asked to think sends them; sometimes back and forth), with lines of nearly
    either shape and other odd lines among them, sometimes cut off."""
    messages: list[bytes] = []
    for phase in range(rng.choice((1, 2, 2, 2, 3, 6))):
        plain = OLLAMA_THOUGHTS if phase % 2 == 0 else OLLAMA_STAMPED
        messages += [rng.choice(plain) for _ in range(rng.choice((1, 5, 30, 80)))]
    odd = OLLAMA_THOUGHTS_ODD + OLLAMA_STAMPED_ODD + OLLAMA_ODD
    for _ in range(rng.choice((0, 0, 1, 3))):
        messages.insert(rng.randint(0, len(messages)), rng.choice(odd))
    data = b"".join(m + b"\n" for m in messages)
    if rng.random() < 0.2:
        data = data[: rng.randint(0, len(data))]
    return data


@pytest.mark.parametrize("learn_after", [0, 2, 16])
def test_ollama_reasoning_lines_read_by_their_envelope_give_what_parsing_them_gives(
    learn_after: int,
) -> None:
    """A chunk of reasoning alone teaches the decoder a second envelope, around its
    stamp and its reasoning (its text, "", kept as bytes); runs of either kind of line
    are read by their own envelope. Every event, in any split of streams of reasoning
    lines then text lines (or back and forth) with lines of nearly either shape among
    them (other members, text with the reasoning, reasoning not a string, a
    surrogate's halves or a character's bytes on two lines, bad escapes), must be what
    parsing each line gives, in the same order."""
    from unittest import mock

    from toolwire.providers import OllamaDecoder
    from toolwire.providers import ollama as ollama_module

    seed = next(s for s in SEEDS if s.name == "ollama")

    def case(rng: random.Random, number: int) -> None:
        same_without(seed, _reasoning_then_text(rng), rng, OllamaDecoder, "reads_envelope", number)

    # (learning from a line once that many lines came in the pieces after it)
    with mock.patch.object(ollama_module, "_LEARN_AFTER", learn_after):
        assert run_budgeted(INPUTS, SECONDS, case) >= 20


def test_reasoning_then_text_lines_are_each_read_by_their_envelope() -> None:
    """Reasoning lines teach the decoder their envelope, which reads whole runs of
    them (not ``read_lines``); then text lines teach it theirs: the piece where the
    stream turns is read line by line, and the runs after it by the text's envelope,
    the reasoning's kept (a stream that turns back is read by it again). Neither is
    dropped for the turns, however many, and each piece gives what parsing each of
    its lines gives."""
    from unittest import mock

    from toolwire.assemble import CallAssembler
    from toolwire.providers import OllamaDecoder
    from toolwire.providers import ollama as ollama_module

    def lines(make: Callable[..., bytes], tag: str, count: int) -> bytes:
        return b"".join(
            make(f"2025-06-01T10:00:{n % 60:02d}.5Z", f"<{tag}{n}> \\ 😀") + b"\n"
            for n in range(count)
        )

    count = ollama_module._LEARN_AFTER + 2
    decoder = OllamaDecoder(CallAssembler())
    fed: list[bytes] = []
    out: list[list[Event]] = []

    def feed(piece: bytes, whole: bool = True) -> None:
        fed.append(piece)
        if whole:
            decoder.feed(piece)
        else:  # (read by an envelope, at once)
            with mock.patch.object(OllamaDecoder, "read_lines", side_effect=AssertionError):
                decoder.feed(piece)
        out.append(joined_text(decoder.sink.drain()))

    feed(lines(_stamped_thought, "a", count))
    feed(lines(_stamped_thought, "b", count))  # (learns, if it waits for a piece)
    assert decoder._thinking.envelope is not None
    feed(lines(_stamped_thought, "c", 5), whole=False)
    for turn in range(2 * (ollama_module._SPARE_MISSES + 2)):
        make, tag = (_stamped_line, "t") if turn % 2 == 0 else (_stamped_thought, "r")
        feed(lines(make, tag, 3) + lines(make, tag + "x", count))  # (turns: line by line)
        feed(lines(make, tag + "y", count))  # (learns the text's, if it waits)
        feed(lines(make, tag + "z", 4), whole=False)
    decoder.close()
    out.append(joined_text(decoder.sink.drain()))
    assert decoder._thinking.envelope is not None and decoder._text.envelope is not None
    slow = OllamaDecoder(CallAssembler())
    with mock.patch.object(OllamaDecoder, "reads_envelope", False):
        for piece in fed:
            slow.feed(piece)
            assert out.pop(0) == joined_text(slow.sink.drain())
        slow.close()
    assert out == [joined_text(slow.sink.drain())]


def test_a_long_line_is_not_kept_to_learn_an_envelope_from() -> None:
    """A kind's line is kept to learn its envelope from until one is learned, which
    never comes where the stream turns to the other kind: a line longer than any
    delta's is not kept, so a 1 MB reasoning line is not held to the stream's end
    (review 17 #1), and the envelope is learned from a short line of its kind."""
    from toolwire.assemble import CallAssembler
    from toolwire.providers import OllamaDecoder
    from toolwire.providers import ollama as ollama_module

    stamp = "2025-06-01T10:00:00Z"
    decoder = OllamaDecoder(CallAssembler())
    decoder.feed(_stamped_thought(stamp, "y" * 1_000_000) + b"\n")
    for n in range(ollama_module._LEARN_AFTER + 4):
        decoder.feed(_stamped_line(stamp, f"t{n}") + b"\n")
    assert decoder._thinking.kept is None
    assert decoder._text.envelope is not None
    decoder.feed(b"".join(_stamped_thought(stamp, t) + b"\n" for t in ("y" * 100_000, "short")))
    assert decoder._thinking.kept == _stamped_thought(stamp, "short")
