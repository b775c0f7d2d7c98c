"""Fuzzing the request and tool-definition translators (issue 11).

Valid Anthropic and OpenAI requests and tool definitions, mutated structurally (a field
of another type, deleted or moved, a lone surrogate in a string), and arbitrary JSON
under the fields the translators read. A translator either returns a translation whose
JSON text encodes as UTF-8, or raises ``RequestTranslationError`` naming a field; any
other exception is a failure. Each test runs 300 examples (hypothesis), a few seconds
(``TOOLWIRE_FUZZ_SCALE`` multiplies them).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wirefuzz import LONE_SURROGATES, SCALE, mutate_messages

from toolwire.jsontext import dumps
from toolwire.providers.native_requests import (
    openai_to_gemini,
    openai_to_ollama,
    openai_to_responses,
)
from toolwire.providers.requests import (
    RequestTranslationError,
    anthropic_to_openai,
    openai_to_anthropic,
)
from toolwire.providers.responses_request import responses_to_openai
from toolwire.providers.tooldefs import (
    gemini_schema,
    spec_from_definition,
    to_anthropic_tool,
    to_gemini_declaration,
    to_openai_tool,
)

FUZZ = settings(
    max_examples=int(300 * SCALE),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {"unit": {"type": "string", "enum": ["c", "f"]}},
    "properties": {
        "city": {"type": "string", "description": "City", "minLength": 1},
        "unit": {"$ref": "#/$defs/unit"},
        "days": {"type": ["integer", "null"], "exclusiveMinimum": 0},
        "tags": {"type": "array", "items": [{"type": "string"}]},
        "mode": {"oneOf": [{"const": "a"}, {"const": "b"}]},
        "extra": {"allOf": [{"properties": {"x": {"type": "number"}}, "required": ["x"]}]},
    },
    "required": ["city", "nope"],
    "additionalProperties": False,
}


def anthropic_request() -> dict[str, Any]:
    return {
        "model": "claude",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "x"}}],
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "s"},
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "get_weather",
                        "input": {"city": "Oslo"},
                    },
                    {
                        "type": "tool_use",
                        "id": "t2",
                        "name": "get.weather",
                        "input": {"city": "Bern"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "content": "12C"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "is_error": True,
                        "content": [
                            {"type": "text", "text": "failed"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": "iVBO",
                                },
                            },
                        ],
                    },
                    {"type": "text", "text": "And tomorrow?"},
                    {"type": "image", "source": {"type": "url", "url": "https://x/y.png"}},
                    {
                        "type": "document",
                        "title": "a.pdf",
                        "source": {
                            "type": "base64",
                            "media_type": "application/pdf",
                            "data": "JVBE",
                        },
                    },
                ],
            },
        ],
        "tools": [
            {"name": "get_weather", "description": "Weather", "input_schema": SCHEMA},
            {"name": "get.weather", "input_schema": {"type": "object"}},
            {"type": "web_search_20250305", "name": "web_search"},
        ],
        "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": True},
        "stop_sequences": ["END", "STOP", "a", "b", "c"],
        "temperature": 0.5,
        "top_k": 5,
        "metadata": {"user_id": "u1"},
        "thinking": {"type": "enabled", "budget_tokens": 2048},
        "output_config": {"effort": "max", "format": {}},
        "stream": True,
    }


def openai_request() -> dict[str, Any]:
    return {
        "model": "gpt",
        "max_completion_tokens": 512,
        "messages": [
            {"role": "system", "content": "Be brief."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "Weather?"},
                    {
                        "type": "image_url",
                        "image_url": {"url": "data:image/png;base64,iVBO", "detail": "high"},
                    },
                    {
                        "type": "file",
                        "file": {
                            "file_data": "data:application/pdf;base64,JVBE",
                            "filename": "a.pdf",
                        },
                    },
                    {"type": "input_audio", "input_audio": {}},
                ],
            },
            {
                "role": "assistant",
                "content": "Checking.",
                "reasoning_content": "hm",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": "{'city': 'Bern',}"},
                    },
                ],
                "function_call": {"name": "legacy", "arguments": "{}"},
            },
            {"role": "tool", "tool_call_id": "c2", "content": [{"type": "text", "text": "12C"}]},
            {"role": "tool", "tool_call_id": "c1", "content": "10C"},
            {"role": "developer", "content": [{"type": "text", "text": "Late system."}]},
            {"role": "function", "name": "legacy", "content": "x"},
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "Weather",
                    "parameters": SCHEMA,
                    "strict": True,
                },
            },
            {"type": "custom", "custom": {"name": "raw"}},
        ],
        "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
        "parallel_tool_calls": False,
        "stop": ["END"],
        "temperature": 1.5,
        "top_p": 0.9,
        "reasoning_effort": "low",
        "user": "u1",
        "metadata": {"a": "b"},
        "stream": True,
        "stream_options": {"include_usage": True},
        "logprobs": True,
    }


TOOL_DEFINITIONS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}},
    {"name": "get_weather", "description": "Weather", "input_schema": SCHEMA},
    {"name": "get_weather", "parametersJsonSchema": SCHEMA},
    {"name": "get_weather", "inputSchema": SCHEMA},
]

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=8)
    | st.sampled_from(LONE_SURROGATES),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def responses_request() -> dict[str, Any]:
    """A Responses request as Codex CLI sends it (issue 12)."""
    return {
        "model": "gpt",
        "instructions": "be brief",
        "input": [
            {"type": "message", "role": "developer",
             "content": [{"type": "input_text", "text": "d"}]},
            {"role": "user", "content": [{"type": "input_text", "text": "hi"},
                                         {"type": "input_image", "image_url": "data:x"}]},
            {"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "e"},
            {"type": "function_call", "call_id": "c1", "name": "get_weather",
             "arguments": '{"city": "Lima"}'},
            {"type": "function_call", "call_id": "c2", "name": "read",
             "namespace": "mcp__fs__", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
            {"type": "function_call_output", "call_id": "c2",
             "output": [{"type": "input_text", "text": "x"}]},
        ],
        "tools": [
            {"type": "function", "name": "get_weather", "parameters": SCHEMA},
            {"type": "namespace", "name": "mcp__fs__", "description": "fs",
             "tools": [{"type": "function", "name": "read", "parameters": SCHEMA}]},
            {"type": "web_search"},
        ],
        "tool_choice": {"type": "function", "name": "get_weather"},
        "parallel_tool_calls": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "reasoning": {"effort": "low", "summary": "auto"},
        "text": {"format": {"type": "json_schema", "name": "w", "schema": SCHEMA}},
        "max_output_tokens": 100,
        "stream": True,
    }  # fmt: skip


def mutated(seed: Callable[[], dict[str, Any]]) -> st.SearchStrategy[Any]:
    """``seed()`` after one to four structural mutations."""

    def build(rng: random.Random, rounds: int) -> Any:
        value: list[Any] = [seed()]
        for _ in range(rounds):
            value = mutate_messages(rng, value)
        return value[0] if value else {}

    return st.builds(build, st.randoms(use_true_random=False), st.integers(1, 4))


def arbitrary(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Any JSON under the keys a translator reads."""
    return st.dictionaries(st.sampled_from(keys), JSON, max_size=len(keys))


ANTHROPIC_KEYS = [*anthropic_request(), "messages"]
OPENAI_KEYS = [*openai_request(), "functions"]
RESPONSES_KEYS = [*responses_request(), "previous_response_id"]


def translates_or_names_a_field(translate: Callable[[Any], Any], body: Any) -> None:
    try:
        result = translate(body)
    except RequestTranslationError as exc:
        assert exc.path, exc
        assert str(exc).startswith(exc.path), exc
        return
    value = getattr(result, "request", getattr(result, "value", result))
    dumps(value).encode()  # JSON text of it is UTF-8: lone surrogates are escaped


def test_the_seeds_translate_cleanly() -> None:
    """The unmutated seeds are valid (so the mutations start from real requests)."""
    assert anthropic_to_openai(anthropic_request()).request["messages"]
    assert openai_to_anthropic(openai_request()).request["messages"]
    assert len(responses_to_openai(responses_request()).request["messages"]) == 6
    assert openai_to_gemini(openai_request()).request["contents"]
    assert openai_to_ollama(openai_request()).request["messages"]
    assert openai_to_responses(openai_request()).request["input"]
    for definition in TOOL_DEFINITIONS:
        assert spec_from_definition(definition).parameters == SCHEMA


@FUZZ
@given(st.one_of(mutated(anthropic_request), arbitrary(ANTHROPIC_KEYS)))
def test_anthropic_to_openai_raises_only_its_error(body: Any) -> None:
    translates_or_names_a_field(anthropic_to_openai, body)


@FUZZ
@given(st.one_of(mutated(openai_request), arbitrary(OPENAI_KEYS)))
def test_openai_to_anthropic_raises_only_its_error(body: Any) -> None:
    translates_or_names_a_field(openai_to_anthropic, body)


@FUZZ
@given(st.one_of(mutated(responses_request), arbitrary(RESPONSES_KEYS)))
def test_responses_to_openai_raises_only_its_error(body: Any) -> None:
    translates_or_names_a_field(responses_to_openai, body)


def every_native_translation(body: Any) -> None:
    for translate in (openai_to_ollama, openai_to_gemini, openai_to_responses):
        translates_or_names_a_field(translate, body)


@FUZZ
@given(st.one_of(mutated(openai_request), arbitrary(OPENAI_KEYS)))
def test_chat_to_ollama_gemini_and_responses_raise_only_their_error(body: Any) -> None:
    every_native_translation(body)


def every_tool_translation(definition: Any) -> None:
    spec = spec_from_definition(definition)
    to_openai_tool(spec)
    to_anthropic_tool(spec)
    to_gemini_declaration(spec)
    to_gemini_declaration(spec, json_schema=True)


@FUZZ
@given(st.one_of(*(mutated(lambda d=d: dict(d)) for d in TOOL_DEFINITIONS)))
def test_tool_definitions_translate_or_name_a_field(definition: Any) -> None:
    translates_or_names_a_field(every_tool_translation, definition)


@FUZZ
@given(st.one_of(mutated(lambda: dict(SCHEMA)), JSON))
def test_gemini_schema_translates_or_names_a_field(schema: Any) -> None:
    translates_or_names_a_field(gemini_schema, schema)


@pytest.mark.parametrize(
    ("translate", "body", "path"),
    [
        (anthropic_to_openai, {"messages": 5}, "messages"),
        (anthropic_to_openai, {"stop_sequences": 5}, "stop_sequences"),
        (openai_to_anthropic, {"messages": 5}, "messages"),
        (openai_to_gemini, {"messages": 5}, "messages"),
        (openai_to_ollama, {"messages": [{"role": 5}]}, "messages[0].role"),
        (
            openai_to_responses,
            {"tools": [{"type": "function", "function": 3}]},
            "tools[0].function",
        ),
        (openai_to_anthropic, {"stop": 5}, "stop"),
        (
            openai_to_anthropic,
            {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": ["x"]}]}]},
            "messages[0].tool_calls[0].function",
        ),
    ],
)
def test_wrong_typed_request_fields_name_the_field(
    translate: Callable[[Any], Any], body: dict[str, Any], path: str
) -> None:
    """Issue 11's examples: each raised a TypeError or AttributeError before."""
    with pytest.raises(RequestTranslationError) as caught:
        translate(body)
    assert caught.value.path == path


def test_a_null_required_list_in_an_all_of_part_is_read() -> None:
    """Found by the fuzzer (len(None) raised): an empty ``required`` is no required."""
    schema = {"allOf": [{"properties": {"x": {"type": "number"}}, "required": None}]}
    assert gemini_schema(schema).value["properties"] == {"x": {"type": "number"}}


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "input": [{"type": ["message"], "role": "user", "content": "hi"}]},
        {"model": "m", "input": [{"role": "user", "content": [{"type": {"a": 1}, "text": "x"}]}]},
        {"model": "m", "input": "hi", "tools": [{"type": ["function"], "name": "f"}]},
    ],
)
def test_responses_item_types_of_the_wrong_type_name_the_field(body: dict[str, Any]) -> None:
    """A ``type`` that is not a string raised TypeError (unhashable list) in the
    Responses translator; it is the documented error, naming the field."""
    with pytest.raises(RequestTranslationError, match=r"\.type"):
        responses_to_openai(body)
