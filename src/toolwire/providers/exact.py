"""Arguments sent as a JSON object, with their numbers as sent.

orjson reads an integer beyond 64 bits (``123456789012345678901234567890``) as the
nearest float, silently. Argument text is read strictly elsewhere
(``repair.strict.strict_json``); this module does the same for a call whose arguments
the wire carries as an object inside its message (F10: Anthropic's ``input``,
Gemini's ``args``, Ollama's and OpenAI's ``arguments``).

Only a float of magnitude 2**63 or more can be such an integer (orjson keeps
integers from -2**63 to 2**64 - 1), so the arguments are walked for one, and only
then is the message's text read again by the standard library, which keeps integers
exact and floats (``1e20``) floats. The arguments are taken from that reading by
their place in the message -- the same keys and positions that lead to them in
orjson's reading -- never by looking for an equal value: two calls whose numbers
differ only beyond a float's precision stay two different calls.
"""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

# the smallest magnitude of a float orjson makes of an integer literal
_BEYOND: Final = 2.0**63

NOT_EXACT: Final = (
    "the arguments hold a number beyond 64 bits that could not be read as it was sent"
)


def holds_big_float(value: Any) -> bool:
    """Does ``value`` hold a float orjson may have made of an integer beyond 64 bits?"""
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            if item >= _BEYOND or item <= -_BEYOND:
                return True
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return False


def exact_part(part: Any, message: Any, text: str | bytes) -> tuple[Any, str]:
    """``part``, a value inside ``message`` (a wire message as read from ``text``),
    with any integer beyond 64 bits as the text holds it; and "" -- or ``part`` as it
    is and why it could not be read exactly (``NOT_EXACT``). ``text`` empty: the
    message came as Python objects (an SDK's), which hold what was sent."""
    if not text or not holds_big_float(part):
        return part, ""
    try:
        exact = loads_exactly(text)
    except (ValueError, RecursionError):
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError:
            # not orjson's reading: the standard library's or the repair ladder's,
            # which keep integers exact, read it (``WireDecoder.load_json``)
            return part, ""
        return part, NOT_EXACT  # (nested deeper than the standard library reads)
    found = _counterpart(part, message, exact)
    if found is _MISSING:
        return part, NOT_EXACT
    return found, ""


def loads_exactly(text: str | bytes) -> Any:
    """The standard library's reading of JSON ``text``: integers of any size exact,
    lone surrogate escapes read as sent (orjson refuses them); NaN and Infinity
    refused, as orjson refuses them (``ValueError``; deep nesting: ``RecursionError``)."""
    return json.loads(text, parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


class _Missing:
    pass


_MISSING: Final = _Missing()


def _counterpart(part: Any, read: Any, exact: Any) -> Any:
    """What ``exact`` holds at the place where ``read`` holds ``part`` itself (two
    readings of one text: the same keys, the last of repeated ones, and the same
    lengths), or ``_MISSING``."""
    if read is part:
        return exact
    stack = [(read, exact)]
    while stack:
        a, b = stack.pop()
        if type(a) is dict and type(b) is dict:
            for key, value in a.items():
                if key in b:
                    if value is part:
                        return b[key]
                    stack.append((value, b[key]))
        elif type(a) is list and type(b) is list and len(a) == len(b):
            for value, other in zip(a, b, strict=True):
                if value is part:
                    return other
                stack.append((value, other))
    return _MISSING
