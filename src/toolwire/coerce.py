"""Schema coercion: give argument values the types the tool's JSON Schema asks for.

The schema decides, never the tool's name (design principle 5). Each change is
recorded as a repair name:

- ``coerce:<path>:string->integer`` (also ``->number``, ``->boolean``) and
  ``coerce:<path>:integer->string`` (F11): ``"42"`` -> 42, ``"true"`` -> True,
  ``4`` -> ``"4"``;
- ``decode:<path>:string->array`` / ``->object`` (F9 nested, F26): a string holding
  JSON where the schema wants an array or object;
- ``wrap:<path>:string->array``: a lone value where the schema wants an array;
- ``enum_case:<path>``: ``"Celsius"`` -> ``"celsius"`` when exactly one enum member
  matches ignoring case;
- ``unwrap:<key>`` (F25): ``{"arguments": {...}}`` (or ``input``, ``parameters``,
  ``args``, ``params``) around the real arguments, when the schema has no such
  property and the inner keys are the schema's.

``<path>`` is ``$`` for the whole value, else ``todos[0].status``.

Never against the schema: a value that already has an allowed type is left alone (a
string parameter keeps ``"02134"``), and a value that does not convert (``"abc"`` for
an integer, a non-finite float for a string) stays as it was for validation to
report. Defaults are not filled in and unknown properties are kept. Never raises.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import jsonschema
import orjson

__all__ = ["WRAPPER_KEYS", "CoercionResult", "coerce_arguments", "json_type_name"]

WRAPPER_KEYS: Final = ("arguments", "input", "parameters", "args", "params")
_NUMBER: Final = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_MAX_REF_HOPS: Final = 32
_MAX_DEPTH: Final = 200


@dataclass(frozen=True, slots=True)
class CoercionResult:
    """The coerced value, the changes made (in order) and schema problems met."""

    value: Any
    repairs: tuple[str, ...]
    errors: tuple[str, ...] = ()


def coerce_arguments(value: Any, schema: Mapping[str, Any]) -> CoercionResult:
    """Coerce ``value`` towards ``schema`` (see the module docstring); never raises."""
    coercer = _Coercer(schema)
    try:
        out = coercer.top(value)
    except Exception as exc:  # the contract is: never raise
        return CoercionResult(value, (), (f"coercion stopped: {type(exc).__name__}: {exc}",))
    return CoercionResult(out, tuple(dict.fromkeys(coercer.repairs)), tuple(coercer.errors))


def json_type_name(value: Any, other: str | None = None) -> str:
    """The JSON Schema type name of a Python value read from JSON (``True`` is a
    boolean, never an integer). A value JSON has no type for is named ``other``, or by
    its Python type when ``other`` is None."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return other if other is not None else type(value).__name__


def _has_type(value: Any, name: str) -> bool:
    if name == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (
            isinstance(value, float) and math.isfinite(value) and value.is_integer()
        )
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    return True  # an unknown type name constrains nothing we can act on


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"[{key}]" if path == "$" else f"{path}[{key}]"
    return key if path == "$" else f"{path}.{key}"


class _Coercer:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root if isinstance(root, Mapping) else {}
        self.repairs: list[str] = []
        self.errors: list[str] = []

    # -- schema helpers ----------------------------------------------------------------

    def resolve(self, schema: Any, path: str) -> Any:
        hops = 0
        while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            target = self.lookup(ref)
            if target is None or hops >= _MAX_REF_HOPS:
                self.errors.append(f"{path}: cannot resolve $ref {ref!r}")
                return {}
            siblings = {k: v for k, v in schema.items() if k != "$ref"}
            schema = {**target, **siblings} if siblings and isinstance(target, Mapping) else target
            hops += 1
        return schema

    def lookup(self, ref: str) -> Any:
        if ref == "#":
            return self.root
        if not ref.startswith("#/"):
            return None
        node: Any = self.root
        for raw in ref[2:].split("/"):
            part = raw.replace("~1", "/").replace("~0", "~")
            if isinstance(node, Mapping) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                return None
        return node

    def types(self, schema: Mapping[str, Any]) -> list[str]:
        declared = schema.get("type")
        if isinstance(declared, str):
            names = [declared]
        elif isinstance(declared, list):
            names = [t for t in declared if isinstance(t, str)]
        else:
            names = []
            if "properties" in schema or "additionalProperties" in schema:
                names.append("object")
            if "items" in schema or "prefixItems" in schema:
                names.append("array")
            if "enum" in schema and isinstance(schema["enum"], list):
                for member in schema["enum"]:
                    name = json_type_name(member)
                    if name not in names:
                        names.append(name)
        if schema.get("nullable") is True and "null" not in names:
            names.append("null")
        return names

    def valid(self, value: Any, schema: Any) -> bool:
        """Does ``value`` validate against ``schema`` (with the root's definitions)?"""
        if not isinstance(schema, Mapping):
            return schema is not False
        full = dict(schema)
        for key in ("$defs", "definitions"):
            if key in self.root and key not in full:
                full[key] = self.root[key]
        try:
            cls = jsonschema.validators.validator_for(
                self.root, default=jsonschema.Draft202012Validator
            )
            return bool(cls(full).is_valid(value))
        except Exception:  # a schema jsonschema cannot use: we cannot tell
            return False

    # -- coercion ----------------------------------------------------------------

    def top(self, value: Any) -> Any:
        root = self.resolve(self.root, "$")
        if isinstance(root, Mapping):
            value = self.unwrap(value, root)
        return self.coerce(value, root, "$", 0)

    def unwrap(self, value: Any, root: Mapping[str, Any]) -> Any:
        """F25: ``{"arguments": {...}}`` around the real arguments."""
        if not isinstance(value, dict) or len(value) != 1:
            return value
        ((key, inner),) = value.items()
        props = root.get("properties")
        if key not in WRAPPER_KEYS or not isinstance(props, Mapping) or not props:
            return value
        if key in props:
            return value
        if isinstance(inner, str):
            try:
                inner = orjson.loads(inner)
            except orjson.JSONDecodeError:
                return value
        if not isinstance(inner, dict):
            return value
        required = root.get("required")
        needed = set()
        if isinstance(required, list):
            needed = {k for k in required if isinstance(k, str)}
        if set(inner) <= set(props) or (needed and needed & set(inner)):
            self.repairs.append(f"unwrap:{key}")
            return inner
        return value

    def coerce(self, value: Any, schema: Any, path: str, depth: int) -> Any:
        if depth > _MAX_DEPTH:
            return value
        schema = self.resolve(schema, path)
        if not isinstance(schema, Mapping):
            return value
        for combinator in ("anyOf", "oneOf"):
            alternatives = schema.get(combinator)
            if isinstance(alternatives, list) and alternatives:
                base = {k: v for k, v in schema.items() if k != combinator}
                value = self.choose(value, base, alternatives, path, depth)
                schema = base
        all_of = schema.get("allOf")
        if isinstance(all_of, list):
            for part in all_of:
                value = self.coerce(value, part, path, depth + 1)
        types = self.types(schema)
        if types and not any(_has_type(value, t) for t in types):
            value = self.convert(value, types, schema, path, depth)
        elif (
            type(value) is float
            and value.is_integer()
            and "integer" in types
            and "number" not in types
        ):
            # 3.0 is an integer to JSON Schema, not to a Python tool taking an int
            self.repairs.append(f"coerce:{path}:number->integer")
            value = int(value)
        if isinstance(value, dict):
            value = self.members(value, schema, path, depth)
        elif isinstance(value, list):
            value = self.items(value, schema, path, depth)
        elif isinstance(value, str):
            value = self.enum_case(value, schema, path)
        return value

    def choose(
        self, value: Any, base: Mapping[str, Any], alternatives: list[Any], path: str, depth: int
    ) -> Any:
        resolved = [self.resolve(a, path) for a in alternatives]
        if any(self.valid(value, a) for a in resolved):
            return value  # it already fits one: keep it
        for alternative in resolved:
            if not isinstance(alternative, Mapping):
                continue
            scratch = _Coercer(self.root)
            merged = {**base, **alternative}
            candidate = scratch.coerce(value, merged, path, depth + 1)
            if self.valid(candidate, alternative):
                self.repairs.extend(scratch.repairs)
                self.errors.extend(scratch.errors)
                return candidate
        return value

    def convert(
        self, value: Any, types: list[str], schema: Mapping[str, Any], path: str, depth: int
    ) -> Any:
        source = json_type_name(value)
        for target in types:
            ok, out = self.convert_to(value, target)
            if ok:
                verb = "decode" if target in ("array", "object") else "coerce"
                self.repairs.append(f"{verb}:{path}:{source}->{target}")
                return out
        if "array" in types and not isinstance(value, dict | list):
            self.repairs.append(f"wrap:{path}:{source}->array")
            return [value]
        return value

    def convert_to(self, value: Any, target: str) -> tuple[bool, Any]:
        if isinstance(value, str):
            text = value.strip()
            if target == "integer" and _NUMBER.fullmatch(text):
                number = _parse_number(text)
                if isinstance(number, int) or (number is not None and number.is_integer()):
                    return True, int(number)
            elif target == "number" and _NUMBER.fullmatch(text):
                number = _parse_number(text)
                if number is not None:
                    return True, number
            elif target == "boolean" and text.lower() in ("true", "false"):
                return True, text.lower() == "true"
            elif target in ("array", "object") and text[:1] in ("[", "{"):
                try:
                    decoded = orjson.loads(text)
                except orjson.JSONDecodeError:
                    return False, None
                if _has_type(decoded, target):
                    return True, decoded
        elif target == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, float) and not math.isfinite(value):
                return False, None
            return True, str(value)
        return False, None

    def members(
        self, value: dict[str, Any], schema: Mapping[str, Any], path: str, depth: int
    ) -> Any:
        props = schema.get("properties")
        props = props if isinstance(props, Mapping) else {}
        patterns = schema.get("patternProperties")
        patterns = patterns if isinstance(patterns, Mapping) else {}
        extra = schema.get("additionalProperties")
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub: Any = None
            if key in props:
                sub = props[key]
            else:
                for pattern, pattern_schema in patterns.items():
                    try:
                        if re.search(pattern, key):
                            sub = pattern_schema
                            break
                    except re.error:
                        continue
                if sub is None and isinstance(extra, Mapping):
                    sub = extra
            out[key] = item if sub is None else self.coerce(item, sub, _join(path, key), depth + 1)
        return out

    def items(self, value: list[Any], schema: Mapping[str, Any], path: str, depth: int) -> Any:
        prefix = schema.get("prefixItems")
        items = schema.get("items")
        if isinstance(items, list):  # draft 4-7 tuple form
            prefix, items = items, schema.get("additionalItems")
        positional = prefix if isinstance(prefix, list) else []
        out: list[Any] = []
        for index, item in enumerate(value):
            if index < len(positional):
                sub: Any = positional[index]
            elif isinstance(items, Mapping):
                sub = items
            else:
                out.append(item)
                continue
            out.append(self.coerce(item, sub, _join(path, index), depth + 1))
        return out

    def enum_case(self, value: str, schema: Mapping[str, Any], path: str) -> str:
        members = schema.get("enum")
        if not isinstance(members, list) or value in members:
            return value
        folded = value.casefold()
        matches = [m for m in members if isinstance(m, str) and m.casefold() == folded]
        if len(matches) == 1:
            self.repairs.append(f"enum_case:{path}")
            return str(matches[0])
        return value


def _parse_number(text: str) -> int | float | None:
    try:
        if "." in text or "e" in text or "E" in text:
            number = float(text)
            return number if math.isfinite(number) else None
        return int(text)
    except (ValueError, OverflowError):
        return None
