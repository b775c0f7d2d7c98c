"""What every wire decoder shares: it is fed bytes and talks to a CallAssembler."""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ClassVar

import orjson

from toolwire.assemble import CallAssembler
from toolwire.invalid_utf8 import REPLACEMENT, mark_invalid_utf8
from toolwire.jsontext import dumps, json_type
from toolwire.providers.envelope import (
    DIGITS,
    LETTERS_AND_DIGITS,
    SPARE_LEARNINGS,
    TEXT,
    Envelope,
    EnvelopeFields,
    Role,
    learn_envelope,
    obfuscation_end,
    obfuscation_value_end,
)
from toolwire.providers.exact import exact_part, loads_exactly
from toolwire.providers.jsonstream import JsonObjectSplitter
from toolwire.repair import repair_json
from toolwire.sse import SSEDecoder, SSEMessage


def token_count(value: Any) -> int | None:
    """A count read from the wire (token usage): an int, never a bool, else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def stable_call_id(seed: str, position: int) -> str:
    """A deterministic id for a call the wire sent without one. (The seed comes from the
    wire and may hold a lone surrogate: it is hashed as it is, never refused.)"""
    digest = hashlib.sha256(f"{seed}:{position}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"call_{digest[:24]}"


# The common block: one data line holding a JSON object, after an ``event:`` line or
# not (groups: the event name, the data). One match costs a third of the slicing and
# searching it replaces (callgrind, ``bench/bench_short_streams.py``); ``fullmatch``
# and a branch, not ``\Z`` and ``?``, 450 instructions less a block.
_common_block = re.compile(rb"(?:event: ([^\n]*)\n|)data: (\{[^\n]*)").fullmatch


def _blocks_of(parts: list[bytes], start: int, lead: bytes) -> list[bytes]:
    """The blocks of ``SSEDecoder.feed_parts``' parts from ``start`` on, as
    ``feed_blocks`` cuts them: each part, ``lead`` before it, is followed by a blank
    line (one join and one cut for them all)."""
    rest = parts[start:] if start else parts
    return (lead + (b"\n\n" + lead).join(rest)).split(b"\n\n")


# blocks this long are matched by ``_long_common_block``
_LONG_BLOCK = 4096


def _long_common_block(block: bytes) -> tuple[bytes, bytes | None, bytes] | None:
    """``_common_block``'s groups 0-2 for a long block (a tuple): found by searches for
    a line end, which skip many bytes a step where the pattern takes one (a Responses
    call's last event holds all its arguments: a 260 KB one in 0.008 ms, not 0.14)."""
    if block[:7] == b"event: ":
        end = block.find(b"\n")
        if end < 0:
            return None
        event: bytes | None = block[7:end]
        start = end + 1
    else:
        event, start = None, 0
    if not block.startswith(b"data: {", start) or block.find(b"\n", start) >= 0:
        return None
    return block, event, block[start + 6 :]


# a wire message's text as decoders pass it on: bytes (the common block, read without
# decoding it) are decoded only when an error event keeps them
Raw = str | bytes


def raw_text(raw: Raw) -> str:
    return raw if isinstance(raw, str) else raw.decode("utf-8", "replace")


# repairs that read a wire message as it was meant, changing nothing it held: the
# Python-style JSON proxies write (``str(dict)``: quotes, True/False/None, tuples),
# and what JSON5-ish writers add between tokens (comments, bare keys, odd white space).
# A StreamError ends an agent run, so only a reading that may have lost something is
# reported: a raw control character stays reported, as a string cut across two data
# lines reads as a key no decoder knows (its content then goes unread).
_READINGS = frozenset(
    {
        "python_literal",
        "single_quote",
        "python_constant",
        "tuple",
        "trailing_comma",
        "comment",
        "unquoted_key",
        "special_whitespace",
    }
)


class WireDecoder(ABC):
    """Decodes one wire format into assembler calls.

    ``text_sink`` receives visible text; it is the assembler's ``text`` unless a
    text-format extractor sits in between (a model server that leaves tool markup in
    the text).
    """

    format_name: str = ""

    # Per-stream state starts as these class-level values; a stream that changes one
    # sets its own (a short stream pays for every attribute its decoder sets up)
    finished = False  # the wire's own terminal message was seen
    repaired = False  # the last message ``load_json`` read needed the repair ladder
    # a body decoder's body, or a saved message, as read and its text, while the
    # decoder hands its pieces to the stream's methods (see ``exact_arguments``)
    _whole: tuple[Any, Raw] | None = None

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        self.sink = sink
        self.text = text_sink if text_sink is not None else sink.text

    @abstractmethod
    def feed(self, data: bytes | str) -> None: ...

    def unexpected_text(self, run: bytes, between: str) -> None:
        """Bytes between JSON objects that are part of none (``between``: the objects'
        name in the message): reported, never dropped silently."""
        self.sink.error(f"unexpected text between {between}", run.decode("utf-8", "replace"))

    def ended_inside_object(self, rest: bytes, what: str) -> bool:
        """The input ended inside a JSON object, ``rest`` its bytes (what
        ``JsonObjectSplitter.close`` gave): reported, with ``what`` as the input's name
        in the message, where there are any (the answer)."""
        if not rest.strip():
            return False
        self.sink.error(f"the {what} ended inside a JSON object", rest.decode("utf-8", "replace"))
        return True

    def uninterpretable(self, exc: Exception, raw: str) -> None:
        """A message of an unexpected shape: reported, and the stream goes on."""
        self.sink.message_lost(f"could not interpret {self.format_name} message: {exc!r}", raw)

    @abstractmethod
    def close(self) -> None:
        """End of input: flush framing; the owner then ends the assembler."""

    def feed_value(self, value: dict[str, Any]) -> None:
        """One wire message already parsed (an SDK's stream object as a dict): read as
        its text would be, without the framing and the JSON reading."""
        raise TypeError(f"{self.format_name or 'this'} decoder reads no parsed messages")

    @contextmanager
    def marked_bytes(self, marker: str | None) -> Iterator[None]:
        """Reading a message whose bytes that were not UTF-8 became ``marker`` (see
        ``toolwire.invalid_utf8``): text goes on with U+FFFD in their place, and the
        assembler names the repair on the call whose arguments held one (F29)."""
        if marker is None:
            yield
            return
        sink = self.sink
        text = self.text
        sink.invalid_utf8 = marker
        self.text = lambda value: text(value.replace(marker, REPLACEMENT))
        try:
            yield
        finally:
            sink.invalid_utf8 = None
            self.text = text

    def load_json(self, data: str, what: str = "message") -> Any:
        """One wire message's JSON (``what`` it is, for error messages). Unreadable JSON
        goes through the repair ladder (proxies emit Python-style chunks); what still
        fails becomes an error event."""
        self.repaired = False
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
        else:
            if isinstance(value, dict):
                return value
            self.sink.error(f"{self.format_name} {what} is not a JSON object", data)
            return None
        try:
            # orjson refuses what the stdlib reads as sent: a lone surrogate escape
            # ("\\ud800"); the finisher names it on the call that holds it. (NaN and
            # Infinity are left to the repair ladder.)
            value = loads_exactly(data)
        except (ValueError, RecursionError):
            pass
        else:
            if isinstance(value, dict):
                return value
        self.repaired = True
        result = repair_json(data)
        if result.ok and not result.truncated and isinstance(result.value, dict):
            changed = [r for r in result.repairs if r not in _READINGS]
            if changed:
                # a guess at what was meant: what was read may not be what was sent
                # (a string cut across two data lines reads as a key no decoder knows)
                self.sink.error(
                    f"{self.format_name} {what} is not JSON; read after repairs that may "
                    f"have changed or dropped what it held: {', '.join(changed)}",
                    data,
                )
            return result.value
        message = f"unreadable {self.format_name} {what}: {result.error or 'cut off'}"
        if data.lstrip()[:1] == "{":
            # it began as a message does: what was lost may have been a call's text
            self.sink.message_lost(message, data)
        else:  # text a proxy sends as data to keep the line alive: no message's
            self.sink.error(message, data)
        return None

    def exact_arguments(self, arguments: Any, message: Any, raw: Raw) -> tuple[Any, str]:
        """Arguments sent as an object (F10) in ``message``, read from ``raw``, with
        any integer beyond 64 bits as sent, and ""; or as read, and why they could not
        be read exactly (``providers.exact``). While a body decoder reads a body (or
        a saved message), ``message`` may be made of its pieces: they are found in
        the ``_whole`` body."""
        if self._whole is not None:
            message, raw = self._whole
        return exact_part(arguments, message, raw)

    def string_field(self, container: dict[str, Any], key: str, path: str, raw: Raw) -> str:
        """``container[key]`` when it is a string, "" when it is missing or null. A value
        of another type is never passed on as text: it is reported as an error event
        that names the field (``path``: where ``container`` sits in the message)."""
        value = container.get(key)
        if type(value) is str:
            return value
        if value is not None:
            self.wrong_type(f"{path}.{key}" if path else key, value, "a string", raw)
        return ""

    def argument_text(
        self, container: dict[str, Any], key: str, path: str, raw: Raw, index: int | None
    ) -> str:
        """``string_field`` for a field that holds argument text of the call at
        ``index``: a value of another type is reported, and that call, whose text was
        not read, is never called whole (G3: never a silent ``{}``)."""
        value = container.get(key)
        if type(value) is str:
            return value
        if value is not None:
            self.sink.fragment_lost(
                index,
                f"a fragment of its arguments was {json_type(value)}, not text: it was not read",
            )
        return self.string_field(container, key, path, raw)  # "", the field reported

    def text_run(self, run: list[str], reasoning: bool = False) -> None:
        """Text (or reasoning) of messages read one after another, handed on as one
        string: a read's deltas as one event, not one each (none where it is empty)."""
        text = run[0] if len(run) == 1 else "".join(run)
        if not text:
            return
        try:
            if reasoning:
                self.sink.reasoning(text)
            else:
                self.text(text)
        except Exception as exc:  # as ``dispatch``: never end the stream
            self.sink.error(f"could not take {self.format_name} text: {exc!r}", text)

    def wrong_type(self, field: str, value: object, expected: str, raw: Raw) -> None:
        """A field of the wire message ``raw`` whose value is not of the type it must have."""
        self.sink.error(
            f"{self.format_name} field {field} is {json_type(value)}, not {expected}; "
            "it was not read",
            raw_text(raw),
        )


_ROLES = len(Role)  # (an enum's len is a Python call: counted once)

# no envelope's fields (``Envelope.fields``): never read, the loop asks for an envelope
# first (a failed compare on every block cost a short stream 5%)
_NO_ENVELOPE: EnvelopeFields = (b"\0", b"\0", b"", False, None, -1, b"", b"")

# the text so far of a call past which its run of argument deltas in one read is
# gathered as it comes and checked by ``_hand_run`` as it is handed on (a 4 KB read
# holds fewer characters, so the check at once holds; a larger read's run may not,
# and is then checked delta by delta there); below it, each delta is checked as it
# comes (a call less: short streams' runs, ~2-3% of their instructions)
_BATCH_ROOM = 4096

# a padded message's last brace as Anthropic's API writes it, after a run of spaces
# (up to 63): what ``strip(b" \t") == b"}"`` reads, found by a set lookup (``strip``
# looks each space up in the bytes to strip, a ``memchr`` call per space)
_PADDED_BRACES = frozenset(b" " * n + b"}" for n in range(64))


class SSEWireDecoder(WireDecoder):
    """A wire format framed as Server-Sent Events.

    A subclass that reads a message holding nothing but one delta string calls
    ``learn``; blocks with the same bytes around another string then skip the SSE and
    JSON reading (see ``providers.envelope``). Argument text read that way within one
    ``feed`` goes to the assembler at once, as one ``ArgumentsDelta``; text and reasoning
    likewise, as one string to the text sink or the assembler.
    """

    # per-stream state, set on the stream once it changes (see ``WireDecoder``)
    _envelope: Envelope | None = None  # (the one a stream starts with: see ``__init__``)
    _block = b""  # the block being read the slow way, for ``learn``
    _hits = 0  # blocks read by their envelope
    _learned = 0  # envelopes learned
    _missed = 0  # blocks no envelope could be learned from
    _parsed = False  # fed parsed messages: no block to learn an envelope from
    _pads = False  # the decoder found the stream pads its messages (``padded_heads``)

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        # ``WireDecoder.__init__``'s two lines, written out: the ``super()`` call cost a
        # short stream ~1,500 instructions (callgrind, bench_short_streams.py)
        self.sink = sink
        self.text = text_sink if text_sink is not None else sink.text
        self._sse = SSEDecoder()
        # The bytes each message of the stream opens with (``head_pattern``'s match in
        # its first message): a block opening with them goes to ``on_rest``. Empty:
        # none; None: not looked for yet.
        self._head: bytes | None = None if self.head_pattern is not None else b""
        # the envelope the stream starts with (its class's), set on the stream:
        # ``_blocks`` reads it after each message it reads the slow way, and on Python
        # 3.11 reading a class attribute through the instance costs ~400 instructions
        # more (callgrind)
        self._envelope = self._envelope
        # delta messages of each role (by ``Role``) still to read the slow way before
        # learning that role's envelope: a decoder counts them down, and calls ``learn``
        # only once its role's count is 0
        self.learning = [self.learn_after] * _ROLES

    def feed(self, data: bytes | str) -> None:
        envelope = self._envelope
        if envelope is not None and envelope.lead:
            cut = self._sse.feed_parts(data, envelope.lead)
            if cut is not None:
                blocks, parts = cut
                if blocks:
                    self._numbered(blocks, b"")
                    if parts:
                        self._numbered(parts, envelope.lead)
                elif parts:
                    # (most pieces: ``_numbered``, written out for the envelope just
                    # checked: a call less a 4 KB piece, 0.65% of Responses' deltas'
                    # instructions, callgrind)
                    taken = self._numbered_run(parts, envelope.lead, envelope.fields)
                    if taken < len(parts):
                        self._blocks(_blocks_of(parts, taken, envelope.lead))
                return
        blocks = self._sse.feed_blocks(data)
        if blocks:  # (most pieces of a stream fed a few bytes at a time end no block)
            self._blocks(blocks)

    def _numbered(self, items: list[bytes], lead: bytes) -> None:
        """Read blocks (``lead`` empty), or the parts of ``SSEDecoder.feed_parts`` (each
        a block with ``lead`` cut off, or more than one block): those they open with
        that the envelope reads while it is a numbered one (``_numbered_run``), then
        the rest by ``_blocks``, in one call (an odd block between the deltas, as a
        keep-alive comment, leaves the rest of the read to ``_blocks``: not a call of
        each per part, a list copied per call: review 19 #1 and #2)."""
        envelope = self._envelope
        taken = 0
        # (a numbered envelope whose opening holds the lead cut off: the parts' own
        # envelope, or one learned from a block read the slow way)
        if envelope is not None and envelope.lead and envelope.lead.startswith(lead):
            taken = self._numbered_run(items, lead, envelope.fields)
        if taken < len(items):
            self._blocks(_blocks_of(items, taken, lead) if lead else items[taken:])

    def _numbered_run(self, items: list[bytes], lead: bytes, fields: EnvelopeFields) -> int:
        """Read the items ``items`` opens with that are the envelope's blocks, ``lead``
        cut off, for an envelope with a number and an obfuscation member (OpenAI
        Responses' deltas): how many (the first it cannot read ends the run).

        What ``_blocks``' loop does with such blocks, in a loop of its own: the
        loop's checks for the other kinds of envelope and of run cost a 16-byte
        Responses delta ~6% of its instructions (callgrind)."""
        opening, _, _, arguments, role, slot, gap, obfuscated = fields
        opening = opening[len(lead) :]
        loads = orjson.loads
        digits, letters_and_digits = DIGITS, LETTERS_AND_DIGITS
        # (the core opens with the string's closing quote: left to the token)
        member = obfuscated[1:]
        run: list[str] = []
        for block in items:
            # (each step checked before the next: a long block of another event, the
            # call's last one with all its arguments, is not copied step by step)
            rest = block.removeprefix(opening)
            if rest is block:
                break
            after = rest.lstrip(digits)
            if after is rest or (rest[0] == 48 and len(rest) - len(after) > 1):
                break  # (no number, or a leading zero)
            body = after.removeprefix(gap)
            if body is after:
                break
            ended = body.removesuffix(b'"}')
            if ended is body:
                break
            head = ended.rstrip(letters_and_digits)
            token = head.removesuffix(member)
            if token is head:
                break
            try:
                value = loads(token)
            except orjson.JSONDecodeError:
                break
            if token[0] != 34 or token[-1] != 34:
                break  # (white space around the string: see ``_blocks``)
            run.append(value)
        if run:
            self._hits += len(run)
            if not arguments:
                self.text_run(run, role is not TEXT)
            elif len(text := "".join(run)) < (room := self.sink.open_size(slot)):
                # (``_hand_run``'s first case, written out: each delta appended plainly;
                # a call less a 4 KB piece)
                if text:
                    self.sink.extend_arguments(slot, [text])
            else:
                self._hand_run(slot, run, room)
        return len(run)

    def _blocks(self, blocks: list[bytes]) -> None:
        """Read blocks: by their envelope where one fits, else the common block
        (``_read``'s first step, inlined: a call per message costs a short stream about
        a twentieth, callgrind), else ``_read``."""
        sink = self.sink
        loads = orjson.loads
        end_block = self.end_block
        idle_blocks = self.idle_blocks or None
        common_block = _common_block if self.reads_json else None
        handlers = self.type_handlers or {}
        hits = self._hits
        run: list[str] = []  # argument text for the envelope's slot, not handed over yet
        # Text (or reasoning: the envelope's role) read by the envelope, not handed over
        # yet: the deltas of one ``feed`` go on as one string, as argument text does
        # (one event, not one per delta: Anthropic's padded text deltas 2.7x -> 2.1-2.3x
        # the floor's time, bench_stream.py)
        said: list[str] = []
        room = -1  # the slot's text size: a delta this long or longer may be a snapshot
        batch = False  # (whether the run is checked as it is handed on)
        head = self._head
        envelope = self._envelope
        # the envelope's fields as locals: Envelope.read, inlined, is the hot path
        # (no call where there is none: a short stream has none)
        opening, suffix, core, arguments, role, slot, gap, obfuscated = (
            _NO_ENVELOPE if envelope is None else envelope.fields
        )
        # whether a block's end is first compared with the suffix as it is: not where
        # the stream pads its messages (Anthropic's API), whose every block but one in
        # forty would miss it (~30 ns less a padded block), nor where the envelope was
        # obfuscated
        suffix_first = not obfuscated and not (core and self._pads)
        for block in blocks:
            # (the ends found by ``removeprefix``/``removesuffix``, which return the
            # block itself where it lacks them and parse no arguments from a tuple, as
            # ``startswith``/``endswith`` do: 2,700 → 1,750 instructions a delta, callgrind)
            if envelope is not None and (rest := block.removeprefix(opening)) is not block:
                if gap:  # an integer that differs from block to block, then the gap
                    # (``Envelope.opening``, written out: its digits stripped, then
                    # the gap, which opens with a comma; not a search for the gap and
                    # a look at what came before it: ~640 instructions less a block,
                    # callgrind)
                    after = rest.lstrip(DIGITS)
                    if (
                        (body := after.removeprefix(gap)) is not after
                        and after is not rest
                        and (rest[0] != 48 or len(rest) - len(after) == 1)  # (no leading 0)
                    ):
                        rest = body
                    else:
                        rest = b""  # (not one string token: read the slow way)
                # ``rest`` opens with the string's opening quote if the block is one of
                # the envelope's; its token is what comes before the closing quote
                # joined to a quote, which must read as one string token and open with
                # that quote (see below). (``padded_token``, written out:
                # its call cost a padded delta ~700 instructions more, callgrind; a
                # join, not a slice of the block by ``len`` of what is left: ~70 ns
                # less a block)
                if suffix_first and (body := rest.removesuffix(suffix)) is not rest:
                    token = body + b'"'
                elif (
                    obfuscated
                    and (ended := rest.removesuffix(b'"}')) is not rest
                    and (
                        body := (unpadded := ended.rstrip(LETTERS_AND_DIGITS)).removesuffix(
                            obfuscated
                        )
                    )
                    is not unpadded
                ):  # the string, the core, then OpenAI's obfuscation member with a
                    # value of letters and digits, as OpenAI writes it: that value
                    # stripped (no search, no match: ~900 instructions less a
                    # Responses delta than the way below, callgrind)
                    token = body + b'"'
                elif (
                    obfuscated
                    and (parts := rest.rpartition(obfuscated))[1]
                    and obfuscation_value_end(parts[2])
                ):  # the same with any other plain value: found by a search and a match
                    token = parts[0] + b'"'
                elif core:  # the same ends but for the padding around the last brace,
                    # or for OpenAI's obfuscation member before it?
                    body, closed, tail = rest.rpartition(core)
                    token = (
                        body + b'"'
                        if closed
                        and (
                            tail in _PADDED_BRACES
                            or tail.strip(b" \t") == b"}"
                            or obfuscation_end(tail)
                        )
                        else b""
                    )
                else:
                    token = b""  # (no padding read: not one string token)
                try:
                    value = loads(token)
                except orjson.JSONDecodeError:
                    pass  # not one string token: read the slow way
                else:
                    # (opened by the quote itself: orjson reads white space before a
                    # value, a line end too, where the block's data line ends and the
                    # plain reading finds the message cut off; review 18 #1)
                    if token[0] == 34:
                        if arguments:
                            if not run:
                                room = sink.open_size(slot)
                                # a long text so far: the run is handed on as it ends, the
                                # plain append's rule checked for it at once (``_hand_run``)
                                batch = room > _BATCH_ROOM
                            if batch:
                                run.append(value)
                                continue
                            # else the rule (``CallAssembler.open_size``) written out, as
                            # each delta comes: a call less a short stream's run
                            size = len(value)
                            if 0 < size < room or (room == 0 and size):
                                run.append(value)
                                room += size
                                continue
                            # text empty or as long as the text so far (a possible snapshot,
                            # F7): the run before it first, then it (``_routed_arguments``)
                            if run:
                                sink.extend_arguments(slot, run)
                                hits += len(run)
                                run = []
                            hits += 1
                            self._routed_arguments(slot, value)
                            continue
                        said.append(value)  # (counted when handed on; "" joins as nothing)
                        continue
            if run:
                hits += len(run)
                if batch:
                    self._hand_run(slot, run, room)
                else:
                    sink.extend_arguments(slot, run)
                run = []
            elif said:
                hits += len(said)
                self.text_run(said, role is not TEXT)
                said = []
            if envelope is not None:
                self._hits = hits  # (for ``learn``; without an envelope nothing counts)
            if end_block is not None and block == end_block:
                self.finished = True  # what ``on_message`` makes of it, at a compare's cost
                continue
            if idle_blocks is not None:
                if block in idle_blocks:
                    continue  # what ``on_message`` makes of it: nothing
                if self._pads:
                    # the end block, or the idle one, padded before its last brace as the
                    # stream pads its messages: what the compares above make of it
                    # (reading them cost the Anthropic cut-off capture ~19 K
                    # instructions, callgrind)
                    end_head, idle_head = self.padded_heads
                    rest = block.removeprefix(end_head)
                    if rest is not block and rest.strip(b" \t") == b"}":
                        self.finished = True
                        continue
                    rest = block.removeprefix(idle_head)
                    if rest is not block and rest.strip(b" \t") == b"}":
                        continue
            if head is None:  # the stream's first message: its head, if it has one
                pattern = self.head_pattern
                found = pattern.match(block) if pattern is not None else None
                if found is not None:
                    head = self._head = found[0]
                elif block[:5] == b"data:":
                    head = self._head = b""  # (a comment or field before: look on)
            if (
                head
                and (rest := block.removeprefix(head)) is not block
                and self.on_rest(block, rest)
            ):
                pass  # read from the bytes after the stream's head
            else:
                value = None
                common = (
                    None
                    if common_block is None
                    else common_block(block)
                    if len(block) < _LONG_BLOCK
                    else _long_common_block(block)
                )
                if common is not None:
                    data = common[2]  # (the event line's group is read only if needed)
                    try:
                        value = loads(data)
                    except orjson.JSONDecodeError:
                        value = None  # for the repair ladder, in ``_read``
                if type(value) is dict:
                    # the common block: one data line holding a JSON object (after an
                    # ``event:`` line or not), parsed from its bytes: orjson takes only
                    # valid UTF-8, so such a block holds no bytes to mark, and the text
                    # of the message is decoded only if it is needed
                    self._block = block  # (``repaired`` is False: ``_read`` resets it)
                    try:
                        kind = value.get("type") if handlers else None
                        if type(kind) is str and kind:
                            handler = handlers.get(kind)
                            if handler is not None:
                                handler(self, value, data)  # ``on_json``'s way, a call less
                        else:  # (a dict holds a common block's value: ``common`` its match)
                            self.on_json(value, common[1] if common else None, data)
                    except Exception as exc:  # as ``dispatch``
                        self.uninterpretable(exc, data.decode("utf-8", "replace"))
                else:
                    self._read(block)
            if self._envelope is not envelope:
                envelope = self._envelope
                opening, suffix, core, arguments, role, slot, gap, obfuscated = (
                    _NO_ENVELOPE if envelope is None else envelope.fields
                )
                suffix_first = not obfuscated and not (core and self._pads)
        if envelope is not None:  # (there never was one: nothing counted, no run)
            self._hits = hits + len(run) + len(said)
            if run:
                if batch:
                    self._hand_run(slot, run, room)
                else:
                    sink.extend_arguments(slot, run)
            elif said:
                self.text_run(said, role is not TEXT)

    def _routed_arguments(self, slot: int, value: str) -> None:
        """Argument text read by an envelope that the plain append's rule does not
        take (empty, or as long as the call's text so far: a possible snapshot, F7),
        handed on as the decoder would hand it: appended if it repeats nothing, else
        through the routing decisions."""
        sink = self.sink
        try:
            if not sink.fast_arguments(slot, value):
                sink.tool(slot, None, None, value)
        except Exception as exc:  # as ``dispatch``: never end the stream
            sink.error(f"could not take {self.format_name} arguments: {exc!r}", value)

    def _hand_run(self, slot: int, run: list[str], room: int) -> None:
        """Argument text read by the envelope of the call at ``slot``, in order, handed
        on as the decoder would hand each: appended plainly where the plain append's
        rule takes it (``CallAssembler.open_size``: not empty, and the call's first
        text or shorter than the text so far), as one delta; else (a possible
        snapshot, F7) through the routing decisions.

        ``room``: the call's text so far as the run began, ``open_size``'s answer then
        (``_blocks`` gathers a run so only past ``_BATCH_ROOM``, ``_numbered_run``
        always). The rule is checked for the run at once where that
        is longer than the run's whole text: then it takes each delta but empty ones,
        which append nothing, as the plain append takes them (an open call); else
        delta by delta. (The rule written out in ``_blocks``' loop costs ~50 ns a
        delta, the run's longest delta found by ``max(map(len, run))`` and its empty
        ones by ``"" in run`` ~35: Responses' 16-byte argument deltas ~4% less time
        than the loop's rule, paired in-process.)"""
        sink = self.sink
        text = run[0] if len(run) == 1 else "".join(run)
        if len(text) < room:
            if text:  # (none at all: nothing handed on, as each empty delta)
                sink.extend_arguments(slot, [text])
            return
        start = 0
        for i, value in enumerate(run):
            size = len(value)
            if 0 < size < room or (room == 0 and size):
                room += size
                continue
            if start < i:
                sink.extend_arguments(slot, run[start:i])
            start = i + 1
            self._routed_arguments(slot, value)
            room = sink.open_size(slot)
        if not start:  # (each taken: the text joined above, not joined again)
            sink.extend_arguments(slot, [text])
        elif start < len(run):
            sink.extend_arguments(slot, run[start:])

    def close(self) -> None:
        block = self._sse.close_block()
        if block:
            self._blocks([block])

    def _read(self, block: bytes) -> None:
        """Read a block the slow way (``_blocks`` reads the common one); its decoder
        may ``learn`` the block's envelope."""
        message = self._sse.message(block)
        if message is None:
            return
        self._block = block
        marker = None
        if REPLACEMENT in message.data:  # free for ASCII text: it cannot hold one
            marked, marker = mark_invalid_utf8(block)
            if marker is not None:
                message = self._sse.message(marked) or message
        if marker is None:
            self.dispatch(message)
        else:
            with self.marked_bytes(marker):
                self.dispatch(message)
        self.repaired = False  # (the common block, read without repair, takes it as is)

    def learn(
        self,
        key: str,
        value: str,
        role: Role,
        slot: int,
        read: Callable[[Any], Any],
        envelope: Envelope | None = None,
        number: bytes = b"",
    ) -> None:
        """The message being read held nothing but ``value``, under ``key``, in the
        given role (and, for arguments, the call at ``slot``): remember its envelope.
        ``read`` takes the value out of the message's parsed JSON, as the decoder did;
        ``envelope``: the block's envelope where the decoder knows it from the block's
        shape (else it is searched for); ``number``: the key token and colon of a member
        whose integer may differ in the blocks the envelope reads (``Envelope.gap``)."""
        if (
            self._learned + self._missed > SPARE_LEARNINGS + self._hits
            or self.sink.invalid_utf8 is not None
            or self._parsed
            or self.repaired  # (read after repairs: its bytes are not what it means)
        ):
            return
        known = self._envelope
        block = self._block
        if (
            known is not None
            and known.role is role
            and known.slot == slot
            and known.token(block) is not None
        ):
            return  # the envelope it has already (the value took the slow way)
        if envelope is None:
            envelope = learn_envelope(block, key, value, role, slot, read, number)
        if envelope is not None:
            self._envelope = envelope
            self._learned += 1
        else:  # (each costs a search of the block: a stream whose blocks never give
            # one, an ``id:`` line in each, soon stops trying)
            self._missed += 1

    def dispatch(self, message: SSEMessage) -> None:
        try:
            self.on_message(message)
        except Exception as exc:  # a message of an unexpected shape must not end the stream
            self.uninterpretable(exc, message.data)

    @abstractmethod
    def on_message(self, message: SSEMessage) -> None: ...

    # Delta messages of one role (text, arguments, reasoning) a stream reads the slow
    # way before it learns their envelope. Learning one costs about what reading a few
    # deltas the slow way costs, so it pays only where enough deltas follow; each wire
    # sets what it measured (``bench/bench_short_streams.py --break-even`` compares).
    learn_after: ClassVar[int] = 0

    # the head of a wire's messages (``_head``), where the decoder reads a message from
    # what follows its head alone (``on_rest``): a pattern's ``match``
    head_pattern: ClassVar[re.Pattern[bytes] | None] = None

    # a decoder that sets this reads the common block through ``on_json``
    reads_json: ClassVar[bool] = False
    # and one that sets this, a message whose ``type`` member names a handler here
    # through that handler, as its ``on_json`` would (a call less per message: about
    # a twentieth of a short Anthropic stream, callgrind); its ``on_json`` must do
    # nothing with a message whose ``type`` is another non-empty string (a ping)
    type_handlers: ClassVar[dict[str, Callable[[Any, dict[str, Any], Raw], None]] | None] = None
    # the block that ends the stream, if the wire has one (OpenAI's ``data: [DONE]``)
    end_block: ClassVar[bytes | None] = None
    # blocks that mean nothing, if the wire sends any (Anthropic's ping)
    idle_blocks: ClassVar[tuple[bytes, ...]] = ()
    # A server that pads each message with spaces before its last brace (Anthropic's
    # API): ``end_block`` and one of the ``idle_blocks`` (a decoder must have some),
    # each without its last brace. A block that is one of them, but for spaces and
    # tabs before and after that brace, is taken as they are, once the decoder has
    # found the stream pads (sets ``_pads``).
    padded_heads: ClassVar[tuple[bytes, bytes]] = (b"", b"")

    def on_rest(self, block: bytes, rest: bytes) -> bool:
        """A block that opens with the stream's head (``_head``), ``rest`` the bytes
        after it: True if the decoder read it from those (as it reads the whole block),
        False to read the block as any other."""
        raise NotImplementedError("a decoder with a head_pattern reads what follows it")

    def on_json(self, value: dict[str, Any], event: bytes | None, data: bytes) -> object:
        """A message whose one data line ``data`` is the JSON object ``value`` (read
        without repair), after the line ``event: <event>`` if there was one. (What it
        returns is the decoder's own: ``_blocks`` ignores it.)"""
        raise TypeError(f"the {self.format_name} decoder reads no parsed messages")

    def feed_value(self, value: dict[str, Any]) -> None:
        self._parsed = True
        try:
            self.on_value(value)
        except Exception as exc:  # as ``dispatch``: a message of an unexpected shape
            self.uninterpretable(exc, "")

    def on_value(self, value: dict[str, Any]) -> None:
        """A parsed message (no wire text: error events carry none)."""
        raise TypeError(f"the {self.format_name} decoder reads no parsed messages")


def _object_begun(line: bytes) -> bool:
    """``line`` is the start of one JSON object and no more: orjson reads it up to its
    end, where it needs more (a byte that is no JSON's, or an object that closed, stops
    it sooner)."""
    if line.lstrip(b" \t\r")[:1] != b"{":
        return False
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        return exc.pos == len(line) and exc.msg == "unexpected end of data"
    return False


class JsonStreamDecoder(WireDecoder):
    """A wire format streamed as bare JSON objects (a JSON array, newline-delimited or
    concatenated) that sends each tool call whole.

    ``feed_objects`` hands each complete object to ``on_chunk``; text between objects
    and an object cut off at the end become error events naming ``stream_title``.
    """

    stream_title: ClassVar[str] = ""  # the stream's name in messages ("Gemini")
    _line = b""  # the start of a line ``feed_objects`` holds for the next piece
    chunk_noun: ClassVar[str] = "messages"  # what its objects are called in messages

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._json = JsonObjectSplitter()
        self._calls = 0

    # whether whole lines that each read as one object are read without the splitter
    # (``feed_objects``; off: everything goes through the splitter, for tests)
    reads_lines: ClassVar[bool] = True

    def feed_objects(self, data: bytes) -> None:
        """Objects as the splitter cuts them. Where it holds nothing (between objects),
        each whole line that reads as one object is read at once: the splitter would
        cut the same object from it, scanning each of its quotes and brackets in
        Python (an Ollama stream of 10,000 content deltas: 16-20x the floor's time
        that way, 3.7-5x this way, 1.7-2.5x with Ollama's ``read_lines``). From the
        first line that does not (more objects or junk on it, an object over several
        lines, bytes that are not UTF-8), the splitter reads on."""
        if type(data) is not bytes:
            data = bytes(data)  # (a memoryview has no ``find``)
        splitter = self._json
        if self._line:  # (the splitter holds nothing: see below)
            line, self._line = self._line, b""
            if data.find(b"\n") < 0:  # a long line: the splitter reads it on
                self._split(line + data)
                return
            data = line + data
        if not self.reads_lines or splitter.in_array:  # (no lines to read in an array)
            self._split(data)
            return
        if not splitter.idle:
            # what the splitter holds ends first: up to the end of its line
            end = data.find(b"\n") + 1
            if not end:
                self._split(data)
                return
            self._split(data[:end])
            data = data[end:]
            if not splitter.idle:
                self._split(data)
                return
        end = data.rfind(b"\n") + 1
        rest = data[end:]  # (the line the next piece ends)
        read = whole = 0
        done = self.read_run(data, end)
        if done < end:
            lines = data[done:end].split(b"\n")
            lines.pop()  # (the empty line after the last LF)
            read, whole = self.read_lines(lines), len(lines)
        if read < whole:
            rest = b"\n".join([*lines[read:], rest])
        elif rest and self.line_begun(rest):
            # Held for the next piece to end, not scanned by the splitter (that cost
            # 10,000 Ollama lines fed in 4 KB pieces a third of their time, cProfile):
            # the splitter, fed it, would have given nothing and held it all
            self._line = rest
            return
        if rest:
            self._split(rest)

    def line_begun(self, line: bytes) -> bool:
        """``line``, the end of a piece after its last LF, is the start of one JSON
        object and no more (see ``_object_begun``; a decoder may know it sooner)."""
        return _object_begun(line)

    def read_run(self, data: bytes, end: int) -> int:
        """Read the lines of ``data`` up to ``end`` (just after a LF), or the first of
        them, at once, if a decoder knows how: answers where those it read end (just
        after a LF; 0: none), the rest going to ``read_lines``."""
        return 0

    def read_lines(self, lines: list[bytes]) -> int:
        """Read whole lines (without their LF), each one object (or blank), up to the
        first that is not: answers how many were read. (orjson reads what ``strip``
        leaves of a line, ignoring the same white space around it; the object's bytes,
        without it, are its message's text.)"""
        loads = orjson.loads
        dispatch = self.dispatch
        for n, line in enumerate(lines):
            try:
                chunk = loads(line)
            except orjson.JSONDecodeError:
                if line.strip(b" \t\r"):
                    return n
                continue
            if type(chunk) is not dict:
                return n
            dispatch(chunk, line.strip(b" \t\r"))
        return len(lines)

    def _split(self, data: bytes) -> None:
        splitter = self._json
        for raw, junk in splitter.in_order(splitter.feed(data)):
            if junk:
                self._junk(raw)
            else:
                self._on_bytes(raw)

    def close_objects(self) -> bool:
        """End of the object stream: answers whether it ended outside any object."""
        if self._line:
            line, self._line = self._line, b""
            self._split(line)
        rest = self._json.close()
        for run, _ in self._json.in_order([]):
            self._junk(run)
        return not self.ended_inside_object(rest, f"{self.stream_title} stream")

    def _junk(self, run: bytes) -> None:
        self.unexpected_text(run, f"{self.stream_title} {self.chunk_noun}")

    def _on_bytes(self, raw: bytes) -> None:
        try:
            chunk = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raw, marker = mark_invalid_utf8(raw)
            with self.marked_bytes(marker):
                text = raw.decode("utf-8", "replace")
                chunk = self.load_json(text)
                if isinstance(chunk, dict):
                    self.dispatch(chunk, text)
            return
        if isinstance(chunk, dict):
            self.dispatch(chunk, raw.decode("utf-8", "replace"))

    def feed_value(self, value: dict[str, Any]) -> None:
        self.dispatch(value, "")

    def dispatch(self, chunk: dict[str, Any], raw: Raw) -> None:
        try:
            self.on_chunk(chunk, raw)
        except Exception as exc:  # a message of an unexpected shape must not end the stream
            self.uninterpretable(exc, raw_text(raw))

    @abstractmethod
    def on_chunk(self, chunk: dict[str, Any], raw: Raw) -> None: ...

    def whole_call(
        self, sent_id: Any, name: Any, args: Any, seed: str, chunk: Any, raw: Raw
    ) -> str:
        """One call sent whole, its arguments as a value (None: no arguments) in
        ``chunk``, read from ``raw``. A call without an id gets a stable one from
        ``seed`` and its position in the stream; the id is returned."""
        call_id = sent_id if isinstance(sent_id, str) and sent_id else None
        if call_id is None:
            call_id = stable_call_id(seed, self._calls)
        self._calls += 1
        if args is None:
            args = {}
        unreadable = ""
        if not isinstance(args, str):
            args, unreadable = self.exact_arguments(args, chunk, raw)
        # ``delimited``: the call is whole, so a later call under the same id (a
        # server that reuses ids) is a call of its own, never appended to this one
        self.sink.tool(
            None,
            call_id,
            name if isinstance(name, str) else None,
            args if isinstance(args, dict | list | str) else dumps(args),
            delimited=True,
            unreadable=unreadable,
        )
        self.sink.close_call(id=call_id)
        return call_id
