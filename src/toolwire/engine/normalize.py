"""Tool results as the model will read them: JSON-able value → text, cut to a token budget."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pydantic import BaseModel

from toolwire.jsontext import dumps, text_of
from toolwire.tokens import estimate_tokens, truncate_to_tokens


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return text_of(value)  # last resort: never fail on an odd return type


def to_jsonable(value: Any) -> Any:
    """A JSON-compatible copy of whatever a tool returned."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.loads(dumps(value, default=_default))


def render(value: Any) -> str:
    """The text of a result: strings as they are, everything else as JSON."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return dumps(value, default=_default)


def truncate(text: str, budget: int | None) -> tuple[str, int, bool]:
    """``(text, tokens, truncated)``; a cut result ends with a notice saying so."""
    if not text:  # a tool that returned None: nothing to count or cut
        return text, 0, False
    if budget is None:
        return text, estimate_tokens(text), False
    cut, tokens, truncated = truncate_to_tokens(text, budget)
    if not truncated:
        return cut, tokens, False
    notice = (
        f"\n[toolwire: result truncated to {tokens} tokens; the full result was "
        f"{len(text)} characters. Ask for less, e.g. a narrower range or a filter.]"
    )
    return cut + notice, tokens + estimate_tokens(notice), True
