"""``POST /v1/responses`` (what Codex CLI speaks) with the real ``openai`` SDK in front of
the scripted upstream (OpenAI Chat Completions): every recorded stream, streamed and
not, and the request shapes Codex sends (G7)."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from gateway.serving import KEY, GatewayServer
from upstream import WEATHER_SCHEMA, Script, ScriptedUpstream, call_stream

pytestmark = pytest.mark.gateway

TOOLS: list[Any] = [{"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA}]
# script → the call the client must get (None: no call, the output was cut)
EXPECTED: dict[str, dict[str, Any] | None] = {
    "f32-llama-cpp": {"city": "Paris", "unit": "celsius"},  # F32
    "python-dict": {"city": "Lima", "days": 2},
    "f34-body": {"city": "Oslo", "days": 3},  # F34
    "f35-fenced": {"city": "Rome"},  # F35
    "f33-cut-off": None,  # F33
}
# what Codex CLI sends besides its function tools
CODEX_FIELDS: dict[str, Any] = {
    "instructions": "You are a coding agent.",
    "parallel_tool_calls": True,
    "store": False,
    "include": ["reasoning.encrypted_content"],
    "reasoning": {"effort": "medium", "summary": "auto"},
    "prompt_cache_key": "5e0c1f3a",
}
NAMESPACE_TOOL = {
    "type": "namespace",
    "name": "mcp__files__",
    "description": "Tools in the mcp__files__ namespace.",
    "tools": [
        {
            "type": "function",
            "name": "read",
            "description": "Read a file.",
            "strict": False,
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ],
}
WEB_SEARCH_TOOL = {"type": "web_search", "external_web_access": False}


def client(gateway: GatewayServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)


def ask(gateway: GatewayServer, model: str, stream: bool, **extra: Any) -> Any:
    """The finished ``Response`` as the SDK built it (from the stream's events, or the
    whole body)."""
    request: dict[str, Any] = {"model": model, "input": "weather?", "tools": TOOLS, **extra}
    if not stream:
        return client(gateway).responses.create(**request)
    final = None
    for event in client(gateway).responses.create(**request, stream=True):
        if event.type in ("response.completed", "response.incomplete", "response.failed"):
            final = event.response
    return final


def calls(response: Any) -> list[tuple[str, Any]]:
    return [
        (item.name, json.loads(item.arguments))
        for item in response.output
        if item.type == "function_call"
    ]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
@pytest.mark.parametrize("model", list(EXPECTED))
def test_responses_client_gets_the_repaired_call_or_none(
    gateway: GatewayServer, model: str, stream: bool
) -> None:
    response = ask(gateway, model, stream)
    expected = EXPECTED[model]
    if expected is None:  # F33: cut off: no call; the response says it was cut
        assert calls(response) == []
        assert response.status == "incomplete"
        assert response.incomplete_details.reason == "max_output_tokens"
    else:
        assert calls(response) == [("get_weather", expected)]
        assert response.status == "completed"
        assert response.output[-1].call_id.startswith("call_")


def test_responses_stream_helper_reads_a_call(gateway: GatewayServer) -> None:
    with client(gateway).responses.stream(
        model="python-dict", input="weather?", tools=TOOLS
    ) as events:
        done = [e.arguments for e in events if e.type == "response.function_call_arguments.done"]
        final = events.get_final_response()
    assert [json.loads(text) for text in done] == [{"city": "Lima", "days": 2}]
    assert calls(final) == [("get_weather", {"city": "Lima", "days": 2})]


def test_responses_text_streams_through(gateway: GatewayServer) -> None:
    deltas = [
        event.delta
        for event in client(gateway).responses.create(model="text", input="hi", stream=True)
        if event.type == "response.output_text.delta"
    ]
    assert "".join(deltas) == "Hello, world."
    whole = client(gateway).responses.create(model="text", input="hi")
    assert whole.output_text == "Hello, world."


def test_g7_codex_request_shape_is_accepted_and_translated(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    """G7: parallel_tool_calls, store: false, include, reasoning, a namespace tool and
    web_search, as Codex CLI sends them: accepted; web_search dropped on purpose."""
    response = ask(
        gateway,
        "text",
        stream=True,
        tools=[*TOOLS, NAMESPACE_TOOL, WEB_SEARCH_TOOL],
        **CODEX_FIELDS,
    )
    assert response.status == "completed"
    sent = upstream.requests[-1].body
    assert [t["function"]["name"] for t in sent["tools"]] == ["get_weather", "mcp__files__read"]
    assert sent["parallel_tool_calls"] is True
    assert sent["messages"][0] == {"role": "system", "content": "You are a coding agent."}
    assert sent["reasoning_effort"] == "medium"
    for dropped in ("store", "include", "input", "instructions", "prompt_cache_key"):
        assert dropped not in sent


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_a_namespaced_call_goes_back_under_its_namespace(
    gateway: GatewayServer, upstream: ScriptedUpstream, stream: bool
) -> None:
    upstream.scripts["namespaced"] = Script(
        call_stream("mcp__files__read", ['{"path": ', '"a.txt"}'], "tool_calls")
    )
    response = ask(gateway, "namespaced", stream, tools=[NAMESPACE_TOOL], **CODEX_FIELDS)
    (item,) = [i for i in response.output if i.type == "function_call"]
    assert (item.name, getattr(item, "namespace", None)) == ("read", "mcp__files__")
    assert json.loads(item.arguments) == {"path": "a.txt"}


def test_tool_results_return_as_chat_tool_messages(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    history: list[Any] = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "d"}]},
        {"role": "user", "content": [{"type": "input_text", "text": "weather?"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "call_id": "call_a", "name": "get_weather",
         "arguments": '{"city": "Lima"}'},
        {"type": "function_call", "call_id": "call_b", "name": "read",
         "namespace": "mcp__files__", "arguments": '{"path": "x"}'},
        {"type": "function_call_output", "call_id": "call_a", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_b",
         "output": [{"type": "input_text", "text": "contents"}]},
    ]  # fmt: skip
    response = client(gateway).responses.create(
        model="text", input=history, tools=[*TOOLS, NAMESPACE_TOOL], **CODEX_FIELDS
    )
    assert response.output_text == "Hello, world."
    messages = upstream.requests[-1].body["messages"]
    roles = [m["role"] for m in messages]
    assert roles == ["system", "system", "user", "assistant", "tool", "tool"]
    names = [c["function"]["name"] for c in messages[3]["tool_calls"]]
    assert names == ["get_weather", "mcp__files__read"]
    assert [(m["tool_call_id"], m["content"]) for m in messages[4:]] == [
        ("call_a", "sunny"),
        ("call_b", "contents"),
    ]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"previous_response_id": "resp_1"}, "previous_response_id"),
        ({"input": [{"type": "item_reference", "id": "msg_1"}]}, "item_reference"),
        ({"input": [{"type": "function_call", "name": "x", "arguments": "{}"}]}, "call_id"),
        ({"tools": "nope"}, "tools"),
    ],
)
def test_shapes_that_cannot_be_served_are_400_in_openai_format(
    gateway: GatewayServer, extra: dict[str, Any], says: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client(gateway).responses.create(**{"model": "text", "input": "hi", **extra})
    assert says in caught.value.message
