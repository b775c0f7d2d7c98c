"""Incremental Server-Sent Events decoder (sans-IO).

Fed bytes in any pieces. Lines end in LF, CRLF or CR as the SSE spec says; they are
made LF first. The input is then cut into blocks at blank lines: a block is one
message's lines, still as bytes. ``feed_blocks`` hands out blocks and ``message`` reads
one; a decoder that recognises a block's bytes (see ``providers.envelope``) can skip
reading it. Text is decoded from UTF-8 only from a whole block, so a multi-byte
character split across reads is never corrupted (F27). Work is linear in the input: a
long block that arrives in many pieces is joined once, when its end arrives.
"""

from __future__ import annotations

from typing import ClassVar, NamedTuple


class SSEMessage(NamedTuple):
    """One dispatched event. A tuple: cheap to build, one per wire message."""

    data: str
    event: str | None = None
    id: str | None = None
    retry: int | None = None


_BOM = b"\xef\xbb\xbf"

# the bytes of a piece below which ``feed_parts`` leaves it to ``feed_blocks``: a piece
# of one or two messages (as a server writes them, one at a time) is cut at its blank
# lines in fewer steps than at the longer needle and then at them
_FEW_BLOCKS = 512
# the bytes of a block ``feed_parts`` gives whole rather than as a part (see there)
_LONG_PART = 16384


class SSEDecoder:
    """``feed(bytes) -> messages``; ``close() -> messages`` flushes an unterminated one.

    Or, one level down: ``feed_blocks(bytes) -> blocks``, ``message(block)`` for each,
    and ``close_block()`` for the unterminated rest.
    """

    __slots__ = ("_head", "_id", "_pending", "_retry", "_skip_lf")

    def __init__(self) -> None:
        self._head: bytes | None = b""  # the first bytes, until a BOM is ruled out
        self._pending: list[bytes] = []  # pieces of the current, unfinished block
        self._skip_lf = False  # the previous piece ended in CR: a leading LF belongs to it
        self._id: str | None = None  # the last event id and retry persist across messages
        self._retry: int | None = None

    def feed(self, chunk: bytes | str) -> list[SSEMessage]:
        out = []
        for block in self.feed_blocks(chunk):
            message = self.message(block)
            if message is not None:
                out.append(message)
        return out

    def close(self) -> list[SSEMessage]:
        """End of input: a final line and message without their blank line still count."""
        block = self.close_block()
        message = self.message(block) if block else None
        return [] if message is None else [message]

    def feed_blocks(self, chunk: bytes | str) -> list[bytes]:
        """The blocks that ``chunk`` completes, each without its blank line. A block may
        start with LFs (blank lines beyond the first) or be empty."""
        if type(chunk) is not bytes:
            # a bytearray or memoryview as bytes: the blocks' readers tell a match by
            # identity (``removeprefix`` gives a bytes object itself back where it
            # lacks the prefix; a bytearray's is always a copy: review 11a)
            chunk = (
                chunk.encode("utf-8", "surrogatepass") if isinstance(chunk, str) else bytes(chunk)
            )
        if self._head is not None:
            # the stream may start with a UTF-8 byte order mark, which the spec drops
            head = self._head + chunk if self._head else chunk
            # (its first byte looked at first: the two calls below cost a stream's
            # first piece ~900 instructions, callgrind)
            if not head or head[0] == _BOM[0]:
                if len(head) < len(_BOM) and _BOM.startswith(head):
                    self._head = head
                    return []
                if head.startswith(_BOM):
                    head = head[len(_BOM) :]
            self._head = None
            chunk = head
        if not chunk:
            return []
        if self._skip_lf:
            self._skip_lf = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
                if not chunk:
                    return []
        # ``partition``, not ``in`` or ``find``: ``bytes in bytes`` first tries its operand
        # as an integer and pays for the TypeError, ``find`` parses its arguments from a
        # tuple (CPython 3.11, callgrind: about 2,300 / 1,300 / 750 instructions); the
        # copies ``partition`` makes where it finds a CR the replacing below makes anyway
        pending = self._pending
        if chunk.partition(b"\r")[1]:
            if self.splits_crlf:
                blocks = self._crlf_blocks(chunk)
                if blocks is not None:
                    return blocks
            self._skip_lf = chunk.endswith(b"\r")
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        if pending and chunk[:1] == b"\n" and pending[-1][-1:] == b"\n":
            # a blank line straddling the join with the last piece: cut them joined
            pending.append(chunk)
            chunk = b"".join(pending)
            pending.clear()
        # (split at once, one pass over the piece where a search first made two: 2 K
        # instructions of a 1 KB stream fed whole, callgrind)
        blocks = chunk.split(b"\n\n")
        if pending:
            # What is pending holds no blank line, and none straddles its join with this
            # piece: the piece's blank lines cut the two joined where they cut the piece
            # alone, and what is pending opens its first block. (Not the two joined,
            # then cut: a copy of each 4 KB piece, ~5% of the time of long streams of
            # small deltas, bench_stream.py)
            if len(blocks) == 1:
                pending.append(chunk)  # no blank line in this piece either
                return []
            pending.append(blocks[0])
            blocks[0] = b"".join(pending)
            pending.clear()
        tail = blocks.pop()
        if tail:
            pending.append(tail)
        return blocks

    def feed_parts(self, chunk: bytes | str, lead: bytes) -> tuple[list[bytes], list[bytes]] | None:
        """``feed_blocks`` for a stream whose blocks open with ``lead``
        (``event: response.``, for one), cut at each blank line followed by ``lead``:
        what ``chunk`` completes, as blocks, then parts. The blocks are those before
        the first such line; the parts follow each such line, ``lead`` cut off, and
        each is followed by a blank line: ``lead`` and the part make one block or more
        (a block may end in a blank line's LFs, ``lead`` holds none). What came before
        the first such line is a part too where it opens with ``lead`` (a block begun
        in the read before, most often) and is shorter than ``_LONG_PART``.

        None where ``chunk`` must go to ``feed_blocks``: the stream's first bytes, a
        piece of less than ``_FEW_BLOCKS`` bytes, one with a CR, one with a blank line
        (or one across the join with what is pending) but none followed by ``lead``,
        or not bytes. ``[], []`` for a piece with no blank line, kept pending.

        (A longer needle is found faster than a blank line: 4 KB pieces of Responses'
        events are cut at ``\n\nevent: `` in ~60% of the time, and a part's reader
        compares a shorter opening.)"""
        if self._head is not None or self._skip_lf or type(chunk) is not bytes:
            return None
        if len(chunk) < _FEW_BLOCKS or chunk.partition(b"\r")[1]:
            return None
        pending = self._pending
        if chunk.find(b"\n\n") < 0 and not (
            pending and chunk[:1] == b"\n" and pending[-1][-1:] == b"\n"
        ):
            # no blank line, none across the join: the piece ends no block (one
            # search, where ``feed_blocks`` would search it again: a long block, the
            # call's last event with all its arguments, came in pieces searched twice)
            pending.append(chunk)
            return [], []
        parts = chunk.split(b"\n\n" + lead)
        if len(parts) == 1:
            return None
        # the first part ends at a blank line: its blocks are whole; opened by the lead
        # (a block begun in the piece before, most often), it is a part too, unless long
        # (the call's last event, with all its arguments: a part a reader does not take
        # is cut again at its blank lines, a search through all of it)
        first = start = parts[0]
        if pending:
            pending.append(start)
            first = b"".join(pending)
            pending.clear()
        blocks: list[bytes] = []
        if len(first) < _LONG_PART and (opened := first.removeprefix(lead)) is not first:
            parts[0] = opened
        else:
            if start is not first and start.find(b"\n\n") < 0 and start[:1] != b"\n":
                blocks = [first]  # (what was pending holds no blank line: one block)
            elif first:
                blocks = first.split(b"\n\n")
            del parts[0]
        last = parts.pop()
        whole, blank, rest = last.rpartition(b"\n\n")
        if blank:
            parts.append(whole)  # (ends at a blank line: its blocks are whole)
            if rest:
                pending.append(rest)
        else:
            pending.append(lead)
            pending.append(last)
        return blocks, parts

    # whether a piece of CRLF lines is cut at its blank lines as it is (``_crlf_blocks``;
    # off: every piece with a CR is made LF first, for tests)
    splits_crlf: ClassVar[bool] = True

    def _crlf_blocks(self, chunk: bytes) -> list[bytes] | None:
        """``feed_blocks``' blocks of a piece whose every CR and LF is in a blank line
        (CRLF CRLF), as Gemini writes: cut there, they are the blocks its LF copy
        gives, with no copy made (the two ``replace`` calls cost a 2.5 MB stream fed
        in 4 KB pieces 4.6 ms, the floor's 8.4). None for any other piece, and where
        a blank line may straddle the join with the piece before."""
        pending = self._pending
        if pending and pending[-1][-1:] == b"\n":
            return None
        blocks = chunk.split(b"\r\n\r\n")
        # no CR or LF but those of the blank lines cut at: the blocks joined hold none
        # (a copy and two searches, where counting each in the piece cost a 4 KB piece
        # 44 thousand instructions, the copy and searches 7: Gemini's 10,000 chunks of
        # 16-character parts 23 M of a floor's 107, callgrind)
        joined = b"".join(blocks)
        if joined.find(b"\r") >= 0 or joined.find(b"\n") >= 0:
            return None
        if pending:
            pending.append(blocks[0])
            blocks[0] = b"".join(pending)
            pending.clear()
        tail = blocks.pop()
        if tail:
            pending.append(tail)
        return blocks

    def close_block(self) -> bytes:
        """End of input: the unterminated rest (empty if none). Its line ends are LF
        already: each piece was made so as it came (a head held back is part of a byte
        order mark, which holds no CR)."""
        pending = self._pending
        if pending:
            rest = b"".join(pending)
            pending.clear()
            return rest
        if self._head:
            rest, self._head = self._head, None
            return rest
        return b""

    def message(self, block: bytes) -> SSEMessage | None:
        """Read one block's fields; None when it dispatches nothing (comments, blank)."""
        if block[:6] == b"data: " and block.find(b"\n") < 0:  # the common message
            return SSEMessage(block[6:].decode("utf-8", "replace"), None, self._id, self._retry)
        if block[:7] == b"event: ":  # the common named message: an event and a data line
            end = block.find(b"\n")
            if block[end + 1 : end + 7] == b"data: " and block.find(b"\n", end + 1) < 0:
                return SSEMessage(
                    block[end + 7 :].decode("utf-8", "replace"),
                    block[7:end].decode("utf-8", "replace"),
                    self._id,
                    self._retry,
                )
        data: list[str] = []
        event: str | None = None
        for line in block.split(b"\n"):
            if not line or line[:1] == b":":
                continue  # a leading blank line, or a comment / keep-alive
            name, _, raw = line.partition(b":")
            value = (raw[1:] if raw[:1] == b" " else raw).decode("utf-8", "replace")
            if name == b"data":
                data.append(value)  # "data" with no colon: an empty data line
            elif name == b"event":
                event = value
            elif name == b"id":
                if "\0" not in value:
                    self._id = value
            elif name == b"retry" and value.isdigit():
                self._retry = int(value)
        if data or event is not None:
            return SSEMessage("\n".join(data), event, self._id, self._retry)
        return None
