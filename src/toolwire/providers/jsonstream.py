"""Incremental splitting of a byte stream into top-level JSON objects (sans-IO).

Reads the three shapes non-SSE streaming APIs use: a JSON array streamed element by
element (Gemini ``streamGenerateContent`` without ``alt=sse``), newline-delimited JSON
(Ollama) and plain concatenated objects. Work is linear in the input: each byte is
scanned once, and a value is cut out of the buffer only when it closes. Structural
characters are ASCII, so scanning bytes never splits a UTF-8 character (F27).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# OpenAI's end marker, a stream's last data line: saved with its messages as a line
DONE = b"[DONE]"
# the marker as a line of its own, from its ``[`` (the line's start is checked apart)
_DONE_LINE = re.compile(rb"\[DONE\][ \t\r]*(?:\n|\Z)")
_STRUCTURE = re.compile(rb'[{}\[\]"]')
_IN_STRING = re.compile(rb'["\\]')
_SPACE = b" \t\r\n,"


class JsonObjectSplitter:
    """``feed(bytes) -> [complete object bytes]``; ``close() -> leftover bytes``.

    ``array_closed`` is set when the top-level array's ``]`` has been read (a
    JSON-array stream's own end marker). ``junk`` collects top-level bytes that are
    not part of any object, so the caller can report them: one entry a run, however
    the input was split (a run that reaches a piece's end waits for the next piece),
    with how many of the objects ``feed`` returned came before it (the caller reports
    each where it stood, the same in any split).

    ``done_lines``: a line that is OpenAI's end marker ``[DONE]`` alone (a stream's
    messages saved line by line, the marker too) is no array: it comes out among the
    junk runs as ``DONE`` itself (no run of junk holds a bracket) for the caller to
    read as the marker. For input fed whole: a marker cut by a piece's end is none.
    """

    __slots__ = (
        "_buf",
        "_depth",
        "_done_lines",
        "_escape",
        "_in_array",
        "_in_string",
        "_junk_run",
        "_out",
        "_pos",
        "_start",
        "array_closed",
        "junk",
    )

    def __init__(self, *, done_lines: bool = False) -> None:
        self._done_lines = done_lines
        self._buf = bytearray()
        self._pos = 0  # next byte to scan
        self._start = -1  # start of the current object, -1 between objects
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._in_array = False
        self.array_closed = False
        self.junk: list[tuple[int, bytes]] = []
        self._junk_run = bytearray()  # a run of junk cut off by a piece's end
        self._out: list[bytes] = []  # the objects ``feed`` returns

    @property
    def in_array(self) -> bool:
        """Inside the top-level array (a JSON-array stream), before its ``]``."""
        return self._in_array

    @property
    def idle(self) -> bool:
        """Between objects with nothing held: no object open, no bytes buffered, no
        run of junk waiting, not inside an array."""
        return (
            self._start < 0
            and not self._buf
            and not self._junk_run
            and not self._in_array
            and not self.junk
        )

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        self._out = out = []
        buf = self._buf
        pos = self._pos
        end = len(buf)
        while pos < end:
            if self._start < 0:
                pos = self._between(buf, pos, end)
                continue
            if self._in_string:
                if self._escape:
                    self._escape = False
                    pos += 1
                    continue
                m = _IN_STRING.search(buf, pos)
                if m is None:
                    pos = end
                    break
                pos = m.end()
                if m.group() == b"\\":
                    self._escape = True
                else:
                    self._in_string = False
                continue
            m = _STRUCTURE.search(buf, pos)
            if m is None:
                pos = end
                break
            pos = m.end()
            ch = m.group()
            if ch == b'"':
                self._in_string = True
            elif ch in (b"{", b"["):
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    out.append(bytes(buf[self._start : pos]))
                    self._start = -1
        # drop what has been consumed so the buffer holds only the open object
        cut = self._start if self._start >= 0 else pos
        if cut:
            del buf[:cut]
            pos -= cut
            if self._start >= 0:
                self._start = 0
        self._pos = pos
        return out

    def _between(self, buf: bytearray, pos: int, end: int) -> int:
        """Outside any object: skip separators, note the array brackets."""
        ch = buf[pos]
        if self._junk_run and (ch in _SPACE or ch in b"{[]"):
            self._end_junk()  # the run a previous piece left ends here
        if ch in _SPACE:
            return pos + 1
        if ch == ord("{"):
            self._start = pos
            self._depth = 1
            return pos + 1
        if ch == ord("[") and not self._in_array:
            if self._done_lines and self._done_line(buf, pos):
                self._junk_run += DONE
                self._end_junk()
                return pos + len(DONE)
            self._in_array = True
            return pos + 1
        if ch == ord("]") and self._in_array:
            self._in_array = False
            self.array_closed = True
            return pos + 1
        stop = pos + 1
        while stop < end and buf[stop] not in _SPACE and buf[stop] not in b"{[]":
            stop += 1
        self._junk_run += buf[pos:stop]
        if stop < end:
            self._end_junk()
        return stop

    @staticmethod
    def _done_line(buf: bytearray, pos: int) -> bool:
        """The line from ``pos`` is the marker alone (white space around it)."""
        start = buf.rfind(b"\n", 0, pos) + 1
        return not buf[start:pos].strip(b" \t") and _DONE_LINE.match(buf, pos) is not None

    def in_order(self, objects: list[bytes]) -> Iterator[tuple[bytes, bool]]:
        """``objects``, what the last ``feed`` returned, with the junk runs (taken) where
        each stood among them: (bytes, whether they are junk), in the input's order."""
        at = 0
        for before, run in self.junk:
            yield from ((raw, False) for raw in objects[at:before])
            at = max(at, before)
            yield run, True
        self.junk.clear()
        yield from ((raw, False) for raw in objects[at:])

    def _end_junk(self) -> None:
        self.junk.append((len(self._out), bytes(self._junk_run)))
        self._junk_run.clear()

    def close(self) -> bytes:
        """End of input: the bytes of an object that never closed (empty if none)."""
        if self._junk_run:
            self._end_junk()  # (after every object the last ``feed`` returned)
        rest = bytes(self._buf[self._start :]) if self._start >= 0 else b""
        self._buf = bytearray()
        self._start = -1
        self._pos = 0
        return rest
