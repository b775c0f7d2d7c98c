"""One tool definition (``ToolSpec``) → each provider's tool shape, and back.

- ``to_openai_tool``: ``{"type": "function", "function": {name, description, parameters}}``
- ``to_anthropic_tool``: ``{name, description, input_schema}``
- ``to_gemini_declaration``: ``{name, description, parameters}`` in Gemini's OpenAPI
  subset (``gemini_schema``), or the full JSON Schema as ``parametersJsonSchema``.
- ``spec_from_definition``: any of those shapes (and MCP's ``inputSchema``) → ToolSpec.

Provider name rules differ (OpenAI: 64 characters of ``[a-zA-Z0-9_-]``; Anthropic:
128; Gemini: 64, also ``.`` and ``:``, starting with a letter or ``_``).
``ToolNameMap`` shortens names deterministically and maps them back, so a call comes
back under the name the tool was declared with.

What a target cannot express is reported in ``Translated.lossy``, never dropped
silently.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.events import CallFinished, CallStarted, Event
from toolwire.jsontext import json_type
from toolwire.spec import EMPTY_OBJECT_SCHEMA, ToolSpec, ToolSpecError

Provider = Literal["openai", "anthropic", "gemini"]


class RequestTranslationError(ValueError):
    """A request or tool definition that cannot be translated: a field the translators
    read holds a value of the wrong type. ``path`` names the field (``messages[2].content``,
    ``tools[0].input_schema``); the message starts with it."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = path


def read_list(value: Any, path: str) -> list[Any]:
    """A field that must be an array (missing or null: empty)."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise RequestTranslationError(path, f"expected an array, got {json_type(value)}")
    return value


def read_mapping(value: Any, path: str) -> Mapping[str, Any]:
    """A field that must be an object (missing or null: empty)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise RequestTranslationError(path, f"expected an object, got {json_type(value)}")
    return value


def read_str(value: Any, path: str) -> str:
    """A field that must be a string (missing or null: empty)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RequestTranslationError(path, f"expected a string, got {json_type(value)}")
    return value


@dataclass(frozen=True, slots=True)
class Translated:
    """A translated value and, in words, what the target could not express."""

    value: dict[str, Any]
    lossy: tuple[str, ...] = ()


# -- names -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class NameRule:
    max_length: int
    disallowed: re.Pattern[str]
    must_start: re.Pattern[str] | None = None


NAME_RULES: dict[Provider, NameRule] = {
    "openai": NameRule(64, re.compile(r"[^a-zA-Z0-9_-]")),
    "anthropic": NameRule(128, re.compile(r"[^a-zA-Z0-9_-]")),
    "gemini": NameRule(64, re.compile(r"[^a-zA-Z0-9_.:-]"), re.compile(r"[a-zA-Z_]")),
}


class ToolNameMap:
    """Original tool names ⇄ names a provider accepts.

    A name that already fits is kept. Any other becomes its sanitized prefix plus
    ``_`` and 8 hex digits of its SHA-256, cut to the provider's limit: the same name
    always maps to the same wire name, and two names never share one.
    """

    def __init__(self, names: Iterable[str], rule: NameRule | Provider = "openai") -> None:
        self.rule = NAME_RULES[rule] if isinstance(rule, str) else rule
        self._to_wire: dict[str, str] = {}
        self._to_original: dict[str, str] = {}
        names = list(dict.fromkeys(names))
        for name in names:  # names that fit keep themselves, first
            if self._fits(name):
                self._bind(name, name)
        for name in names:
            if name not in self._to_wire:
                self._bind(name, self._shorten(name))

    @classmethod
    def for_specs(
        cls, specs: Iterable[ToolSpec], rule: NameRule | Provider = "openai"
    ) -> ToolNameMap:
        return cls((s.name for s in specs), rule)

    def _fits(self, name: str) -> bool:
        rule = self.rule
        return (
            0 < len(name) <= rule.max_length
            and not rule.disallowed.search(name)
            and (rule.must_start is None or bool(rule.must_start.match(name)))
        )

    def _shorten(self, name: str) -> str:
        rule = self.rule
        base = rule.disallowed.sub("_", name) or "tool"
        if rule.must_start is not None and not rule.must_start.match(base):
            base = "_" + base
        # a name from the wire may hold a lone surrogate: hash it as it is
        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
        for width in (8, 16, 64):
            candidate = f"{base[: rule.max_length - width - 1]}_{digest[:width]}"
            if candidate not in self._to_original:
                return candidate
        raise ValueError(f"cannot find a free wire name for {name!r}")  # pragma: no cover

    def _bind(self, original: str, wire: str) -> None:
        self._to_wire[original] = wire
        self._to_original[wire] = original

    @property
    def changed(self) -> dict[str, str]:
        """Original → wire, for the names that had to change."""
        return {o: w for o, w in self._to_wire.items() if o != w}

    def wire(self, name: str) -> str:
        """The name to send. A name not given at construction is shortened the same
        way (and remembered)."""
        found = self._to_wire.get(name)
        if found is None:
            found = name if self._fits(name) else self._shorten(name)
            self._bind(name, found)
        return found

    def original(self, wire_name: str) -> str:
        """The declared name for a name the provider sent (unknown names unchanged)."""
        return self._to_original.get(wire_name, wire_name)

    def wire_specs(self, specs: Iterable[ToolSpec]) -> list[ToolSpec]:
        """The specs under their wire names: give these to the parser of the
        provider's stream, so name normalization and validation see what it sends."""
        return [dataclasses.replace(s, name=self.wire(s.name)) for s in specs]

    def restore(self, event: Event) -> Event:
        """An event with the provider's names mapped back to the declared ones."""
        if isinstance(event, CallStarted):
            original = self.original(event.name)
            if original != event.name:
                return CallStarted(event.slot, event.id, original)
        elif isinstance(event, CallFinished):
            original = self.original(event.call.name)
            if original != event.call.name:
                return CallFinished(dataclasses.replace(event.call, name=original))
        return event


# -- tool definitions ---------------------------------------------------------------


def _object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Providers want an object schema with ``properties`` (an MCP tool without
    parameters often sends ``{"type": "object"}``; OpenAI rejects that)."""
    out = dict(schema)
    if "type" not in out:
        out["type"] = "object"
    if out.get("type") == "object" and "properties" not in out:
        out["properties"] = {}
    return out


def to_openai_tool(
    spec: ToolSpec, names: ToolNameMap | None = None, *, strict: bool | None = None
) -> dict[str, Any]:
    fn: dict[str, Any] = {"name": names.wire(spec.name) if names else spec.name}
    if spec.description:
        fn["description"] = spec.description
    fn["parameters"] = _object_schema(spec.parameters)
    if strict is not None:
        fn["strict"] = strict
    return {"type": "function", "function": fn}


def to_anthropic_tool(spec: ToolSpec, names: ToolNameMap | None = None) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": names.wire(spec.name) if names else spec.name}
    if spec.description:
        tool["description"] = spec.description
    tool["input_schema"] = _object_schema(spec.parameters)
    return tool


def to_gemini_declaration(
    spec: ToolSpec, names: ToolNameMap | None = None, *, json_schema: bool = False
) -> Translated:
    """A Gemini ``functionDeclaration``. ``json_schema=True`` sends the schema
    unchanged as ``parametersJsonSchema`` (newer Gemini models accept full JSON
    Schema); the default rewrites it into the OpenAPI subset every version accepts."""
    decl: dict[str, Any] = {"name": names.wire(spec.name) if names else spec.name}
    if spec.description:
        decl["description"] = spec.description
    if json_schema:
        decl["parametersJsonSchema"] = _object_schema(spec.parameters)
        return Translated(decl)
    converted = gemini_schema(spec.parameters)
    params = converted.value
    if params.get("properties") or params.get("type") not in (None, "object"):
        decl["parameters"] = params
    # a function without parameters omits them (Gemini rejects an empty OBJECT)
    return Translated(decl, tuple(f"{spec.name}: {note}" for note in converted.lossy))


def spec_from_definition(definition: Mapping[str, Any]) -> ToolSpec:
    """A ToolSpec from an OpenAI, Anthropic, Gemini or MCP tool definition."""
    definition = read_mapping(definition, "tool")  # None: {}, which names the missing name
    if "parametersJsonSchema" in definition and "parameters" not in definition:
        definition = {**definition, "parameters": definition["parametersJsonSchema"]}
    try:
        return ToolSpec.from_dict(definition)
    except ToolSpecError as exc:
        raise RequestTranslationError("tool", str(exc)) from exc


# -- Gemini's schema subset ---------------------------------------------------------

_GEMINI_KEYS = frozenset(
    {
        "type", "format", "title", "description", "nullable", "enum", "maxItems",
        "minItems", "properties", "required", "minProperties", "maxProperties",
        "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
        "default", "items", "minimum", "maximum",
    }
)  # fmt: skip
# metadata whose loss changes nothing (definitions are inlined where referenced)
_QUIET = frozenset({"$schema", "$id", "$comment", "$defs", "definitions", "$anchor"})
_FORMATS = {
    "string": frozenset({"enum", "date-time"}),
    "integer": frozenset({"int32", "int64"}),
    "number": frozenset({"float", "double"}),
}


class _GeminiSchema:
    """One conversion: the root (for ``$ref``) and the notes collected on the way."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.defs: dict[str, Any] = {}
        for key in ("$defs", "definitions"):
            found = root.get(key)
            if isinstance(found, Mapping):
                self.defs.update({f"#/{key}/{name}": value for name, value in found.items()})
        self.notes: dict[str, list[str]] = {}

    def note(self, what: str, path: str) -> None:
        paths = self.notes.setdefault(what, [])
        if path not in paths:
            paths.append(path)

    def convert(self, node: Any, path: str, refs: tuple[str, ...] = ()) -> dict[str, Any]:
        if not isinstance(node, Mapping):
            if node is not True:
                self.note("a boolean schema became an unconstrained one", path)
            return {}
        node = dict(node)
        ref = node.pop("$ref", None)
        if isinstance(ref, str):
            if ref in refs:
                self.note("a recursive $ref became an object without properties", path)
                return {"type": "object", **_describe(node)}
            target = self.defs.get(ref)
            if target is None:
                self.note(f"an unresolvable $ref ({ref}) became an unconstrained schema", path)
                return _describe(node)
            resolved = self.convert(target, path, (*refs, ref))
            return {**resolved, **self.convert(node, path, refs)} if node else resolved
        out: dict[str, Any] = {}
        if "allOf" in node:
            out.update(self._all_of(node.pop("allOf"), path, refs))
        for key in ("oneOf", "anyOf"):
            if key in node:
                merged = self._any_of(node.pop(key), key, path, refs)
                if key == "oneOf" and "anyOf" in merged:
                    self.note("oneOf was relaxed to anyOf (exactly-one is not expressible)", path)
                out.update(merged)
        if "const" in node:
            value = node.pop("const")
            if isinstance(value, str):
                node.setdefault("type", "string")
                node["enum"] = [value]
            else:
                self.note("a non-string const was dropped", path)
        if "examples" in node:
            examples = node.pop("examples")
            if isinstance(examples, list) and examples:
                node.setdefault("example", examples[0])
        for key, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if key in node:
                value = node.pop(key)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    node.setdefault(bound, value)
                    self.note(f"{key} was relaxed to an inclusive {bound}", path)
        self._type(node, out, path)
        for key, value in node.items():
            if key in _QUIET or key == "type":
                continue
            if key not in _GEMINI_KEYS:
                self.note(f"{key} was dropped", path)
                continue
            if key == "properties":
                out["properties"] = {
                    name: self.convert(sub, f"{path}.{name}", refs)
                    for name, sub in read_mapping(value, f"{path}.properties").items()
                }
            elif key == "items":
                if isinstance(value, list):
                    self.note("tuple items were reduced to the first item's schema", path)
                    value = value[0] if value else {}
                out["items"] = self.convert(value, f"{path}[]", refs)
            elif key == "enum":
                self._enum(value, out, path)
            elif key == "format":
                allowed = _FORMATS.get(str(out.get("type")), frozenset())
                if isinstance(value, str) and value in allowed:
                    out["format"] = value
                else:
                    self.note(f"format {value!r} was dropped", path)
            else:
                out[key] = value
        if "required" in out and isinstance(out.get("properties"), Mapping):
            required = read_list(out["required"], f"{path}.required")
            known = [r for r in required if isinstance(r, str) and r in out["properties"]]
            if len(known) != len(required):
                self.note("required names without a property were dropped", path)
            out["required"] = known
        return out

    def _type(self, node: dict[str, Any], out: dict[str, Any], path: str) -> None:
        value = node.get("type")
        if isinstance(value, list):
            kinds = [t for t in value if t != "null"]
            if len(kinds) != len(value):
                out["nullable"] = True
            if len(kinds) == 1:
                out["type"] = kinds[0]
            elif kinds:
                out["anyOf"] = [{"type": t} for t in kinds]
        elif isinstance(value, str):
            out["type"] = value

    def _enum(self, value: Any, out: dict[str, Any], path: str) -> None:
        if not isinstance(value, list):
            return
        if None in value:
            out["nullable"] = True
            value = [v for v in value if v is not None]
        if all(isinstance(v, str) for v in value):
            out["enum"] = value
            out.setdefault("type", "string")
        else:
            self.note("an enum of non-string values was dropped (Gemini enums are strings)", path)

    def _all_of(self, parts: Any, path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for part in read_list(parts, f"{path}.allOf"):
            sub = self.convert(part, path, refs)
            props = sub.pop("properties", None)
            required = sub.pop("required", None)
            if isinstance(props, dict):
                merged.setdefault("properties", {}).update(props)
            if isinstance(required, list):
                merged.setdefault("required", [])
                merged["required"] += [r for r in required if r not in merged["required"]]
            for key, value in sub.items():
                if key in merged and merged[key] != value:
                    self.note(f"allOf parts disagree on {key}; the first was kept", path)
                merged.setdefault(key, value)
        return merged

    def _any_of(self, parts: Any, key: str, path: str, refs: tuple[str, ...]) -> dict[str, Any]:
        alternatives = [self.convert(p, path, refs) for p in read_list(parts, f"{path}.{key}")]
        out: dict[str, Any] = {}
        kept = [a for a in alternatives if a != {"type": "null"}]
        if len(kept) != len(alternatives):
            out["nullable"] = True
        if kept and all(set(a) <= {"type", "enum"} and "enum" in a for a in kept):
            # alternatives that are only constants: one enum says the same
            out["type"] = "string"
            out["enum"] = [v for a in kept for v in a["enum"]]
        elif len(kept) == 1:
            out.update(kept[0])
        elif kept:
            out["anyOf"] = kept
        return out


def _describe(node: Mapping[str, Any]) -> dict[str, Any]:
    return {k: node[k] for k in ("description", "title") if k in node}


def gemini_schema(schema: Mapping[str, Any]) -> Translated:
    """A JSON Schema rewritten into Gemini's OpenAPI subset: ``$ref`` inlined,
    ``allOf`` merged, ``const`` → ``enum``, ``["x", "null"]`` → ``nullable``,
    ``oneOf`` → ``anyOf``; keywords Gemini lacks are dropped and reported."""
    schema = read_mapping(schema, "$")
    converter = _GeminiSchema(schema)
    try:
        value = converter.convert(schema, "$")
    except RecursionError:
        raise RequestTranslationError("$", "the schema is nested too deeply") from None
    if not value:
        value = dict(EMPTY_OBJECT_SCHEMA)
    if value.get("type") != "object" and "anyOf" in value:
        converter.note("a top-level anyOf is not a Gemini parameters object", "$")
    lossy = tuple(f"{what} at {', '.join(paths)}" for what, paths in converter.notes.items())
    return Translated(value, lossy)
