"""Lone surrogates: code points a Python string can hold but UTF-8 and JSON text cannot.

JSON text may spell one as an escape (``"\\ud800"``); ``json.loads``, a lenient reader or
a Python literal then yields a string that no encoder, socket or database accepts.
Where toolwire reads such a value it replaces each lone surrogate with U+FFFD (the
repair ``lone_surrogate``); where it writes JSON text it escapes them instead.
A high surrogate followed by a low one is one character (as UTF-16 and JSON read the
pair) and is joined, not replaced.
"""

from __future__ import annotations

import re
from typing import Any, Final

LONE_SURROGATE: Final = "lone_surrogate"

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    return not text.isascii() and _SURROGATE.search(text) is not None


def replace_surrogates(text: str) -> str:
    """``text`` with surrogate pairs joined and every lone surrogate replaced by U+FFFD."""
    if not has_surrogates(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def escape_surrogates(json_text: str) -> str:
    """JSON text with each surrogate written as a ``\\uXXXX`` escape.

    Surrogates occur only inside JSON strings, where the escape reads back as the same
    code point: the text means what it meant, and it can be encoded as UTF-8.
    """
    if not has_surrogates(json_text):
        return json_text
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


def replace_surrogates_in(value: Any) -> tuple[Any, bool]:
    """A copy of a JSON value (dicts, lists, strings) without lone surrogates, and
    whether one was replaced. Parts without surrogates are shared, not copied."""
    if isinstance(value, str):
        fixed = replace_surrogates(value)
        return fixed, fixed.count("\ufffd") > value.count("\ufffd")
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        lone = changed = False
        for k, v in value.items():
            k2, lone_k = replace_surrogates_in(k) if isinstance(k, str) else (k, False)
            v2, lone_v = replace_surrogates_in(v)
            out[k2] = v2
            lone = lone or lone_k or lone_v
            changed = changed or k2 is not k or v2 is not v
        return (out if changed else value), lone
    if isinstance(value, list):
        items = [replace_surrogates_in(v) for v in value]
        if all(new is old for (new, _), old in zip(items, value, strict=True)):
            return value, False
        return [new for new, _ in items], any(lone for _, lone in items)
    return value, False
