"""JSON call objects written in prose (F35), in any family, when tools are declared.

Small models often write a call as a bare ``{"name": N, "arguments": {…}}`` object, in a
```` ``` ```` fence, or inside a tag of their own invention (``<json>``, ``<function>``).
Such an object is a call wherever it sits in the text, but only if

- its first key is ``"name"``, naming a *declared* tool (exactly or by the usual name
  normalization), and
- its second key is ``"arguments"`` or ``"parameters"``, holding an object.

Anything else stays text, exactly as written. With no tools declared nothing is
recognised this way: prose full of JSON examples is not turned into calls on a guess.

Streaming: the text after a ``{`` (or a ``<tag>`` / fence opener) is held back only
until it can no longer be such a header, which prose decides within a few characters;
the most held back is ``HOLD_LIMIT`` characters (a header with the longest allowed name
and whitespace). A fence or tag around a call is removed with it when its closing
follows the object; when it does not, the opening stays text (after the call).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Final

import orjson

from toolwire.names import resolve_tool_name
from toolwire.textformats.jsoncalls import CALL, envelope
from toolwire.textformats.need import NEED, Grammar, _Need

if TYPE_CHECKING:
    from toolwire.textformats.scanner import TextScanner

_SPACE: Final = " \t\r\n"
_WS_MAX: Final = 32  # whitespace allowed between the parts of a header
_NAME_MAX: Final = 256  # characters in a name string
_OPENER_MAX: Final = 48  # a fence's language tag or an invented tag
HOLD_LIMIT: Final = _OPENER_MAX + 8 * _WS_MAX + _NAME_MAX + 32

OPENERS: Final = ("{", "<", "```")

_TAG = re.compile(r"<([A-Za-z][\w:.-]{0,46})>")
_TAG_PREFIX = re.compile(r"<[A-Za-z][\w:.-]{0,46}\Z")
_FENCE_INFO = re.compile(r"```[A-Za-z_]{0,16}")

# the header after the opening brace: literals, whitespace and the name string
_KEYS: Final = ('"name"', ":", "NAME", ",", ('"arguments"', '"parameters"'), ":", "{")


class Header:
    """A recognised call header: where the object starts, the name as written, and the
    closing that removes a wrapper (``</tag>``, a fence, or nothing)."""

    __slots__ = ("closing", "name", "start")

    def __init__(self, start: int, name: str, closing: str) -> None:
        self.start = start
        self.name = name
        self.closing = closing


def _space(text: str, i: int) -> int | None:
    """Skip whitespace; None when there is too much of it."""
    j = i
    n = len(text)
    while j < n and text[j] in _SPACE:
        j += 1
        if j - i > _WS_MAX:
            return None
    return j


def _literal(text: str, i: int, options: tuple[str, ...]) -> int | _Need | None:
    for lit in options:
        if text.startswith(lit, i):
            return i + len(lit)
    if any(lit.startswith(text[i : i + len(lit)]) for lit in options):
        return NEED  # the text ends inside the literal
    return None


def _string(text: str, i: int) -> tuple[int, str] | _Need | None:
    """A JSON string at ``i`` (bounded, one line): its end and decoded value."""
    if i >= len(text):
        return NEED
    if text[i] != '"':
        return None
    j = i + 1
    n = len(text)
    while j < n and j - i <= _NAME_MAX:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return None
        if c == '"':
            try:
                value = orjson.loads(text[i : j + 1])
            except orjson.JSONDecodeError:
                return None
            return (j + 1, value) if isinstance(value, str) else None
        j += 1
    return NEED if j - i <= _NAME_MAX else None


def object_header(text: str, i: int) -> tuple[int, str] | _Need | None:
    """``{"name": "N", "arguments": {`` at ``i``: (index of the arguments' ``{``, N),
    NEED while the text could still become one, None when it cannot."""
    if i >= len(text):
        return NEED
    if text[i] != "{":
        return None
    j: int | _Need | None = i + 1
    name = ""
    for key in _KEYS:
        assert isinstance(j, int)
        k = _space(text, j)
        if k is None:
            return None
        if k >= len(text):
            return NEED
        if key == "NAME":
            found = _string(text, k)
            if not isinstance(found, tuple):
                return found
            j, name = found
            continue
        options = key if isinstance(key, tuple) else (key,)
        j = _literal(text, k, options)
        if not isinstance(j, int):
            return j
    assert isinstance(j, int)
    return j - 1, name


def call_header(text: str, i: int, opener: str, tools: Collection[str]) -> Header | _Need | None:
    """Does the text at ``i`` (the start of ``opener``) open a call object naming one
    of ``tools``? ``opener`` is ``{``, ``<`` (an invented tag) or a fence."""
    closing = ""
    start = i
    if opener == "<":
        m = _TAG.match(text, i)
        if m is None:
            return NEED if _TAG_PREFIX.match(text, i) else None
        closing = f"</{m.group(1)}>"
        start = m.end()
    elif opener == "```":
        m = _FENCE_INFO.match(text, i)
        assert m is not None
        if m.end() == len(text):
            return NEED
        closing = "```"
        start = m.end()
    if opener != "{":
        k = _space(text, start)
        if k is None:
            return None
        start = k
    found = object_header(text, start)
    if not isinstance(found, tuple):
        return found
    _, name = found
    if resolve_tool_name(name, tools).name is None:
        return None
    return Header(start, name, closing)


def read_call(sc: TextScanner, opener: str) -> Grammar:
    """After ``opener`` (just consumed) in text: read a call object and its wrapper, or
    answer False with nothing more consumed (the opener is then text)."""
    sc.push_back(opener)

    def decide() -> Header | bool | _Need:
        found = call_header(sc._buf, sc._pos, opener, sc.tools)
        if found is NEED:
            return False if sc._eof else NEED
        return found or False

    header = yield (decide,)
    if not isinstance(header, Header):
        sc.skip(len(opener))
        return False
    wrapper = sc._buf[sc._pos : header.start]
    sc.skip(len(wrapper))
    outcome = yield from envelope(sc)
    if header.closing:
        r = None
        if outcome == CALL:
            r = yield (sc.expect, (header.closing,))
        if isinstance(r, str):
            sc.skip(len(r))
        else:  # not closed after the object: it was no wrapper, and stays text
            sc.sink.text(wrapper)
    return True
