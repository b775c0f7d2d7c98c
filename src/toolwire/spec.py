"""Declared tools as the parsing core sees them: a name and a JSON Schema.

Accepts the three common shapes: ``{name, parameters}``, OpenAI
``{"type": "function", "function": {...}}`` and Anthropic ``{name, input_schema}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

EMPTY_OBJECT_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}


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
        return cls(name=name, parameters=schema, description=str(description))


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
