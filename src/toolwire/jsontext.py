"""JSON text: writing it, and telling whole text from text cut short.

Out: orjson's speed, with the stdlib for what orjson cannot write. orjson refuses
integers beyond 64 bits and strings holding a lone surrogate (``"\\ud800"`` read from
JSON, which UTF-8 cannot encode); a tool result, a repaired argument or a decoded wire
message may hold either, and losing it (or raising) is worse than a slower path. A lone
surrogate is written as its ``\\u`` escape: the text then encodes as UTF-8 and reads
back as the same string.

In: strict checks, at C speed, of argument text that arrives in pieces.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import orjson


def dumps(value: Any, *, default: Callable[[Any], Any] | None = None, indent: bool = False) -> str:
    """``value`` as JSON text; non-string keys are written as strings. A value nested
    deeper than the recursive writers go is written compactly (no indent)."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, default=default, option=option).decode()
    except TypeError:
        pass
    try:
        # NaN and infinities become null, as orjson writes them: strict JSON has no form
        text = json.dumps(
            _finite(value), default=default, indent=2 if indent else None, ensure_ascii=False
        )
    except RecursionError:
        text = _write_deep(value, default)
    return _LONE_SURROGATE.sub(_escape, text)


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


# in JSON text written by json.dumps a surrogate can only stand inside a string
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


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


def _write_deep(value: Any, default: Callable[[Any], Any] | None) -> str:
    """Compact JSON text without recursion, for values nested beyond the stack."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Text):
            out.append(item.text)
        elif isinstance(item, dict):
            stack.append(_Text("}"))
            members = list(item.items())
            for i in range(len(members) - 1, -1, -1):
                key, member = members[i]
                key = key if isinstance(key, str) else json.dumps(_finite(key))
                stack.append(member)
                stack.append(_Text(("," if i else "") + json.dumps(key, ensure_ascii=False) + ":"))
            stack.append(_Text("{"))
        elif isinstance(item, list | tuple):
            stack.append(_Text("]"))
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
