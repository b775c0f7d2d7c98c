"""Calls written as JSON envelopes: ``{"name": N, "arguments": {args}}``.

Shared by hermes, mistral (old), llama3_json, granite, xlam, jamba/hunyuan, internlm,
phi4_mini and the agents' fenced form. When the envelope starts with its name and the
arguments are a JSON container (the usual case), the arguments stream as raw deltas
while the object is still open. Anything else (keys in another order, Python-style
quotes, string-encoded arguments) is read once, when the object closes, through the
shared repair ladder. Which path applies depends only on the object's text, never on
how it was chunked (F15).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import orjson

from toolwire.assemble import JsonScanner
from toolwire.jsontext import dumps
from toolwire.repair import repair_json
from toolwire.textformats.need import NEED, Grammar, _Need

if TYPE_CHECKING:
    from toolwire.textformats.scanner import TextScanner

# Bounded, self-delimiting: a match on a prefix of the object is a match on the object.
_HEADER = re.compile(
    r'\{\s{0,32}"name"\s{0,32}:\s{0,32}("(?:[^"\\\n]|\\.){0,256}")\s{0,32},'
    r'\s{0,32}"(?:arguments|parameters)"\s{0,32}:\s{0,32}(?=[\[{])'
)
_HEADER_LIMIT = 1024
_NAME_GUESS = re.compile(r"""["']name["']\s*:\s*["']([^"'\\]{1,256})["']""")

_HEAD, _ARGS, _TAIL, _BUFFER = range(4)

# outcomes of reading one envelope
CALL, TRUNCATED, NOT_A_CALL = "call", "truncated", "not_a_call"


def _decode_name(quoted: str) -> str:
    try:
        value = orjson.loads(quoted)
    except orjson.JSONDecodeError:
        return quoted[1:-1]
    return value if isinstance(value, str) else quoted[1:-1]


class _Envelope:
    """One envelope object being read (the scanner's text starts at its ``{``)."""

    def __init__(self, sc: TextScanner, bare: bool) -> None:
        self.sc = sc
        self.bare = bare  # no marker announced a call: a nameless object is text
        self.outer = JsonScanner()
        self.inner = JsonScanner()
        self.parts: list[str] = []
        self.size = 0
        self.phase = _HEAD
        self.index = -1
        self.outcome: tuple[str, str] = (CALL, "")

    def step(self) -> tuple[str, str] | _Need:
        """Read what the buffer holds of the object. Every scan stops where the
        object (or its arguments) closes, so a call costs its own length however
        much text follows it in the buffer (F22)."""
        sc = self.sc
        buf, pos = sc._buf, sc._pos
        if self.phase == _HEAD or self.phase == _BUFFER:
            end = self.outer.scan_to_close(buf, pos)
            stop = len(buf) if end < 0 else end
            self.parts.append(buf[pos:stop])
            self.size += stop - pos
            sc._pos = stop
            if end >= 0:
                return self._whole("".join(self.parts))
            if self.phase == _HEAD:
                self._header()
        else:
            end = self._after_header(buf, pos)
            sc._pos = len(buf) if end < 0 else end
            if end >= 0:
                return (CALL, "")
        if not sc._eof:
            return NEED
        return self._cut()

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
        self.phase = _ARGS
        # the object is one level deep once its arguments close
        self.outer = JsonScanner()
        self.outer.depth, self.outer.started = 1, True
        self._after_header(head, m.end())  # cannot close: the object did not within ``head``

    def _after_header(self, text: str, pos: int) -> int:
        """Stream argument text from ``text[pos:]``, then follow the object's tail
        (normally ``}``). Answers the offset just past the object's close, or -1
        when it is still open (all of ``text`` read)."""
        if self.phase == _ARGS:
            end = self.inner.scan_to_close(text, pos)
            stop = len(text) if end < 0 else end
            if stop > pos:
                self.sc.arguments(self.index, text[pos:stop])
            if end < 0:
                return -1
            self.sc.end_call(self.index)
            self.phase = _TAIL
            pos = end
        return self.outer.scan_to_close(text, pos)

    def _whole(self, obj: str) -> tuple[str, str]:
        """The object closed before streaming began: read it at once."""
        m = _HEADER.match(obj)
        if m is not None:
            inner = JsonScanner()
            off = inner.feed(obj[m.end() :])
            if off >= 0:
                self.sc.whole_call(_decode_name(m.group(1)), obj[m.end() : m.end() + off])
                return (CALL, "")
        result = repair_json(obj)
        value: Any = result.value if result.ok and not result.truncated else None
        if not isinstance(value, dict) or not isinstance(value.get("name"), str):
            if self.bare:
                return (NOT_A_CALL, obj)
            self.sc.whole_call(None, obj)  # a call body the finisher reports as invalid
            return (CALL, "")
        args = value.get("arguments", value.get("parameters"))
        if args is not None and not isinstance(args, str | dict | list):
            args = dumps(args)  # an integer beyond 64 bits too (orjson refuses it)
        self.sc.whole_call(value["name"], args, result.repairs)
        return (CALL, "")

    def _cut(self) -> tuple[str, str]:
        """End of stream inside the object (F1)."""
        if self.phase == _ARGS:
            self.sc.end_call(self.index, truncated=True)
            return (TRUNCATED, "")
        if self.phase == _TAIL:
            return (CALL, "")
        head = "".join(self.parts)
        guess = _NAME_GUESS.search(head)
        if guess is None and self.bare:
            return (NOT_A_CALL, head)
        # nothing in it was read as arguments: the object as sent is the raw text
        index = self.sc.begin_call(guess.group(1) if guess else None)
        self.sc.sink.tool(index, None, None, {}, raw=head)
        self.sc.end_call(index, truncated=True)
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
