"""A call cut off inside a string (a value, or a key) is read by ``lenient.read_cut_string``
before the ladder's other steps: the ladder's answer is exactly the one it gives
without that reading (value, repairs, status, error), for every text.

Differential: JSON values cut at every offset (strings holding brackets, quotes,
escapes, ``\\u`` escapes, surrogate pairs and halves, non-ASCII, control characters,
backticks, long keys; numbers, literals, deep nesting), JSON-like text, damaged
documents (junk, Python's spelling) cut at every offset, and whole streams whose
cut-off call comes in random splits (Anthropic's max_tokens, OpenAI's F33 finish).
"""

from __future__ import annotations

import itertools
import json
import time
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from json_strategies import json_tops, json_values
from lenient_damage import documents

from toolwire.parser import parse_stream
from toolwire.repair import ladder, lenient
from toolwire.repair.result import RepairResult

_CHARS = st.sampled_from(
    [
        *"ab {}[],:\"\\/'`\n\t#",
        "\u00e9",
        "\u4e16",
        "\U0001f600",
        "\ud800",
        "\udc00",
        "\x01",
        "\u2028",
        "\u00a0",
    ]
)
_STRINGS = st.text(_CHARS, max_size=10) | st.sampled_from(
    ["k" * 201, "k" * 205, "{" * 3, "```", "a\\", "\\u00e9", "\\ud83d\\ude00", '\\"']
)
_VALUES = json_values(_STRINGS)
_TOPS = json_tops(_STRINGS, _VALUES, 4)


def _without_it(text: str) -> RepairResult:
    """The ladder as it reads without read_cut_string."""
    with mock.patch.object(ladder, "read_cut_string", lambda text: None):
        return ladder.repair_json(text)


def _same(text: str) -> bool:
    """The ladder answers as without read_cut_string; True where that reading answered."""
    got = ladder.repair_json(text)
    assert got == _without_it(text), text
    closed = lenient.read_cut_string(text)
    if closed is not None:
        assert got.status == "truncated"
        assert got.repairs == lenient.CUT_STRING_REPAIRS
    return closed is not None


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_TOPS, st.sampled_from([None, 0, 2]), st.booleans())
def test_json_cut_at_every_offset_reads_as_without_it(
    value: object, indent: int | None, ascii_only: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    # every offset of a short text; of a long one (long keys) every offset near a
    # quote or backslash, and some others
    near = {i + d for i, ch in enumerate(text) if ch in '"\\' for d in (-1, 0, 1, 2)}
    for cut in range(len(text)):
        if len(text) < 200 or cut in near or cut % 13 == 0:
            _same(text[:cut])


# cut inside an escape, a \u escape, a surrogate pair, a number, a literal, a key, after
# a colon or comma, deep, with a closer or backtick in the string, not JSON
@example('{"a": "x\\')
@example('{"a": "x\\u00')
@example('{"a": "x\\u00e9 and more')
@example('{"a": "\\ud83d\\ude00 and more')
@example('{"a": "\\ud83d')
@example('{"a": "\\ud83d and more')
@example('{"a": "x\ud83d and more')
@example('{"a": "\\\\"')
@example('{"a": "\\\\\\" still in')
@example('{"a": [1.5, -')
@example('{"a": 1e')
@example('{"a": tr')
@example('{"ke')
@example('{"a": 1, "' + "k" * 205)
@example('{"a": 1, "' + "k" * 200)
@example('{"a": 1, "ke')
@example('{"a": 1 , "ke')
@example('{"a": 1,, "ke')
@example('{, "ke')
@example('[{"a": 1}, "ke')
@example('{"a": {"b": 1}, "k\\u00')
@example('{"a": 1, "k\x01')
@example('{"key":')
@example('{"key": ')
@example('{"key": "v",')
@example('{"key": "v", "')
@example("[" * 200 + '"deep')
@example("[" * 201 + '"too deep')
# too deep, where strings holding brackets would hide it from a count of all brackets
@example("[" * 6 + '"]]", ' + "[" * 196 + "]" * 196 + ', "[[[[[[", "x')
@example('{"a": "}{" , "b": "x')
@example('{"a": "x]')
@example('{"a": "x, y}')
@example('{"a": "x}  ')
@example('{"a": "```')
@example('{"a": "x ```')
@example('{"a": x, "b": "c')
@example("{'a': \"b")
@example('{"a": True, "b": "x')
@example('{"a": None, "b": "x')
@example('{"a": NaN, "b": "x')
@example('{"a": 1, "a": 2, "b": "x')
@example('{"a": 1e999, "b": "x')
@example('{"a": 1e-400, "b": "x')
@example('{"a": 12345678901234567890123, "b": "x')
@example('{"' + "k" * 205 + '": 1, "b": "x')
@example('{"' + "k" * 199 + '": 1, "b": "x')
@example('{"a": "{x"' + "\n" + " " * 80 + '}, "b": "x')
@example('{"a": "x\x01y", "b": "x')
@example('{"a": "x", "b": "y\x01')
@example('{"a": "x" "b": "y')
@example('{"a" "b": "y')
@example('{"a": "x"}, "b": "y')
@example('[1]], "b')
@example(' \n {"a": "x')
@example('\u00a0{"a": "x')
@example('x {"a": "x')
@example('```json\n{"a": "x')
@example('{"a": "x // not a comment')
@example('{"a": 1 /* c */, "b": "x')
@example('{"a": "x\u00a0')
@example('{"a": "x,\u00a0')
@example('"just a string')
@example('{"a": "')
@example('["", "[", "x')
@example('["[", "x')
@example('["]", "x')
@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="{}[]\",:\\ 0123456789.-eEtrufalsnTFN\n#/'xu`", max_size=40))
def test_json_like_text_reads_as_without_it(text: str) -> None:
    _same(text)


def test_damaged_documents_cut_at_every_offset_read_as_without_it() -> None:
    # JSON-ish documents with the faults models make (single quotes, comments, Python
    # literals, bare keys, missing commas and quotes, NaN, escapes, surrogates, strings
    # holding brackets), every prefix of every other one: text gone wrong, then cut
    read = 0
    for doc in documents()[::2]:
        for cut in range(len(doc)):
            read += _same(doc[:cut])
    assert read > 1000  # (of ~19,000 prefixes: the comparisons compare something)


def _anthropic(pieces: list[str]) -> bytes:
    events = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        },
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": piece},
            }
            for piece in pieces
        ),
        {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {}},
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _openai(pieces: list[str]) -> bytes:
    chunks: list[dict[str, Any]] = []
    for i, piece in enumerate(pieces):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": piece}}
        if i == 0:
            call.update(id="call_1", type="function")
            call["function"]["name"] = "f"
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    # F33: a cut call under the finish reason tool_calls
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    return body.encode()


def _splits(text: str, cuts: list[int]) -> list[str]:
    at = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(at) if b > a] or [""]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(_STRINGS, _VALUES, min_size=1, max_size=4),
    st.integers(min_value=0),
    st.lists(st.integers(min_value=0), max_size=6),
)
def test_a_stream_cut_in_any_split_finishes_as_without_it(
    value: dict[str, Any], at: int, cuts: list[int]
) -> None:
    text = json.dumps(value)
    text = text[: 1 + at % len(text)]
    pieces = _splits(text, cuts)
    for wire, provider in ((_anthropic(pieces), "anthropic"), (_openai(pieces), "openai-chat")):
        got = parse_stream(wire, provider)
        with mock.patch.object(ladder, "read_cut_string", lambda text: None):
            want = parse_stream(wire, provider)
        assert got.calls == want.calls, (text, provider)
        assert got.finish_reason == want.finish_reason


def test_the_reading_answers_for_calls_cut_in_a_string() -> None:
    # the differential tests compare something: cut in a string value, it answers
    # (brackets in the string cut off, not in a string before it)
    text = json.dumps(
        {
            "path": "a.py",
            "lines": ["x = 1", 'print("hi")', "", "a\\b\u00e9"],
            "n": [1, 2.5, None, True],
            "nested": {"deep": [{"k": "v"}]},
            "content": "def f():\n    return [1, {2: 3}]  # a comment",
        }
    )
    inside = {cut for cut in range(1, len(text)) if _same(text[:cut])}
    # in each string value (keys cut off, escapes cut off and strings cut after a
    # delimiter are left to the ladder's later steps)
    for cut_in in ("a.p", "x =", '"print(', '"a', '"v', "return [1", "{2: 3}]  # a"):
        assert text.index(cut_in) + len(cut_in) in inside, cut_in
    assert len(inside) >= 50
    # a key cut off is dropped (with its comma)
    for cut_in in ('{"pa', '"lines', '"ne', '{"k'):
        assert text.index(cut_in) + len(cut_in) in inside, cut_in
    assert ladder.repair_json('{"a": [1], "ke').value == {"a": [1]}
    # from the capture the benchmarks read: its call is cut in a string
    capture = (
        '{"filename": "taxes.txt", "lines_of_text": [\n"# COMPREHENSIVE TAX GUIDE", '
        '"",\n"## INTRODUCTION",\n"",\n"Filing taxes'
    )
    assert _same(capture)
    assert ladder.repair_json(capture).value == {
        "filename": "taxes.txt",
        "lines_of_text": ["# COMPREHENSIVE TAX GUIDE", "", "## INTRODUCTION", "", "Filing taxes"],
    }


def test_what_it_leaves_to_the_ladder() -> None:
    # each of these is cut in a string, but read by the steps after it (they answer
    # otherwise than closing the string, or it cannot tell cheaply)
    for text in (
        '{"a": "x\\u00',  # an escape cut off
        '{"a": "x, y}',  # a string perhaps cut back at a delimiter
        '{"a": "x ```',  # a fence
        '{"a": "[", "b": "x',  # a string before holds a bracket
        '{"a": "\\ud83d\\ude00", "b": "x',  # a surrogate
        '{"a": 1, "a": 2, "b": "x',  # a repeated key
        '{"' + "k" * 205 + '": 1, "b": "x',  # a key longer than the look-ahead
        "[" * 201 + '"x',  # too deep
        '{"a": 1,, "k',  # a key after a comma that follows no value
        '{"a": 1, "k\\',  # a key cut in an escape
        "{'a': \"b",  # not JSON
    ):
        assert lenient.read_cut_string(text) is None, text
        assert _same(text) is False


def test_time_is_linear() -> None:
    def shape(n: int) -> str:
        items = [{"k": i, "s": 'a \\"b\\" c', "t": [True, None, 1.5]} for i in range(n)]
        return json.dumps({"items": items, "last": "x" * n})[: -n // 2]  # cut in a string

    def best(text: str) -> float:
        times = []
        for _ in range(7):  # CPU time, best of 7: other processes share the machine
            start = time.process_time()
            assert lenient.read_cut_string(text) is not None
            times.append(time.process_time() - start)
        return min(times)

    small, large = best(shape(2_000)), best(shape(8_000))
    assert large < small * 4 * 3  # 4x the input; quadratic would be 16x
