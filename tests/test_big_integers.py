"""An integer beyond 64 bits in a call's arguments is kept exactly, and nothing that
writes the call as JSON again -- a text-format extractor, the encoders, the engine's
record, the audit sinks, a request translated for another provider and the client
that sends it -- fails on it or turns it into a float (orjson refuses such integers
when writing and reads them as floats; F30: a value is never changed silently)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from toolwire.audit import JSONLSink, MemorySink
from toolwire.audit.redact import canonical_json
from toolwire.client import ModelClient
from toolwire.encoders import encode_events
from toolwire.engine import ToolEngine
from toolwire.events import StreamResult
from toolwire.parser import StreamParser
from toolwire.providers.requests import openai_to_anthropic
from toolwire.tools import tool

BIG = 123456789012345678901234567890
TOOLS = [{"name": "f", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]


PYTHON_QUOTED = f"{{'arguments': {BIG}, 'name': 'f'}}"


@pytest.mark.parametrize(
    ("family", "text", "raw"),
    [
        ("hermes", f'<tool_call>{{"arguments": {BIG}, "name": "f"}}</tool_call>', str(BIG)),
        # read by the repair ladder: the call object as sent is its raw text
        ("hermes", f"<tool_call>{PYTHON_QUOTED}</tool_call>", PYTHON_QUOTED),
        ("llama3_json", f'{{"parameters": {BIG}, "name": "f"}}', str(BIG)),
    ],
)
def test_json_call_whose_arguments_are_a_big_integer_is_invalid_not_a_failure(
    family: str, text: str, raw: str
) -> None:
    parser = StreamParser(f"text:{family}", TOOLS)
    result = StreamResult.collect([*parser.feed(text.encode()), *parser.close()])
    assert not result.errors, result.errors
    (call,) = result.calls
    assert (call.name, call.status, call.raw_arguments) == ("f", "invalid", raw)


def _openai_events() -> list[Any]:
    call = {"index": 0, "id": "c1", "type": "function"}
    call["function"] = {"name": "f", "arguments": json.dumps({"n": BIG})}
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    wire = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
    parser = StreamParser("openai-chat", TOOLS)
    return [*parser.feed(wire.encode()), *parser.close()]


@pytest.mark.parametrize("whole", [False, True])
@pytest.mark.parametrize(
    "fmt", ["openai-chat", "openai-responses", "anthropic", "gemini", "ollama"]
)
def test_encoders_write_a_big_integer_exactly(fmt: str, whole: bool) -> None:
    events = _openai_events()
    (call,) = StreamResult.collect(events).calls
    assert (call.status, call.arguments) == ("complete", {"n": BIG})
    assert str(BIG) in encode_events(events, fmt, whole=whole)


def test_audit_writes_a_big_integer_exactly(tmp_path: Path) -> None:
    assert canonical_json({"n": BIG, "a": 1}) == f'{{"a":1,"n":{BIG}}}'.encode()

    @tool
    def echo(n: int) -> str:
        return "ok"

    memory = MemorySink()
    path = tmp_path / "audit.jsonl"
    lines = JSONLSink(path)
    engine = ToolEngine([echo], sinks=[memory, lines], store_arguments=True)
    result = anyio.run(engine.call, "echo", json.dumps({"n": BIG}))
    lines.close()
    assert result.status == "ok", result
    (record,) = memory.records
    assert record.arguments is not None and json.loads(record.arguments) == {"n": BIG}
    assert json.loads(path.read_text())["arguments"] == record.arguments


def _openai_history(arguments: str) -> dict[str, Any]:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    return {
        "model": "m",
        "max_tokens": 10,
        "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
    }


def test_a_request_translated_keeps_a_big_integer_and_names_a_repeated_key() -> None:
    translated = openai_to_anthropic(_openai_history(json.dumps({"n": BIG})))
    (block,) = translated.request["messages"][1]["content"]
    assert block["input"] == {"n": BIG} and type(block["input"]["n"]) is int
    assert not translated.lossy
    repeated = openai_to_anthropic(_openai_history('{"n": 1, "n": 2}'))
    assert repeated.request["messages"][1]["content"][0]["input"] == {"n": 2}
    assert any("duplicate_key" in note for note in repeated.lossy), repeated.lossy


def test_the_model_client_sends_a_big_integer_exactly() -> None:
    sent: list[bytes] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request.content)
        return httpx.Response(200, json={"type": "message", "content": []})

    async def send() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as http:
            client = ModelClient("anthropic", "http://upstream.test/v1/messages", http=http)
            body = _openai_history(json.dumps({"n": BIG}))
            response = await client.open(client.prepare(body, "openai-chat", stream=False))
            await response.aclose()

    anyio.run(send)
    (content,) = sent
    assert f'"n":{BIG}' in content.decode()
