"""The repair ladder: each step runs only when the steps before it could not read the text.

1. strict JSON (:mod:`toolwire.repair.strict`);
2. the one JSON value inside code fences or prose (read strictly);
3. a Python literal (``ast.literal_eval``), only for Python-looking text;
4. the lenient parser (:mod:`toolwire.repair.lenient`);
5. at the top level, a JSON string whose content is a JSON object or array is
   unwrapped (``double_encoded``, F9).

Before them, JSON cut off inside a string (a call cut off by max_tokens, mostly) is
read by :func:`toolwire.repair.lenient.read_cut_string`, which gives the answer they
would give or steps aside (``tests/test_cut_string.py``).
"""

from __future__ import annotations

import re
from typing import Any, Final

from toolwire.surrogates import LONE_SURROGATE, replace_surrogates_in

from .extract import Extracted, extract_candidates
from .lenient import (
    CUT_STRING_REPAIRS,
    has_raw_surrogate,
    parse_lenient,
    read_cut_off_json,
    read_cut_string,
)
from .pyliteral import looks_pythonish, parse_python_literal
from .result import RepairResult
from .strict import UNREAD, strict_json, try_loads

__all__ = ["partial_value", "repair_json"]

# An escape that can spell a surrogate (JSON \ud800, Python \U0000d800).
_ESCAPED_SURROGATE: Final = re.compile(r"\\(?:u|U0000)[dD][89a-fA-F]")
_JSON_WS: Final = " \t\n\r"


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
        ok, value, _, cut_off = _strict(text)
        if ok:
            return value
        out = parse_lenient(text, prefix=True, cut_off=cut_off)
        return out.value if out.ok else None
    except Exception:  # the contract is: never raise
        return None


def _repair(text: str) -> RepairResult:
    if not isinstance(text, str):
        return RepairResult(None, False, (), False, f"expected str, got {type(text).__name__}")
    if text[:1] in ("{", "[") and text[-1:] not in ("}", "]"):
        # A call cut off in a string, the usual cut: read before the steps below, whose
        # answer it gives where it answers (read_cut_string; callgrind: 52,900 -> 34,300
        # instructions on the Anthropic capture cut off so, bench_lenient).
        closed = read_cut_string(text)
        if closed is not None:
            return RepairResult(closed, True, CUT_STRING_REPAIRS, True)
    ok, value, repairs, cut_off = _strict(text)
    if ok:
        return _finish(value, repairs, False)
    if cut_off is None and not text.rstrip().endswith("```"):
        # An object or array that does not end with its closer: most often a call cut
        # off. Where it is JSON so far, the steps before the lenient reader find nothing
        # in it (a fence, escaped JSON, text before the value and a Python literal each
        # need what JSON has only inside strings; but a stray closing fence at the end,
        # left to them), so its reading of cut-off JSON answers at once (~11,000
        # instructions less on a short call; bench_lenient).
        quick = read_cut_off_json(text)
        if quick is not None:
            # what _finish does to it: its value is an object or array (never
            # double-encoded) and its names are distinct already (callgrind: ~4,400
            # instructions less a cut-off call, _unique alone ~3,000)
            value, repairs = quick
            if _may_hold_surrogate(text):
                value, repairs = _lone_surrogates_replaced(value, repairs)
            return RepairResult(value, True, repairs, True)
        cut_off = False  # not cut-off JSON: the lenient reader need not ask again
    if not text.strip():
        return RepairResult(None, False, (), False, "empty input: no JSON value found")

    before, after = extract_candidates(text)
    if before and not before[0].text:
        return RepairResult(
            None, False, (), False, "several JSON values in code fences; expected exactly one"
        )
    result = _read_candidates([*before, Extracted(text, ())], text, cut_off)
    if result.ok or not after or (result.error or "").startswith("several"):
        return result
    # The text starts like a value but is not one (` - {"a": 1}`): try from a bracket.
    retry = _read_candidates(after, text, cut_off)
    return retry if retry.ok else result


def _strict(text: str) -> tuple[bool, Any, tuple[str, ...], bool | None]:
    """:func:`strict_json`, and whether orjson ran out of text (where it stopped
    before, the lenient reader does not try its reading of cut-off JSON). Not asked
    where the text opens an object or array and does not end with its closer (a call
    cut off): no JSON text does, and orjson failing costs ~18,000 instructions
    (raising its error, bench_lenient); then that reading tells by itself (``None``)."""
    first = text[:1]
    if first in _JSON_WS:
        first = text.lstrip(_JSON_WS)[:1]
    if first == "{" or first == "[":
        last = text[-1:]
        if last in _JSON_WS:
            last = text.rstrip(_JSON_WS)[-1:]
        if last != ("}" if first == "{" else "]"):
            return False, None, (), None
    loaded, cut_off = try_loads(text)
    if loaded is UNREAD:
        return False, None, (), cut_off
    ok, value, repairs = strict_json(text, loaded)
    return ok, value, repairs, False


def _read_candidates(candidates: list[Extracted], text: str, cut_off: bool | None) -> RepairResult:
    for cand in candidates:
        if cand.text is not text:
            ok, value, repairs = strict_json(cand.text)
            if ok:
                return _finish(value, (*cand.repairs, *repairs), False)
    for cand in candidates:
        if looks_pythonish(cand.text):
            ok, value, repairs = parse_python_literal(cand.text)
            if ok:
                return _finish(value, (*cand.repairs, "python_literal", *repairs), False, cand.text)
    first_error: str | None = None
    for cand in candidates:
        out = parse_lenient(cand.text, cut_off=cut_off if cand.text is text else None)
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
    if source is not None and _may_hold_surrogate(source):
        value, repairs = _lone_surrogates_replaced(value, repairs)
    if isinstance(value, str):
        inner = value.strip()
        if inner[:1] in ("{", "[") and inner[-1:] in ("}", "]"):
            ok, decoded, inner_repairs = strict_json(inner)
            if ok and isinstance(decoded, dict | list):
                value = decoded
                repairs = (*repairs, "double_encoded", *inner_repairs)
    return RepairResult(value, True, _unique(repairs), truncated)


def _lone_surrogates_replaced(value: Any, repairs: tuple[str, ...]) -> tuple[Any, tuple[str, ...]]:
    """A value a non-strict reader read, lone surrogates replaced (and named)."""
    value, lone = replace_surrogates_in(value)
    return value, (*repairs, LONE_SURROGATE) if lone else repairs


def _may_hold_surrogate(text: str) -> bool:
    """Does ``text`` hold a surrogate, or an escape that may spell one? (One regex for
    both costs ~165 instructions per character, bench_lenient; a search that starts
    with a literal backslash, and encoding, cost far less; ASCII text, the usual,
    holds no raw surrogate: told without calling has_raw_surrogate, ~300 less.)"""
    if ("\\u" in text or "\\U" in text) and _ESCAPED_SURROGATE.search(text):
        return True
    return not text.isascii() and has_raw_surrogate(text)


def _unique(names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))
