"""The repair ladder: each step runs only when the steps before it could not read the text.

1. strict JSON (orjson);
2. the one JSON value inside code fences or prose (read strictly);
3. a Python literal (``ast.literal_eval``), only for Python-looking text;
4. the lenient parser (:mod:`toolwire.repair.lenient`);
5. at the top level, a JSON string whose content is a JSON object or array is
   unwrapped (``double_encoded``, F9).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

import orjson

from toolwire.surrogates import LONE_SURROGATE, replace_surrogates_in

from .extract import Extracted, extract_candidates
from .lenient import parse_lenient
from .pyliteral import looks_pythonish, parse_python_literal
from .result import RepairResult

__all__ = ["partial_value", "repair_json"]

_LONG_DIGITS: Final = re.compile(r"\d{19}")
# A surrogate itself, or an escape that can spell one (JSON \ud800, Python \U0000d800).
_SURROGATE_HINT: Final = re.compile(r"[\ud800-\udfff]|\\(?:u|U0000)[dD][89a-fA-F]")


def repair_json(text: str) -> RepairResult:
    """Recover one JSON value from ``text``; never raises."""
    try:
        return _repair(text)
    except RecursionError:
        return RepairResult(None, False, (), False, "input nested too deeply")
    except Exception as exc:  # the contract is: never raise
        return RepairResult(None, False, (), False, f"internal error {type(exc).__name__}")


def partial_value(text: str) -> Any:
    """Best-effort value of a JSON prefix, closing what is open; ``None`` if nothing yet.

    Strings still open are kept as far as they go (they are prefixes of the final
    string); a key whose value has not started, and a literal cut off (``tr``), are
    left out. Never raises.
    """
    try:
        if not isinstance(text, str) or not text.strip():
            return None
        ok, value, _ = _strict(text)
        if ok:
            return value
        out = parse_lenient(text, prefix=True)
        return out.value if out.ok else None
    except Exception:  # the contract is: never raise
        return None


def _strict(text: str) -> tuple[bool, Any, tuple[str, ...]]:
    """Strict JSON: ``(ok, value, repairs)``; the one possible repair is ``duplicate_key``."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return False, None, ()
    has_float, keys = _float_and_keys(value)
    # orjson turns integers beyond 64 bits into floats; json keeps them exact. (Only a
    # value with a float can hold one: walking the value is far cheaper than searching
    # long text, such as a file's content, for 19 digits.)
    inexact = has_float and _LONG_DIGITS.search(text) is not None
    # orjson keeps the last of repeated keys silently. Each member written has one
    # colon; other colons are inside strings. So when the text has no more colons
    # than the value has keys, or than its keys and strings account for, no member
    # was dropped. (A colon escaped as \u003a is in a string but not in the text:
    # then the json reader decides.)
    colons = text.count(":")
    repeated = False
    if colons > keys:
        in_strings = _colons_in_strings(value)
        members = colons - in_strings
        repeated = members > keys or (
            members == keys and in_strings > 0 and ("\\u003a" in text or "\\u003A" in text)
        )
    if not (inexact or repeated):
        return True, value, ()
    duplicates: list[bool] = []
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            object_pairs_hook=_pairs_noting(duplicates) if repeated else None,
        )
    except (ValueError, RecursionError):
        return False, None, ()
    return True, value, ("duplicate_key",) if duplicates else ()


def _float_and_keys(value: Any) -> tuple[bool, int]:
    """Does ``value`` hold a float; how many object keys does it hold in all?"""
    has_float = False
    keys = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is float:
            has_float = True
        elif kind is dict:
            keys += len(item)
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return has_float, keys


def _colons_in_strings(value: Any) -> int:
    """How many colons the keys and strings of ``value`` hold in all."""
    colons = 0
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            colons += item.count(":")
        elif kind is dict:
            colons += "".join(item).count(":")
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return colons


def _pairs_noting(duplicates: list[bool]) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    """An ``object_pairs_hook`` that keeps the last of repeated keys (as orjson does)
    and notes that there were some."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) < len(items):
            duplicates.append(True)
        return out

    return pairs


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _repair(text: str) -> RepairResult:
    if not isinstance(text, str):
        return RepairResult(None, False, (), False, f"expected str, got {type(text).__name__}")
    ok, value, repairs = _strict(text)
    if ok:
        return _finish(value, repairs, False)
    if not text.strip():
        return RepairResult(None, False, (), False, "empty input: no JSON value found")

    before, after = extract_candidates(text)
    if before and not before[0].text:
        return RepairResult(
            None, False, (), False, "several JSON values in code fences; expected exactly one"
        )
    result = _read_candidates([*before, Extracted(text, ())], text)
    if result.ok or not after or (result.error or "").startswith("several"):
        return result
    # The text starts like a value but is not one (` - {"a": 1}`): try from a bracket.
    retry = _read_candidates(after, text)
    return retry if retry.ok else result


def _read_candidates(candidates: list[Extracted], text: str) -> RepairResult:
    for cand in candidates:
        if cand.text is not text:
            ok, value, repairs = _strict(cand.text)
            if ok:
                return _finish(value, (*cand.repairs, *repairs), False)
    for cand in candidates:
        if looks_pythonish(cand.text):
            ok, value, repairs = parse_python_literal(cand.text)
            if ok:
                return _finish(value, (*cand.repairs, "python_literal", *repairs), False, cand.text)
    first_error: str | None = None
    for cand in candidates:
        out = parse_lenient(cand.text)
        if out.ok:
            return _finish(out.value, (*cand.repairs, *out.repairs), out.truncated, cand.text)
        if first_error is None or cand.text is text:
            first_error = out.error
        if cand.text is text and out.error and out.error.startswith("several"):
            break  # {..}{..} (F3): reading only a part of it would hide the problem
    return RepairResult(None, False, (), False, first_error or "no JSON value found")


def _finish(
    value: Any, repairs: tuple[str, ...], truncated: bool, source: str | None = None
) -> RepairResult:
    """``source``: the text a non-strict reader read. (Strict JSON, which orjson read,
    never holds a lone surrogate; the other readers keep one, as ``json.loads`` does.)"""
    if source is not None and _SURROGATE_HINT.search(source):
        value, lone = replace_surrogates_in(value)
        if lone:
            repairs = (*repairs, LONE_SURROGATE)
    if isinstance(value, str):
        inner = value.strip()
        if inner[:1] in ("{", "[") and inner[-1:] in ("}", "]"):
            ok, decoded, inner_repairs = _strict(inner)
            if ok and isinstance(decoded, dict | list):
                value = decoded
                repairs = (*repairs, "double_encoded", *inner_repairs)
    return RepairResult(value, True, _unique(repairs), truncated)


def _unique(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
