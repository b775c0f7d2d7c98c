"""One ToolSpec → OpenAI / Anthropic / Gemini definitions; name shortening and back."""

from __future__ import annotations

import re

import pytest

from toolwire.events import CallFinished, CallStarted, ToolCall
from toolwire.parser import parse_stream
from toolwire.providers.tooldefs import (
    ToolNameMap,
    gemini_schema,
    spec_from_definition,
    to_anthropic_tool,
    to_gemini_declaration,
    to_openai_tool,
)
from toolwire.spec import ToolSpec

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "City name"}},
    "required": ["city"],
}
SPEC = ToolSpec("get_weather", SCHEMA, "Weather now")


def test_one_spec_three_shapes_and_back() -> None:
    openai = to_openai_tool(SPEC)
    assert openai == {
        "type": "function",
        "function": {"name": "get_weather", "description": "Weather now", "parameters": SCHEMA},
    }
    assert to_openai_tool(SPEC, strict=True)["function"]["strict"] is True
    anthropic = to_anthropic_tool(SPEC)
    assert anthropic == {
        "name": "get_weather",
        "description": "Weather now",
        "input_schema": SCHEMA,
    }
    gemini = to_gemini_declaration(SPEC)
    assert gemini.value == {
        "name": "get_weather",
        "description": "Weather now",
        "parameters": SCHEMA,
    }
    assert gemini.lossy == ()
    as_json = to_gemini_declaration(SPEC, json_schema=True).value
    assert as_json["parametersJsonSchema"] == SCHEMA
    for definition in (openai, anthropic, gemini.value, as_json):
        assert spec_from_definition(definition) == SPEC


def test_parameterless_tools() -> None:
    bare = ToolSpec("now", {"type": "object"})
    # OpenAI rejects an object schema without properties (MCP tools send that)
    assert to_openai_tool(bare)["function"]["parameters"] == {"type": "object", "properties": {}}
    assert to_anthropic_tool(bare)["input_schema"]["properties"] == {}
    assert "parameters" not in to_gemini_declaration(bare).value  # Gemini: omit, not empty


def test_gemini_schema_rewrites_and_reports() -> None:
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "mode": {"const": "fast"},
            "unit": {"oneOf": [{"const": "c"}, {"const": "f"}]},
            "note": {"type": ["string", "null"]},
            "when": {"type": "string", "format": "date-time"},
            "site": {"type": "string", "format": "uri"},
            "loc": {"$ref": "#/$defs/Loc"},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "pick": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "n": {"type": "integer", "enum": [1, 2], "exclusiveMinimum": 0},
            "both": {
                "allOf": [
                    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "number"}}},
                ]
            },
        },
        "required": ["mode", "ghost"],
        "$defs": {"Loc": {"type": "object", "properties": {"lat": {"type": "number"}}}},
    }
    out = gemini_schema(schema)
    props = out.value["properties"]
    assert "$schema" not in out.value and "additionalProperties" not in out.value
    assert props["mode"] == {"type": "string", "enum": ["fast"]}
    assert props["unit"] == {"type": "string", "enum": ["c", "f"]}
    assert props["note"] == {"type": "string", "nullable": True}
    assert props["when"] == {"type": "string", "format": "date-time"}
    assert props["site"] == {"type": "string"}
    assert props["loc"] == {"type": "object", "properties": {"lat": {"type": "number"}}}
    assert props["either"] == {"nullable": True, "anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["pick"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["n"] == {"type": "integer", "minimum": 0}
    assert props["both"] == {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "number"}},
        "required": ["a"],
    }
    assert out.value["required"] == ["mode"]
    lossy = " | ".join(out.lossy)
    for reported in (
        "additionalProperties was dropped at $",
        "format 'uri' was dropped at $.site",
        "oneOf was relaxed to anyOf",
        "$.pick",
        "non-string values was dropped",
        "exclusiveMinimum was relaxed",
        "required names without a property",
    ):
        assert reported in lossy
    assert "$.unit" not in lossy  # constants merged into an enum lose nothing
    assert "$schema" not in lossy  # metadata, nothing lost


def test_gemini_recursive_and_unknown_refs_are_reported() -> None:
    schema = {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/Node"}, "x": {"$ref": "#/nowhere"}},
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            }
        },
    }
    out = gemini_schema(schema)
    children = out.value["properties"]["tree"]["properties"]["children"]
    assert children["items"] == {"type": "object"}
    assert any("recursive $ref" in n for n in out.lossy)
    assert any("unresolvable $ref" in n for n in out.lossy)
    declaration = to_gemini_declaration(ToolSpec("t", schema))
    assert all(note.startswith("t: ") for note in declaration.lossy)


def test_long_and_odd_names_are_shortened_deterministically() -> None:
    long = "mcp__filesystem__" + "read_multiple_files_with_metadata_" * 3
    names = ToolNameMap([long, "read_file", "a.b/c"], "openai")
    wire = names.wire(long)
    assert len(wire) <= 64 and re.fullmatch(r"[a-zA-Z0-9_-]+", wire)
    assert wire == ToolNameMap([long], "openai").wire(long)  # same name, same wire name
    assert names.wire("read_file") == "read_file"
    assert re.fullmatch(r"a_b_c_[0-9a-f]{8}", names.wire("a.b/c"))
    assert names.original(wire) == long and names.original("unknown") == "unknown"
    assert set(names.changed) == {long, "a.b/c"}
    # Anthropic allows 128 characters: the same name fits there
    assert ToolNameMap([long], "anthropic").wire(long) == long
    gemini = ToolNameMap(["9lives", "a.b:c"], "gemini")
    assert gemini.wire("a.b:c") == "a.b:c" and gemini.wire("9lives").startswith("_9lives_")


def test_names_never_collide() -> None:
    a = "x" * 70
    b = "x" * 70 + "y"
    names = ToolNameMap([a, b, "a.b", "a_b"], "openai")
    wires = [names.wire(n) for n in (a, b, "a.b", "a_b")]
    assert len(set(wires)) == 4
    assert names.wire("a_b") == "a_b"  # an already-valid name keeps itself


def test_calls_come_back_under_the_original_name() -> None:
    long = "mcp__github__" + "create_or_update_file_contents_" * 3
    spec = ToolSpec(long, SCHEMA)
    names = ToolNameMap.for_specs([spec], "openai")
    wire = names.wire(long)
    stream = (
        'data: {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", '
        f'"function": {{"name": "{wire}", "arguments": "{{\\"city\\": \\"Oslo\\"}}"}}}}]}}}}]}}\n\n'
        'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}\n\n'
        "data: [DONE]\n\n"
    )
    result = parse_stream(stream, "openai-chat", names.wire_specs([spec]))
    assert result.calls[0].status == "complete"  # validated under the wire name
    restored = names.restore(CallFinished(result.calls[0]))
    assert isinstance(restored, CallFinished)
    assert restored.call.name == long
    assert names.restore(CallStarted(0, "c1", wire)) == CallStarted(0, "c1", long)
    plain = CallFinished(ToolCall("c", "other", {}, "{}", "complete"))
    assert names.restore(plain) is plain


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_shortened_names_are_valid_for_the_provider(provider: str) -> None:
    names = ToolNameMap(["é" * 200, "-lead", "ok"], provider)  # type: ignore[arg-type]
    for original in ("é" * 200, "-lead", "ok"):
        assert names._fits(names.wire(original))
