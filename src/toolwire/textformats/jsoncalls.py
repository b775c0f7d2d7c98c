"""Calls written as JSON envelopes: ``{"name": N, "arguments": {args}}``.

Shared by hermes, mistral (old), llama3_json, granite, xlam, jamba/hunyuan, internlm,
phi4_mini, the agents' fenced form and JSON calls in prose. When the envelope starts
with its name and the arguments are a JSON container (the usual case), the arguments
stream as raw deltas while the object is still open. Anything else (keys in another
order, Python-style quotes, string-encoded arguments) is read once, when the object
closes. Which path applies depends only on the object's text, never on how it was
chunked (F15).

Nothing in an envelope is dropped unseen (G3): its members are ``name``,
``arguments`` (or ``parameters``), and, read as harmless, ``id`` (a string: the
call's id) and ``type: "function"``; JSON whitespace goes silently. Any other member,
a member given twice, or text that is not JSON between the members makes the call
``invalid`` with the envelope as sent in ``raw_arguments``. An envelope only the
repair ladder can read (Python quotes, a trailing comma) is read by it, the repairs
named and the envelope as sent kept as the raw arguments.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

from toolwire.assemble import JsonScanner
from toolwire.assemble.jsonscan import find_bracket
from toolwire.coerce import json_type_name
from toolwire.repair import partial_value, repair_json
from toolwire.textformats.jsonend import container_end
from toolwire.textformats.need import NEED, SPACE, WS_LIMIT, Emit, Grammar, WholeCall, _Need

if TYPE_CHECKING:
    from toolwire.textformats.scanner import TextScanner

# Bounded, self-delimiting: a match on a prefix of the object is a match on the object.
_HEADER = re.compile(
    r'\{\s{0,32}"name"\s{0,32}:\s{0,32}("(?:[^"\\\n]|\\.){0,256}")\s{0,32},'
    r'\s{0,32}"(?:arguments|parameters)"\s{0,32}:\s{0,32}(?=[\[{])'
)
_HEADER_LIMIT = 1024
# ``_HEADER`` after the whitespace ``expect`` skips after a marker, for a name without
# escapes (its text is the name; half the instructions of ``_HEADER``, callgrind)
_SPACED_HEADER = re.compile(
    rf"[ \t\r\n]{{0,{WS_LIMIT}}}"
    r'\{\s{0,32}"name"\s{0,32}:\s{0,32}"([^"\\\n]{0,256})"\s{0,32},'
    r'\s{0,32}"(?:arguments|parameters)"\s{0,32}:\s{0,32}(?=[\[{])'
)
# the header as models write it, read by ``_whole_envelope_header`` without the regex
_USUAL_HEAD = '{"name": "'
_USUAL_KEYS = ('", "parameters": ', '", "arguments": ')
# buffered text from which an object may be read whole at once (less: a streamed delta,
# where the object is hardly ever all there)
_WHOLE_MIN = 64
_NAME_GUESS = re.compile(r"""["']name["']\s*:\s*["']([^"'\\]{1,256})["']""")

# the members of an envelope, read exactly: strings, scalars, whitespace (any, as in
# the header)
_WS = re.compile(r"\s*")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_ARGUMENT_KEYS = ("arguments", "parameters")

_HEAD, _ARGS, _TAIL, _BUFFER = range(4)

# outcomes of reading one envelope
CALL, TRUNCATED, NOT_A_CALL = "call", "truncated", "not_a_call"


def _decode_name(quoted: str) -> str:
    try:
        value = orjson.loads(quoted)
    except orjson.JSONDecodeError:
        return quoted[1:-1]
    return value if isinstance(value, str) else quoted[1:-1]


def _skip_space(text: str, pos: int) -> int:
    m = _WS.match(text, pos)
    return pos if m is None else m.end()


def _value_end(text: str, pos: int) -> int:
    """The end of the JSON value at ``pos`` (a container by its brackets, unchecked
    inside), or -1 when none starts there."""
    c = text[pos : pos + 1]
    if c in ("{", "["):
        return container_end(text, pos)
    m = (_STRING if c == '"' else _SCALAR).match(text, pos)
    return -1 if m is None else m.end()


def members(text: str, pos: int, *, first: bool) -> list[tuple[str, str]] | None:
    """The members (key, value text) of a JSON object from ``pos`` to its ``}``,
    which must end ``text``; ``first``: ``pos`` is just after the ``{`` (else after a
    member's value). None when anything but JSON whitespace lies between them."""
    found: list[tuple[str, str]] = []
    end = len(text)
    want_member = first
    while True:
        pos = _skip_space(text, pos)
        if pos >= end:
            return None
        c = text[pos]
        if c == "}" and not (want_member and found):
            return found if _skip_space(text, pos + 1) == end else None
        if not want_member:
            if c != ",":
                return None
            pos += 1
            want_member = True
            continue
        key = _STRING.match(text, pos)
        if key is None:
            return None
        pos = _skip_space(text, key.end())
        if not text.startswith(":", pos):
            return None
        pos = _skip_space(text, pos + 1)
        value_end = _value_end(text, pos)
        if value_end < 0:
            return None
        try:
            name = orjson.loads(key.group())
        except orjson.JSONDecodeError:
            return None
        found.append((name, text[pos:value_end]))
        pos = value_end
        want_member = False


class _Reading:
    """What an envelope's members say: the call's name, arguments text, id, and what
    was not read."""

    __slots__ = ("arguments", "id", "name", "problems", "seen")

    def __init__(self) -> None:
        self.name: str | None = None
        self.arguments: str | None = None
        self.id: str | None = None
        self.problems: list[str] = []
        self.seen: set[str] = set()

    def take(self, key: str, text: str) -> None:
        """One member, its value as written."""
        kind = "arguments" if key in _ARGUMENT_KEYS else key
        if kind in self.seen:
            self.problems.append(f"{key!r} given more than once in the call object")
            return
        self.seen.add(kind)
        if kind == "arguments":
            # string-encoded arguments are their string's text
            decoded = _string(text)
            self.arguments = text if decoded is None else decoded
        else:
            self.other(key, kind, _string(text))

    def other(self, key: str, kind: str, value: str | None) -> None:
        """A member besides the arguments; ``value``: its string, if it is one."""
        if kind in ("name", "id"):
            if value is None:
                self.problems.append(f"the call object's {key!r} is not a string")
            elif kind == "name":
                self.name = value
            else:
                self.id = value
        elif not (kind == "type" and value == "function"):
            self.problems.append(f"the call object holds {key!r}, which is not read")


def _string(text: str) -> str | None:
    if not text.startswith('"'):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


def _after_arguments(tail: str) -> _Reading:
    """What follows the arguments of an envelope that starts with its name and
    arguments, up to and with its closing ``}``."""
    reading = _Reading()
    reading.seen.update(("name", "arguments"))
    found = members(tail, 0, first=False) if tail != "}" else []
    if found is None:
        excerpt = tail[:-1].strip()
        excerpt = excerpt if len(excerpt) <= 40 else excerpt[:37] + "..."
        reading.problems.append(f"text in the call object that is not JSON: {excerpt!r}")
    for key, value in found or ():
        reading.take(key, value)
    return reading


class _Envelope:
    """One envelope object being read (the scanner's text starts at its ``{``)."""

    def __init__(self, sc: TextScanner, bare: bool) -> None:
        self.sc = sc
        self.bare = bare  # no marker announced a call: a nameless object is text
        # made once the object is read as it streams (not when it is here whole)
        self.outer: JsonScanner | None = None
        self.inner: JsonScanner | None = None
        self.parts: list[str] = []
        self.size = 0
        self.phase = _HEAD
        self.index = -1
        # while streaming: the text before the kept markup, where the arguments start
        # in it, how long they are so far, and the text after them
        self.head = ""
        self.args_from = 0
        self.emit_arguments: Emit | None = None  # made with the header
        self.tail: list[str] = []

    def step(self) -> tuple[str, str] | _Need:
        """Read what the buffer holds of the object. Every scan stops where the
        object (or its arguments) closes, so a call costs its own length however
        much text follows it in the buffer (F22)."""
        sc = self.sc
        buf, pos = sc._buf, sc._pos
        if self.phase == _HEAD and not self.parts and len(buf) - pos > _WHOLE_MIN:
            # the whole object may be here already (text fed whole, a large read): read
            # it at once, as the streaming path does once it closes. The usual shape,
            # name then arguments then ``}``, takes one scan of the arguments.
            m = _HEADER.match(buf, pos)
            if m is not None:
                args_end = container_end(buf, m.end())
                close = _skip_space(buf, args_end) if args_end >= 0 else -1
                if buf[close : close + 1] == "}":
                    sc._pos = close + 1
                    sc.whole_call(_decode_name(m.group(1)), buf[m.end() : args_end])
                    return (CALL, "")
            end = container_end(buf, pos)
            if end >= 0:
                sc._pos = end
                return self._whole(buf[pos:end])
        if self.phase == _HEAD or self.phase == _BUFFER:
            outer = self.outer
            if outer is None:
                outer = self.outer = JsonScanner()
            end = outer.scan_to_close(buf, pos)
            stop = len(buf) if end < 0 else end
            self.parts.append(buf[pos:stop])
            self.size += stop - pos
            sc._pos = stop
            if end >= 0:
                return self._whole("".join(self.parts))
            if self.phase == _HEAD:
                self._header()
            if (self.phase == _HEAD or self.phase == _BUFFER) and not sc._eof:
                sc.plain_deltas(find_bracket, self._take_head)
        else:
            end = self._after_header(buf, pos)
            sc._pos = len(buf) if end < 0 else end
            if end >= 0:
                return self._streamed()
            if self.phase == _ARGS and not sc._eof:
                assert self.inner is not None and self.emit_arguments is not None
                sc.plain_value(find_bracket, self.inner, self.emit_arguments)
        if not sc._eof:
            return NEED
        return self._cut()

    def _take_head(self, text: str) -> None:
        """``step`` before the arguments stream, with only ``text`` unread, which holds
        no bracket: the object cannot close in it, nor can its header become readable
        (``_HEADER`` ends before a bracket; without one in ``text`` it would have
        matched the text before it already)."""
        outer = self.outer
        assert outer is not None  # made by the step that offered this
        outer.feed_open(text)
        self.parts.append(text)
        self.size += len(text)
        if self.size >= _HEADER_LIMIT:
            self.phase = _BUFFER  # as ``_header`` finds

    def _header(self) -> None:
        """The object is still open: once its header is readable, start the call and
        stream the argument text read so far."""
        head = "".join(self.parts)
        self.parts = [head]
        m = _HEADER.match(head)
        if m is None:
            if self.size >= _HEADER_LIMIT:
                self.phase = _BUFFER
            return
        self.index = self.sc.begin_call(_decode_name(m.group(1)))
        self.emit_arguments = self.sc.argument_text(self.index)
        self.phase = _ARGS
        # the object as sent is kept until it closes: a call that holds something
        # unread after its arguments carries it
        self.head, self.args_from = head, m.end()
        self.sc.keep_markup()
        # the object is one level deep once its arguments close
        self.inner = JsonScanner()
        self.outer = outer = JsonScanner()
        outer.depth, outer.started = 1, True
        self._after_header(head, m.end())  # cannot close: the object did not within ``head``

    def _after_header(self, text: str, pos: int) -> int:
        """Stream argument text from ``text[pos:]``, then follow the object's tail
        (normally ``}``). Answers the offset just past the object's close, or -1
        when it is still open (all of ``text`` read)."""
        inner, outer, emit = self.inner, self.outer, self.emit_arguments
        assert inner is not None and outer is not None and emit is not None  # made with the header
        if self.phase == _ARGS:
            end = inner.scan_to_close(text, pos)
            stop = len(text) if end < 0 else end
            if stop > pos:
                emit(text[pos:stop])
            if end < 0:
                return -1
            self.phase = _TAIL
            pos = end
        end = outer.scan_to_close(text, pos)
        self.tail.append(text[pos : len(text) if end < 0 else end])
        return end

    def _streamed(self) -> tuple[str, str]:
        """The object of a streamed call closed: what follows its arguments must be
        members that are read (an id), else the call is invalid with its text."""
        sc, index = self.sc, self.index
        reading = _after_arguments("".join(self.tail))
        markup = sc.take_markup()
        if reading.problems:
            envelope = self.head + markup
            sc.sink.tool(
                index, None, None, None, unreadable="; ".join(reading.problems), raw=envelope
            )
        elif reading.id is not None:
            sc.sink.tool(index, reading.id, None, None, delimited=True)  # a late id
        sc.end_call(index)
        return (CALL, "")

    def _whole(self, obj: str) -> tuple[str, str]:
        """The object closed before streaming began: read it at once."""
        m = _HEADER.match(obj)
        end = _value_end(obj, m.end()) if m is not None else -1
        if m is not None and end > 0:
            # the usual shape, read as when it streams: what follows the arguments
            reading = _after_arguments(obj[end:])
            reading.name, reading.arguments = _decode_name(m.group(1)), obj[m.end() : end]
        else:
            found = members(obj, 1, first=True)
            if found is None:
                return self._repaired(obj)
            reading = _Reading()
            for key, value in found:
                reading.take(key, value)
        if reading.name is None and self.bare:
            return (NOT_A_CALL, obj)
        if reading.name is None and not reading.problems:
            reading.problems.append("the call object has no name")
        if reading.problems:
            self.sc.whole_call(reading.name, obj, unreadable="; ".join(reading.problems))
        else:
            self.sc.whole_call(reading.name, reading.arguments, id=reading.id)
        return (CALL, "")

    def _repaired(self, obj: str) -> tuple[str, str]:
        """An object that is not exact JSON: the repair ladder reads it, and the call
        keeps the object as sent as its raw arguments."""
        result = repair_json(obj)
        value: Any = result.value if result.ok and not result.truncated else None
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            if self.bare:
                return (NOT_A_CALL, obj)
            guess = _NAME_GUESS.search(obj)
            why = result.error if not result.ok else "it does not close as JSON"
            self.sc.whole_call(
                guess.group(1) if guess else None,
                obj,
                unreadable=f"the call object is not readable: {why}",
            )
            return (CALL, "")
        reading = _Reading()
        for key, item in value.items():
            if key not in _ARGUMENT_KEYS:
                reading.other(key, key, item if isinstance(item, str) else None)
        if all(key in value for key in _ARGUMENT_KEYS):
            reading.problems.append("both 'arguments' and 'parameters' in the call object")
        name, repairs = value["name"], list(result.repairs)
        args = value.get("arguments", value.get("parameters", {}))
        if args is None:
            args = {}
            repairs.append("null_arguments")
        elif isinstance(args, str) and not args.strip():
            args = {}  # F2: a tool with no parameters
        elif isinstance(args, str):  # string-encoded arguments
            inner = repair_json(args)
            if inner.ok and not inner.truncated:
                args = inner.value
                repairs += inner.repairs
            else:
                reading.problems.append(f"the arguments are not readable JSON: {inner.error}")
        if not (reading.problems or isinstance(args, dict | list)):
            reading.problems.append(f"the arguments are {json_type_name(args)}, not an object")
        if reading.problems:
            self.sc.whole_call(name, obj, repairs, unreadable="; ".join(reading.problems))
        else:
            self.sc.whole_call(name, args, repairs, raw=obj, id=reading.id)
        return (CALL, "")

    def _cut(self) -> tuple[str, str]:
        """End of stream inside the object (F1)."""
        sc = self.sc
        if self.phase == _ARGS:
            sc.take_markup()  # the arguments, cut off, are the call's raw text
            sc.end_call(self.index, truncated=True)
            return (TRUNCATED, "")
        if self.phase == _TAIL:
            envelope = self.head + sc.take_markup()
            if not "".join(self.tail).strip():
                sc.end_call(self.index)  # the arguments are whole and nothing else came
                return (CALL, "")
            # cut off in what follows the arguments: the object as sent is kept
            assert self.inner is not None  # made with the header
            # the inner scanner read the arguments, and only them
            arguments = envelope[self.args_from : self.args_from + self.inner.consumed]
            partial = partial_value(arguments)
            if isinstance(partial, dict | list):
                sc.sink.tool(self.index, None, None, partial, raw=envelope)
            else:
                sc.sink.tool(self.index, None, None, None, raw=envelope)
            sc.end_call(self.index, truncated=True)
            return (TRUNCATED, "")
        head = "".join(self.parts)
        guess = _NAME_GUESS.search(head)
        if guess is None and self.bare:
            return (NOT_A_CALL, head)
        # nothing in it was read as arguments: the object as sent is the raw text
        index = sc.begin_call(guess.group(1) if guess else None)
        sc.sink.tool(index, None, None, {}, raw=head)
        sc.end_call(index, truncated=True)
        return (TRUNCATED, "")


def envelope(sc: TextScanner, *, bare: bool = False) -> Grammar:
    """Read one envelope object; the text starts at ``{``. Answers an outcome:
    CALL, TRUNCATED, or NOT_A_CALL (only when ``bare``; the object text is then
    emitted as text here)."""
    reader = _Envelope(sc, bare)
    outcome, raw = yield (reader.step,)
    if outcome == NOT_A_CALL:
        sc.sink.text(raw)
    return outcome


def envelope_list(sc: TextScanner, *, opened: bool = False) -> Grammar:
    """Read ``[env, env, …]`` (the text starts at ``[`` unless ``opened``).
    Answers TRUNCATED if the stream ended inside it, else CALL."""
    if not opened:
        sc.skip(1)
    while True:
        r = yield (sc.expect, ("{", ",", "]"))
        if r is None:
            return TRUNCATED if sc.at_eof else CALL
        if r is False:
            return CALL  # not a list of envelopes any more: the rest is text
        if r == "{":
            outcome = yield from envelope(sc)
            if outcome == TRUNCATED:
                return TRUNCATED
        else:
            sc.skip(1)
            if r == "]":
                return CALL


def whole_envelope(sc: TextScanner) -> bool:
    """An envelope in the usual shape (name, then arguments), its ``}`` and then the
    first of the family's ``WHOLE_CLOSE`` tags, all in the buffer (text fed whole, a
    large read): read at once, as one call. False, nothing consumed, for anything
    else (see ``read_whole_envelope``).

    Measured with callgrind on 2 KB of Hermes text with 4 calls: about 65 K
    instructions less per call than ``envelope`` (its requests, the bracket scan of
    the arguments, the reading of them in the finisher)."""
    found = read_whole_envelope(sc)
    if found is None:
        return False
    name, arguments, loaded = found[0]
    sc.whole_call(name, arguments, loaded=loaded)
    return True


def read_whole_envelope(sc: TextScanner, marker: str = "") -> list[WholeCall] | None:
    """``TextScanner.whole_calls`` of a family whose call is one envelope up to the
    first of its ``WHOLE_CLOSE`` tags (``WHOLE_TAKE``: the tag is consumed too, else
    left to what follows): the call not yet reported, the position moved past it,
    its name, arguments text and ``orjson.loads`` of them; None, nothing consumed,
    where the envelope is not all here in the usual shape. The arguments are taken
    from the header to the ``}`` before the tag and must be strict JSON: then they
    are the value the bracket scan of ``envelope`` would find, and the call is the
    one the streaming path reads (F15). None for anything else (the tag inside a
    string, other members, several objects, no tag yet). ``marker`` (the start
    marker just read) is not needed: only the hook's signature.

    The families' ``whole_calls`` itself, with ``try_loads`` written out (the tag
    search is ``_first_close``, shared with ``read_usual_text``): each function a
    parse runs costs cache misses when it runs cold,
    right after ``gc.collect()`` (see ``scanner._FAMILY_MARKERS``)."""
    buf, pos = sc._buf, sc._pos
    header = _whole_envelope_header(buf, pos)
    if header is None:
        return None
    name, head = header
    end, tag = _first_close(sc, pos)
    if end < head or end == sc.whole_missed:
        return None
    # the object's end: before the JSON whitespace before the tag, at most
    # ``WS_LIMIT`` characters of it (more: the requests read it). A loop, not
    # ``rstrip(" \t\r\n")`` and ``endswith``: the usual whitespace there is a newline
    # or none, and each C function a parse runs costs cache misses cold.
    close = end
    while close > head and end - close <= WS_LIMIT and buf[close - 1 : close] in SPACE:
        close -= 1
    if end - close <= WS_LIMIT and buf[close - 1 : close] == "}":
        arguments = buf[head : close - 1].rstrip()  # \s, as ``_skip_space`` skips
        try:
            loaded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            pass
        else:
            sc._pos = end + len(tag) if sc.WHOLE_TAKE else close
            return [(name, arguments, loaded)]
    # the calls before the same tag (several objects in a row, tags left open) are
    # read by ``envelope``, not copied out again each
    sc.whole_missed = end
    return None


def read_usual_text(sc: TextScanner) -> list[str | WholeCall] | None:
    """``TextScanner.usual_text`` of a family whose calls are envelopes that leave
    their end tag in the text, a stray tag (Llama 3 JSON: ``<|python_tag|>{"name": N,
    "parameters": {...}}<|eom_id|>``): the buffer read in one pass where it is prose
    and such calls alone, as the prose and the calls ``_whole_text`` would report for
    it, in order; None, nothing read, for anything else.

    The prose must hold no first character of a marker (``<``, and where tools are
    declared ``{`` and a fence's backtick), so that no marker, nor the start of one
    the text may still bring, is in it; each call must be one envelope that
    ``read_whole_envelope`` reads, its ``}`` right before its end tag. Then
    ``_whole_text`` finds each start marker where this does, reads each call as this
    does, drops each end tag as this does, and emits the rest as text, tail too.

    Why a second reading of what ``_whole_text`` reads: a non-streaming response is
    read once per request, cold, and one plain loop of ``str.find`` and one
    ``orjson.loads`` per call, with no regex, costs less than the calls between
    ``_whole_text``'s functions. ``bench_textformats_whole.py``, Llama 3 JSON, 2 KB
    with 4 calls right after ``gc.collect()``: agent-tool-parser's time over
    toolwire's went from 0.80 to 0.90-0.92 (medians of 8 runs), with ``CallAssembler``'s
    ``_finished_as_sent``. ``tests/textformats/test_usual_text.py`` checks that both report
    the same events."""
    buf, pos = sc._buf, sc._pos
    markers = sc._text_markers
    strays = sc._whole_read[4]
    if markers is None or len(sc.START) != 1 or sc.WHOLE_TAKE or not strays:
        return None
    start = sc.START[0]
    firsts = markers.firsts
    found: list[str | WholeCall] = []
    while True:
        at = buf.find(start, pos)
        prose = buf[pos:] if at < 0 else buf[pos:at]
        for first in firsts:
            if first in prose:
                return None  # other markup, or what may become some
        found.append(prose)
        if at < 0:
            return found
        after = at + len(start)
        header = _whole_envelope_header(buf, after)
        if header is None:
            return None
        name, head = header
        # the first end tag after the marker, as ``read_whole_envelope`` finds it:
        # after the header, and a stray one
        end, tag = _first_close(sc, after)
        if end < head or buf[end - 1 : end] != "}" or tag not in strays:
            return None
        arguments = buf[head : end - 1].rstrip()
        try:
            loaded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
        found.append((name, arguments, loaded))
        pos = end + len(tag)


def _first_close(sc: TextScanner, pos: int) -> tuple[int, str]:
    """Where the first of the family's ``WHOLE_CLOSE`` tags occurs in the buffer at or
    after ``pos``, and which (-1 and "" where none does). Each tag's answer is kept
    until the next feed (``sc._ahead``), so calls that each look ahead for a tag search
    the text once between them, not each to the buffer's end (linear when a tag never
    comes, as ``<|eot_id|>`` beside ``<|eom_id|>``, F22)."""
    buf, ahead = sc._buf, sc._ahead
    end, tag = -1, ""
    for each in sc.WHOLE_CLOSE:
        known = ahead.get(each)
        if known is not None and known[0] <= pos and (known[1] < 0 or known[1] >= pos):
            found = known[1]
        else:
            found = buf.find(each, pos)
            ahead[each] = (pos, found)
        if found >= 0 and (end < 0 or found < end):
            end, tag = found, each
    return end, tag


def _whole_envelope_header(buf: str, pos: int) -> tuple[str, int] | None:
    """The name and where the arguments begin, of the envelope header at ``pos`` that
    ``_SPACED_HEADER`` matches; None where it matches none. The header as models
    write it (``{"name": "N", "parameters": {``) is read without the regex engine:
    Llama 3 JSON's usual whole text then runs none of it (see ``read_usual_text``),
    and each part of the engine a parse runs costs it cache misses cold."""
    if buf.startswith(_USUAL_HEAD, pos):
        start = pos + len(_USUAL_HEAD)
        quote = buf.find('"', start, start + 257)  # (the pattern's name: 256 at most)
        if quote >= 0:
            name = buf[start:quote]
            for keys in _USUAL_KEYS:
                if buf.startswith(keys, quote):
                    head = quote + len(keys)
                    if buf[head : head + 1] in ("{", "[") and "\\" not in name and "\n" not in name:
                        return name, head
                    break
    m = _SPACED_HEADER.match(buf, pos)
    return None if m is None else (m.group(1), m.end())


def envelopes(sc: TextScanner, closing: tuple[str, ...] = (), *, bare: bool = False) -> Grammar:
    """A call body that is an envelope, a list of envelopes, or several envelopes in
    a row (or separated by commas), optionally followed by one of ``closing``
    (consumed if present).
    Answers False when the body is neither (nothing consumed). ``bare``: no marker
    announced it, so an object that names no tool is text."""
    r = yield from sc.after_marker(("{", "["))
    if isinstance(r, bool):
        return r
    while True:
        if r == "[":
            outcome = yield from envelope_list(sc)
        else:
            outcome = yield from envelope(sc, bare=bare)
        if outcome != CALL:
            return True
        r = yield (sc.expect, ("{", ",", *closing))
        if r == ",":  # objects listed without the brackets: each is a call
            sc.skip(1)
            r = yield (sc.expect, ("{",))
            if r != "{":
                sc.push_back(",")
                return True
        if r in closing:
            sc.skip(len(r))
            return True
        if r != "{":
            return True
