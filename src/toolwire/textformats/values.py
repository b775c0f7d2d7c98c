"""Typing raw parameter text by the tool's JSON Schema (the schema-typed families).

XML-style formats (qwen3_coder, seed_oss, glm, minimax_m2, DSML, ``<invoke>``) write
every value as text. The schema decides what it becomes (design principle 5): a
parameter that may be a string keeps its text exactly (``"02134"`` stays a string,
F11); otherwise the text is read as the first allowed type it fits. Text that fits
no allowed type stays a string, and the finisher's validation marks the call.

Reading text as a value may change it: an object written with Python syntax or a
repeated key, a number beyond or below a double. Each change is named, as the repair
ladder names it, in the ``repairs`` the caller passes (an ordered set); the family
gives them to its call, which is then ``repaired``, never ``complete``.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Mapping, MutableMapping
from decimal import Decimal
from typing import Any

from toolwire.coerce import json_type_name
from toolwire.repair import repair_json, strict_json
from toolwire.repair.numbers import float_underflows
from toolwire.spec import TYPE_ALIASES

Repairs = MutableMapping[str, None]  # repair names, in the order first met

_INT = re.compile(r"[+-]?\d+")
# possessive: a long run of digits that is not a number fails at once
_FLOAT = re.compile(r"[+-]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][+-]?\d++)?")
_ORDER = ("null", "integer", "number", "boolean", "object", "array")


def _kind(name: str) -> str:
    return TYPE_ALIASES.get(name.lower(), name.lower())


def parameter_schema(tool_schema: Mapping[str, Any] | None, key: str) -> Mapping[str, Any] | None:
    """The schema of parameter ``key`` (None when the tool or key is not declared)."""
    if tool_schema is None:
        return None
    props = tool_schema.get("properties")
    if isinstance(props, Mapping):
        found = props.get(key)
        if isinstance(found, Mapping):
            return found
    extra = tool_schema.get("additionalProperties")
    return extra if isinstance(extra, Mapping) else None


def allowed_types(schema: Mapping[str, Any]) -> set[str]:
    """JSON types a schema admits: ``type`` (or a list), enum/const values, and the
    members of anyOf/oneOf/allOf. Empty means "anything"."""
    found: set[str] = set()
    kind = schema.get("type")
    if isinstance(kind, str):
        found.add(_kind(kind))
    elif isinstance(kind, list):
        found.update(_kind(k) for k in kind if isinstance(k, str))
    values = list(schema.get("enum") or ())
    if "const" in schema:
        values.append(schema["const"])
    for v in values:
        found.add(json_type_name(v, "object"))
    for key in ("anyOf", "oneOf", "allOf"):
        members = schema.get(key)
        if isinstance(members, list):
            for member in members:
                if isinstance(member, Mapping):
                    found |= allowed_types(member)
    if "properties" in schema and not found:
        found.add("object")
    if "items" in schema and not found:
        found.add("array")
    return found


class _NoFit:
    pass


_NO_FIT = _NoFit()


def _as(kind: str, text: str, repairs: Repairs) -> Any:
    t = text.strip()
    if kind == "null":
        return None if t in ("null", "None", "NULL") else _NO_FIT
    if kind == "integer":
        if _INT.fullmatch(t):
            return _int(t)
        if _FLOAT.fullmatch(t):
            return _integral(t)
        return _NO_FIT
    if kind == "number":
        if _INT.fullmatch(t):
            return _int(t)
        if _FLOAT.fullmatch(t):
            f = float(t)
            if not math.isfinite(f):
                return _NO_FIT
            if float_underflows(t, f):
                repairs["float_underflow"] = None  # 1e-999: below a double, read as 0.0
            return f
        return _NO_FIT
    if kind == "boolean":
        low = t.lower()
        return True if low == "true" else False if low == "false" else _NO_FIT
    if kind in ("object", "array"):
        # strict JSON first, then Python-style literals and the like: the shared ladder
        result = repair_json(t)
        want = dict if kind == "object" else list
        if not result.ok or result.truncated or not isinstance(result.value, want):
            return _NO_FIT
        repairs.update(dict.fromkeys(result.repairs))
        return result.value
    return _NO_FIT


def _int(digits: str) -> int | _NoFit:
    try:
        return int(digits)
    except ValueError:  # more digits than Python converts: the text stays text
        return _NO_FIT


def _integral(number: str) -> int | _NoFit:
    """``5.0``, ``1e3``, ``1.5e300`` as the integer they are, exactly (a double would
    round a long one); not an integer, or more digits than Python converts: no fit."""
    exact = Decimal(number)
    if exact.adjusted() >= sys.get_int_max_str_digits() or exact != exact.to_integral_value():
        return _NO_FIT
    return int(exact)


def type_value(text: str, schema: Mapping[str, Any] | None, repairs: Repairs) -> Any:
    """Raw parameter text → a JSON value, by the parameter's schema; what reading it
    changed is named in ``repairs``."""
    if schema is None:
        return text  # an undeclared parameter: nothing says it is anything but text
    kinds = allowed_types(schema)
    if "string" in kinds:
        return text
    if not kinds:
        return json_or_text(text, repairs)  # any type
    for kind in _ORDER:
        if kind in kinds:
            value = _as(kind, text, repairs)
            if value is not _NO_FIT:
                return value
    return text


def json_or_text(text: str, repairs: Repairs) -> Any:
    """A value written as JSON when it is not a string (an untyped parameter; GLM, DSML
    ``string="false"`` with no schema to go by): strict JSON if it reads, with what
    reading it changed named in ``repairs``; else the text."""
    ok, value, changed = strict_json(text)
    if not ok:
        return text
    repairs.update(dict.fromkeys(changed))
    return value
