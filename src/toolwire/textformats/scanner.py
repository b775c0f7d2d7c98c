"""The streaming scanner every text-format extractor is built on.

A family describes its grammar as a generator (``call``) that yields *requests*; the
scanner satisfies each request from its buffer, or pauses until more text arrives.
Requests are small: "text until one of these markers", "does the buffer start with
one of these literals", "match this bounded regex", "read one JSON value". Each looks
only at the unconsumed text, which is the new delta plus a held-back tail no longer
than the longest marker (F14), so a delta costs O(len(delta)) (F22), and any chunking
of the same text gives the same requests the same answers (F15).

Reasoning (``<think>`` … ``</think>``, F16) and call bookkeeping (indices, closing
open calls as truncated at end of stream, F1) live here too, so families stay small.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache, cached_property, lru_cache, partial
from typing import Any

from toolwire.assemble import CallAssembler, JsonScanner
from toolwire.assemble.jsonscan import find_bracket
from toolwire.names import resolve_tool_name
from toolwire.repair.strict import UNREAD
from toolwire.spec import ToolSpec
from toolwire.textformats import loose
from toolwire.textformats.jsonend import container_end
from toolwire.textformats.need import (
    NEED,
    SPACE,
    WS_LIMIT,
    Emit,
    Grammar,
    Request,
    WholeCall,
    _Need,
)

__all__ = [
    "NEED",
    "Emit",
    "Grammar",
    "Markers",
    "MarkupCall",
    "Request",
    "TextScanner",
    "WholeCall",
    "_Need",
]


_SPACES = re.compile(r"[ \t\r\n]*")
_PUSH_BACK_LIMIT = 64  # the longest text ``push_back`` may give back
_COMPACT = 256  # see ``TextScanner.feed``
_SHORT = 256  # text shorter than this is searched with the markers' regex alone
_NEAR = 512  # see ``Markers.search_near``
# buffered text from which ``_whole_text`` starts (less: a streamed delta, where a call
# is hardly ever all there)
_WHOLE_MIN = 64


class Markers:
    """A fixed set of literal markers, searched together from a position."""

    __slots__ = (
        "extendable",
        "firsts",
        "held",
        "longest",
        "markers",
        "prefixes",
        "regex",
        "starts",
    )

    def __init__(self, *markers: str) -> None:
        unique = sorted(set(markers), key=len, reverse=True)  # longest wins at a position
        self.markers = tuple(unique)
        self.regex = re.compile("|".join(re.escape(m) for m in unique))
        self.longest = max(len(m) for m in unique)
        self.prefixes = frozenset(m[:i] for m in unique for i in range(1, len(m)))
        self.starts = re.compile("[" + "".join(sorted({re.escape(m[0]) for m in unique})) + "]")
        self.firsts = tuple(sorted({m[0] for m in unique}))
        # a marker that is the start of a longer one needs one more character to decide
        self.extendable = frozenset(
            m for m in unique if any(o != m and o.startswith(m) for o in unique)
        )
        self.held: dict[str, bool] = {}  # see ``holds``

    def search(self, buf: str, pos: int) -> re.Match[str] | None:
        """The first marker at or after ``pos``, as ``regex.search`` finds it. Prose is
        skipped with ``str.find`` on each marker's first character (memchr speed;
        the regex engine steps through every character), in windows that double in
        size, so each search costs about the distance to what it finds."""
        end = len(buf)
        if end - pos <= _SHORT:  # a delta while streaming: one regex call is cheaper
            return self.regex.search(buf, pos)
        match = self.regex.match
        firsts = self.firsts
        lo, size = pos, _SHORT
        while lo < end:
            hi = min(lo + size, end)
            at = hi
            for c in firsts:
                i = buf.find(c, lo, at)
                if i >= 0:
                    at = i
            if at < hi:
                m = match(buf, at)
                if m is not None:
                    return m
                lo = at + 1  # a first character that starts no marker here
            else:
                lo = hi
                size *= 2
        return None

    def holds(self, rest: str) -> bool:
        """Whether ``until`` with only ``rest`` unread, more text to come, answers
        NEED having taken nothing: ``rest`` may still become a marker, and is no
        text yet. Worked out by ``until``'s own steps, once per prefix of a marker."""
        found = self.held.get(rest)
        if found is None:
            if rest not in self.prefixes:
                return False
            m = self.search(rest, 0)
            if m is None:
                found = self.holdback(rest, 0) == 0
            else:  # held back only as the start of a longer marker (see ``until``)
                found = m.start() == 0 and m.group() in self.extendable
            self.held[rest] = found
        return found

    def search_near(self, buf: str, pos: int, window: int = _NEAR) -> re.Match[str] | None:
        """``search``, for a marker that is likely near: the regex over the next
        ``window`` characters (one C call), then ``search``'s windows. A match is
        taken from the first only where every marker that could begin at or before
        it fits in the window (else a cut-off one could have lost to a shorter).
        Measured at 2 KB with 4 Hermes calls (~420 characters of prose before each):
        0.5 µs per search against 1.2 µs for ``search`` alone (timeit)."""
        hi = pos + window
        m = self.regex.search(buf, pos, hi)
        if hi >= len(buf):
            return m  # the window held all the text: its answer is the answer
        if m is not None and m.start() + self.longest <= hi:
            return m
        return self.search(buf, pos)

    def holdback(self, buf: str, start: int) -> int:
        """Where the tail of ``buf`` that could still become a marker begins."""
        n = len(buf)
        lo = max(start, n - self.longest + 1)
        m = self.starts.search(buf, lo)
        while m is not None:
            i = m.start()
            if buf[i:] in self.prefixes:
                return i
            m = self.starts.search(buf, i + 1)
        return n


def _ignore(text: str) -> None:
    pass


@lru_cache(maxsize=256)
def _plain_json_search(markers: Markers) -> Callable[[str], object]:
    """What ``json_until`` must look at in a delta: a marker's first character, or a
    bracket, where its JSON value may open or close (see ``JsonScanner.feed_open``)."""
    return re.compile("[" + re.escape("{}[]" + "".join(markers.firsts)) + "]").search


@cache
def _shared_markers(markers: tuple[str, ...]) -> Markers:
    return Markers(*markers)


@lru_cache(maxsize=256)  # some literals come from the text (an invented tag's close)
def _longest_first(literals: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(literals, key=len, reverse=True))


def shared_markers(*markers: str) -> Markers:
    """``Markers(*markers)``, built once per set of markers (it is never changed): a
    parser is set up for every response, often to read a few hundred characters."""
    return _shared_markers(tuple(sorted(set(markers))))


# the loose openers, the markers in text, those in reasoning, and for ``_whole_text``
# the markers it reads itself, the length of the longest start marker, the start
# markers' first characters and their prefixes (the whole markers too), and the
# stray tags a call may leave right after it (see ``_whole_text``)
_FamilyMarkers = tuple[
    frozenset[str],
    Markers | None,
    Markers | None,
    tuple[frozenset[str], int, frozenset[str], frozenset[str], tuple[str, ...]],
]
# A family's markers (they depend on its class attributes, on whether tools are
# declared and on ``calls_in_reasoning`` only; see ``_markers_of``), worked out once:
# a parser is set up for every response. One lookup for all of them: a 2 KB parse
# right after ``gc.collect()`` costs ~6x its warm time, in cache misses on each
# function, code object and table it touches (``bench_textformats_whole.py
# --cold-detail``).
_FAMILY_MARKERS: dict[tuple[type[TextScanner], bool, bool], _FamilyMarkers] = {}


def _markers_of(family: type[TextScanner], tools: bool, calls_in_reasoning: bool) -> _FamilyMarkers:
    think = family.THINK or ()
    taken = {*family.START, *family.STRAY, *think}
    loose = frozenset(o for o in family.LOOSE if o not in taken) if tools else frozenset()
    text = shared_markers(*taken, *loose) if (taken or loose) else None
    reason = None
    if family.THINK is not None:
        extra = family.START if calls_in_reasoning else ()
        reason = shared_markers(family.THINK[1], *extra)
    # ``_whole_text`` reads start and stray markup itself, but none that may still
    # grow, and not reasoning's, which ``until`` decides
    extendable = text.extendable if text is not None else frozenset()
    whole = frozenset({*family.START, *family.STRAY}.difference(extendable, think))
    longest = max((len(m) for m in family.START), default=0)
    firsts = frozenset(m[0] for m in family.START)
    prefixes = frozenset(m[:i] for m in family.START for i in range(1, len(m) + 1))
    # the end tags a family's whole calls leave in the text (``WHOLE_TAKE`` false:
    # Llama's ``<|eom_id|>``), where the search would take them as stray markup: read
    # whole and no start marker, so the longest marker at their position
    left = () if family.WHOLE_TAKE else family.WHOLE_CLOSE
    strays = tuple(m for m in left if m in whole and m in family.STRAY and m not in family.START)
    return loose, text, reason, (whole, longest, firsts, prefixes, strays)


class MarkupCall:
    """The parameters of a call written as tags, and what its markup held that was
    not read: text between (or inside) its tags other than whitespace (``gap`` is an
    ``Emit`` for it), and parameters given twice. ``ignore``: text the format writes
    between tags besides whitespace (GLM's escaped newline). ``repairs``: what reading
    the parameters' text as values changed (see ``values.type_value``)."""

    __slots__ = ("args", "gaps", "ignore", "repairs", "repeated")

    def __init__(self, ignore: str = "") -> None:
        self.args: dict[str, Any] = {}
        self.gaps: list[str] = []
        self.repeated: list[str] = []
        self.ignore = ignore
        self.repairs: dict[str, None] = {}

    def gap(self, text: str) -> None:
        self.gaps.append(text)

    def put(self, key: str, value: Any) -> None:
        if key in self.args:
            self.repeated.append(key)  # the earlier value would be dropped
        self.args[key] = value

    def problems(self) -> list[str]:
        """Why the markup cannot be read as sent (none: it can)."""
        found = []
        dropped = "".join(self.gaps)
        if self.ignore:
            dropped = dropped.replace(self.ignore, "")
        dropped = dropped.strip()
        if dropped:
            excerpt = dropped if len(dropped) <= 40 else dropped[:37] + "..."
            found.append(f"text in the call's markup that is not a tag: {excerpt!r}")
        found += [f"parameter {key!r} given more than once" for key in self.repeated]
        return found


class TextScanner:
    """Base of every family extractor: feed text deltas, then close.

    Subclasses set ``START`` (markers that may open a call), optionally ``STRAY``
    (markup removed when seen outside a call), ``THINK`` (reasoning delimiters or
    None), and implement ``call(marker)``; ``at_start()`` handles calls that need no
    marker at the start of the output (bare JSON / Python lists).
    """

    START: tuple[str, ...] = ()
    STRAY: tuple[str, ...] = ()
    THINK: tuple[str, str] | None = ("<think>", "</think>")
    # where a call may sit in prose when tools are declared (F35, F31; see loose_call)
    LOOSE: tuple[str, ...] = loose.OPENERS
    # whether the family reads calls in text fed whole at once (``whole_calls``)
    _reads_whole = False
    # for a family whose ``whole_calls`` is ``jsoncalls.read_whole_envelope``: the
    # tags that end its call, and whether the tag is consumed with it
    WHOLE_CLOSE: tuple[str, ...] = ()
    WHOLE_TAKE = True

    # for a family whose ``at_start`` reads a call only where the output's first
    # character after whitespace is one of these (its ``peek``'s ``lead``): output that
    # starts with another ASCII character has none there (see ``_no_call_at_start``)
    START_LEAD = ""
    # whether the family reads no call at the start of the output (no ``at_start``)
    _plain_start = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._reads_whole = cls.whole_calls is not TextScanner.whole_calls
        cls._plain_start = cls.at_start is TextScanner.at_start

    def __init__(
        self,
        sink: CallAssembler,
        tools: list[ToolSpec] | tuple[ToolSpec, ...] = (),
        *,
        calls_in_reasoning: bool = False,
        start_in_reasoning: bool = False,
    ) -> None:
        self.sink = sink
        self._tool_specs = tuple(tools)  # the mapping ``tools`` is built on first use
        self.calls_in_reasoning = calls_in_reasoning
        self._next_index = 0
        self._open_calls: set[int] = set()
        self._buf = ""
        self._pos = 0  # the unconsumed text is _buf[_pos:]
        self._eof = False
        self._failed = False
        # a delta that the pending request would take whole: see ``feed``
        self._plain_search: Callable[[str], object] | None = None
        self._plain_take: Emit = _ignore
        self._plain_json: tuple[JsonScanner, Emit] | None = None  # see ``plain_value``
        # the markers ``until`` waits for with nothing taken yet: see ``feed``
        self._holding: Markers | None = None
        # the markup of the call being read, kept from ``keep_markup`` on: the text
        # before ``_markup_from`` that a feed compacted away is in ``_markup``
        self._markup: list[str] | None = None
        self._markup_from = 0
        # ``read_whole_envelope``'s tag searches in the text fed so far: (searched
        # from, found at)
        self._ahead: dict[str, tuple[int, int]] = {}
        self.whole_missed = -1  # see ``jsoncalls.whole_envelope``
        self._reasoning = start_in_reasoning
        # (see ``_FAMILY_MARKERS``)
        key = (type(self), bool(self._tool_specs), calls_in_reasoning)
        found = _FAMILY_MARKERS.get(key)
        if found is None:
            found = _FAMILY_MARKERS[key] = _markers_of(*key)
        self._loose, self._text_markers, self._reason_markers, self._whole_read = found
        # the grammar starts on the first feed, with that text in the buffer: text fed
        # whole then reaches ``_whole_text`` before its first marker
        self._gen: Grammar | None = None
        self._req: Request | None = None
        # how far ``_start`` read text fed whole before the grammar started: None, not
        # at all (the grammar starts from the start); True, up to just after a call;
        # False, up to a tail that may still become a marker (see ``run``'s ``resume``)
        self._resume: bool | None = None

    @cached_property
    def tools(self) -> dict[str, ToolSpec]:
        """The declared tools by name. Built on first use: most parses never ask (a
        whole-text parse reads names in the assembler), and each object and function
        a parse touches costs cache misses when it runs cold (see ``_FAMILY_MARKERS``)."""
        return {t.name: t for t in self._tool_specs}

    # -- public API ---------------------------------------------------------------

    def feed(self, text: str) -> None:
        if not text:
            return
        if self._failed:
            self.sink.text(text)
            return
        # compact, keeping a little consumed text so that a grammar may still push
        # back a marker or separator it read before this feed; in steps of
        # ``_COMPACT`` characters, not every feed (a copy of the kept text each time)
        keep = self._pos - _PUSH_BACK_LIMIT
        if keep > _COMPACT:
            if self._markup is not None:
                if keep > self._markup_from:
                    self._markup.append(self._buf[self._markup_from : keep])
                    self._markup_from = keep
                self._markup_from -= keep
            self._buf = self._buf[keep:] + text
            self._pos -= keep
        else:
            self._buf += text
        if self._ahead:
            self._ahead = {}
            self.whole_missed = -1
        # The request the grammar waits in took all the text before this delta and
        # said which deltas it would take whole (prose without a marker's first
        # character, argument text without a bracket): such a delta goes straight to
        # it, as the request would pass it on. Most deltas of a stream are such; this
        # skips the grammar's round trip for them (4-character deltas of 2 KB, with
        # the short paths below: 12.0 K instructions per delta instead of 24.6 K,
        # callgrind; bench/bench_textformats_whole.py).
        search = self._plain_search
        if search is not None and search(text) is None:
            self._plain_take(text)
            self._pos = len(self._buf)
            return
        # The start of a marker, split across deltas: while the text so far may still
        # become one, ``until`` would take none of it (DeepSeek's markers are 5 deltas
        # of 4 characters).
        holding = self._holding
        if holding is not None and holding.holds(self._buf[self._pos :]):
            self._plain_search = None  # text is held back now
            return
        if self._gen is None:  # the first feed, or text after close: a fresh scan
            self._start()
            if self._gen is None:  # read whole, the grammar not started (see ``_start``)
                return
        self._drive()

    def close(self) -> None:
        """End of stream: flush held text; open calls are reported truncated (F1)."""
        if not self._failed:
            if self._gen is None and self._resume is False and self._pos < len(self._buf):
                # read whole before the grammar started (see ``_start``) up to a tail
                # that did not become a marker: read at the end by ``until``, as
                # without that reading (it may hold a shorter marker: ``<`` where
                # tools are declared, F35). (After a call, ``_resume`` True, only
                # whitespace ``_after_call`` drops is left.)
                self._start()
            if self._gen is not None:
                self._eof = True
                self._drive()
        if self._open_calls:
            for index in sorted(self._open_calls):
                self.sink.close_call(index=index, truncated=True)
            self._open_calls.clear()
        # text fed after close (a provider sending content after its finish reason)
        # starts a fresh scan rather than being lost
        self._buf, self._pos, self._eof = "", 0, False
        if self._ahead:  # (``whole_missed`` is set only after a tag search)
            self._ahead = {}
            self.whole_missed = -1
        self._markup = None
        self._reasoning = False
        self._resume = None
        self._drop_grammar()

    def _drop_grammar(self) -> None:
        """Forget the grammar; the next feed starts a fresh one. Until then nothing
        refers back to the extractor (its grammar's generator and requests do), so it
        is freed as soon as it is dropped, not left to the cycle collector with its
        sink and every event (which a callgrind count would not see either)."""
        self._gen, self._req = None, None
        self._plain_search, self._plain_take = None, _ignore  # ``plain_deltas``, inline
        self._plain_json, self._holding = None, None

    # -- driving the grammar ----------------------------------------------------

    def _start(self) -> None:
        """Start the grammar on the text buffered. Text fed whole (the usual
        non-streaming response) is read by the family's ``usual_text`` or else by
        ``_whole_text`` first, as ``run``'s loop would, without starting the grammar;
        if that reads it to the end, the grammar
        is never started (callgrind, a 2 KB parse with 4 calls: Hermes 394 K -> 362 K
        instructions, DeepSeek V3 462 K -> 424 K; the generators, ``_drive`` and the
        requests of ``_after_call`` and ``until`` at the end)."""
        resume = self._resume
        if (
            resume is None
            and self._reads_whole
            and not self._reasoning
            and self._text_markers is not None
            and len(self._buf) - self._pos > _WHOLE_MIN
            and (self._plain_start or self._no_call_at_start())
        ):
            try:
                usual = self.usual_text()
                if usual is None:
                    read = self._whole_text()
                else:
                    read = None  # all of it read, as ``_whole_text`` answers
                    self._report(usual)
            except Exception as exc:  # as in ``_drive``: never raise on model text
                self._fail(exc)
                return
            if read is None:
                # no marker left: the grammar's ``until`` would wait as ``_wait_in``
                # does; ``close`` or a feed it cannot take goes on
                self._resume = False
                self._wait_in(self._text_markers, self.sink.text)
                return
            # after a call, only whitespace ``_after_call`` would wait on (more text
            # may bring a start marker) or drop at the end, at most ``WS_LIMIT``
            # characters of it: the grammar waits too
            if (
                read
                and len(self._buf) - self._pos <= WS_LIMIT
                and _SPACES.match(self._buf, self._pos).end() == len(self._buf)  # type: ignore[union-attr]
            ):
                self._resume = True
                return
            resume = read
        self._resume = None
        gen = self._gen = self.run(resume)
        self._req = next(gen)

    def _drive(self) -> None:
        req, gen = self._req, self._gen
        if req is None or gen is None:
            return
        idle = 0
        try:
            while True:
                pos = self._pos
                # only the request that answers NEED, ending this drive, may set these
                # (a grammar may call a request's method directly, as a helper)
                self._plain_search, self._holding = None, None
                res = req[0](*req[1:])
                if res is NEED:
                    break
                # a grammar that keeps asking without consuming would spin forever
                idle = idle + 1 if self._pos == pos else 0
                if idle > 10_000:
                    raise RuntimeError("the grammar made no progress")
                req = gen.send(res)
        except StopIteration:
            req = None
        except Exception as exc:  # never raise on model text: report, pass text through
            self._fail(exc)
            req = None
        self._req = req

    def _fail(self, exc: Exception) -> None:
        self._failed = True
        self.sink.error(f"text-format extractor failed: {exc!r}", self._buf[self._pos :])
        self.sink.text(self._buf[self._pos :])
        self._buf, self._pos = "", 0

    def _no_call_at_start(self) -> bool:
        """Whether ``at_start`` would read nothing from the text buffered, whatever
        follows: what its ``peek`` decides from ``START_LEAD``. (A family without
        ``at_start`` reads none: ``_start`` asks ``_plain_start`` first.)"""
        lead, buf, i = self.START_LEAD, self._buf, self._pos
        if buf[i : i + 1] in SPACE:  # (the usual output starts with a word: no regex)
            i = _SPACES.match(buf, i).end()  # type: ignore[union-attr]
        return bool(lead) and i < len(buf) and buf[i].isascii() and buf[i] not in lead

    def run(self, resume: bool | None = None) -> Grammar:
        """The top level: text, reasoning blocks, stray markup, and calls. ``resume``:
        where ``_start`` has read the text whole already, before the grammar started:
        up to just after a call (True), or up to where the requests take over (False)."""
        think_open, think_close = self.THINK or ("", "")
        if resume:
            yield from self._after_call()
        elif resume is None and not self._reasoning:
            yield from self.at_start()
        tried = resume is False  # ``_whole_text`` has just answered False
        while True:
            if self._reasoning:
                emit: Emit = self.sink.reasoning
                m = yield (self.until, self._reason_markers, emit, True)
            else:
                emit = self.sink.text
                if self._text_markers is None:
                    m = yield (self.until_eof, emit)
                else:
                    if (
                        not tried
                        and self._reads_whole
                        and len(self._buf) - self._pos > _WHOLE_MIN
                        and self._whole_text()
                    ):
                        yield from self._after_call()
                        continue
                    tried = False
                    m = yield (self.until, self._text_markers, emit, True)
            if m is None:
                return
            if m == think_open and not self._reasoning:
                self._reasoning = True
            elif m == think_close:
                # a close without an open (the open was in the prompt) is markup too
                if self._reasoning:
                    self._reasoning = False
                    yield from self.at_start()
            elif m in self.STRAY and m not in self.START:
                continue
            else:
                if m in self._loose:
                    handled = yield from self.loose_call(m)
                else:
                    handled = yield from self.call(m)
                if not handled:
                    emit(m)  # it only looked like a marker: it stays text
                elif self.START:
                    yield from self._after_call()

    def _after_call(self) -> Grammar:
        """Whitespace between calls, or after the last one, is not text."""
        r = yield (self.expect, self.START)
        if r is None and not self._buf[self._pos :].strip(" \t\r\n"):
            self._pos = len(self._buf)

    # -- text fed whole: calls read without the grammar's requests ----------------

    def whole_calls(self, marker: str) -> list[WholeCall] | None:
        """Family hook for text fed whole: the calls ``call(marker)`` would read from
        the current position (just after ``marker``), read at once from the buffer,
        the position moved to where ``call`` would leave it. None, with nothing
        reported (the position may have moved; the caller puts it back), where
        ``call`` is needed: anything but the usual shape, or not all of it here yet.
        Default: always None."""
        return None

    def usual_text(self) -> list[str | WholeCall] | None:
        """Family hook for text fed whole, tried before ``_whole_text``: all of the
        buffer read in one pass where it is in the family's usual shape alone, as
        the prose and calls ``_whole_text`` would report for it, in order; None,
        nothing read, for anything else. Default: always None."""
        return None

    def _report(self, read: list[str | WholeCall]) -> None:
        """Report what ``usual_text`` read, all of the buffer: as ``_whole_text``
        reports it (prose, then each call), the text read to its end (None)."""
        sink = self.sink
        for each in read:
            if isinstance(each, str):
                if each:
                    sink.text(each)
                continue
            name, arguments, loaded = each
            # ``whole_call``'s first step, written out as in ``_whole_text`` (callgrind,
            # a 2 KB Llama 3 JSON parse with 4 calls: 7 K instructions and ~70 cache
            # misses of callgrind's model less than calling it)
            index = self._next_index
            if sink.whole_call(index, name, arguments, (), loaded):
                self._next_index = index + 1
            else:
                self.whole_call(name, arguments, loaded=loaded)
        self._pos = len(self._buf)

    def _whole_text(self) -> bool | None:
        """Prose, stray markup and calls in their usual shape, read from the buffer
        without a request per step while ``whole_calls`` can read them: what ``run``'s
        loop and its requests would report, in the same order, in fewer Python steps
        per call (at 2 KB, where peers parse with one regex, each step counts).
        Answers True when it stopped right after a call with too little text after it
        to tell what follows (``run`` then asks ``expect``); False where the requests
        take over (a marker this does not read, a call ``whole_calls`` declines, the
        end of the stream), nothing of that consumed; None, before the end of the
        stream, where no marker is left: the text is read but for a tail that may
        still become one, on which ``until`` would wait (as False for ``run``).

        Markers are found with ``Markers.search_near``: prose between calls is often
        short. Measured in CPU time per 2 KB parse with 4 calls (warm, load ~10), this
        reading against the requests: Hermes 51 vs 57 µs, DeepSeek V3 56 vs 77 µs,
        Llama 3 JSON 58 vs 78 µs."""
        buf, markers, starts = self._buf, self._text_markers, self.START
        assert markers is not None
        search = markers.search_near
        taken, longest, firsts, prefixes, strays = self._whole_read
        sink = self.sink
        pos = self._pos
        while True:
            m = search(buf, pos)
            if m is None:
                if self._eof:
                    return False
                # as ``until`` does: the text, but what may be a marker
                hold = markers.holdback(buf, pos)
                if hold > pos:
                    sink.text(buf[pos:hold])
                self._pos = hold
                return None
            marker = m.group()
            if marker not in taken:
                return False
            start, end = m.span()
            calls = None
            if marker in starts:
                self._pos = end
                calls = self.whole_calls(marker)
                if calls is None:
                    self._pos = pos
                    return False
            if start > pos:
                sink.text(buf[pos:start])
            if calls is None:  # stray markup
                pos = self._pos = end
                continue
            for name, arguments, loaded in calls:
                # ``whole_call``'s first step, without its frame; where the assembler
                # declines, ``whole_call`` takes the call the longer way (callgrind:
                # about 800 instructions less per call)
                index = self._next_index
                if sink.whole_call(index, name, arguments, (), loaded):
                    self._next_index = index + 1
                else:
                    self.whole_call(name, arguments, loaded=loaded)
            pos = self._pos
            if strays and buf.startswith(strays, pos):
                # the call's end tag, left right after it: the search would find it
                # here next and drop it as stray markup (Llama 3 JSON, 2 KB parsed
                # with caches flushed: ~2-3% of the parse, bench_textformats_whole.py)
                for tag in strays:
                    if buf.startswith(tag, pos):
                        pos = self._pos = pos + len(tag)
                        break
                continue
            # ``_after_call``'s ``expect``, where no start marker can still be on its
            # way: the text after the whitespace is long enough, or is no start of one
            # (Llama's ``<|eom_id|>`` at the end). A set lookup, not ``any`` over the
            # markers: a generator is one more function a parse runs cold.
            i = _SPACES.match(buf, pos).end()  # type: ignore[union-attr]
            if len(buf) - i < longest and (i == len(buf) or buf[i:] in prefixes):
                return True
            # (the first character first: after a call, prose is the usual text, and
            # ``startswith`` would be one more C function run cold, see ``_FAMILY_MARKERS``)
            if i - pos <= WS_LIMIT and buf[i : i + 1] in firsts and buf.startswith(starts, i):
                pos = self._pos = i

    def at_start(self) -> Grammar:
        """Calls written without a marker at the start of the output (or after
        reasoning). Default: none."""
        return
        yield

    def call(self, marker: str) -> Grammar:
        """Read a call region that began with ``marker`` (consumed). Return False,
        consuming nothing more, when what follows is not a call body."""
        return False
        yield

    def loose_call(self, opener: str) -> Grammar:
        """A call written in prose, starting at ``opener`` (consumed); like ``call``.
        Default: a JSON call object naming a declared tool (F35, see ``loose``)."""
        return (yield from loose.read_call(self, opener))

    # -- requests: each returns NEED or an answer ---------------------------------

    def until(self, markers: Markers, emit: Emit | None, keep_tail: bool) -> str | _Need | None:
        """Pass text to ``emit`` up to the next marker; answer the marker (consumed),
        or None at end of stream. ``keep_tail``: at the end, a held-back partial
        marker is emitted (text) rather than dropped (inside a call)."""
        buf, pos = self._buf, self._pos
        m = markers.search(buf, pos)
        if m is not None:
            start, end = m.span()
            if (
                not self._eof
                and m.group() in markers.extendable
                and len(buf) - start < markers.longest
                and buf[start:] in markers.prefixes
            ):  # a longer marker may still begin here ("<" before "<tool_call>")
                if emit is not None and start > pos:
                    emit(buf[pos:start])
                self._pos = start
                self._holding = markers
                return NEED
            if emit is not None and start > pos:
                emit(buf[pos:start])
            self._pos = end
            return m.group()
        if self._eof:
            if emit is not None and len(buf) > pos:
                cut = len(buf) if keep_tail else markers.holdback(buf, pos)
                if cut > pos:
                    emit(buf[pos:cut])
            self._pos = len(buf)
            return None
        hold = markers.holdback(buf, pos)
        if emit is not None:
            if hold > pos:
                emit(buf[pos:hold])
            if hold == len(buf):  # nothing held back: prose without a marker start is emitted
                self.plain_deltas(markers.starts.search, emit)
        self._pos = hold
        self._holding = markers  # ``_wait_in`` too
        return NEED

    def _wait_in(self, markers: Markers, emit: Emit) -> None:
        """What ``until`` sets before it answers NEED, the text read up to what may
        still become a marker: how ``feed`` takes the next deltas without it. (Written
        out in ``until`` too: a call less per delta while streaming.)"""
        if self._pos == len(self._buf):
            self.plain_deltas(markers.starts.search, emit)
        self._holding = markers

    def until_eof(self, emit: Emit) -> _Need | None:
        if len(self._buf) > self._pos:
            emit(self._buf[self._pos :])
        self._pos = len(self._buf)
        return None if self._eof else NEED

    def expect(self, literals: tuple[str, ...]) -> str | bool | _Need | None:
        """After optional whitespace, does the text start with one of ``literals``?
        Answers the literal (whitespace consumed, the literal not), False (nothing
        consumed) or None at end of stream."""
        buf, pos = self._buf, self._pos
        n = len(buf)
        i = pos
        while i < n and buf[i] in SPACE:
            i += 1
        if i - pos > WS_LIMIT:
            return False
        ordered = _longest_first(literals)
        longest = len(ordered[0])
        rest = buf[i : i + longest]
        if (
            not self._eof
            and len(rest) < longest
            and any(len(lit) > len(rest) and lit.startswith(rest) for lit in literals)
        ):
            return NEED  # a literal could still match (the longest one wins)
        for lit in ordered:
            if rest.startswith(lit):
                self._pos = i
                return lit
        if self._eof and not rest:
            return None
        return False

    def peek(
        self, pattern: re.Pattern[str], limit: int, lead: str = ""
    ) -> re.Match[str] | bool | _Need:
        """Match ``pattern`` at the current position without consuming. The pattern
        must delimit its own end (a lookahead), so a match on a prefix of the text is
        a match on the whole; it is decided once it matches, once ``limit``
        characters are buffered, or at end of stream. ``lead``: the ASCII characters
        the first non-space character must be one of (decides a mismatch early; a
        non-ASCII one waits for the pattern, which may read it as a letter)."""
        buf, pos = self._buf, self._pos
        m = pattern.match(buf, pos)
        if m is not None:
            return m
        if lead:
            i = pos
            while i < len(buf) and buf[i] in SPACE:
                i += 1
            if i < len(buf) and buf[i].isascii() and buf[i] not in lead:
                return False
        if self._eof or len(self._buf) - self._pos >= limit:
            return False
        return NEED

    def json_until(
        self, scanner: JsonScanner, markers: Markers, emit: Emit
    ) -> bool | str | _Need | None:
        """As ``json``, but a marker of ``markers`` ends the value even while it is
        still open (markup never becomes part of a value): answers True when the value
        closed, the marker (consumed) when one came first, None at end of stream."""
        buf, pos = self._buf, self._pos
        m = markers.search(buf, pos)
        held = len(buf) if self._eof else markers.holdback(buf, pos)
        end = m.start() if m is not None else held
        if m is not None and not scanner.consumed:
            # the value may be all here (text fed whole, a large read): found at once
            close = container_end(buf, pos, end)
            if close >= 0:
                emit(buf[pos:close])
                self._pos = close
                return True
        text = buf[pos:end]
        off = scanner.feed(text)
        if off >= 0:
            if off:
                emit(text[:off])
            self._pos = pos + off
            return True
        if text:
            emit(text)
        if m is not None:
            self._pos = m.end()
            return m.group()
        self._pos = end
        if self._eof:
            return None
        if end == len(buf):  # nothing held back
            self.plain_value(_plain_json_search(markers), scanner, emit)
        return NEED

    def plain_value(
        self, search: Callable[[str], object], scanner: JsonScanner, emit: Emit
    ) -> None:
        """``plain_deltas`` for a request that passes an open JSON value to ``emit``
        as it streams, ``scanner`` following it: a delta in which ``search`` finds
        nothing (it must find every bracket) is part of the value, still open."""
        self._plain_json = (scanner, emit)
        self.plain_deltas(search, self._value_take)

    def _value_take(self, text: str) -> None:
        """The take of ``plain_value``: ``text`` holds no bracket."""
        assert self._plain_json is not None  # set with this take
        scanner, emit = self._plain_json
        scanner.feed_open(text)
        emit(text)

    def json(self, scanner: JsonScanner, emit: Emit) -> bool | _Need:
        """Pass one JSON container (the text starts with ``{`` or ``[``) to ``emit``;
        answer True when it closed, False at end of stream."""
        buf, pos = self._buf, self._pos
        end = scanner.scan_to_close(buf, pos)  # never past the value (F22)
        if end >= 0:
            if end > pos:
                emit(buf[pos:end])
            self._pos = end
            return True
        if len(buf) > pos:
            emit(buf[pos:])
        self._pos = len(buf)
        if self._eof:
            return False
        self.plain_value(find_bracket, scanner, emit)
        return NEED

    # -- helpers for families -------------------------------------------------

    def after_marker(self, literals: tuple[str, ...]) -> Grammar:
        """``expect`` one of ``literals`` right after a start marker. Answers the
        literal found (not consumed), or a bool for ``call`` to answer: True when the
        stream ended there (a cut-off call is recorded, F1), False when other text
        follows (not a call; nothing consumed)."""
        r = yield (self.expect, literals)
        if r is None:
            self.truncated_call(None)
            return True
        return r

    def call_section(
        self,
        section_opened: bool,
        call_begin: str,
        between: Markers,
        one_call: Callable[[], Grammar],
    ) -> Grammar:
        """A section of calls: ``call_begin``… repeated until another marker of
        ``between`` (the section's end). Other text inside the section is markup that
        cannot be read: it is reported as an invalid call carrying it, never left in
        the text half-stripped."""
        if section_opened:
            r = yield from self.after_marker((call_begin,))
            if r is True:
                return True
            if r is False:
                m = yield from self.unreadable(between)
                if m != call_begin:
                    return True
            else:
                self.skip(len(r))
        while True:
            yield from one_call()
            m = yield from self.unreadable(between)
            if m != call_begin:
                return True

    def unreadable(self, markers: Markers) -> Grammar:
        """Text up to a marker where only markup belongs: whitespace is dropped, anything
        else becomes a nameless call holding it (the finisher reports it invalid).
        Answers the marker (consumed), or None at end of stream."""
        raw, m = yield from self.capture(markers)
        if raw.strip():
            self.whole_call(None, raw.strip(), unreadable="text where a call belongs")
        return m

    def capture(self, markers: Markers) -> Grammar:
        """Collect text up to a marker: answers (text, marker or None)."""
        parts: list[str] = []
        m = yield (self.until, markers, parts.append, False)
        return "".join(parts), m

    def plain_deltas(self, search: Callable[[str], object] | None, take: Emit) -> None:
        """For a request about to answer NEED having taken all the text: until the
        grammar runs again, a delta in which ``search`` finds nothing is passed to
        ``take`` and consumed, instead of asking the request. ``take`` must do exactly
        what the request would do with that delta (tests/textformats/test_plain_deltas.py
        checks each such request against the way without it)."""
        self._plain_search, self._plain_take = search, take

    def push_back(self, text: str) -> None:
        """Un-consume ``text`` (at most ``_PUSH_BACK_LIMIT`` characters), which was
        consumed last, possibly before the latest feed."""
        assert len(text) <= _PUSH_BACK_LIMIT and self._pos >= len(text)
        self._pos -= len(text)

    def skip(self, n: int) -> None:
        self._pos += n

    def keep_markup(self, back: int = 0) -> None:
        """Start keeping the text of the call being read, from ``back`` characters
        before the current position (its opening tag, just consumed; at most
        ``_PUSH_BACK_LIMIT``): a call that cannot be read as sent carries it."""
        assert back <= _PUSH_BACK_LIMIT and self._pos >= back
        self._markup = []
        self._markup_from = self._pos - back

    def take_markup(self) -> str:
        """The text kept since ``keep_markup``, up to the current position."""
        parts = self._markup or []
        parts.append(self._buf[self._markup_from : self._pos])
        self._markup = None
        return "".join(parts)

    @property
    def at_eof(self) -> bool:
        return self._eof and self._pos >= len(self._buf)

    def begin_call(
        self, name: str | None, id: str | None = None, repairs: Iterable[str] = ()
    ) -> int:
        index = self._next_index
        self._next_index += 1
        self._open_calls.add(index)
        self.sink.tool(
            index, id, name or None, None, repairs=repairs, snapshots=False, delimited=True
        )
        return index

    def arguments(
        self, index: int, value: str | Mapping[str, Any] | list[Any], repairs: Iterable[str] = ()
    ) -> None:
        """Argument text, or the arguments as a value; ``repairs``: what reading the
        value changed (see ``values.type_value``)."""
        if repairs or not isinstance(value, str):
            self.sink.tool(index, None, None, value, repairs=repairs)
        else:
            self.sink.text_arguments(index, value)

    def argument_text(self, index: int) -> Emit:
        """``arguments(index, text)`` as an ``Emit`` for argument text as it streams,
        without a Python frame of its own (a partial of the assembler's method)."""
        return partial(self.sink.text_arguments, index)

    def end_call(self, index: int, *, truncated: bool = False) -> None:
        if index in self._open_calls:
            self._open_calls.discard(index)
            self.sink.close_call(index=index, truncated=truncated)

    def whole_call(
        self,
        name: str | None,
        value: str | Mapping[str, Any] | list[Any] | None,
        repairs: Iterable[str] = (),
        unreadable: str = "",
        *,
        raw: str | None = None,
        id: str | None = None,
        loaded: Any = UNREAD,
    ) -> None:
        """A call read at once; ``repairs``: what reading its envelope took;
        ``unreadable``: why ``value``, raw text, could not be read (the call is then
        invalid, never repaired or taken for a cut-off); ``raw``: with an object for
        ``value``, the text it was read from as sent (its raw arguments); ``loaded``:
        with text for ``value``, ``orjson.loads`` of it, when it was read already."""
        if id is None and not unreadable and isinstance(value, str):
            index = self._next_index
            if self.sink.whole_call(index, name, value, repairs, loaded):
                self._next_index += 1
                return
        index = self.begin_call(name, id, repairs=repairs)
        if unreadable:
            self.sink.tool(index, None, None, None, unreadable=unreadable)
        if value is not None:
            self.sink.tool(index, None, None, value, raw=raw)
        self.end_call(index)

    def end_markup_call(self, index: int, read: MarkupCall, *, cut: bool) -> None:
        """Close a call read from tags (begun after ``keep_markup``), so that nothing
        sent is lost. A call whose markup held something that was not read (see
        ``MarkupCall``) is invalid, and its raw arguments are its markup as sent. A
        call cut off (F1) is truncated: its whole parameters are its partial
        arguments, and its markup as sent (the cut-off value too) its raw arguments."""
        markup = self.take_markup()
        problems = read.problems()
        if cut:
            self.sink.tool(index, None, None, read.args, raw=markup, repairs=read.repairs)
        elif problems:
            self.sink.tool(index, None, None, markup, unreadable="; ".join(problems))
        elif read.repairs:  # typing a value changed it: the markup as sent is kept
            self.sink.tool(index, None, None, read.args, raw=markup, repairs=read.repairs)
        elif read.args:
            self.arguments(index, read.args)
        self.end_call(index, truncated=cut)

    def truncated_call(self, name: str | None, value: Any = None, id: str | None = None) -> None:
        index = self.begin_call(name, id)
        if value is not None:
            self.arguments(index, value)
        self.end_call(index, truncated=True)

    def stream_arguments(self, index: int, markers: Markers) -> Grammar:
        """Stream raw argument text up to an end marker (answered, or None at end of
        stream). Leading whitespace is not sent. The call is closed: complete at its
        marker, or when cut off while its JSON was already whole; else truncated."""
        scan = JsonScanner()
        started = False

        def piece(text: str) -> None:
            nonlocal started
            if not started:
                text = text.lstrip()
                if not text:
                    return
                started = True
            scan.feed(text)
            self.arguments(index, text)

        m = yield (self.until, markers, piece, False)
        return m, scan

    def schema_for(self, name: str) -> Mapping[str, Any] | None:
        """The declared schema of the tool ``name`` resolves to (None if unknown)."""
        if not self.tools:
            return None
        match = resolve_tool_name(name, self.tools)
        return self.tools[match.name].parameters if match.name is not None else None
