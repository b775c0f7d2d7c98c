"""The incremental SSE decoder: framing, CRLF/CR, comments, multi-line data, F27."""

from __future__ import annotations

import time

from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire import sse
from toolwire.sse import SSEDecoder, SSEMessage


def decode(pieces: list[bytes]) -> list[SSEMessage]:
    dec = SSEDecoder()
    out: list[SSEMessage] = []
    for p in pieces:
        out.extend(dec.feed(p))
    out.extend(dec.close())
    return out


def test_event_and_multiline_data() -> None:
    msgs = decode([b"event: x\ndata: a\ndata: b\nid: 7\nretry: 10\n\n"])
    assert msgs == [SSEMessage("a\nb", "x", "7", 10)]


def test_named_messages_of_two_lines() -> None:
    msgs = decode([b'event: delta\ndata: {"a": 1}\n\nevent: \ndata: x\n\nevent: e\n\n'])
    assert msgs == [SSEMessage('{"a": 1}', "delta"), SSEMessage("x", ""), SSEMessage("", "e")]


def test_comments_and_blank_lines_are_ignored() -> None:
    assert decode([b": keep-alive\n\n\n\ndata: 1\n\n"]) == [SSEMessage("1")]


def test_crlf_and_lone_cr_line_endings() -> None:
    assert decode([b"data: a\r\ndata: b\r\n\r\n"]) == [SSEMessage("a\nb")]
    assert decode([b"data: a\rdata: b\r\r"]) == [SSEMessage("a\nb")]


def test_crlf_split_between_reads_is_one_line_ending() -> None:
    assert decode([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [SSEMessage("a\nb")]


def test_no_space_after_colon_and_field_without_colon() -> None:
    assert decode([b"data:x\ndata\n\n"]) == [SSEMessage("x\n")]


def test_a_blank_line_split_between_reads_dispatches_at_once() -> None:
    dec = SSEDecoder()
    assert dec.feed(b"data: a\n") == []
    assert dec.feed(b"\n") == [SSEMessage("a")]
    assert dec.feed(b"data: b\r") == []
    assert dec.feed(b"\r") == [SSEMessage("b")]


def test_a_long_block_in_many_pieces_is_joined_once() -> None:
    """A block that arrives in 40,000 pieces of 50 bytes is joined when its end comes,
    not once a piece (2 MB copied 40,000 times would take many seconds)."""
    piece = b"x" * 50
    dec = SSEDecoder()
    started = time.perf_counter()
    assert dec.feed_blocks(b"data: ") == []
    for _ in range(40_000):
        assert dec.feed_blocks(piece) == []
    assert dec.feed_blocks(b"\n\ndata: y") == [b"data: " + piece * 40_000]
    assert time.perf_counter() - started < 2.0
    assert dec.close_block() == b"data: y"


def test_final_message_without_blank_line_is_kept() -> None:
    assert decode([b"data: last"]) == [SSEMessage("last")]


def test_F27_multibyte_characters_split_across_reads() -> None:
    payload = "data: héllo 🌍 世界\n\n".encode()
    for cut in range(len(payload)):
        msgs = decode([payload[:cut], payload[cut:]])
        assert msgs == [SSEMessage("héllo 🌍 世界")]
        assert "\ufffd" not in msgs[0].data


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)),
            max_size=20,
        ),
        max_size=6,
    ),
    st.lists(st.integers(0, 400), max_size=10),
    st.sampled_from([b"\n", b"\r\n", b"\r"]),
)
def test_any_chunking_gives_the_same_messages(
    lines: list[str], cuts: list[int], eol: bytes
) -> None:
    body = b"".join(b"data: " + line.encode() + eol + eol for line in lines)
    whole = decode([body])
    pieces, start = [], 0
    for cut in sorted(set(c for c in cuts if c <= len(body))):
        pieces.append(body[start:cut])
        start = cut
    pieces.append(body[start:])
    assert decode(pieces) == whole
    assert [m.data for m in whole] == lines


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    decode([data[:7], data[7:]])


def _cut_lines(lines: list[tuple[bytes, bytes]], cuts: list[int], bom: bool) -> list[bytes]:
    """The lines, each with its line end (a byte order mark first), cut at ``cuts``."""
    body = (b"\xef\xbb\xbf" if bom else b"") + b"".join(line + eol for line, eol in lines)
    pieces, start = [], 0
    for cut in sorted(set(c for c in cuts if c <= len(body))):
        pieces.append(body[start:cut])
        start = cut
    pieces.append(body[start:])
    return pieces


_FIELD_LINES = st.sampled_from(
    [
        b"data: x",
        b"data:y",
        b"data",
        b'data: {"a": 1}',
        b"event: e",
        b"event",
        b"id: 7",
        b"id: a\x00b",
        b"retry: 12",
        b"retry: x",
        b": comment",
        b"",
        b"junk",
        "data: é世".encode(),
        b"\xef\xbb\xbf",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(_FIELD_LINES, st.sampled_from([b"\n", b"\r\n", b"\r"])), max_size=14),
    st.lists(st.integers(0, 300), max_size=8),
    st.booleans(),
)
@example([(b"event: e", b"\n"), (b"data: x", b"\n"), (b"", b"\n")], [], False)
def test_block_framing_reads_like_the_line_decoder(
    lines: list[tuple[bytes, bytes]], cuts: list[int], bom: bool
) -> None:
    # the line-at-a-time decoder toolwire used before is the oracle, however it is cut
    from sse_reference import SSEDecoder as LineDecoder

    pieces = _cut_lines(lines, cuts, bom)
    # each message must come out of the same read as before: no added latency
    oracle, dec = LineDecoder(), SSEDecoder()
    assert [dec.feed(p) for p in pieces] == [oracle.feed(p) for p in pieces]
    assert dec.close() == oracle.close()


# the pieces of CRLF streams: lines, their ends of every kind, a byte order mark
_CRLF_ATOMS = [b"data: {}", b"data: x", b": c", b"id: 1", b"", b"\r\n", b"\r\n\r\n", b"\r", b"\n"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_CRLF_ATOMS) | st.binary(max_size=3), max_size=40).map(b"".join),
    st.lists(st.integers(min_value=0, max_value=64), max_size=12),
    st.booleans(),
)
@example(b"data: a\r\n\r\ndata: b\r\n\r\n", [9, 2], False)
@example(b"data: a\n\ndata: b\r\n\r\n", [], False)  # a blank line of LFs
@example(b"data: a\n\r\n\r\ndata: b\r\n\r\n", [], False)  # an LF before CRLF CRLF
@example(b"data: a\n\r\n\r\ndata: b\r\n\r\n", [8], False)  # one across the pieces
@example(b"data: a\r\n\r\n\r\ndata: b\r\n", [7, 2, 2], False)
@example(b"data: a\r\ndata: b\r\n\r\n", [], False)
def test_crlf_pieces_cut_as_they_are_give_the_blocks_of_their_lf_copies(
    data: bytes, cuts: list[int], bom: bool
) -> None:
    """A piece whose every CR and LF is in a CRLF blank line is cut there without a
    copy made LF (``SSEDecoder.splits_crlf``): in any split of any bytes (CRs at piece
    ends, lone CRs and LFs, blank lines across pieces), the same blocks as with every
    piece made LF first."""
    from unittest import mock

    if bom:
        data = b"\xef\xbb\xbf" + data
    pieces, at = [], 0
    for cut in cuts:
        pieces.append(data[at : at + cut])
        at += cut
    pieces.append(data[at:])

    def blocks() -> list[list[bytes]]:
        decoder = SSEDecoder()
        out = [decoder.feed_blocks(piece) for piece in pieces]
        return [*out, [decoder.close_block()]]

    fast = blocks()
    with mock.patch.object(SSEDecoder, "splits_crlf", False):
        assert fast == blocks()


def _part_messages(decoder: SSEDecoder, piece: bytes, lead: bytes) -> list[SSEMessage]:
    """The messages of one read through ``feed_parts`` (``feed_blocks`` where it gives
    None), each part read as the block or blocks that ``lead`` and it make."""
    cut = decoder.feed_parts(piece, lead)
    if cut is None:
        blocks = decoder.feed_blocks(piece)
    else:
        before, parts = cut
        blocks = [*before, *(b for part in parts for b in (lead + part).split(b"\n\n"))]
    return [m for m in map(decoder.message, blocks) if m is not None]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(
                *[st.sampled_from([b"event: a.delta", b"data: x", b"", b""])] * 3,
                st.sampled_from([b"event: ", b"event:e", b"even", b"event: \xe4\xb8"]),
                _FIELD_LINES,
            ),
            st.sampled_from([b"\n"] * 60 + [b"\r\n", b"\r"]),
        ),
        max_size=24,
    ),
    # (a stream's first read goes to ``feed_blocks``: most streams here are cut early)
    st.lists(st.integers(0, 300), max_size=10).map(lambda cuts: [3, *cuts]),
    st.booleans(),
)
@example([(b"event: e", b"\n"), (b"data: x", b"\n"), (b"", b"\n")] * 2, [], False)
@example([(b"data: x", b"\n"), (b"", b"\n"), (b"", b"\n"), (b"event: e", b"\n")] * 2, [], False)
@example([(b"event: e", b"\n"), (b"", b"\n")] * 3, [9, 1], False)  # the lead across reads
@example([(b"event: e", b"\n"), (b"", b"\n"), (b"data: x", b"\n"), (b"", b"\n")] * 2, [], False)
def test_parts_cut_at_a_lead_read_like_the_line_decoder(
    lines: list[tuple[bytes, bytes]], cuts: list[int], bom: bool
) -> None:
    """``feed_parts`` (a blank line and ``event: ``, a longer needle than a blank line,
    as Responses' decoder cuts its pieces) gives each read the messages the line
    decoder gives it, however the stream is cut: blocks of other fields between, blank
    lines across reads, more than one blank line, CRs, a byte order mark. (Pieces of
    any size cut: it leaves those under ``_FEW_BLOCKS`` bytes to ``feed_blocks``.)"""
    from unittest import mock

    from sse_reference import SSEDecoder as LineDecoder

    pieces = _cut_lines(lines, cuts, bom)
    oracle, dec = LineDecoder(), SSEDecoder()
    with mock.patch.object(sse, "_FEW_BLOCKS", 0), mock.patch.object(sse, "_LONG_PART", 40):
        read = [_part_messages(dec, p, b"event: ") for p in pieces]
    assert read == [oracle.feed(p) for p in pieces]
    assert dec.close() == oracle.close()
