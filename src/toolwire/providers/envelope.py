"""Envelopes: the bytes around the one string that changes from message to message.

Model servers stream argument and text deltas as SSE messages that are the same bytes
from one message to the next but for one JSON string: the delta (vLLM, SGLang and the
OpenAI and Anthropic captures in the corpus all do). Once a decoder has read such a
message the slow way, an ``Envelope`` keeps the bytes before and after that string. A
later block made of the same bytes around a valid JSON string token means the same
thing with another string: JSON lets any string token stand in for another, and a
string token holds no raw newline, so the SSE framing is the same too. Reading it then
costs a compare at each end and decoding the string alone, not the whole message.

Some servers (Anthropic's API) pad each message with a varying run of spaces before the
object's closing brace. Whitespace between JSON tokens means nothing, so an envelope
whose message ends in a ``}`` keeps its suffix without that padding and also reads a
block whose only difference there, or after the brace, is a run of spaces or tabs.
OpenAI's API pads its messages otherwise: a last member of random characters,
``,"obfuscation":"..."`` (on by default, ``stream_options.include_obfuscation``), which
no decoder reads; an envelope keeps its suffix without that member too, and reads a
block that ends in it, whatever its string holds (no quote, backslash or control
character: a plain string, so the member is all that stands between the suffix and
the brace).

Ollama's lines (newline-delimited JSON) differ from one to the next in two strings:
the text, and a timestamp in ``created_at``. A ``LineEnvelope`` keeps the bytes around
both, and reads a run of lines at once (``learn_stamped_line``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import IntEnum
from typing import Any, NamedTuple

import orjson


class Role(IntEnum):
    """What the changing string is."""

    ARGUMENTS = 0  # argument text of the tool call at the envelope's slot
    TEXT = 1
    REASONING = 2


# the members as plain names, for the hot paths: reading a member off an enum class
# costs about a thousand instructions on Python 3.11 (callgrind)
ARGUMENTS, TEXT, REASONING = Role.ARGUMENTS, Role.TEXT, Role.REASONING


# OpenAI's last member of random characters, from its comma through the message's
# closing brace, where its string is plain (see the module's docstring): no quote, no
# backslash, no control character (a raw line end would make the block two SSE lines,
# and JSON takes none of them raw: the slow way reads such a block otherwise)
OBFUSCATION = b',"obfuscation":"'
obfuscation_end = re.compile(rb',"obfuscation":"[^"\\\x00-\x1f]*"\}').fullmatch
# the same, after the member's opening quote
obfuscation_value_end = re.compile(rb'[^"\\\x00-\x1f]*"\}').fullmatch
# the characters of the member's value as OpenAI writes it
LETTERS_AND_DIGITS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

# the digits of a JSON integer (``Envelope.gap``)
DIGITS = b"0123456789"


def padded_token(block: bytes, start: int, core: bytes, obfuscated: bool = False) -> bytes:
    """The bytes from ``start`` through the closing quote of a block that ends in
    ``core``, spaces, ``}`` and spaces, or in ``core``, OpenAI's obfuscation member and
    ``}``; empty (never a string) if it ends otherwise.

    The last ``core`` in the block is the one before that end: ``core`` opens with the
    closing quote, and no later one can start inside it and end in the spaces and brace
    after it (it does not end in a space, and any run of its length inside it holds
    a quote). Where a later one ends inside the obfuscation member (a core as short as
    ``"}``), what follows it is no whole member: nothing is found, and the block is
    read the slow way. One search, not two strips and a compare: 3,500 instructions,
    not 4,900 (callgrind; ``SSEWireDecoder._blocks`` writes it out: 2,800).

    ``obfuscated`` (an envelope learned from a block that ended in that member): the
    member is looked for first, and ``core`` must stand right before it. So a core as
    short as a quote is found too (Responses' events end in their delta, then the
    member): the member's last opening quote is the last ``,"obfuscation":"`` in the
    block, as a plain string holds none."""
    if obfuscated:
        head, member, value = block.rpartition(OBFUSCATION)
        if member and obfuscation_value_end(value) is not None:
            text = head.removesuffix(core)
            return block[start : len(text) + 1] if text is not head and len(text) > start else b""
    head, found, tail = block.rpartition(core) if core else (b"", b"", b"")
    if (
        not found
        or len(head) <= start
        or (tail.strip(b" \t") != b"}" and obfuscation_end(tail) is None)
    ):
        return b""
    return block[start : len(head) + 1]


# what every block of a stream of named events opens with (``SSEDecoder.feed_parts``)
EVENT_LEAD = b"event: "


# envelopes a decoder may learn (or try to learn) beyond the blocks they read: a server
# that changes its bytes every message (a random field, a per-message id) soon stops
# the learning (``SSEWireDecoder.learn``, ``GeminiDecoder``'s chunks of text)
SPARE_LEARNINGS = 4


# an envelope's fields as ``SSEWireDecoder._blocks`` reads them (``Envelope.fields``)
EnvelopeFields = tuple[bytes, bytes, bytes, bool, Role | None, int, bytes, bytes]

# bytes no block holds (a blank line ends one): an opening no block has
NO_BLOCK = b"\n\n"


class Envelope:
    """The bytes of one message shape around its changing string."""

    __slots__ = (
        "core",
        "fields",
        "gap",
        "lead",
        "obfuscated",
        "prefix",
        "role",
        "slot",
        "start",
        "stop",
        "suffix",
    )

    def __init__(
        self, prefix: bytes, suffix: bytes, role: Role, slot: int, gap: bytes = b""
    ) -> None:
        # Up to and including the string's opening quote; or, with a ``gap``, up to a
        # JSON integer that differs from block to block in a member the decoder never
        # reads (Responses' ``sequence_number``), and ``gap`` from after that number
        # through the opening quote.
        self.prefix = prefix
        self.gap = gap
        # From the string's closing quote on, without the spaces before and after a
        # final ``}``; ``core``: what comes before that brace (empty when the suffix
        # ends otherwise: no padding is read). The spaces before the message's last
        # brace lie between tokens: the brace closes the whole object, so every string
        # and value ends before them.
        self.obfuscated = False  # learned from a block that ended in OpenAI's member
        cut = suffix.rfind(OBFUSCATION)
        if cut > 0 and obfuscation_end(suffix, cut) is not None:
            suffix = suffix[:cut] + b"}"  # (learned from a block OpenAI padded)
            self.obfuscated = True
        core = suffix[:-1]
        if suffix[-1:] != b"}" or core[-1:] in (b" ", b"\t"):
            # (a suffix that ends in a brace with no space before it, as most do, is
            # its own: the steps below cost a learn 1,400 instructions, callgrind)
            core = suffix.rstrip(b" \t")
            if core[-1:] == b"}":
                core = core[:-1].rstrip(b" \t")
                suffix = core + b"}"
            else:
                core = b""
        self.suffix = suffix
        self.core = core
        # the string token's slice: from the opening quote (with a gap, where it is
        # after a number of no digits: each block's digits are added) through the
        # closing one
        self.start = len(prefix) + len(gap) - 1
        self.stop = 1 - len(suffix)
        self.role = role
        self.slot = slot  # the call's index, for ARGUMENTS
        # What ``SSEWireDecoder._blocks`` reads, as one tuple (a call to gather them
        # cost a learn 1,500 instructions, callgrind): the bytes a block opens with, and
        # with a gap the gap, each without the string's opening quote (what is left of
        # the block after them must open with it, which the loop checks: the string's
        # bytes are that rest up to its closing quote, joined to a quote: no slice of
        # the block and no ``len``); its suffix, what that holds before a padded last
        # brace, whether it holds arguments, its role, its slot, and, if it was
        # obfuscated, the core and the obfuscation member's head after it (else empty).
        # (Without an opening quote, nothing: a head that never matches.)
        head = (gap or prefix)[:-1] if (gap or prefix)[-1:] == b'"' else NO_BLOCK
        self.fields: EnvelopeFields = (
            prefix if gap else head,
            suffix,
            core,
            role is ARGUMENTS,
            role,
            slot,
            head if gap else b"",
            core + OBFUSCATION if self.obfuscated else b"",
        )

        # For an envelope of named events with a number (``gap``) and OpenAI's
        # obfuscation member at the end (Responses' deltas, read by
        # ``SSEWireDecoder._numbered_run``): what the stream's blocks are taken to open
        # with, to cut its reads at (``SSEDecoder.feed_parts``): the event line up to the
        # first dot of its name, ``event: response.`` (a longer needle, found faster:
        # 4 KB pieces of Responses' events in ~85% of the time that ``event: `` alone
        # takes). Else empty.
        self.lead = b""
        if gap and self.obfuscated and prefix.startswith(EVENT_LEAD):
            line = prefix[: prefix.find(b"\n")]
            dot = line.find(b".")
            self.lead = line[: dot + 1] if dot >= 0 else EVENT_LEAD

    def opening(self, block: bytes) -> int:
        """Where the string's opening quote is in ``block``, if the block opens with
        this envelope's prefix (and a number and the gap after it); else -1."""
        if not block.startswith(self.prefix):
            return -1
        if not self.gap:
            return self.start
        rest = block[len(self.prefix) :]
        after = rest.lstrip(DIGITS)
        digits = len(rest) - len(after)
        if not digits or (digits > 1 and rest[:1] == b"0") or not after.startswith(self.gap):
            return -1  # no JSON integer there, or other bytes after it
        return self.start + digits

    def token(self, block: bytes) -> bytes | None:
        """The bytes between this envelope's ends in ``block``, through both quotes (not
        checked to be one string token), or None when ``block`` has other ends.
        (``SSEWireDecoder.feed`` does the same inline, on its hot path.)"""
        start = self.opening(block)
        if start < 0:
            return None
        if not self.obfuscated and block.endswith(self.suffix):
            return block[start : self.stop]
        return padded_token(block, start, self.core, self.obfuscated) or None

    def read(self, block: bytes) -> str | None:
        """The string in ``block`` if the block is this envelope around one, else None."""
        token = self.token(block)
        if token is None:
            return None
        # Ends that overlap leave less than two bytes between them, which never read
        # as a string; a slice that reads at all is a str: it opens with "
        try:
            value: str = orjson.loads(token)
        except orjson.JSONDecodeError:
            return None  # not one string token: the block is read the slow way
        return value


# each key as a JSON string token (keys come from the decoders' code: a dict, not
# ``functools.cache``, whose call costs a learn a thousand instructions more)
_KEY_TOKENS: dict[str, bytes] = {}

# what follows a key before its string value, then that string token, through both
# quotes (group 1); the body: ordinary characters, each escape whole
_STRING_AFTER_KEY = re.compile(rb'[ \t]*:[ \t]*("[^"\\]*(?:\\.[^"\\]*)*")', re.DOTALL)

# an SSE line that sets state (a field named ``id...`` or ``retry...`` at a line's start)
_STATE_LINE = re.compile(rb"^(?:id|retry)", re.M)

# a string no delta carries, put in the found string's place to see where it lands
_PROBE = "\x00toolwire-envelope-probe"
_PROBE_TOKEN = orjson.dumps(_PROBE)


def learn_envelope(
    block: bytes,
    key: str,
    value: str,
    role: Role,
    slot: int,
    read: Callable[[Any], Any],
    number: bytes = b"",
) -> Envelope | None:
    """The envelope of ``block``, an SSE block whose data line was read strictly (no
    repair) and whose member ``key`` was read as the string ``value``. ``number``: the
    key token and colon of a member whose integer value differs from message to
    message and is never read (``Envelope.gap``). None unless the block has one data
    line, its last, holding the key exactly once, the string found there reads back as
    ``value``, and ``read`` (how the decoder took ``value`` out of the parsed data)
    finds a probe put in that string's place: the key may also have been written with
    escapes, or twice, and then the bytes found are another member.
    Data without a backslash outside that string holds no such key, and needs no probe
    (``read`` takes the value out as the member ``key`` of an object: each decoder's
    reader ends in ``[key]``).

    Each step costs a learn about a thousand instructions (a Python-level call), so
    the key is found by two ``partition``s and its string by a compare with what
    orjson writes for ``value`` (one match where the wire wrote it otherwise): 18,200
    instructions on an OpenAI chunk, 22,200 with the match, a ``loads`` of its token
    and a search more for a line end, 31,000 with a ``count``, a regex search and a
    second match (callgrind). Regular expressions over the whole line cost more than
    the searches they would replace (a lookahead per line: 14,000 for the line before
    the key alone)."""
    token = _KEY_TOKENS.get(key)
    if token is None:
        token = _KEY_TOKENS[key] = b'"' + key.encode() + b'"'
    # (``partition`` parses no arguments: the second search costs 900 instructions, a
    # ``find`` from an offset 1,700, and ``in`` 2,500)
    before, found_key, after = block.partition(token)
    if not found_key or after.partition(token)[1]:
        return None  # a key that occurs twice could be read from the wrong place
    # The string is most often written as orjson writes ``value``, right after the
    # colon: then that token is there and reads back as ``value`` without a match and a
    # ``loads`` (3,000 instructions less a learn, callgrind); else the match finds it.
    try:
        written = orjson.dumps(value)
    except TypeError:  # orjson writes no lone surrogate (the stdlib may have read one)
        written = b""
    end = len(written) + 1
    if written and after[1:end] == written and after[:1] == b":":
        start = 1
    else:
        found = _STRING_AFTER_KEY.match(after)
        if found is None:
            return None
        start, end = found.span(1)  # in ``after``: the string token, through both quotes
        try:
            if orjson.loads(found[1]) != value:
                return None
        except orjson.JSONDecodeError:
            return None
    suffix = after[end - 1 :]
    if len(suffix) < 2:
        return None  # nothing after the string (not a JSON object)
    # The block's last line end, one search for two answers: after ``before`` it can
    # only be in the suffix (the key, the colon and a string token that reads hold
    # none), which must then not end the line; else it ends the line before the
    # string's (1,100 instructions less than searching each apart, callgrind).
    last = block.rfind(b"\n")
    if last >= len(before):
        return None  # more lines after the string's
    # the string must sit in the only data line, the block's last
    line = last + 1
    if before[line : line + 5] != b"data:":
        return None
    if line and (
        before.startswith(b"data")
        or before.find(b"\ndata", 0, line - 1) >= 0
        or _STATE_LINE.search(before, 0, line) is not None
    ):
        return None  # another data line, or reading the block sets state (last event
        # id, retry) to keep current
    prefix = block[: len(before) + len(token) + start + 1]
    # Without a backslash outside the string token, every quote there delimits a
    # string, so the key's token, found once, is the only member of that name in the
    # data: the one ``read`` took the value from. The probe proves the same by reading
    # the data again (half as much again as the rest of a learn, callgrind).
    # (the last backslash before the string, not a ``find`` from the line's start: an
    # offset costs the search 600 instructions more)
    if before.rfind(b"\\") >= line or suffix.find(b"\\") >= 0:
        data = prefix[line:-1] + _PROBE_TOKEN + suffix[1:]
        data = data[6:] if data[5:6] == b" " else data[5:]
        try:
            if read(orjson.loads(data)) != _PROBE:
                return None
        except Exception:  # the probe made the data unreadable there: not this member
            return None
    gap = b""
    if number and before.rfind(b"\\") < line:
        # Without a backslash, every quote in the data line before the string delimits
        # a string, so ``number`` found there is a key token, not text in a string
        # (its quote cannot close one: a letter follows it), and the brackets between
        # the strings say how deep it sits. The envelope lets the integer after it
        # differ where it is a member of the message itself: the decoder reads no
        # member of that name there (one nested in a value it reads may matter).
        member = prefix.find(number, line)
        if member >= 0 and _depth(prefix[line:member]) == 1:
            at = member + len(number)
            after = prefix[at:].lstrip(DIGITS)
            if at < len(prefix) - len(after) and after[:1] == b",":
                prefix, gap = prefix[:at], after
    return Envelope(prefix, suffix, role, slot, gap)


def _depth(data: bytes) -> int:
    """How deep the end of ``data``, JSON with no backslash, sits in objects and arrays
    (each quote delimits a string: what lies between every other pair is outside)."""
    outside = data.split(b'"')[::2]
    return sum(p.count(b"{") + p.count(b"[") - p.count(b"}") - p.count(b"]") for p in outside)


# The characters of a timestamp an envelope of lines lets differ (``learn_stamped_line``):
# digits and what RFC 3339 writes between them. A string of them alone is a plain JSON
# string (no quote, backslash, control character or byte that is not ASCII).
STAMP_CHARS = b"0123456789-:.+TZ"

# a string token, through both quotes (ordinary characters, each escape whole)
_STRING_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)

# what the probe of ``learn_stamped_line`` puts in the stamp's place
_PROBE_STAMP = "1"
# the most bytes an envelope of lines or of Gemini's chunks keeps (a line's pattern
# is compiled by Python code, a step per byte, ~0.8 µs: a line with a 1 MB member
# took 0.8 s to learn, review 15 #2; learning a chunk's usage costs a step per
# integer; Ollama's keep ~150 bytes, Gemini's ~300)
MOST_FIXED = 4096


class LineEnvelope(NamedTuple):
    """The lines of newline-delimited JSON an envelope reads (``learn_stamped_line``)."""

    # matches, in a run of lines, each line that is the learned bytes around a stamp
    # and a string token; the token's body is the match's group
    lines: re.Pattern[bytes]
    prefix: bytes  # the bytes before the stamp
    gap: bytes  # from the stamp's closing quote through the string's opening one
    suffix: bytes  # from the string's closing quote through the line's end

    def begun(self, line: bytes) -> bool:
        """``line`` (no LF in it) is the start of a line this envelope reads, cut
        before the string's closing quote: an object begun and no more."""
        if not line.startswith(self.prefix):
            return False
        after = line[len(self.prefix) :].lstrip(STAMP_CHARS)
        if self.gap.startswith(after):
            return True  # (cut inside the stamp or the gap)
        # inside the string: no quote, so none that closes it
        return after.startswith(self.gap) and after.find(b'"', len(self.gap)) < 0


# each envelope's pattern, by its bytes (a stream's learning would otherwise escape
# and look up its parts again: ~100,000 instructions, callgrind)
_LINE_PATTERNS: dict[tuple[bytes, bytes, bytes], re.Pattern[bytes]] = {}


def learn_stamped_line(
    line: bytes, stamp_key: str, key: str, expected: Callable[[str, str], Any]
) -> LineEnvelope | None:
    """The envelope of ``line``, one JSON object read strictly, where a member
    ``stamp_key`` holds a timestamp that differs from line to line and the later
    member ``key`` the string that changes (Ollama's ``created_at``, and its message's
    ``content``). ``expected(stamp, string)`` is what the line would read as with
    those two strings in their places. None unless the line holds each key once,
    with the stamp made of ``STAMP_CHARS``, and a probe put in both places reads as
    ``expected`` says: then any line of the same bytes around a stamp of those
    characters and a string token reads as the learned line with that stamp and that
    string (JSON lets a string token stand in for another).

    The pattern's body (ordinary bytes, each escape whole, no line end) is one string
    token's only where it decodes: whether it does is left to the reader, who decodes
    the bodies of a run as one JSON array of strings, each apart."""
    stamp_token = b'"' + stamp_key.encode() + b'":"'
    head, found, rest = line.partition(stamp_token)
    if not found or stamp_token in rest:
        return None
    closing = rest.find(b'"')
    if closing < 0 or rest[:closing].strip(STAMP_CHARS):
        return None
    key_token = b'"' + key.encode() + b'":'
    between, found, after = rest[closing:].partition(key_token)
    if not found or key_token in after:
        return None
    string = _STRING_TOKEN.match(after)
    if string is None:
        return None
    prefix = head + stamp_token
    gap = between + key_token + b'"'
    suffix = after[string.end() - 1 :]
    if len(prefix) + len(gap) + len(suffix) > MOST_FIXED:
        return None
    probe = prefix + _PROBE_STAMP.encode() + gap + _PROBE_TOKEN[1:-1] + suffix
    try:
        if orjson.loads(probe) != expected(_PROBE_STAMP, _PROBE):
            return None
    except orjson.JSONDecodeError:
        return None
    lines = _LINE_PATTERNS.get((prefix, gap, suffix))
    if lines is None:
        if len(_LINE_PATTERNS) >= 64:
            _LINE_PATTERNS.clear()  # (a bound on streams of ever new shapes)
        lines = _LINE_PATTERNS[prefix, gap, suffix] = re.compile(
            b"^"
            + re.escape(prefix)
            + b"["
            + re.escape(STAMP_CHARS)
            + b"]*+"
            + re.escape(gap)
            + rb'([^"\\\n]*+(?:\\.[^"\\\n]*+)*+)'
            + re.escape(suffix)
            + b"$",
            re.MULTILINE,
        )
    return LineEnvelope(lines, prefix, gap, suffix)


def _shallow_object() -> re.Pattern[bytes]:
    """A JSON object of integers (of up to 18 digits), strings with no digit, quote,
    backslash or control character, ``true``, ``false``, ``null``, and arrays and
    objects of those, and arrays of those objects (a Gemini ``usageMetadata``), with
    spaces or tabs between tokens: its bytes hold digits only in its integers."""
    space = rb"[ \t]*"
    string = rb'"[^"\\\x00-\x1f0-9]*"'
    scalar = rb"(?:[0-9]{1,18}|" + string + rb"|true|false|null)"

    def members(value: bytes) -> bytes:
        member = string + space + rb":" + space + value + space
        return rb"\{" + space + rb"(?:" + member + rb"(?:," + space + member + rb")*)?\}"

    def items(value: bytes) -> bytes:
        item = value + space
        return rb"\[" + space + rb"(?:" + item + rb"(?:," + space + item + rb")*)?\]"

    flat = members(scalar)
    value = b"(?:" + scalar + b"|" + flat + b")"
    return re.compile(members(b"(?:" + value + b"|" + items(value) + b")"))


# (``integer_shape``)
_SHALLOW_OBJECT = _shallow_object().match
# every digit as 0: what ``integer_shape`` compares
DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")


def integer_shape(data: bytes) -> tuple[bytes, list[int]] | None:
    """The shape of the JSON object ``data`` opens with, if it is shallow (see
    ``_shallow_object``: its digits are all in its integers), and ends before the
    rest of ``data``: its bytes with every digit a 0, and where each integer of more
    than one digit starts. Bytes of that shape whose digits there are no 0 are the same
    JSON but for its integers' values (each as long, which orjson reads as an int
    whatever its digits: at most 18)."""
    found = _SHALLOW_OBJECT(data)
    if found is None:
        return None
    shape = found[0].translate(DIGITS_AS_ZERO)
    # (a search for runs of zeros: a pattern's ``finditer`` tries each byte, 30,000
    # instructions on Gemini's usage, callgrind)
    firsts = []
    at = shape.find(b"00")
    while at >= 0:
        firsts.append(at)
        # past the integer's zeros (at most 18 of them: a slice as long as the rest
        # made the search quadratic in the integers, review 16 #1)
        run = shape[at : at + 19]
        at = shape.find(b"00", at + len(run) - len(run.lstrip(b"0")))
    return shape, firsts
