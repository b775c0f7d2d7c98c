"""JSON text: writing it, and telling whole text from text cut short.

Out: orjson's speed, with the stdlib for what orjson cannot write. orjson refuses
integers beyond 64 bits and strings holding a lone surrogate (``"\\ud800"`` read from
JSON, which UTF-8 cannot encode); a tool result, a repaired argument or a decoded wire
message may hold either, and losing it (or raising) is worse than a slower path. The
slow path writes surrogates as ``\\uXXXX`` escapes (valid JSON that reads back as the
same string), and values nested deeper than the recursive writers go without
recursion. What JSON cannot hold at all -- a key that is not a string or number, a
container that holds itself, an integer of more digits than Python will print --
raises :class:`NotJSONError` with the reason in words.

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
    """``value`` as JSON text; non-string keys are written as strings. A value nested
    deeper than the recursive writers go is written compactly (no indent)."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    try:
        return orjson.dumps(value, default=default, option=option).decode()
    except TypeError:
        pass
    try:
        try:
            text = _stdlib_dumps(value, default, indent, sort_keys)
        except RecursionError:
            text = _write_deep(value, default, sort_keys)
    except (TypeError, ValueError, RecursionError) as exc:
        raise NotJSONError(_reason(exc)) from None
    return escape_surrogates(text)


def json_type(value: object) -> str:
    """What a value read from JSON is, in JSON's words (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


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


class _Text:
    """A piece of JSON syntax on ``_write_deep``'s stack (anything else is a value)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Close(_Text):
    """The end of a container: it is no longer open (for the cycle check)."""

    __slots__ = ("key",)

    def __init__(self, text: str, key: int) -> None:
        super().__init__(text)
        self.key = key


def _write_deep(value: Any, default: Callable[[Any], Any] | None, sort_keys: bool) -> str:
    """Compact JSON text without recursion, for values nested beyond the stack."""
    out: list[str] = []
    stack: list[Any] = [value]
    open_ids: set[int] = set()  # containers being written: meeting one again is a cycle

    def enter(item: Any, closer: str) -> None:
        if id(item) in open_ids:
            raise ValueError("Circular reference detected")
        open_ids.add(id(item))
        stack.append(_Close(closer, id(item)))

    while stack:
        item = stack.pop()
        if isinstance(item, _Close):
            open_ids.discard(item.key)
            out.append(item.text)
        elif isinstance(item, _Text):
            out.append(item.text)
        elif isinstance(item, dict):
            enter(item, "}")
            members = sorted(item.items()) if sort_keys else list(item.items())
            for i in range(len(members) - 1, -1, -1):
                key, member = members[i]
                if not isinstance(key, str):
                    if key is not None and not isinstance(key, int | float):
                        raise TypeError(
                            f"keys must be str, int, float, bool or None, not {type(key).__name__}"
                        )
                    key = json.dumps(_finite(key))
                stack.append(member)
                stack.append(_Text(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"))
            stack.append(_Text("{"))
        elif isinstance(item, list | tuple):
            enter(item, "]")
            for i in range(len(item) - 1, -1, -1):
                stack.append(item[i])
                if i:
                    stack.append(_Text(","))
            stack.append(_Text("["))
        elif item is None or isinstance(item, str | int | float):
            out.append(json.dumps(_finite(item), ensure_ascii=False))
        elif default is not None:
            stack.append(default(item))
        else:
            raise TypeError(f"{type(item).__name__} is not JSON serializable")
    return "".join(out)


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
