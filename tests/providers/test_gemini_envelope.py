"""Gemini's chunks of one part's text read by their envelope, the integers of their
usage let differ (``GeminiDecoder.reads_envelope``): every block read so gives what
the block parsed whole gives, and a block the envelope must not read is parsed."""

from __future__ import annotations

import random
import time
from unittest import mock

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wirefuzz import joined_text

from toolwire.events import Event, StreamError, StreamFinished, TextDelta, Usage
from toolwire.parser import StreamParser
from toolwire.providers import GeminiDecoder
from toolwire.providers.envelope import DIGITS_AS_ZERO, integer_shape
from toolwire.providers.gemini import learn_text

# a chunk as the API writes it (a space after each colon, none after a comma), and as
# compactly as ``bench/streams.py`` writes it; %s the text's JSON, %d the counts
API = (
    b'data: {"candidates": [{"content": {"parts": [{"text": %s}],"role": "model"},'
    b'"index": 0}],"usageMetadata": {"promptTokenCount": 8,"candidatesTokenCount": %d,'
    b'"totalTokenCount": %d,"promptTokensDetails": [{"modality": "TEXT","tokenCount": 8}]'
    b'},"modelVersion": "gemini-2.5-flash","responseId": "mGVYadKvO8yp"}'
)
COMPACT = (
    b'data: {"candidates":[{"content":{"parts":[{"text":%s}],"role":"model"},"index":0}],'
    b'"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":%d,"totalTokenCount":%d},'
    b'"modelVersion":"gemini-2.5-flash","responseId":"r1"}'
)


def chunk(text: str, count: int, shape: bytes = API) -> bytes:
    return shape % (orjson.dumps(text), count, count + 8)


def decoded(data: bytes, envelopes: bool, cut: int = 4096) -> tuple[list[Event], GeminiDecoder]:
    """The events of ``data`` (each run of text joined), envelopes learned from the
    first chunk of text on, or not at all; and the decoder."""
    with (
        mock.patch.object(GeminiDecoder, "reads_envelope", envelopes),
        mock.patch.object(GeminiDecoder, "learn_after", 0),
    ):
        parser = StreamParser("gemini")
        events = [e for i in range(0, len(data), cut) for e in parser.feed(data[i : i + cut])]
        events += parser.close()
    decoder = parser._decoder
    assert isinstance(decoder, GeminiDecoder)
    return joined_text(events), decoder


def test_chunks_of_the_api_shape_are_read_by_their_envelope() -> None:
    texts = ["Hello", ", wor", 'ld "quoted" \\ ', "Zürich ☃ \U0001f600", "", "\n\t"]
    data = b"".join(chunk(t, 9 + 3 * i) + b"\r\n\r\n" for i, t in enumerate(texts * 4))
    fast, decoder = decoded(data, True)
    assert decoder._hits >= len(texts) * 4 - 3  # (learned again where a count grew a digit)
    assert fast == decoded(data, False)[0]
    finished = fast[-1]
    assert isinstance(finished, StreamFinished)
    assert finished.usage == Usage(input_tokens=8, output_tokens=9 + 3 * 23)
    assert fast[0] == TextDelta("".join(texts * 4))


def test_a_count_of_more_digits_is_read_whole_and_learned_again() -> None:
    data = b"".join(chunk("a", n, COMPACT) + b"\n\n" for n in (8, 9, 10, 11, 99, 100, 101))
    fast, decoder = decoded(data, True)
    assert (decoder._learned, decoder._hits) == (4, 3)
    assert fast == decoded(data, False)[0]


# Blocks an envelope learned from ``COMPACT`` chunks must leave to the whole parse,
# each the bytes of such a chunk but for what follows its text (the check each would
# get through without, and what the whole parse makes of it)
NEAR_MISSES = {
    # a count with a leading 0 (not JSON: read after repairs): the first digits' check
    "leading zero": chunk("z", 15, COMPACT).replace(b":15,", b":05,"),
    # a count of as many bytes, not all digits (not JSON): the shape's compare
    "not a digit": chunk("x", 15, COMPACT).replace(b":15,", b":1x,"),
    # the second candidate (not followed), of as many bytes: the middle's compare
    "index 1": chunk("i", 15, COMPACT).replace(b'"index":0', b'"index":1'),
}


def test_a_block_unlike_its_envelope_after_the_text_is_read_whole() -> None:
    plain = [chunk(t, n, COMPACT) for t, n in (("a", 11), ("b", 12), ("c", 13))]
    for name, odd in NEAR_MISSES.items():
        data = b"\n\n".join([*plain, odd, chunk("d", 16, COMPACT)]) + b"\n\n"
        fast, decoder = decoded(data, True)
        assert decoder._hits == 3, name  # (b, c, and d after the odd one)
        assert fast == decoded(data, False)[0], name
        text = "".join(e.text for e in fast if type(e) is TextDelta)
        errors = [e for e in fast if type(e) is StreamError and "not JSON" in e.message]
        if name == "index 1":
            assert text == "abcd" and not errors
        else:
            assert errors, name


@pytest.mark.parametrize("key", [b'"usageMetadata"', b'"usage\\u004detadata"'])
def test_a_usage_written_twice_is_not_learned(key: bytes) -> None:
    """orjson reads the last of two members of one name (however its key is written):
    an envelope whose integers were those of the first (the same in the block it was
    learned from) would keep a usage the chunks after it do not have."""
    last = key + b':{"promptTokenCount":10,"candidatesTokenCount":11,"totalTokenCount":19}'
    twice = [
        chunk("t", n, COMPACT).replace(b',"modelVersion"', b"," + last + b',"modelVersion"')
        for n in range(11, 16)
    ]
    data = b"\n\n".join(twice) + b"\n\n"
    fast, decoder = decoded(data, True)
    assert decoder._hits == 0
    assert learn_text(twice[0], "t", orjson.loads(twice[0][6:])) is None
    assert fast == decoded(data, False)[0]
    finished = fast[-1]
    assert isinstance(finished, StreamFinished)
    assert finished.usage == Usage(input_tokens=10, output_tokens=11)


# (the values of a Gemini usage: integers, strings, objects of those and arrays of
# both, ``integer_shape``'s grammar)
_SCALARS = st.integers(0, 10**18 - 1) | st.text("ab ", max_size=3) | st.booleans() | st.none()
_FLAT = st.dictionaries(st.text("abc", min_size=1, max_size=3), _SCALARS, max_size=3)
_VALUES = _SCALARS | _FLAT | st.lists(_SCALARS | _FLAT, max_size=3)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.text("pqr", min_size=1, max_size=3), _VALUES, max_size=4),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_bytes_of_an_integer_shape_are_the_same_json_but_for_its_integers(
    value: dict[str, object], spaced: bool, rng: random.Random
) -> None:
    """Any bytes of a value's shape whose integers open with no 0 read as that value
    with other integers (``integer_shape``), and bytes that are not JSON never fit."""
    data = orjson.dumps(value)
    if spaced:
        data = data.replace(b":", b": ")  # (no colon in these strings)
    found = integer_shape(data)
    assert found is not None
    shape, firsts = found
    other = bytearray(data)
    for i, byte in enumerate(other):
        if 48 <= byte <= 57 and rng.random() < 0.7:
            other[i] = rng.choice(b"0123456789" if i not in firsts else b"123456789")
    if rng.random() < 0.3:  # a byte of another kind somewhere
        other[rng.randrange(len(other))] = rng.choice(b'0x-"{}[],: \\')
    fits = bytes(other).translate(DIGITS_AS_ZERO) == shape and all(other[i] != 48 for i in firsts)
    try:
        read = orjson.loads(bytes(other))
    except orjson.JSONDecodeError:
        assert not fits
        return
    if fits:
        assert _without_integers(read) == _without_integers(value)


def _without_integers(value: object) -> object:
    if isinstance(value, int):
        return 0
    if isinstance(value, list):
        return [_without_integers(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_integers(v) for k, v in value.items()}
    return value


def test_a_usage_of_many_integers_is_shaped_in_linear_time_F22() -> None:
    """Review 16 #1: the search for each integer's zeros sliced the rest of the shape,
    quadratic in the integers (480 KB of them: 2 s). 300,000 integers: well under a
    second, bounded generously; and a chunk whose envelope would keep more than
    ``MOST_FIXED`` bytes is not learned (Gemini's keep ~300)."""
    usage = b'{"promptTokenCount":5,"x":[' + b",".join([b"10"] * 300_000) + b"]}"
    started = time.perf_counter()
    found = integer_shape(usage)
    assert time.perf_counter() - started < 2.0
    assert found is not None and len(found[1]) == 300_000
    big = COMPACT.replace(
        b'"totalTokenCount":%d', b'"totalTokenCount":%d,"x":[' + b"10," * 2000 + b"1]"
    )
    block = chunk("t", 11, big)
    assert learn_text(block, "t", orjson.loads(block[6:])) is None
    assert learn_text(chunk("t", 11, COMPACT), "t", orjson.loads(chunk("t", 11, COMPACT)[6:]))


def test_blocks_that_miss_the_envelope_after_the_text_are_not_parsed_as_tokens() -> None:
    """Review 16 #2: a block with the envelope's ends whose usage has another shape
    (a count of another length) is read whole without a parse of its token that
    fails first (an exception per block cost as much as reading it whole); the same
    events."""
    data = b"".join(chunk("t", 10 ** (n % 6), COMPACT) + b"\n\n" for n in range(60))
    with mock.patch.object(orjson, "loads", side_effect=orjson.loads) as loads:
        fast, decoder = decoded(data, True)
    failed = 0
    for args, _ in loads.call_args_list:
        try:
            orjson.loads(args[0])
        except orjson.JSONDecodeError:
            failed += 1
    assert failed == 0
    assert decoder._hits > 0
    assert fast == decoded(data, False)[0]


def test_a_stream_of_two_chunk_shapes_in_turn_learns_no_more_than_it_saves() -> None:
    """Review 16 #3: chunks of two shapes in turn (another ``modelVersion`` every
    other chunk) learned the envelope again after each hit, a learn costing what 8
    blocks read by one save: now each learn beyond the first few is paid for by 8."""
    shapes = [COMPACT, COMPACT.replace(b"gemini-2.5-flash", b"gemini-2.5-pro--")]
    for turn in (1, 2):  # (ABAB, AABB)
        data = b"".join(chunk("t", 11, shapes[n // turn % 2]) + b"\n\n" for n in range(2000))
        fast, decoder = decoded(data, True)
        assert decoder._learned + decoder._missed <= 5 + decoder._hits // 8, turn
        assert fast == decoded(data, False)[0]
