"""A compiled yes/no check for the common subset of JSON Schema.

Validating every call with jsonschema costs tens of microseconds, mostly on values that
are fine. Tool schemas are nearly always plain: objects with typed properties, required
keys, enums. ``compile_check`` turns such a schema into a closure that answers "does
this value fit?" quickly. It is sound in one direction only: True means jsonschema would
accept the value; False means "not sure", and the caller runs jsonschema for the real
answer and its messages. A schema using anything outside the subset is not compiled.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

Check = Callable[[Any], bool]

# keywords that never affect validity (format is annotation-only without a checker)
_ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "$schema",
        "$id",
    }
)
_HANDLED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
    }
)


def _is_int(v: Any) -> bool:
    return type(v) is int


def _numeric(v: Any) -> bool:
    """A JSON number, finite or not (bounds apply to it; inf is never 'sure')."""
    return type(v) is int or type(v) is float


def _is_number(v: Any) -> bool:
    return (type(v) is int or type(v) is float) and math.isfinite(v)


_TYPE_TESTS: dict[str, Check] = {
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
    "string": lambda v: type(v) is str,
    "integer": _is_int,  # 1.0 is an integer to jsonschema: "not sure" here, it decides
    "number": _is_number,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
}


# each bound applies only to values of its own kind, as in JSON Schema
_BOUNDS: dict[str, Callable[[Any, Any], bool]] = {
    "minimum": lambda v, b: not _numeric(v) or (_is_number(v) and v >= b),
    "maximum": lambda v, b: not _numeric(v) or (_is_number(v) and v <= b),
    "minLength": lambda v, b: type(v) is not str or len(v) >= b,
    "maxLength": lambda v, b: type(v) is not str or len(v) <= b,
    "minItems": lambda v, b: type(v) is not list or len(v) >= b,
    "maxItems": lambda v, b: type(v) is not list or len(v) <= b,
}


def compile_check(schema: Any) -> Check | None:
    """A fast fit check for ``schema``, or None when it uses keywords outside the subset."""
    if schema is True or schema == {}:
        return lambda v: True
    if not isinstance(schema, Mapping):
        return None
    keys = set(schema) - _ANNOTATIONS
    if keys - _HANDLED:
        return None
    checks: list[Check] = []

    kind = schema.get("type")
    if kind is not None:
        names = [kind] if isinstance(kind, str) else kind
        if not isinstance(names, list) or not all(n in _TYPE_TESTS for n in names):
            return None
        tests = [_TYPE_TESTS[n] for n in names]
        if len(tests) == 1:
            checks.append(tests[0])
        else:
            checks.append(lambda v: any(t(v) for t in tests))

    if "enum" in schema:
        members = schema["enum"]
        if not isinstance(members, list) or not all(type(m) is str for m in members):
            return None  # bool/int equality corners: leave to jsonschema
        allowed = frozenset(members)
        checks.append(lambda v: type(v) is str and v in allowed)

    for word, test in _BOUNDS.items():
        if word in schema:
            bound = schema[word]
            if not _is_number(bound):
                return None
            checks.append(_bounded(test, bound))

    # Without "type", object/array keywords still make coercion treat a string as
    # stringified JSON (F26): only a real dict / list counts as "sure" then.
    if "properties" in schema or "required" in schema or "additionalProperties" in schema:
        object_check = _compile_object(schema, objects_only=kind == "object")
        if object_check is None:
            return None
        if kind == "object":  # the object check tests the type too: one call, not two
            checks.remove(_TYPE_TESTS["object"])
        checks.append(object_check)
        if kind is None:
            checks.append(lambda v: type(v) is dict)

    if "items" in schema:
        item_check = compile_check(schema["items"])
        if item_check is None:
            return None
        checks.append(_items(item_check))
        if kind is None:
            checks.append(lambda v: type(v) is list)

    return _all_of(checks)


def _all_of(checks: list[Check]) -> Check:
    # Runs on every call: a pair (the usual "type" + one keyword) is one ``and``, and
    # longer lists are a loop; ``all()`` over a generator costs more than either.
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda v: first(v) and second(v)
    fixed = tuple(checks)

    def check(value: Any) -> bool:
        for c in fixed:  # noqa: SIM110 - all() over a generator costs more
            if not c(value):
                return False
        return True

    return check


def _items(item_check: Check) -> Check:
    def check(value: Any) -> bool:
        if type(value) is list:
            for item in value:
                if not item_check(item):
                    return False
        return True

    return check


def _bounded(test: Callable[[Any, Any], bool], bound: Any) -> Check:
    return lambda v: test(v, bound)


def _never(value: Any) -> bool:
    return False


# A property schema that is only a "type" among these is a test of the value's exact
# Python type (``_TYPE_TESTS``): the object check makes it inline, with no call.
_PLAIN_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,  # exactly int: a bool is not sure (``_is_int``)
    "boolean": bool,
    "array": list,
    "object": dict,
    "null": type(None),
}


def _plain_type(schema: Any) -> type | None:
    """The Python type a property schema such as ``{"type": "string"}`` asks for, when
    that is all it asks (annotations aside); else None."""
    if not isinstance(schema, Mapping) or set(schema) - _ANNOTATIONS != {"type"}:
        return None
    kind = schema["type"]
    return _PLAIN_TYPES.get(kind) if isinstance(kind, str) else None


def _compile_object(schema: Mapping[str, Any], *, objects_only: bool) -> Check | None:
    props = schema.get("properties", {})
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(props, Mapping) or not isinstance(required, list):
        return None
    plain: dict[str, type] = {}
    prop_checks: dict[str, Check] = {}
    for name, sub in props.items():
        sub_check = compile_check(sub)
        if sub_check is None:
            return None
        kind = _plain_type(sub)
        if kind is not None:
            plain[name] = kind
        else:
            prop_checks[name] = sub_check
    extra_check: Check | None
    if extra is True:
        extra_check = None
    elif extra is False:
        extra_check = _never
    else:
        extra_check = compile_check(extra)
        if extra_check is None:
            return None
    needed = tuple(required)

    # Runs on every call: plain-typed properties (the usual ones) are tested inline,
    # the others by their own check; measured with callgrind, about 1,000
    # instructions less per property than a call each.
    def check(value: Any) -> bool:
        if type(value) is not dict:
            return not objects_only  # else "type" decides whether a non-object is allowed
        for key in needed:  # cheaper than a set comparison for the usual few
            if key not in value:
                return False
        for key, item in value.items():
            kind = plain.get(key)
            if kind is not None:
                if type(item) is not kind:
                    return False
                continue
            sub = prop_checks.get(key)
            if sub is not None:
                if not sub(item):
                    return False
            elif extra_check is not None and not extra_check(item):
                return False
        return True

    return check
