"""JSON text: writing it, and telling whole text from text cut short.

Out: orjson's speed, with the stdlib for what orjson cannot write. orjson refuses
integers beyond 64 bits and strings holding a lone surrogate; a tool result or a
repaired argument may hold either, and losing it (or raising) is worse than a slower
path. The slow path writes surrogates as ``\\uXXXX`` escapes (valid JSON that reads
back as the same string). What JSON cannot hold at all -- a key that is not a string
or number, a container that holds itself, an integer of more digits than Python will
print -- raises :class:`NotJSONError` with the reason in words.

In: strict checks, at C speed, of argument text that arrives in pieces.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from typing import Any

import orjson

from toolwire.surrogates import escape_surrogates


class NotJSONError(ValueError):
    """A value JSON text cannot hold; the message says why."""


def text_of(value: object) -> str:
    """``str(value)``, or ``<TypeName>`` when that raises: a ``default`` for ``dumps``
    (and a way to quote an exception) that never fails on an odd object."""
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__}>"


def dumps(
    value: Any,
    *,
    default: Callable[[Any], Any] | None = None,
    indent: bool = False,
    sort_keys: bool = False,
) -> str:
    """``value`` as JSON text; non-string keys are written as strings."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    try:
        return orjson.dumps(value, default=default, option=option).decode()
    except TypeError:
        pass
    try:
        text = _stdlib_dumps(value, default, indent, sort_keys)
    except (TypeError, ValueError, RecursionError) as exc:
        raise NotJSONError(_reason(exc)) from None
    return escape_surrogates(text)


def _stdlib_dumps(
    value: Any, default: Callable[[Any], Any] | None, indent: bool, sort_keys: bool
) -> str:
    def write(v: Any) -> str:
        return json.dumps(
            v,
            default=default,
            indent=2 if indent else None,
            separators=None if indent else (",", ":"),  # as orjson writes it
            ensure_ascii=False,
            sort_keys=sort_keys,
            allow_nan=False,
        )

    try:
        return write(value)
    except ValueError as exc:
        if not str(exc).startswith("Out of range float"):
            raise
    # NaN and infinities become null, as orjson writes them: strict JSON has no form
    return write(_finite(value))


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "it is nested too deeply, or a container holds itself"
    message = str(exc)
    if message.startswith("Circular reference"):
        return "a container holds itself"
    if "integer string conversion" in message:
        return f"it holds an integer of more than {sys.get_int_max_str_digits()} digits"
    if message.startswith("keys must be"):  # "... or None, not tuple"
        return f"an object key is a {message.rsplit(' ', 1)[-1]}, not a string or a number"
    return message


def parses_as_json(text: str) -> bool:
    """``text`` is one whole JSON document, read strictly."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def json_cut_short(text: str) -> bool:
    """``text`` is the start of a JSON document, not yet whole: strict reading fails
    only for want of more text."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return _ran_out(text, exc)
    return False


def may_become_json(text: str) -> bool:
    """``text`` is one JSON document or the start of one."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return _ran_out(text, exc)
    return True


def _ran_out(text: str, exc: orjson.JSONDecodeError) -> bool:
    # the error position is in characters; orjson reports JSON whitespace alone at 0
    return exc.pos >= len(text) or not text.strip(" \t\n\r")
