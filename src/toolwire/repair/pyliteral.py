"""Python literals (F12): ``{'a': True, 'b': None}`` read with ``ast.literal_eval``.

Never ``eval``. ``literal_eval`` only builds constants, but it still parses the whole
text, so it is tried only on text that looks like Python, below a size limit, with
every exception (including ``RecursionError`` and ``MemoryError``) caught. Results
are converted to JSON types; anything without a faithful JSON form (sets, whose
order is random, bytes, complex numbers, ``...``) makes the step decline.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import Any, Final

__all__ = ["MAX_PYTHON_LITERAL_CHARS", "looks_pythonish", "parse_python_literal"]

#: Larger texts skip this step (the lenient parser reads Python style too).
MAX_PYTHON_LITERAL_CHARS: Final = 4_000_000

_PYTHONISH: Final = re.compile(r"'|\b(?:True|False|None)\b")
# JSON-only escape that Python would keep with its backslash ("\/" means "/").
_JSON_ONLY_ESCAPE: Final = "\\/"


class _Decline(Exception):
    pass


def looks_pythonish(text: str) -> bool:
    stripped = text.lstrip()
    if not stripped or len(text) > MAX_PYTHON_LITERAL_CHARS:
        return False
    if _JSON_ONLY_ESCAPE in text:
        return False
    if stripped[0] not in "{[(\"'":
        return False
    closer = {"{": "}", "[": "]", "(": ")"}.get(stripped[0])
    if closer is not None and not stripped.rstrip().endswith(closer):
        return False  # cut off: literal_eval would read it all only to fail
    return stripped[0] == "(" or _PYTHONISH.search(text) is not None


def parse_python_literal(text: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``text`` is one Python literal with a JSON form."""
    stripped = text.strip()
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" warnings: the backslash is kept, as intended.
            warnings.simplefilter("ignore")
            tree = ast.parse(stripped, mode="eval")
        body = tree.body
        if isinstance(body, ast.Tuple) and not stripped.startswith("("):
            return False, None  # `1, 2` is two values, not a tuple
        raw = ast.literal_eval(body)
        return True, _to_json(raw, 0)
    except (_Decline, SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return False, None
    except Exception:  # this step must never raise
        return False, None


def _to_json(value: Any, depth: int) -> Any:
    if depth > 500:
        raise _Decline
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list | tuple):
        return [_to_json(v, depth + 1) for v in value]
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(k, str):
                key = k
            elif isinstance(k, int) and not isinstance(k, bool):
                key = str(k)
            else:
                raise _Decline
            out[key] = _to_json(v, depth + 1)
        return out
    raise _Decline
