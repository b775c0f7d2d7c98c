"""The call assembler: fragments from any decoder → slots → canonical events.

Decoders call ``text``, ``reasoning``, ``tool``, ``close_call``, ``set_finish_reason``,
``set_usage`` and ``error``; the owner drains ``events``. All state lives in this
object, one per stream (F23).

Slot routing (F3–F8, F19, F20): a fragment with an id goes to that id's slot (a new id
at a used index opens a new slot, F3/F6); a late id is adopted by the index's slot when
that slot has none yet (a new id with blank text or none, after a whole value, waits
for the text after it with the id: a value that opens is the new id's call, as in one
delta); a fragment without id goes to its index's slot (0 is an index,
F20), or, without index, to the most recent open slot (F4), unless it names another
tool or, with a name, opens a second value after a whole one (F3, F19); a name that
comes alone after a whole value counts for the next fragment that opens one (the
name and that text in one fragment or two: the same calls, F15), and blank text after
it is held until the text after it says which call it goes to (the new call's if that
opens one, else the one before); so is blank text that first names a call whose value
is whole, and the name with it. Named text is read as the fragments it would be if
cut wherever a value opens after a whole one (the white space just before it goes
with it) and where blank text ends it after a whole value: ``}{`` in one delta or two,
the same calls (F15); text between two values stays with the first, where the ladder
names it (``trailing_comma``, ``surrounding_text``). Other text with
neither id nor name is always more of its call, a second value too ({..}{..}, which
the ladder refuses): the calls never depend on how the text was chunked (F15), and a
call is never cut at a guessed boundary to make one part runnable. Name and id are set
once; a different name for the same call is recorded as a conflict, never concatenated
(F8).
Cumulative snapshots are detected and latched per slot; only the new suffix is kept
(F7); only a fragment's start may repeat its call so far, never a piece of named text
after a cut. Plain text may look like snapshots too (a whitespace-led delta after a blank
one); while both readings fit, the slot keeps the plain text, shows no new argument
text, and takes the snapshot reading only once the plain one cannot become JSON: a
plain concatenation that parses is never read as anything else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Literal

from toolwire.assemble.jsonscan import JsonScanner, value_cuts
from toolwire.assemble.partialjson import PartialJson
from toolwire.events import (
    ArgumentsDelta,
    CallFinished,
    CallStarted,
    Event,
    FinishReason,
    ReasoningDelta,
    ReasoningSignature,
    StreamError,
    StreamFinished,
    TextDelta,
    ToolCall,
    Usage,
)
from toolwire.finish import NOT_GIVEN, CallFinisher
from toolwire.invalid_utf8 import REPLACEMENT
from toolwire.jsontext import NotJSONError, dumps, may_become_json, parses_as_json
from toolwire.repair import partial_value
from toolwire.repair.strict import UNREAD
from toolwire.spec import ToolSpec

# First characters of argument text that may open a value once whitespace is skipped:
# with a name, such text needs the routing decisions (F3). Python's whitespace ends at
# U+3000.
MAY_OPEN = frozenset("{[") | {c for c in map(chr, range(0x3001)) if c.isspace()}


def opens_value(text: str) -> bool:
    """Argument text whose first non-space character opens a JSON container."""
    return text.lstrip()[:1] in ("{", "[")


_Arguments = str | Mapping[str, Any] | list[Any] | None

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "eos": "stop",
    "complete": "stop",
    "completed": "stop",
    "pause_turn": "stop",
    "tool_calls": "tool_calls",
    "tool_use": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "max_tokens": "length",
    "model_length": "length",
    "max_output_tokens": "length",
    "model_context_window_exceeded": "length",
    "incomplete": "length",
    "content_filter": "content_filter",
    "refusal": "content_filter",
    "safety": "content_filter",
    "recitation": "content_filter",
    "blocklist": "content_filter",
    "prohibited_content": "content_filter",
    "spii": "content_filter",
    "error": "error",
    "failed": "error",
}


def normalize_finish_reason(raw: object) -> FinishReason | None:
    """Map a provider's stop reason onto the canonical set (unknown → stop)."""
    if raw is None:
        return None
    # providers send the table's lowercase spelling: look it up as sent first and
    # lowercase only on a miss (~1 K instructions a stream saved, callgrind)
    if type(raw) is str:
        reason = _FINISH_REASONS.get(raw)
        if reason is not None:
            return reason
    return _FINISH_REASONS.get(str(raw).lower(), "stop")


class _Slot:
    __slots__ = (
        "checked",
        "closed",
        "conflicts",
        "cumulative",
        "delimited",
        "errors",
        "finished",
        "held",
        "held_name",
        "id",
        "index",
        "name",
        "next_name",
        "number",
        "object_value",
        "partial",
        "parts",
        "repairs",
        "scan",
        "shown",
        "size",
        "snapshot",
        "snapshots",
        "started_event",
        "unreadable",
    )

    def __init__(self, number: int, index: int | None, id: str | None) -> None:
        self.number = number
        self.index = index
        self.id = id
        self.name: str | None = None
        # the slot's name came again without id or argument text (OpenAI's header of a
        # call without an id): the next fragment here that opens a second value after a
        # whole one starts a new call of this name, as it would with the name in it (F15)
        self.next_name: str | None = None
        # blank text that came after such a name, or after a whole value with a name:
        # it goes where the text after it goes, with a new call's if that opens one,
        # else (or at the end) to this call: the same in any split (F15, review 9 F4)
        self.held: list[str] | None = None
        # the held text gave the call its name (it had none): the name goes where the
        # text goes, so the call is not started before (one delta or two, F15)
        self.held_name = False
        # the other names a fragment gave this call, each recorded once as a conflict
        self.conflicts: set[str] | None = None
        self.parts: list[str] = []
        self.size = 0
        # whether the value so far is whole (F3), made once a routing decision needs
        # it (see ``_scanned``)
        self.scan: JsonScanner | None = None
        self.partial: PartialJson | None = None  # read once a UI asks for the value so far
        self.cumulative = False
        self.object_value: Any = NOT_GIVEN
        self.closed = False  # takes no more fragments
        self.finished = False  # its CallFinished is out
        self.snapshots = True  # may be fed cumulative snapshots (F7); extractors never are
        # while plain text and snapshots both fit (see ``_undecided``): the snapshot
        # reading's text; how much text was shown before; the plain size last checked
        self.snapshot: str | None = None
        self.shown = 0
        self.checked = 0
        self.delimited = False  # its source marks where it ends: never split (F3)
        self.started_event = False
        self.repairs: list[str] = []
        self.errors: list[str] = []
        self.unreadable = ""  # why the decoder could not read the arguments, if so

    def raw(self) -> str:
        if len(self.parts) > 1:
            self.parts = ["".join(self.parts)]
        return self.parts[0] if self.parts else ""

    def since(self, start: int, end: int) -> str:
        """The text from ``start`` to ``end``, from the parts that hold it: a reader
        catching up pays for what it has not seen, not for the whole text."""
        recent: list[str] = []
        covered = self.size  # where the text of the parts walked so far begins
        for part in reversed(self.parts):
            if covered <= start:
                break
            covered -= len(part)
            recent.append(part)
        text = "".join(reversed(recent)) if len(recent) > 1 else (recent[0] if recent else "")
        return text[start - covered : end - covered]

    def restart(self, text: str) -> None:
        """The text so far is replaced (a snapshot reading, a cut-off call read again):
        the readers start over."""
        self.parts = [text] if text else []
        self.size = len(text)
        self.scan = None
        self.partial = None


class _Waiting:
    """A fragment with an id no call has and blank text (or none) that a call without
    an id whose value is whole would adopt as a late id, held until the text after it
    says whether it opens the new id's call instead (review 14b R2, F3, F15)."""

    __slots__ = ("id", "index", "name", "parts", "slot", "snapshots")

    def __init__(
        self, slot: _Slot, index: int | None, id: str, name: str | None, snapshots: bool
    ) -> None:
        self.slot = slot  # the call that would adopt the id
        self.index = index
        self.id = id
        self.name = name
        self.snapshots = snapshots
        self.parts: list[str] | None = None  # its blank text (None: no text came)

    def add(self, text: str | None) -> None:
        if text is not None:
            if self.parts is None:
                self.parts = []
            self.parts.append(text)

    def text(self) -> str | None:
        return None if self.parts is None else "".join(self.parts)


# The finisher of every stream without declared tools: such a finisher never changes
# (it builds and caches a validator only for a declared tool; its ``tools`` dict is
# the caller's to read, never to write), so streams may share it (F23). One built a
# stream cost each ~1.5 K instructions (callgrind).
_NO_TOOLS = CallFinisher()


class CallAssembler:
    """Assembles calls for one stream. Not thread-safe; one per stream."""

    def __init__(
        self, tools: Iterable[ToolSpec] = (), *, finisher: CallFinisher | None = None
    ) -> None:
        if finisher is None:
            finisher = CallFinisher(tools) if tools else _NO_TOOLS
        self.finisher = finisher
        self.events: list[Event] = []
        self._slots: list[_Slot] = []
        self._by_id: dict[str, _Slot] = {}
        self._by_index: dict[int, _Slot] = {}
        self._open: _Slot | None = None  # most recent slot, for fragments without index
        self._raw_finish: str | None = None
        self._finish: FinishReason | None = None  # _raw_finish normalized, once
        self._usage: Usage | None = None
        self._ended = False
        # called before a finish reason closes open calls: a text extractor in front of
        # a provider decoder flushes first, so its open calls are judged by it (F1)
        self.before_finish: Callable[[], None] | None = None
        # a slot held blank text once (``_Slot.held``), or a fragment waited
        # (``_waiting``): until then no fragment looks
        self._holding = False
        self._waiting: _Waiting | None = None
        self._calls_made = 0
        self._calls_cut = 0  # calls that came out truncated
        # set by a decoder while it reads a message whose bytes that were not UTF-8
        # became this character (``toolwire.invalid_utf8``): it is turned into U+FFFD
        # here, and a call whose arguments held it is repaired (F29)
        self.invalid_utf8: str | None = None

    # -- fragments in ---------------------------------------------------------------

    def text(self, text: str) -> None:
        if text:
            self.events.append(TextDelta(text))

    def reasoning(self, text: str) -> None:
        if text:
            if self.invalid_utf8 is not None:
                text = self._unmarked(text)
            self.events.append(ReasoningDelta(text))

    def reasoning_signature(self, signature: str) -> None:
        if signature:
            self.events.append(ReasoningDelta("", signature))

    def signature(
        self,
        kind: Literal["redacted", "thought_signature"],
        value: str,
        call_id: str | None = None,
        index: int | None = None,
    ) -> None:
        """``call_id`` / ``index``: the call whose fragment was just given with that
        index (else that id) carries the signature (neither: a text part's)."""
        if not value:
            return
        if self._waiting is not None:
            self._settle()  # (the fragment the signature follows may be the waiting one)
        slot = None
        if index is not None:
            slot = self._by_index.get(index)
        elif call_id is not None:
            slot = self._by_id.get(call_id)  # the last call given that id
        if slot is None:
            self.events.append(ReasoningSignature(kind, value, call_id))
            return
        event = ReasoningSignature(kind, value, call_id, slot.number)
        # before the call's CallStarted when that is among the events not yet taken
        # (only the call's own events after it): a streaming encoder writes the
        # signature on the call's header, which goes out with CallStarted
        events, at = self.events, len(self.events)
        while at and _of_slot(events[at - 1], slot.number):
            at -= 1
            if isinstance(events[at], CallStarted):
                events.insert(at, event)
                return
        events.append(event)

    def error(self, message: str, raw: str = "") -> None:
        if self.invalid_utf8 is not None:
            message, raw = self._unmarked(message), self._unmarked(raw)
        self.events.append(StreamError(message, raw))

    def message_lost(self, message: str, raw: str = "") -> None:
        """A wire message that could not be read (or taken) at all: reported as
        ``error`` reports, and every call still open when it came can no longer be
        called whole, as the message may have held some of its arguments (G3: a
        call that lost its only argument text is never a silent ``{}``)."""
        if self._waiting is not None:
            self._settle()
        self.error(message, raw)
        for slot in self._slots:
            if not slot.closed:
                slot.errors.append(
                    "a message of the stream could not be read while this call was "
                    "open: its arguments may be incomplete"
                )

    def fragment_lost(self, index: int | None, why: str) -> None:
        """A fragment for the call at ``index`` (None: the call open last) that the
        decoder could not take (argument text that was not text): the call, if still
        open, is never called whole; the decoder reports the fragment itself."""
        if self._waiting is not None:
            self._settle()
        slot = self._open if index is None else self._by_index.get(index)
        if slot is not None and not slot.closed:
            slot.errors.append(why)

    def set_usage(self, usage: Usage) -> None:
        self._usage = usage

    def set_finish_reason(self, raw: str | None) -> None:
        """The provider ended the turn: finish every open call now."""
        if self._waiting is not None:
            self._settle()  # (it came before the finish)
        if self.before_finish is not None:
            self.before_finish()
        # the table's spelling as sent first (``normalize_finish_reason``'s first
        # look, inlined: a call less a stream, ~0.4 K instructions, callgrind)
        reason = _FINISH_REASONS.get(raw) if type(raw) is str else None
        if reason is None:
            reason = normalize_finish_reason(raw)
        if raw:
            self._raw_finish = str(raw)
            self._finish = reason
        if self._calls_made != len(self._slots):  # some call is still open
            if reason == "length":
                self._finish_open(True)
            else:  # ``_finish_open(False)`` written out: a call less (~1 K instructions)
                for slot in self._slots:
                    if not slot.finished:
                        self._finish_slot(slot, False)

    def tool(
        self,
        index: int | None,
        id: str | None,
        name: str | None,
        arguments: str | Mapping[str, Any] | list[Any] | None,
        *,
        repairs: Iterable[str] = (),
        snapshots: bool = True,
        unreadable: str = "",
        delimited: bool = False,
        raw: str | None = None,
    ) -> None:
        """One tool-call fragment: any of header (id, name) and argument text/object.

        ``repairs``: what the decoder already had to fix for this call (e.g. a call
        written in Python style). ``snapshots=False``: this source never repeats
        argument text, so snapshot detection (F7) is off for the call.
        ``unreadable``: the decoder found the arguments unreadable (not JSON at all,
        e.g. Python source with a syntax error) and says why; they are kept as raw
        text and the call is invalid, never repaired or taken for a cut-off.
        ``delimited``: this source says where the call ends (a text-format
        extractor), so its text is never split into a second call (F3), however
        it was chunked (F15).
        ``raw``: the text a text-format call was read from, as sent; it becomes the
        call's ``raw_arguments``, so nothing that was sent is lost. With an object for
        ``arguments``: the text the object was read from (a call cut off in its
        markup, a repaired JSON envelope). With no ``arguments``: the text that could
        not be read, which replaces the argument text streamed before (a JSON envelope
        that held something unread after its arguments).
        """
        if (
            type(id) is str  # (first: argument text, the most fragments, has no id)
            and type(name) is str
            and (arguments is None or arguments == "")
            and id
            and name
            and index is not None
            and id not in self._by_id
            and index not in self._by_index
            and self.invalid_utf8 is None
            and snapshots
            and not (repairs or unreadable or delimited)
            and raw is None
            and self._waiting is None  # (else settled first, in ``_fragment``)
        ):
            # a new call's header, each call's first fragment (a new id at a new index,
            # a name, no argument text): its slot and CallStarted, as ``_route`` and
            # the steps below make them, without their calls and checks (~1.8 K
            # instructions a call, callgrind; the same events:
            # tests/test_assembler_fast_paths.py)
            slot = self._new_slot(index, id, name)
            slot.started_event = True
            self.events.append(CallStarted(slot.number, id, name))
            return
        # argument text alone for an open call, as the block loop of an SSE wire gives
        # a delta it cannot append itself: ``fast_arguments`` appends it without
        # routing where routing would append it as is (a delta as long as the text so
        # far ~10.6 -> ~7 K instructions, callgrind)
        if (
            id is None
            and name is None
            and index is not None
            and type(arguments) is str
            and not (repairs or unreadable or delimited)
            and snapshots
            and raw is None
            and self.fast_arguments(index, arguments)
        ):
            return
        if not isinstance(id, str) or not id:
            id = None
        if not isinstance(name, str) or not name:
            name = None
        # (the general path in a method of its own: its locals would cost every call
        # of this one, the fast paths' above too)
        self._fragment(index, id, name, arguments, repairs, snapshots, unreadable, delimited, raw)

    def _fragment(
        self,
        index: int | None,
        id: str | None,
        name: str | None,
        arguments: _Arguments,
        repairs: Iterable[str],
        snapshots: bool,
        unreadable: str,
        delimited: bool,
        raw: str | None,
    ) -> None:
        """``tool``'s general path: the fragment routed, and cut where named text
        goes on after its call's value is whole."""
        replaced = False
        sent = ""  # the argument text as sent, before its marker became U+FFFD (F29)
        if self.invalid_utf8 is not None:
            id = id and self._unmarked(id)
            name = name and self._unmarked(name)
            if isinstance(arguments, str):
                sent = arguments
            arguments, replaced = self._unmarked_arguments(arguments)
            raw = raw and self._unmarked(raw)
        holder = None
        if self._holding:
            waiting = self._waiting
            if waiting is not None:
                if (
                    id == waiting.id
                    and index == waiting.index
                    and name == waiting.name
                    and snapshots == waiting.snapshots
                    and (arguments is None or isinstance(arguments, str))
                    and raw is None
                    and not (repairs or unreadable or delimited)
                ):
                    # more of the waiting fragment, as a piece of one delta would be
                    if arguments is None or not arguments.strip():
                        waiting.add(arguments)
                        return
                    arguments = (waiting.text() or "") + arguments
                    self._waiting = None
                else:
                    self._settle()
            holder = self._holder(index)
        # (a new id with blank text for a call whose value is whole may wait, R2)
        if (
            id is not None
            and (arguments is None or (isinstance(arguments, str) and not arguments.strip()))
            and raw is None
            and not (repairs or unreadable or delimited)
            and self._waits(index, id, name, arguments, snapshots)
        ):
            return
        made = len(self._slots)
        slot = self._route(index, id, name, arguments, delimited)
        cuts = None
        if (
            name is not None
            and id is None
            and type(arguments) is str
            and raw is None
            and not (repairs or unreadable or delimited)
        ):
            # named text that goes on after its call's value is whole is cut where a
            # value opens after it, and where white space ends it: each piece goes
            # where it would go as a fragment of its own with the name (F3, F15;
            # review 9 F5, review 13 #9)
            cuts = self._cuts(slot, arguments, name)
            if cuts:
                text, cuts = arguments, [*cuts, len(arguments)]
                arguments = text[: cuts[0]]
                if sent:  # (the marker is one character, as its replacement)
                    replaced = self._marked(sent[: cuts[0]])
        at = 0  # the piece of ``cuts`` taken
        while True:
            if holder is not None:
                arguments = self._held_first(holder, slot, made, id, name, arguments)
            elif (
                slot.next_name is not None
                and id is None
                and type(arguments) is str
                and arguments
                and not arguments.strip()
            ):
                slot.held = [arguments]  # (see ``_Slot.held``)
                slot.held_name = slot.name is None
                self._holding = True
                arguments = ""
            if slot.next_name is not None and not _blank(arguments):
                slot.next_name = None  # more of this call: no new call starts here now
            if not snapshots:
                slot.snapshots = False
            if delimited:
                slot.delimited = True
            if repairs:
                slot.repairs.extend(repairs)
            if unreadable:
                slot.unreadable = unreadable
            if replaced and "invalid_utf8" not in slot.repairs:
                slot.repairs.append("invalid_utf8")
            if name is not None and slot.name != name:
                if slot.name is None:
                    slot.name = name
                else:  # set once (F8): a different name is a conflict, never a merge
                    # (once a name, however the text was cut: a set, not a search of
                    # the errors, which cost a call renamed each delta quadratic time)
                    if slot.conflicts is None:
                        slot.conflicts = set()
                    if name not in slot.conflicts:
                        slot.conflicts.add(name)
                        slot.errors.append(
                            f"conflicting names for one call: {slot.name!r} and {name!r}"
                        )
            if not slot.started_event and slot.name is not None and not slot.held_name:
                self._start(slot)
            if arguments is None:
                if raw is not None:
                    slot.snapshot = None
                    slot.restart(raw)
                return
            if isinstance(arguments, str):
                if arguments:  # (a call's first fragment often has none: no call for it)
                    # (a piece after a cut repeats nothing: only a fragment's start
                    # may be a snapshot, F7)
                    self._append(slot, arguments, repeats=not at)
            else:
                # F10: an object instead of a JSON string; it replaces, like a snapshot
                slot.snapshot = None
                slot.object_value = arguments
                text = dumps(arguments)  # big integers, lone surrogates: orjson refuses them
                kept = text if raw is None else raw
                slot.restart(kept)
                if slot.started_event:
                    self.events.append(ArgumentsDelta(slot.number, text))
            if not cuts or at + 1 == len(cuts):
                return
            # the next piece, routed as a fragment of its own, but never taken for a
            # snapshot: nothing within one fragment repeats it (F7 is a fragment's)
            start, at = cuts[at], at + 1
            arguments = text[start : cuts[at]]
            if sent:
                replaced = self._marked(sent[start : cuts[at]])
            holder = self._holder(index) if self._holding else None
            made = len(self._slots)
            slot = self._route(index, None, name, arguments, False, False)
            if len(self._slots) > made:
                # a call that opens inside a fragment: no snapshot stream starts one
                # there, and a later delta that starts with its text is more of it
                # (F7 would read it otherwise than that text sent in one delta)
                slot.snapshots = False

    def whole_call(
        self,
        index: int,
        name: str | None,
        arguments: str,
        repairs: Iterable[str] = (),
        loaded: Any = UNREAD,
    ) -> bool:
        """A delimited call read whole at once (text fed whole): what ``tool`` with its
        name, ``tool`` with its argument text and ``close_call`` would do, in one step.
        Returns False, having done nothing, where that sequence needs routing decisions
        (an index already in use, text not yet free of the invalid-UTF-8 marker).
        ``loaded``: ``orjson.loads(arguments)``, when the caller has read it."""
        if self.invalid_utf8 is not None or self._waiting is not None:
            return False
        held = self._by_index.get(index)
        if held is not None and not held.closed:
            return False
        # ``_new_slot`` written out: the slot is finished below, so it is never the
        # open one (callgrind: about 800 instructions less per call)
        slot = _Slot(len(self._slots), index, None)
        self._slots.append(slot)
        self._by_index[index] = slot
        self._open = None
        slot.snapshots = False
        slot.delimited = True
        if repairs:
            slot.repairs.extend(repairs)
        if isinstance(name, str) and name:
            slot.name = name
            slot.started_event = True
            self.events.append(CallStarted(slot.number, None, name))
        if arguments:
            slot.parts.append(arguments)
            slot.size = len(arguments)
            if slot.started_event:
                self.events.append(ArgumentsDelta(slot.number, arguments))
        if (
            isinstance(name, str)
            and name
            and arguments
            and not repairs
            and self._finished_as_sent(slot, name, arguments, loaded)
        ):
            return True
        self._finish_slot(slot, truncated=False, loaded=loaded)
        return True

    def _finished_as_sent(self, slot: _Slot, name: str, raw: str, loaded: Any) -> bool:
        """``_finish_slot`` of a whole call's new slot, its name and argument text out
        and nothing against it, where ``finisher.as_sent`` finishes the call (the usual
        call, read as sent): that case written out. False, nothing done, for any
        other. (Text fed whole runs cold, each step of the general finishing costing
        there: a 2 KB Llama 3 JSON parse with 4 calls, 5.8 K instructions less of
        330 K, callgrind.)"""
        try:
            call = self.finisher.as_sent(None, name, raw, slot.number, loaded)
        except Exception:  # a finisher bug: ``_finish_slot`` reports it on the call
            return False
        if call is None:
            return False
        slot.closed = slot.finished = True
        self._calls_made += 1
        self.events.append(CallFinished(call))
        return True

    def fast_arguments(self, index: int, text: str) -> bool:
        """Append argument text to the open slot at ``index`` when nothing about it
        needs routing decisions (the hot path). Returns False to take the full path."""
        size = self.open_size(index)
        if size < 0:
            return False
        if not text:
            # nothing to append to an open call (each Anthropic tool_use block starts
            # with an empty delta): what ``tool`` makes of it, without its ~10 K
            # instructions of routing (callgrind, bench_short_streams.py)
            return True
        slot = self._by_index[index]
        # the plain append's rule (``open_size``), and text as long as the text so far
        # that does not start as it did: it repeats nothing (F7), and ``_append`` would
        # append it as is (~8 K instructions of routing less for such a delta, often a
        # call's second). The same events as ``tool``: tests/test_assembler_fast_paths.py
        if self.invalid_utf8 is None and (
            not size or len(text) < size or not (slot.snapshots and text.startswith(slot.parts[0]))
        ):
            # ``extend_arguments`` of one text, inlined: a call less per argument delta
            slot.parts.append(text)
            slot.size = size + len(text)
            self.events.append(ArgumentsDelta(slot.number, text))
            return True
        return False

    def text_arguments(self, index: int, text: str) -> None:
        """``tool(index, None, None, text)``: argument text from a text-format
        extractor, the per-delta path of streamed text formats. For the call it began
        (delimited, never fed snapshots) the text is appended without routing: such a
        call is never split (F3) nor read as snapshots (F7)."""
        slot = self._by_index.get(index)
        if (
            slot is None
            or not text
            or not slot.delimited
            or slot.snapshots
            or self.invalid_utf8 is not None
            or self.open_size(index) < 0
        ):
            self.tool(index, None, None, text)
            return
        slot.parts.append(text)
        slot.size += len(text)
        self.events.append(ArgumentsDelta(slot.number, text))

    def open_size(self, index: int) -> int:
        """The size of the argument text so far of the slot at ``index``, if text may be
        appended to it without routing decisions; else -1. Argument text with neither id
        nor name joins such a slot plainly if it is not empty, and either the slot's
        first text (nothing to repeat) or shorter than the text so far (a longer one may
        be a snapshot: F7). Such text never opens another call, not even with a second
        value (see ``_route``). (The rule is written out where it is applied, in
        ``fast_arguments``, ``SSEWireDecoder._blocks`` and ``_hand_run``: a call less per delta.)"""
        slot = self._by_index.get(index)
        if (
            slot is None
            or slot.closed
            or slot.cumulative
            or slot.snapshot is not None
            or not slot.started_event
            or slot.object_value is not NOT_GIVEN
            or slot.next_name is not None
            # a fragment waits (``_waiting``): text at any index goes through ``tool``,
            # which settles the wait first, as it does for text the plain append would
            # not take (review 15 #1: else cutting another call's delta decided it)
            or self._waiting is not None
        ):
            return -1
        return slot.size

    def extend_arguments(self, index: int, texts: list[str]) -> None:
        """Append argument text checked with ``open_size``'s rule, one delta event for all."""
        slot = self._by_index[index]
        text = texts[0] if len(texts) == 1 else "".join(texts)
        slot.parts.append(text)
        slot.size += len(text)
        self.events.append(ArgumentsDelta(slot.number, text))

    def close_call(
        self,
        *,
        index: int | None = None,
        id: str | None = None,
        truncated: bool = False,
        wait_for_finish: bool = False,
    ) -> None:
        """A decoder closed one call explicitly (Anthropic content_block_stop, the end
        marker of a text-format call). ``truncated``: the decoder knows it was cut off.
        ``wait_for_finish``: take no more fragments, but judge the call when the finish
        reason is known (a block closed just before max_tokens may be cut, F1)."""
        if self._waiting is not None:
            self._settle()
        slot = self._by_id.get(id) if id else None
        if slot is None and index is not None:
            slot = self._by_index.get(index)
        if slot is not None and not slot.closed:
            if slot.held is not None:
                self._release(slot)  # (before the close: a closed call takes no text)
            slot.closed = True
            if not wait_for_finish:
                self._finish_slot(slot, truncated=truncated)

    def end(self, *, dropped: bool = False) -> None:
        """End of input. ``dropped``: the wire ended without its terminal message."""
        if self._ended:
            return
        self._ended = True
        if self._waiting is not None:
            self._settle()
        reason = self._finish
        if self._calls_made != len(self._slots):  # some call is still open
            self._finish_open(reason == "length" or dropped)
        if reason is None:
            reason = "error" if dropped else "stop"
            if dropped:
                self.error("the stream ended without a finish reason (connection dropped?)")
        if self._calls_cut and reason in ("stop", "tool_calls"):
            reason = "length"  # F33: a call was cut off, whatever the server said
        elif reason == "stop" and self._calls_made:
            reason = "tool_calls"  # F17: calls were made
        self.events.append(StreamFinished(reason, self._usage, self._raw_finish))

    def drain(self) -> list[Event]:
        out = self.events
        self.events = []
        return out

    # -- queries ----------------------------------------------------------------------

    def partial_arguments(self, slot_number: int) -> Any:
        """The value of a slot's arguments so far, for UIs: ask after every delta if you
        like, each answer reads only the text that came since the last one.

        Only what is certain shows (see ``toolwire.assemble.partialjson``): strings as
        far as they came, numbers and literals once whole, keys once their value
        starts; ``None`` before anything shows. Complete entries are shared between
        answers: treat them as read-only. Python-literal text (F12) reads the same way;
        text that is neither (a bare key, say) gets the repair ladder's best-effort
        reading instead, which reads all of it.
        """
        slot = self._slots[slot_number]
        if slot.object_value is not NOT_GIVEN:
            return slot.object_value
        reader = slot.partial
        if reader is None:
            reader = slot.partial = PartialJson()
        # an undecided slot (see ``_undecided``) shows only the text shown before
        end = slot.size if slot.snapshot is None else slot.shown
        if end > reader.consumed:
            reader.feed(slot.since(reader.consumed, end))
        if reader.broken:
            return partial_value(slot.raw()[:end])
        return reader.value(complete=slot.finished)

    # -- internals --------------------------------------------------------------------

    def _unmarked(self, text: str) -> str:
        """``text`` with the marker of bytes that were not UTF-8 made U+FFFD."""
        marker = self.invalid_utf8
        return text if marker is None else text.replace(marker, REPLACEMENT)

    def _unmarked_arguments(self, arguments: _Arguments) -> tuple[_Arguments, bool]:
        """Arguments with the marker made U+FFFD, and whether they held it."""
        marker = self.invalid_utf8
        if marker is None or arguments is None:
            return arguments, False
        if isinstance(arguments, str):
            return arguments.replace(marker, REPLACEMENT), marker in arguments
        try:
            text = dumps(arguments)  # (an integer beyond 64 bits: orjson refuses it)
        except NotJSONError:  # not JSON data: it cannot have come from a marked message
            return arguments, False
        if marker not in text:
            return arguments, False
        # (the standard library's reading: orjson's makes a float of such an integer)
        value: dict[str, Any] | list[Any] = json.loads(text.replace(marker, REPLACEMENT))
        return value, True

    def _new_slot(self, index: int | None, id: str | None, name: str | None = None) -> _Slot:
        slot = _Slot(len(self._slots), index, id)
        if name is not None:  # (its name came before its first text: see ``next_name``)
            slot.name = name
        self._slots.append(slot)
        if id:
            self._by_id[id] = slot
        if index is not None:
            self._by_index[index] = slot
        self._open = slot
        return slot

    def _route(
        self,
        index: int | None,
        id: str | None,
        name: str | None,
        arguments: object,
        delimited: bool = False,
        repeats: bool = True,
    ) -> _Slot:
        """The slot a fragment goes to. ``repeats=False``: the text is a piece of a
        fragment after its start, which can repeat nothing (F7)."""
        if id is not None:
            slot = self._by_id.get(id)
            # a source that marks where calls end may reuse an id (a model writing
            # the same ``functions.f:0`` twice): after the close it is a new call (F3)
            if slot is not None and not (delimited and slot.closed):
                if index is None or slot.index is None or slot.index == index:
                    return slot
                # one id at two indexes: two calls (a server that reuses an id), never
                # merged (F3, F19); each index keeps its own call
                at_index = self._by_index.get(index)
                if at_index is not None and at_index.id == id:
                    return at_index
                return self._new_slot(index, id)
            # (after the close of a delimited call with this id: the id is new again)
            slot = self._by_index.get(index) if index is not None else self._open
            if (
                slot is not None
                and slot.id is None
                and not slot.closed
                and not self._starts_new_call(slot, name, arguments)
            ):
                slot.id = id  # a late id: adopt it
                self._by_id[id] = slot
                return slot
            if name is None and slot is not None and not slot.closed:
                # a new call after its name came alone (see ``next_name``)
                return self._new_slot(index, id, slot.next_name)
            return self._new_slot(index, id)
        slot = self._by_index.get(index) if index is not None else self._open
        if slot is None or slot.closed:
            return self._new_slot(index, None)
        # text with neither id nor name is more of this call, a second value in it too:
        # were it split where a delta opens one, one delta holding two values would give
        # one call and two deltas two (F15); the ladder refuses the {..}{..} (F3)
        if name is not None:
            if self._starts_new_call(slot, name, arguments, repeats):
                return self._new_slot(index, None)
            if (
                (name == slot.name or (slot.name is None and arguments))
                and slot.size
                and not slot.delimited
                and _blank(arguments)
                and self._scanned(slot).balanced
            ):
                # after a whole value, the header of a next call whose text comes in the
                # next deltas (OpenAI sends it so), or a name repeated on every chunk
                # (F8): only text that opens a second value tells them apart, as it
                # does with the name in the same fragment (F15). So too blank text
                # that first names the call: in two deltas the second would come
                # after the name the first gave (its name waits with it, ``held_name``)
                slot.next_name = name
                return slot
        elif slot.next_name is not None and self._starts_new_call(slot, slot.next_name, arguments):
            return self._new_slot(index, None, slot.next_name)
        return slot

    def _starts_new_call(
        self, slot: _Slot, name: str | None, arguments: object, repeats: bool = True
    ) -> bool:
        """A fragment that carries a name, or an id the slot lacks, and cannot belong
        to ``slot``: the slot's value is whole and the fragment names another tool or
        opens a second value. Never two names merged (F3, F19)."""
        if slot.delimited:
            return False
        renamed = name is not None and slot.name is not None and name != slot.name
        # (the first character first: most text opens nothing, and a call less is ~700
        # instructions, callgrind)
        opens = isinstance(arguments, str) and arguments[:1] in MAY_OPEN and opens_value(arguments)
        if not (renamed or opens):
            return False
        if slot.object_value is not NOT_GIVEN:
            return renamed  # arguments came whole (F10): only another name is another call
        if not slot.size:
            return False  # nothing yet: the fragment continues this call
        if opens and not renamed and repeats and self._is_snapshot(slot, arguments):
            return False  # a repeat of what came so far (F7), not a new value
        return self._scanned(slot).balanced

    @staticmethod
    def _is_snapshot(slot: _Slot, text: object) -> bool:
        """``text`` may repeat everything so far (under the snapshot reading, if the
        slot has not decided between readings yet)."""
        if not slot.snapshots or not isinstance(text, str):
            return False
        if slot.snapshot is not None:
            return text.startswith(slot.snapshot)
        if slot.held is not None:
            # blank text held after the value (``_Slot.held``) came so far too: a
            # snapshot repeats it (F7). (Joined only for text that repeats the value:
            # such text takes the held text along, so each held text is joined once,
            # never once per blank fragment held, which would be quadratic, F22.)
            if not (len(text) > slot.size and text.startswith(slot.raw())):
                return False
            held = "".join(slot.held)
            slot.held = [held]
            return text.startswith(held, slot.size)
        # the first part before the whole text (a call and maybe a join): most text
        # repeats nothing, and then rarely even its first part (~600 instructions
        # less per routed delta, callgrind)
        return (
            len(text) >= slot.size > 0
            and text.startswith(slot.parts[0])
            and text.startswith(slot.raw())
        )

    def _cuts(self, slot: _Slot, text: str, name: str) -> list[int]:
        """Where named ``text`` for ``slot`` is cut (``jsonscan.value_cuts``): nowhere
        in text of the slot's name that holds no bracket and ends in none of white
        space (most), nor where the slot's text may be snapshots (F7): only a
        fragment's edge can tell those. After arguments that came as an object (F10)
        the text is cut as after their JSON: its first piece is more of that call
        (``_starts_new_call``), as the same text alone would be, and makes the call
        one of text, which the pieces after it find, as deltas of their own would."""
        # (another name for a call whose value is not whole: a conflict, see
        # ``_route``; text after the value's end is another call's)
        renamed = slot.name is not None and slot.name != name
        if not (
            renamed or "{" in text or "[" in text or (text[-1:].isspace() and not text.isspace())
        ):
            return []
        if (
            slot.delimited
            or slot.cumulative
            or slot.snapshot is not None
            or self._is_snapshot(slot, text)
        ):
            return []
        return value_cuts(self._scanned(slot), text, renamed)

    def _waits(
        self,
        index: int | None,
        id: str,
        name: str | None,
        arguments: str | None,
        snapshots: bool,
    ) -> bool:
        """A fragment with an id no call has and blank text (or none), for a call
        without an id whose value is whole: that call would adopt the id (a late id),
        yet the fragment with more text that opens a value is the new id's own call
        (F3), so it waits (``_Waiting``) for its next piece, or for anything else,
        which settles it as it came (``_settle``): cut after its blank text or not,
        the same calls (review 14b R2, F15). Returns whether it waits."""
        if id in self._by_id:
            return False
        slot = self._by_index.get(index) if index is not None else self._open
        # where ``_starts_new_call`` asks the text whether it opens a value
        if (
            slot is None
            or slot.id is not None
            or slot.closed
            or slot.delimited
            or slot.object_value is not NOT_GIVEN
            or not slot.size
            or (name is not None and slot.name is not None and name != slot.name)
            or not self._scanned(slot).balanced
        ):
            return False
        waiting = self._waiting = _Waiting(slot, index, id, name, snapshots)
        waiting.add(arguments)
        self._holding = True
        return True

    def _settle(self) -> None:
        """The waiting fragment (``_Waiting``) goes on as it came, before anything else
        that came after it: its call adopts the id and takes its text."""
        waiting = self._waiting
        if waiting is None:
            return
        self._waiting = None
        slot = waiting.slot
        slot.id = waiting.id  # the late id, as ``_route`` adopts it
        self._by_id[waiting.id] = slot
        # (its id and name were read with their own message's marker, F29)
        marker, self.invalid_utf8 = self.invalid_utf8, None
        try:
            self._fragment(
                waiting.index,
                waiting.id,
                waiting.name,
                waiting.text(),
                (),
                waiting.snapshots,
                "",
                False,
                None,
            )
        finally:
            self.invalid_utf8 = marker

    def _holder(self, index: int | None) -> _Slot | None:
        """The slot a fragment at ``index`` would go to, if it holds blank text."""
        slot = self._by_index.get(index) if index is not None else self._open
        return slot if slot is not None and slot.held is not None else None

    def _held_first(
        self,
        holder: _Slot,
        slot: _Slot,
        made: int,
        id: str | None,
        name: str | None,
        arguments: Any,
    ) -> Any:
        """Blank text ``holder`` held goes where the fragment routed to ``slot``
        goes: more blank text for it is held too; a new call of the name it waits
        for (``_Slot.next_name``) takes it first in its text; anywhere else it is
        the holder's. Returns the fragment's arguments, with the held text first."""
        if slot is holder:
            if id is None and holder.next_name is not None and _blank(arguments):
                if not arguments:
                    return arguments  # (None: a name alone, with no text to hold)
                holder.held.append(arguments)  # type: ignore[union-attr]
                return ""
        elif (
            len(self._slots) > made
            and (name is None or name == holder.next_name)
            and (arguments is None or isinstance(arguments, str))
        ):
            held = "".join(holder.held or ())
            holder.held = None
            if holder.held_name:  # (the name came with the text: the new call's)
                holder.name = None
                holder.held_name = False
            return held + (arguments or "")
        self._release(holder)
        return arguments

    def _release(self, slot: _Slot) -> None:
        """The call takes the blank text it held (``_Slot.held``)."""
        text = "".join(slot.held or ())
        slot.held = None
        self._append(slot, text)
        if slot.held_name:  # the name came with the text: the call's too
            slot.held_name = False
            self._start(slot)

    def _start(self, slot: _Slot) -> None:
        """The call's ``CallStarted``, once it has a name, and the text that came
        before it (a call named after its first text): what a call streams is its
        raw arguments, nothing less. (While plain text and snapshots both fit, the
        text shown before; ``_decide`` shows the rest.)"""
        slot.started_event = True
        self.events.append(CallStarted(slot.number, slot.id, slot.name or ""))
        end = slot.size if slot.snapshot is None else slot.shown
        if end:
            self.events.append(ArgumentsDelta(slot.number, slot.raw()[:end]))

    def _marked(self, text: str) -> bool:
        """``text`` holds the marker of bytes that were not UTF-8 (F29)."""
        return self.invalid_utf8 is not None and self.invalid_utf8 in text

    def _append(self, slot: _Slot, text: str, repeats: bool = True) -> None:
        """``text`` appended to ``slot``'s arguments. ``repeats=False``: a piece of a
        fragment after its start, which is never read as a snapshot (F7)."""
        if not text:
            return
        if slot.closed:
            # the call is already out: keep the text visible rather than drop it
            self.error(f"argument text arrived after call {slot.id or slot.number} finished", text)
            return
        if slot.snapshot is not None:
            self._append_undecided(slot, text)
            return
        if slot.object_value is not NOT_GIVEN and not (repeats and self._is_snapshot(slot, text)):
            # Text after arguments that came as an object (an Anthropic block started
            # with a non-empty input, then input deltas): the object alone is no longer
            # what the call says; the text, both together, is read, and its damage named.
            slot.object_value = NOT_GIVEN
        size = slot.size
        if slot.cumulative or (repeats and self._is_snapshot(slot, text)):
            if not slot.cumulative:
                if may_become_json(slot.raw() + text):
                    self._undecided(slot, text)
                    return
                # F7: a snapshot repeating everything so far; keep only the new suffix
                slot.cumulative = True
                slot.repairs.append("cumulative_snapshots")
            if text.startswith(slot.raw()):
                text = text[size:]
            else:
                slot.errors.append("a cumulative snapshot did not extend the previous one")
                slot.restart("")
            if not text:
                return
        slot.parts.append(text)
        slot.size += len(text)
        if slot.started_event:
            self.events.append(ArgumentsDelta(slot.number, text))

    @staticmethod
    def _undecided(slot: _Slot, text: str) -> None:
        """``text`` repeats the slot's text, yet appended to it may still become JSON:
        keep the plain text and remember the snapshot reading; show nothing new until
        one of them is ruled out."""
        slot.snapshot = text
        slot.shown = slot.size
        slot.parts.append(text)
        slot.size += len(text)
        slot.checked = slot.size

    def _append_undecided(self, slot: _Slot, text: str) -> None:
        if text.startswith(slot.snapshot or ""):  # both readings still fit
            slot.snapshot = text
            slot.parts.append(text)
            slot.size += len(text)
            if slot.size >= 2 * slot.checked:
                # true snapshots pile up in the plain text: rule it out as soon as it
                # cannot become JSON, checking at each doubling (linear in all)
                slot.checked = slot.size
                if not may_become_json(slot.raw()):
                    self._decide(slot, snapshots=True)
            return
        # not a snapshot: plain text, unless that cannot become JSON either (then the
        # snapshot reading reports the break, as for any snapshot that does not extend)
        self._decide(slot, snapshots=not may_become_json(slot.raw() + text))
        self._append(slot, text)

    def _decide(self, slot: _Slot, *, snapshots: bool) -> None:
        """Take one reading of an undecided slot and show the text held back."""
        snapshot = slot.snapshot or ""
        slot.snapshot = None
        if snapshots:
            slot.restart(snapshot)
            slot.cumulative = True
            slot.repairs.append("cumulative_snapshots")
        if slot.started_event and slot.size > slot.shown:
            self.events.append(ArgumentsDelta(slot.number, slot.raw()[slot.shown :]))

    def _decide_at_end(self, slot: _Slot) -> None:
        """The slot's text is all in: plain text that parses wins; else snapshots that
        parse; else whichever may still be JSON cut short, plain text first."""
        plain = slot.raw()
        if parses_as_json(plain):
            snapshots = False
        else:
            snapshots = parses_as_json(slot.snapshot or "") or not may_become_json(plain)
        self._decide(slot, snapshots=snapshots)

    @staticmethod
    def _scanned(slot: _Slot) -> JsonScanner:
        """The slot's scanner, caught up with its text. Scanning is lazy: each character
        is scanned once, when a decision needs the structure, not on every delta."""
        scan = slot.scan
        if scan is None:
            # braces in Python-style '...' strings (F12) are not structure
            scan = slot.scan = JsonScanner(python_strings=True)
        if slot.size > scan.consumed:
            # only the text since the last scan: joining the whole text each time would
            # make a long call with many such decisions quadratic
            scan.feed(slot.since(scan.consumed, slot.size))
        return scan

    def _finish_open(self, last_cut: bool) -> None:
        # callers check first that a slot is open (each finished slot is one call
        # made): most streams finish every call before the end, and a call saved
        # twice a stream is ~0.5 K instructions (callgrind, bench_short_streams)
        # (loops over the slots rather than a list of the open ones and enumerate:
        # ~2.7 K instructions less a stream, callgrind)
        cut = None  # the last open slot, when the stream was cut off in it
        if last_cut:
            for slot in reversed(self._slots):
                if not slot.finished:
                    cut = slot
                    break
        for slot in self._slots:  # (finishing a slot opens none)
            if not slot.finished:
                self._finish_slot(slot, truncated=slot is cut)

    def _finish_slot(self, slot: _Slot, truncated: bool, loaded: Any = UNREAD) -> None:
        if slot.held is not None:
            self._release(slot)  # no text came after it: the call's own
        if slot.snapshot is not None:
            self._decide_at_end(slot)
        slot.closed = slot.finished = True
        if self._open is slot:
            self._open = None
        name = slot.name
        if name is None:
            name = ""
            slot.errors.append("the call never received a name")
        if not slot.started_event:
            slot.started_event = True
            self.events.append(CallStarted(slot.number, slot.id, name))
            if slot.size:
                self.events.append(ArgumentsDelta(slot.number, slot.raw()))
        # ``slot.raw()`` written out (a call less per call, ~1 K instructions,
        # callgrind); a finished slot's parts need not be joined in place
        parts = slot.parts
        raw = parts[0] if len(parts) == 1 else "".join(parts)
        try:
            # ``CallFinisher.finish`` in two steps: the usual call is finished by
            # ``as_sent`` without the keyword call and checks of the full path
            call = None
            if slot.object_value is NOT_GIVEN and not (
                truncated or slot.repairs or slot.errors or slot.unreadable
            ):
                call = self.finisher.as_sent(slot.id, name, raw, slot.number, loaded)
            if call is None:
                call = self.finisher.finish(
                    id=slot.id,
                    name=name,
                    raw_arguments=raw,
                    value=slot.object_value,
                    truncated=truncated,
                    slot=slot.number,
                    repairs=slot.repairs,
                    errors=slot.errors,
                    unreadable=slot.unreadable,
                    tried_as_sent=True,
                )
        except Exception as exc:  # a finisher bug must not lose the call
            call = ToolCall(
                id=slot.id,
                name=name,
                arguments=None,
                raw_arguments=raw,
                status="truncated" if truncated else "invalid",
                repairs=tuple(slot.repairs),
                errors=(*slot.errors, f"the call could not be finished: {exc!r}"),
                name_as_sent=name,
                slot=slot.number,
            )
        if not name:
            call = _as_invalid(call)
        self._calls_made += 1
        if call.status == "truncated":
            self._calls_cut += 1
        self.events.append(CallFinished(call))


def _blank(arguments: object) -> bool:
    """No argument text, or only whitespace."""
    return arguments is None or (isinstance(arguments, str) and not arguments.strip())


def _as_invalid(call: ToolCall) -> ToolCall:
    return call if call.status == "truncated" else replace(call, status="invalid")


def _of_slot(event: Event, number: int) -> bool:
    """``event`` is one of the call events of slot ``number``."""
    if isinstance(event, CallFinished):
        return event.call.slot == number
    return isinstance(event, CallStarted | ArgumentsDelta) and event.slot == number
