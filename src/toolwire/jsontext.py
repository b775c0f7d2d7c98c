"""JSON text: writing it, and telling whole text from text cut short.

Out: orjson's speed, with the stdlib for what orjson cannot write. orjson refuses
integers beyond 64 bits; a tool result or a repaired argument may hold one, and losing
it (or raising) is worse than a slower path.

In: strict checks, at C speed, of argument text that arrives in pieces.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import orjson


def dumps(value: Any, *, default: Callable[[Any], Any] | None = None, indent: bool = False) -> str:
    """``value`` as JSON text; non-string keys are written as strings."""
    option = orjson.OPT_NON_STR_KEYS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        return orjson.dumps(value, default=default, option=option).decode()
    except TypeError:
        # NaN and infinities become null, as orjson writes them: strict JSON has no form
        return json.dumps(
            _finite(value), default=default, indent=2 if indent else None, ensure_ascii=False
        )


def _finite(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


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
