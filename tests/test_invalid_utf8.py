"""Bytes that are not UTF-8 inside arguments (F29), and characters split across reads
(F27).

Decoding with U+FFFD in place of such bytes is a repair: the call whose argument text
got the replacement is ``repaired`` with ``invalid_utf8``, never ``complete``. A U+FFFD
the model really sent (as UTF-8 or as a JSON escape) is no repair, and how the bytes
were split into reads changes nothing.
"""

from __future__ import annotations

import json
import random

import pytest

from toolwire.events import Event, StreamResult
from toolwire.parser import StreamParser, parse_stream

BAD = b"\xff"  # never valid in UTF-8
CUT = b"\xe2\x82"  # the first two bytes of a three-byte character, and no third
REAL = "\ufffd".encode()  # a replacement character sent as valid UTF-8


def openai_sse(pieces: list[bytes], content: bytes = b"") -> bytes:
    """Chunks written by hand so the argument bytes go on the wire as they are."""
    out = [
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1",'
        b'"type":"function","function":{"name":"f","arguments":""}}]}}]}\n\n'
    ]
    for i, piece in enumerate(pieces):
        text = b',"content":"' + content + b'"' if content and i == 0 else b""
        out.append(
            b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,'
            b'"function":{"arguments":"' + piece + b'"}}]' + text + b"}}]}\n\n"
        )
    out.append(b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n')
    return b"".join(out) + b"data: [DONE]\n\n"


def args(text: bytes) -> bytes:
    """``text`` as the bytes of a JSON string's content (quotes escaped)."""
    return text.replace(b"\\", b"\\\\").replace(b'"', b'\\"')


def in_reads(data: bytes, fmt: str, seed: int) -> StreamResult:
    rng = random.Random(seed)
    parser = StreamParser(fmt)
    events: list[Event] = []
    at = 0
    while at < len(data):
        step = rng.randint(1, 9)
        events += parser.feed(data[at : at + step])
        at += step
    return StreamResult.collect(events + parser.close())


def repaired_call(wire: bytes, fmt: str, arguments: dict[str, str], seeds: int = 10) -> None:
    """``wire`` holds one call, read as ``arguments`` with U+FFFD where bytes were not
    UTF-8, named ``repaired`` with ``invalid_utf8``, the same in any reads."""
    result = parse_stream(wire, fmt)
    (call,) = result.calls
    assert (call.status, call.arguments) == ("repaired", arguments)
    assert "invalid_utf8" in call.repairs
    for seed in range(seeds):
        assert in_reads(wire, fmt, seed).to_dict() == result.to_dict()


@pytest.mark.parametrize("bad", [BAD, CUT], ids=["ff", "cut-char"])
def test_invalid_bytes_in_arguments_are_a_named_repair_F29(bad: bytes) -> None:
    wire = openai_sse([args(b'{"city": "Par'), args(b"is" + bad + b'"}')])
    repaired_call(wire, "openai-chat", {"city": "Paris\ufffd"}, seeds=20)


def test_a_real_replacement_character_is_no_repair_F29() -> None:
    for sent in (REAL, b"\\\\ufffd"):  # as UTF-8, and as a JSON escape
        wire = openai_sse([args(b'{"q": "a'), b"b" + sent + b'c\\"}'])
        (call,) = parse_stream(wire, "openai-chat").calls
        assert (call.status, call.repairs, call.arguments) == ("complete", (), {"q": "ab\ufffdc"})


def test_bad_bytes_elsewhere_do_not_flag_a_real_replacement_character_F29() -> None:
    """One message: bad bytes in its text, a real U+FFFD in its arguments."""
    wire = openai_sse([args('{"q": "x\ufffd"}'.encode())], content=b"hi" + BAD)
    result = parse_stream(wire, "openai-chat")
    (call,) = result.calls
    assert (call.status, call.arguments) == ("complete", {"q": "x\ufffd"})
    assert result.text == "hi\ufffd"


def test_only_the_call_with_bad_bytes_is_repaired_F29() -> None:
    chunks = [
        {"index": 0, "id": "a", "type": "function", "function": {"name": "f", "arguments": ""}},
        {"index": 1, "id": "b", "type": "function", "function": {"name": "g", "arguments": ""}},
    ]
    heads = [{"choices": [{"index": 0, "delta": {"tool_calls": [c]}}]} for c in chunks]
    wire = b"".join(b"data: " + json.dumps(h).encode() + b"\n\n" for h in heads)
    wire += (
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":['
        b'{"index":0,"function":{"arguments":"{\\"x\\": \\"' + BAD + b'\\"}"}},'
        b'{"index":1,"function":{"arguments":"{\\"y\\": 1}"}}]}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    calls = parse_stream(wire, "openai-chat").calls
    assert [(c.name, c.status, c.arguments) for c in calls] == [
        ("f", "repaired", {"x": "\ufffd"}),
        ("g", "complete", {"y": 1}),
    ]


def test_split_multibyte_characters_are_not_invalid_F27() -> None:
    wire = openai_sse([args('{"city": "Zürich ☃ 𝄞'.encode()), args(b'"}')])
    for seed in range(40):
        (call,) = in_reads(wire, "openai-chat", seed).calls
        assert (call.status, call.arguments) == ("complete", {"city": "Zürich ☃ 𝄞"})


def test_bad_bytes_after_an_envelope_was_learned_F29() -> None:
    """The envelope fast path reads the same bytes; it must not hide the repair."""
    pieces = [args(b'{"q": "')] + [b"ab"] * 30 + [b"c" + BAD, b'\\"}']
    result = parse_stream(openai_sse(pieces), "openai-chat")
    (call,) = result.calls
    assert call.status == "repaired"
    assert "invalid_utf8" in call.repairs
    assert call.arguments == {"q": "ab" * 30 + "c\ufffd"}


def anthropic_sse(partial_json: list[bytes]) -> bytes:
    events: list[bytes] = [
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"tool_use","id":"t1","name":"f","input":{}}}\n\n'
    ]
    for piece in partial_json:
        events.append(
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
            b'"delta":{"type":"input_json_delta","partial_json":"' + piece + b'"}}\n\n'
        )
    events.append(b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n')
    events.append(
        b'event: message_delta\ndata: {"type":"message_delta",'
        b'"delta":{"stop_reason":"tool_use"},"usage":{}}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    return b"".join(events)


def test_invalid_bytes_in_anthropic_partial_json_F29() -> None:
    wire = anthropic_sse([args(b'{"a": "x'), args(BAD + b'y"}')])
    repaired_call(wire, "anthropic", {"a": "x\ufffdy"})


def ollama_lines(arguments: bytes, content: bytes = b"") -> bytes:
    return (
        b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"'
        + content
        + b'","tool_calls":[{"function":{"name":"f","arguments":'
        + arguments
        + b'}}]},"done":false}\n'
        b'{"model":"m","created_at":"t","message":{"role":"assistant","content":""},'
        b'"done":true,"done_reason":"stop"}\n'
    )


def test_invalid_bytes_in_a_json_stream_call_F29() -> None:
    result = parse_stream(ollama_lines(b'{"city": "Z' + BAD + b'rich"}'), "ollama")
    (call,) = result.calls
    assert (call.status, call.arguments) == ("repaired", {"city": "Z\ufffdrich"})
    assert "invalid_utf8" in call.repairs


def test_a_json_stream_with_bad_bytes_only_in_its_text_F29() -> None:
    result = parse_stream(ollama_lines('{"q": "\ufffd"}'.encode(), b"ok" + BAD), "ollama")
    (call,) = result.calls
    assert (call.status, call.arguments) == ("complete", {"q": "\ufffd"})
    assert result.text == "ok\ufffd"


def test_sse_decoder_alone_still_replaces() -> None:
    """``toolwire.sse`` used on its own keeps handing out U+FFFD."""
    from toolwire.sse import SSEDecoder

    (message,) = SSEDecoder().feed(b"data: a" + BAD + b"b\n\n")
    assert message.data == "a\ufffdb"


def gemini_sse(arguments: bytes, text: bytes = b"") -> bytes:
    parts = b'{"text":"' + text + b'"},' if text else b""
    return (
        b'data: {"candidates":[{"content":{"parts":[' + parts + b'{"functionCall":{"name":"f",'
        b'"args":' + arguments + b'}}],"role":"model"},"index":0}],"responseId":"r"}\r\n\r\n'
        b'data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},'
        b'"finishReason":"STOP","index":0}]}\r\n\r\n'
    )


def test_invalid_bytes_in_a_gemini_sse_call_F29() -> None:
    """Gemini's SSE framing names the repair as its JSON framing does."""
    for wire in (gemini_sse(b'{"city": "Z' + BAD + b'rich"}'), gemini_array()):
        repaired_call(wire, "gemini", {"city": "Z\ufffdrich"})
    result = parse_stream(gemini_sse('{"q": "\ufffd"}'.encode(), b"ok" + BAD), "gemini")
    (call,) = result.calls
    assert (call.status, call.arguments) == ("complete", {"q": "\ufffd"})
    assert result.text == "ok\ufffd"


def gemini_array() -> bytes:
    """The first chunk of ``gemini_sse`` in Gemini's JSON-array framing."""
    return (
        b'[{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":'
        b'{"city": "Z' + BAD + b'rich"}}}],"role":"model"},"index":0}],"responseId":"r"}]'
    )
