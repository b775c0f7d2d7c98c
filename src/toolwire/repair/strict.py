"""Strict JSON, read at orjson's speed, with every change to what was written named.

orjson reads valid JSON into Python values, but three of its readings are not the
text: it keeps the last of repeated keys silently, it turns integers beyond 64 bits
into floats, and a nonzero number too small for a double becomes ``0.0``. Each is
rare, and each is detected by a cheap check on orjson's value before a slower exact
read with the standard library (which keeps integers exact) names it:
``duplicate_key``, ``float_underflow``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

import orjson

from .numbers import MAY_UNDERFLOW, float_underflows

__all__ = ["UNREAD", "count_in_strings", "strict_json", "try_loads"]

_LONG_DIGITS: Final = re.compile(r"\d{19}")
# What a value must hold for ``_floats_and_keys`` to have more to say than "no float,
# and the object's own keys" (see ``strict_json``).
_NOT_FLAT: Final = frozenset((float, dict, list))


class _Unread:
    pass


UNREAD: Final = _Unread()


def try_loads(text: str) -> tuple[Any, bool]:
    """``(orjson.loads(text), False)``, or, where ``text`` is not strict JSON,
    ``(UNREAD, cut_off)``: ``cut_off``, whether orjson ran out of text (it may be the
    start of a JSON document; the lenient reader needs to know)."""
    try:
        return orjson.loads(text), False
    except orjson.JSONDecodeError as exc:
        return UNREAD, exc.pos >= len(text)


def strict_json(text: str, loaded: Any = UNREAD) -> tuple[bool, Any, tuple[str, ...]]:
    """``(ok, value, repairs)``: ``text`` read as strict JSON, or ``ok`` False.
    ``repairs`` names what the value could not keep (see the module doc). ``loaded``:
    ``orjson.loads(text)``, when the caller has read it already."""
    if loaded is UNREAD:
        # ``try_loads`` written out: a call and a tuple less per call read (~700
        # instructions, callgrind)
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError:
            return False, None, ()
    else:
        value = loaded
    flat = type(value) is dict
    if flat:
        # the usual arguments, one object of strings, integers, booleans and nulls:
        # a look at its values instead of the walk (callgrind: about 3,000
        # instructions less per call)
        for item in value.values():
            if type(item) in _NOT_FLAT:
                flat = False
                break
    if flat:
        has_float = has_zero = False
        keys = len(value)
    else:
        has_float, has_zero, keys = _floats_and_keys(value)
    # orjson turns integers beyond 64 bits into floats; json keeps them exact. (Only a
    # value with a float can hold one: walking the value is far cheaper than searching
    # long text, such as a file's content, for 19 digits.)
    inexact = has_float and _LONG_DIGITS.search(text) is not None
    tiny = has_zero and MAY_UNDERFLOW.search(text) is not None
    # orjson keeps the last of repeated keys silently. Each member written has one
    # colon; other colons are inside strings. So when the text has no more colons
    # than the value has keys, or than its keys and strings account for, no member
    # was dropped. A colon escaped as \u003a is in a string but not in the text, so
    # the strings may account for colons of members that were dropped: then the
    # json reader decides.
    colons = text.count(":")
    repeated = False
    if colons > keys:
        in_strings = count_in_strings(value, ":")
        repeated = colons - in_strings > keys or (
            in_strings > 0 and ("\\u003a" in text or "\\u003A" in text)
        )
    if not (inexact or repeated or tiny):
        return True, value, ()
    repairs: dict[str, None] = {}
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_floats_noting(repairs) if tiny else None,
            object_pairs_hook=_pairs_noting(repairs) if repeated else None,
        )
    except (ValueError, RecursionError):
        return False, None, ()
    return True, value, tuple(repairs)


def _floats_and_keys(value: Any) -> tuple[bool, bool, int]:
    """Does ``value`` hold a float, a float zero; how many object keys in all?"""
    has_float = has_zero = False
    keys = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            has_float = True
            if not item:
                has_zero = True
        elif kind is dict:
            keys += len(item)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return has_float, has_zero, keys


def count_in_strings(value: Any, char: str) -> int:
    """How many times ``char`` occurs in the keys and strings of ``value`` in all."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            count += item.count(char)
        elif kind is dict:
            count += "".join(item).count(char)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return count


def _pairs_noting(repairs: dict[str, None]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` that keeps the last of repeated keys (as orjson does)
    and names the drop."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) < len(items):
            repairs["duplicate_key"] = None
        return out

    return pairs


def _floats_noting(repairs: dict[str, None]) -> Callable[[str], float]:
    """A ``parse_float`` that names a nonzero number read as zero."""

    def parse(text: str) -> float:
        value = float(text)
        if float_underflows(text, value):
            repairs["float_underflow"] = None
        return value

    return parse


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
