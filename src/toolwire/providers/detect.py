"""Which wire format an input is (``auto``), from its structure, never from substrings.

The decision is a function of the input's bytes alone: the same input split into pieces
anywhere is decided the same way. A detector waits (buffers) until the input's structure
decides, or the input ends, or its first ``DETECT_LIMIT`` bytes are in:

- An optional UTF-8 byte order mark is dropped, as SSE and JSON readers drop it.
- After white space, ``{`` or ``[`` starts JSON: a whole body or a stream of objects
  (Gemini's array, Ollama's lines). The first object's top-level shape names the wire
  (``bodies.json_wire``); before it only the array's ``[`` may stand, else the input is
  text. The first object is buffered whole however long (a body is read whole anyway);
  one that never closes is read leniently at the end (a cut-off body).
- Anything else is read line by line as Server-Sent Events: comments, blank lines and
  the fields ``data``, ``event``, ``id`` and ``retry``. The first block whose data
  carries something (not empty, nor a JSON value that is no object or an empty one:
  keep-alives; the decoder reads them and reports a value that is no object) is the
  first message; the member its JSON opens with (``type``, or ``object`` after
  ``id``), where that names a wire's message, else its parsed shape (``type``,
  ``object``, top-level keys: ``message_wire``) names the wire. A line, or the start
  of one, that is no SSE field, and a first message of no wire, make the input text.
  A ``: comment`` line or a JSON message that mentions another wire's names decides
  nothing.
- What the first ``DETECT_LIMIT`` bytes of SSE hold decides, read as if the input
  ended there (a first message cut there is read leniently), never what happened to
  be buffered: a head of keep-alive comments waits, and the decision stays the same.
- Text whose first ``TEXT_PROBE`` bytes are not UTF-8 is no text at all (a compressed
  body saved with its encoding not undone): ``NOT_TEXT``.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

import orjson

from toolwire.providers.bodies import json_wire
from toolwire.providers.jsonstream import JsonObjectSplitter
from toolwire.repair import partial_value

DETECT_LIMIT = 65536  # bytes of SSE or text that decide at most
TEXT_PROBE = 16  # bytes of text that must be UTF-8 for the input to be text

TEXT = "text:auto"  # no wire format: model text
NOT_TEXT = "not text"  # not UTF-8 text at all
_WAIT = "wait"  # (not decided yet)

# the ``type`` of each Anthropic stream event
ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)

_BOM = b"\xef\xbb\xbf"
_NOT_SPACE = re.compile(rb"[^ \t\r\n]")
_FIELDS = (b"data", b"event", b"id", b"retry")
_FIELD_HEAD = 7  # the bytes of a line that tell whether it can be a field ("retry:" and one)


# formats registered by other modules (``providers.register_decoder``): whether a first
# message (a JSON object) is theirs
RECOGNISERS: dict[str, Callable[[dict[str, Any]], bool]] = {}


def message_wire(value: dict[str, Any]) -> str | None:
    """The wire a stream message or a body belongs to, from its shape: its ``type``
    (Anthropic's events, Responses' ``response.*``), else its top-level keys."""
    kind = value.get("type")
    if isinstance(kind, str):
        if kind.startswith("response."):
            return "openai-responses"
        if kind in ANTHROPIC_EVENTS:
            return "anthropic"
    name = json_wire(value)
    if name is None:
        for wire, recognise in RECOGNISERS.items():
            try:
                if recognise(value):
                    return wire
            except Exception:
                # model text reaches a user's recogniser: a value it did not expect is
                # not its format, and never ends the parse
                continue
    return name


def _json_value(raw: bytes | bytearray) -> Any:
    """A message's JSON value, leniently (a proxy may write Python-style JSON, and a
    first message may be cut off)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return partial_value(bytes(raw).decode("utf-8", "replace"))


# what the member a message opens with names: ``type`` (Anthropic's events,
# Responses' ``response.*``), or ``object`` after an ``id`` (Chat's chunks), as the
# servers write them (groups: the type, or the object). Read so, a first message
# costs a few Python steps where parsing it costs 10-17 K instructions (callgrind)
_LEADING = rb'\{"(?:type":"([^"\\\r\n]*)"|id":"[^"\\\r\n]*","object":"(chat\.completion))'
_leading = re.compile(_LEADING).match
# the start of the common first block: an ``event:`` line or none, then a ``data:``
# line whose JSON opens as ``_LEADING`` reads (the rest of the line is searched for
# its end: a pattern's step per byte costs ~50 instructions, ``find``'s a few)
_common_first = re.compile(rb"(?:event: [^\r\n]*\n)?data: " + _LEADING).match
_KINDS = {kind.encode(): "anthropic" for kind in ANTHROPIC_EVENTS}


def _kind_wire(found: re.Match[bytes]) -> str | None:
    kind = found[1]
    if kind is None:
        return "openai-chat"  # (``object`` read as chat.completion…)
    return _KINDS.get(kind) or ("openai-responses" if kind.startswith(b"response.") else None)


def _wire_of(data: bytes | bytearray) -> str | None:
    """What an SSE message's data decides: a wire, text, or nothing (None). Its opening
    member, where that names a wire (``_LEADING``); else its parsed shape. A message
    that carries nothing (no data, or a JSON value that is no object or an empty one:
    a keep-alive) decides nothing, as a comment does not; the decoder reads it, and
    reports a value that is no object."""
    found = _leading(data)
    wire = _kind_wire(found) if found is not None else None
    if wire is not None:
        return wire
    if data == b"[DONE]":
        return "openai-chat"  # (an empty Chat stream: its end marker alone)
    if not data.strip():
        return None
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value = partial_value(bytes(data).decode("utf-8", "replace"))  # (as ``_json_value``)
    else:
        if not value or not isinstance(value, dict):
            return None
    return (message_wire(value) if isinstance(value, dict) else None) or TEXT


def common_first_wire(data: bytes | bytearray) -> str | None:
    """The wire of an input whose first piece opens with the common first block (an
    ``event:`` line or none, one ``data:`` line, the blank line), as most servers
    start: what ``FormatDetector`` decides for it, without setting one up. None: ask
    the detector."""
    found = _common_first(data)
    if found is None or found.end() > DETECT_LIMIT:
        return None  # (past the limit, the detector reads the member as cut off there)
    start = found.end()
    end = data.find(b"\n", start)
    if end < 0 or not data.startswith(b"\n", end + 1) or data.find(b"\r", start, end) >= 0:
        return None  # the block goes on, or is not whole yet, or has CR line ends
    return _kind_wire(found)


def _may_be_field(head: bytes | bytearray) -> bool:
    """Whether a line that starts with ``head`` can be an SSE comment or field (or a
    line of white space, which decides nothing)."""
    if head[:1] == b":" or not head.strip(b" \t"):
        return True
    name, colon, _ = head.partition(b":")
    if colon:
        return name in _FIELDS
    return any(field.startswith(name) for field in _FIELDS)


class FormatDetector:
    """``feed(bytes)`` -> the decision or None (not yet); ``close()`` -> the decision.

    A decision is a wire format's name, ``TEXT``, ``NOT_TEXT`` or None from ``close``
    (the input is empty: white space at most). ``body`` then says whether the input is
    JSON, and ``take()`` gives what was buffered, without a byte order mark. With
    ``wire``, the decision is that wire once the first byte that is not white space is
    in (it says whether the input is JSON).
    """

    __slots__ = (
        "_buf",
        "_common",
        "_data",
        "_first",
        "_lead",
        "_lead_wire",
        "_pos",
        "_scanned",
        "_skip",
        "_splitter",
        "_start",
        "_text",
        "_wire",
        "body",
    )

    def __init__(self, wire: str | None = None) -> None:
        self._wire = wire
        self._buf: bytes | bytearray | None = None  # (the first piece is read in place)
        self._skip = 0  # the byte order mark's length
        self._start = -1  # the first byte that is not white space, once known
        self._pos = 0  # SSE: the next line's start; before ``_start``: where to look
        self._scanned = 0  # SSE: no line ends before here after ``_pos``
        self._data: list[bytes | bytearray] | None = None  # SSE: the block's data lines
        self._splitter: JsonObjectSplitter | None = None
        self._first = 0  # JSON: where the first object starts
        self._text = False  # text, once the probe is in
        self._common = False  # the input opens as the common first block so far
        self._lead = -1  # (``_common_block``: the opening member's end, and its wire)
        self._lead_wire: str | None = None
        self.body = False

    def feed(self, data: bytes) -> str | None:
        buf = self._buf
        if buf is None:
            buf = data
        else:
            buf += data
        verdict = self._read(buf, data, final=False)
        if verdict is None and self._buf is None:
            self._buf = bytearray(data)
        else:
            self._buf = buf
        return verdict

    def close(self) -> str | None:
        buf = self._buf if self._buf is not None else b""
        return self._read(buf, b"", final=True)

    def take(self) -> bytes:
        """The input so far, without its byte order mark."""
        buf = self._buf if self._buf is not None else b""
        self._buf = None
        if type(buf) is bytes and not self._skip:
            return buf  # (the first piece, read in place: no copy)
        return bytes(memoryview(buf)[self._skip :])

    def _read(self, buf: bytes | bytearray, new: bytes, *, final: bool) -> str | None:
        if self._start < 0:
            if not final and len(buf) < 3 and _BOM.startswith(buf):
                return None  # perhaps a byte order mark
            self._skip = skip = 3 if buf[:3] == _BOM else 0
            found = _NOT_SPACE.search(buf, max(skip, self._pos))
            if found is None:
                self._pos = len(buf)
                return None  # white space so far (``close``: the input is empty)
            self._start = start = found.start()
            self._pos = skip  # SSE lines are read from the start
            self.body = buf[start] in b"{["
            if self._wire is not None:
                return self._wire
            self._common = start == 0 and not self.body
            new = b""  # (the JSON reader is fed from the first object on, once)
        if self._text:
            return self._probe(buf, final)
        if self._common:
            # an input that opens as the common first block is read as one while it
            # does (the lines below, read at each piece, cost ~30 K instructions more
            # where the first message comes in two pieces: callgrind); the decision is
            # the lines' own, as ``common_first_wire`` says
            verdict = self._common_block(buf, final)
            if verdict is not None:
                return None if verdict is _WAIT else verdict
        verdict = self._json(buf, new, final) if self.body else self._sse(buf, final)
        if verdict is TEXT:
            self._text = True
            return self._probe(buf, final)
        return verdict

    def _common_block(self, buf: bytes | bytearray, final: bool) -> str | None:
        """The common first block's wire, ``_WAIT`` while it is not whole yet, or None
        (and the lines decide from now on) where the input is not one, or ends."""
        lead = self._lead  # where the data line's opening member ends, once read
        if not final and len(buf) < DETECT_LIMIT:
            if lead < 0:
                found = _common_first(buf)
                self._lead_wire = wire = _kind_wire(found) if found is not None else None
                if found is not None and wire is not None:
                    self._lead = lead = found.end()
            if lead >= 0:
                end = buf.find(b"\n", max(lead, self._scanned))
                if end < 0 or end + 1 == len(buf):
                    self._scanned = len(buf) - 1 if end < 0 else end  # (searched up to here)
                    return _WAIT
                if buf[end + 1] == 0x0A and buf.find(b"\r", lead, end) < 0:
                    return self._lead_wire
        self._common = False
        self._scanned = 0
        return None

    def _probe(self, buf: bytes | bytearray, final: bool) -> str | None:
        """Text, if its first bytes are UTF-8 (None: wait for them)."""
        start = self._start
        probe = buf[start : start + TEXT_PROBE]
        whole = len(buf) - start <= TEXT_PROBE
        if whole and not final:
            return None
        try:
            # an incomplete character at the probe's end is left to the text decoder,
            # unless the input ends there
            codecs.utf_8_decode(probe, "strict", whole)
        except UnicodeDecodeError:
            return NOT_TEXT
        return TEXT

    def _json(self, buf: bytes | bytearray, new: bytes, final: bool) -> str | None:
        splitter = self._splitter
        if splitter is None:
            first = self._start
            if buf[first] == 0x5B:  # [: the first object comes after the array's bracket
                found = _NOT_SPACE.search(buf, max(first + 1, self._pos))
                if found is None:
                    self._pos = len(buf)  # (white space up to here: searched once)
                    return TEXT if final else None
                first = found.start()
                if buf[first] != 0x7B:  # {
                    return TEXT  # an array of no objects: no wire sends that
            # A first line that reads as one object is the object the splitter would
            # cut first (it ends at its last brace; orjson takes only white space
            # after it): read at once, not scanned byte by byte (an Ollama stream fed
            # in 4 KB pieces: 0.7 ms less, cProfile)
            end = buf.find(b"\n", first)
            if end >= 0:
                try:
                    value = orjson.loads(buf[first:end])
                except orjson.JSONDecodeError:
                    value = None
                if type(value) is dict:
                    return message_wire(value) or TEXT
            self._first = first
            self._splitter = splitter = JsonObjectSplitter()
            new = bytes(buf[first:])
        objects = splitter.feed(new)
        if objects:
            value = _json_value(objects[0])
        elif final:  # it never closed: a cut-off body still has the shape of one
            value = partial_value(bytes(buf[self._first :]).decode("utf-8", "replace"))
        else:
            return None
        self._splitter = None
        return (message_wire(value) if isinstance(value, dict) else None) or TEXT

    def _sse(self, buf: bytes | bytearray, final: bool) -> str | None:
        end = len(buf)
        if end >= DETECT_LIMIT:
            end = DETECT_LIMIT  # the first bytes decide, as if the input ended there
            final = True
        pos = self._pos
        while True:
            # the next line end: LF, CRLF or CR (``find``: a pattern of the three costs
            # a regular expression's step per byte)
            frm = max(pos, self._scanned)  # (no line end between the two)
            stop = buf.find(b"\n", frm, end)
            cr = buf.find(b"\r", frm, end if stop < 0 else stop)
            if cr >= 0:
                if cr + 1 == end and not final:
                    stop = -1  # a CR at the end may be a CRLF's first half
                else:
                    stop, after = cr, cr + 2 if buf[cr + 1 : cr + 2] == b"\n" else cr + 1
            else:
                after = stop + 1
            if stop < 0:
                break
            line = buf[pos:stop]
            pos = self._scanned = after
            verdict = self._line(line)
            if verdict is not None:
                return verdict
        self._pos = pos
        # (a CR at the end is a line end not yet known to be whole: the line is before it)
        self._scanned = line_end = end - 1 if buf[end - 1 : end] == b"\r" else end
        if final:
            # the last line and block end with the input
            verdict = self._line(buf[pos:end]) if pos < end else None
            return verdict or self._line(b"") or TEXT
        if pos < line_end and not _may_be_field(buf[pos : min(line_end, pos + _FIELD_HEAD)]):
            return TEXT
        return None

    def _line(self, line: bytes | bytearray) -> str | None:
        """One SSE line: a wire or text once it decides, else None."""
        if not line:  # a blank line ends a block: the first with data decides
            data = self._data
            self._data = None  # (the next block's, if this one decides nothing)
            return None if data is None else _wire_of(b"\n".join(data))
        if line[:1] == b":" or not line.strip(b" \t"):
            return None  # a comment (a keep-alive), or white space
        name, _, value = line.partition(b":")
        if name == b"data":
            if value[:1] == b" ":
                value = value[1:]
            if self._data is None:
                self._data = []
            self._data.append(value)
        elif name not in _FIELDS:
            return TEXT
        return None
