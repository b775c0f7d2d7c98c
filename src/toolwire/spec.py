"""Declared tools as the parsing core sees them: a name and a JSON Schema.

Accepts the three common shapes: ``{name, parameters}``, OpenAI
``{"type": "function", "function": {...}}`` and Anthropic ``{name, input_schema}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}

# Type names that tool schemas written for XML-style formats use in the wild (Python's
# and C's), and the JSON Schema type each stands for.
TYPE_ALIASES: dict[str, str] = {
    "int": "integer",
    "long": "integer",
    "float": "number",
    "double": "number",
    "bool": "boolean",
    "dict": "object",
    "list": "array",
    "tuple": "array",
    "str": "string",
    "text": "string",
    "none": "null",
}
_JSON_TYPES = frozenset({"integer", "number", "boolean", "object", "array", "string", "null"})
# keywords whose value is a schema, a list of schemas, or a map of names to schemas
_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED = ("properties", "patternProperties", "$defs", "definitions")


class ToolSpecError(ValueError):
    """A tool definition that cannot be read."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: dict(EMPTY_OBJECT_SCHEMA))
    description: str = ""

    @classmethod
    def from_dict(cls, entry: Mapping[str, Any]) -> ToolSpec:
        if not isinstance(entry, Mapping):
            raise ToolSpecError(f"a tool must be a JSON object, got {type(entry).__name__}")
        body: Mapping[str, Any] = entry
        if entry.get("type") == "function" and isinstance(entry.get("function"), Mapping):
            body = entry["function"]
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise ToolSpecError(f"a tool needs a non-empty string 'name': {dict(entry)!r:.200}")
        schema = body.get("parameters", body.get("input_schema", body.get("inputSchema")))
        if schema is None:
            schema = dict(EMPTY_OBJECT_SCHEMA)
        if not isinstance(schema, Mapping):
            raise ToolSpecError(f"tool {name!r}: parameters must be a JSON Schema object")
        description = body.get("description") or ""
        return cls(name=name, parameters=json_schema_types(schema), description=str(description))


def json_schema_types(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """``schema`` with the type names of ``TYPE_ALIASES`` (``int``, ``double``, ...)
    written as their JSON Schema kin, so that values are typed and checked by them; a
    schema without such names is returned as it is. Other unknown types are left for
    the schema check to refuse."""
    changed = False

    def walk(node: Any) -> Any:
        nonlocal changed
        if not isinstance(node, Mapping):
            return node
        out = dict(node)
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = _json_type(kind)
        elif isinstance(kind, list):
            out["type"] = [_json_type(k) if isinstance(k, str) else k for k in kind]
        if out.get("type") != kind:
            changed = True
        for key in _ONE:
            if key in out:
                out[key] = walk(out[key])
        for key in _MANY:
            if isinstance(out.get(key), list):
                out[key] = [walk(item) for item in out[key]]
        for key in _NAMED:
            if isinstance(out.get(key), Mapping):
                out[key] = {name: walk(sub) for name, sub in out[key].items()}
        return out

    result = walk(schema)
    return result if changed else schema


def _json_type(name: str) -> str:
    if name in _JSON_TYPES:
        return name
    return TYPE_ALIASES.get(name.lower(), name)


def load_tool_specs(data: Any) -> list[ToolSpec]:
    """Read a JSON list of tool definitions (or ``{"tools": [...]}``)."""
    if isinstance(data, Mapping) and "tools" in data:
        data = data["tools"]
    if isinstance(data, Mapping):
        data = [data]
    if not isinstance(data, Iterable) or isinstance(data, str | bytes):
        raise ToolSpecError("tools must be a JSON list of tool definitions")
    specs = [ToolSpec.from_dict(entry) for entry in data]
    seen: set[str] = set()
    for spec in specs:
        if spec.name in seen:
            raise ToolSpecError(f"tool {spec.name!r} is declared twice")
        seen.add(spec.name)
    return specs
