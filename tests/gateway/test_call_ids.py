"""Call ids in each client's shape, mapped back to the upstream's when the results
return, with no state kept between requests (G4: ids kept and mapped back)."""

from __future__ import annotations

from typing import Any

import anthropic
import openai
import orjson
import pytest
from gateway.serving import KEY, GatewayServer
from upstream import DONE, WEATHER_SCHEMA, Script, ScriptedUpstream, chat_chunk, usage_chunk

from toolwire.events import CallFinished, ToolCall
from toolwire.gateway import CallDelivery
from toolwire.gateway.callids import client_call_id, restore_upstream_ids, upstream_call_id
from toolwire.providers.tooldefs import ToolNameMap

pytestmark = pytest.mark.gateway

LONG_NAME = "mcp__a_very_long_server_name_for_testing__" + "fetch_the_weather_forecast_now"
ANTHROPIC_TOOLS: list[Any] = [
    {"name": "get_weather", "input_schema": WEATHER_SCHEMA},
    {"name": LONG_NAME, "input_schema": WEATHER_SCHEMA},
]
OPENAI_TOOLS: list[Any] = [
    {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
]


def two_calls(ids: tuple[str, str], names: tuple[str, str]) -> Script:
    """Two parallel calls in one answer, with the ids and names given."""
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    for index, (call_id, name) in enumerate(zip(ids, names, strict=True)):
        head = {"index": index, "id": call_id, "type": "function"}
        args = orjson.dumps({"city": f"C{index}"}).decode()
        chunks.append(
            chat_chunk({"tool_calls": [{**head, "function": {"name": name, "arguments": args}}]})
        )
    return Script([*chunks, chat_chunk({}, "tool_calls"), usage_chunk(10, 5), DONE])


@pytest.fixture(scope="module", autouse=True)
def scripts(upstream: ScriptedUpstream) -> None:
    wire = ToolNameMap([LONG_NAME], "openai").wire(LONG_NAME)
    assert wire != LONG_NAME  # over OpenAI's 64 characters: shortened upstream
    upstream.scripts["long-name"] = two_calls(
        ("chatcmpl-tool-1", "x7Yz2AbC9"), ("get_weather", wire)
    )


def anthropic_client(gateway: GatewayServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)


def openai_client(gateway: GatewayServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)


def test_ids_round_trip_through_the_client_shape() -> None:
    for upstream_id in ("call_1", "chatcmpl-tool-9f", "x7Yz2AbC9", "toolu_01A", "ü/+="):
        for front in ("anthropic", "openai-chat", "openai-responses"):
            made = client_call_id(upstream_id, front, "req-1")
            assert made is not None
            assert made.startswith("toolu_" if front == "anthropic" else "call_")
            assert made.replace("-", "").replace("_", "").isalnum()
            assert upstream_call_id(made) == upstream_id
    assert client_call_id("call_1", "anthropic", "a") != client_call_id("call_1", "anthropic", "b")
    assert upstream_call_id("toolu_01A09q90qw90lq917835lq9") is None  # not one of ours
    made = client_call_id("call_1", "anthropic", "a")
    assert made is not None
    assert upstream_call_id(made[:-1] + ("x" if made[-1] != "x" else "y")) is None  # tampered


def test_g4_ids_that_would_collide_upstream_keep_their_client_ids() -> None:
    first = client_call_id("call_0", "anthropic", "turn-1")
    second = client_call_id("call_0", "anthropic", "turn-2")
    body: dict[str, Any] = {
        "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": first}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": second}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": second}]},
        ]
    }
    assert restore_upstream_ids(body, "anthropic") == 0
    assert body["messages"][2]["content"][0]["id"] == second


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_g4_anthropic_client_gets_toolu_ids_and_they_map_back(
    gateway: GatewayServer, upstream: ScriptedUpstream, stream: bool
) -> None:
    client = anthropic_client(gateway)
    request: dict[str, Any] = {
        "model": "long-name",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": ANTHROPIC_TOOLS,
    }
    if stream:
        with client.messages.stream(**request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(**request)
    uses = [b for b in message.content if b.type == "tool_use"]
    assert [u.name for u in uses] == ["get_weather", LONG_NAME]  # the declared name restored
    assert all(u.id.startswith("toolu_") for u in uses)
    assert len({u.id for u in uses}) == 2
    history: list[Any] = [
        *request["messages"],
        {"role": "assistant", "content": [u.model_dump() for u in uses]},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": u.id, "content": "sunny"} for u in uses
            ],
        },
    ]
    client.messages.create(**{**request, "model": "text", "messages": history})
    sent = upstream.requests[-1].body["messages"]
    wire = ToolNameMap([LONG_NAME], "openai").wire(LONG_NAME)
    calls = [(c["id"], c["function"]["name"]) for c in sent[1]["tool_calls"]]
    assert calls == [("chatcmpl-tool-1", "get_weather"), ("x7Yz2AbC9", wire)]
    assert [m["tool_call_id"] for m in sent[2:]] == ["chatcmpl-tool-1", "x7Yz2AbC9"]


def test_g4_an_upstream_reusing_ids_across_turns_gives_unique_ids_and_keeps_every_reply(
    gateway: GatewayServer, upstream: ScriptedUpstream
) -> None:
    """The scripted upstream names every call ``call_1``, turn after turn."""
    client = openai_client(gateway)
    messages: list[Any] = [{"role": "user", "content": "weather?"}]
    ids = []
    for _ in range(2):
        done = client.chat.completions.create(
            model="python-dict", messages=messages, tools=OPENAI_TOOLS
        )
        (call,) = done.choices[0].message.tool_calls or []
        assert call.id.startswith("call_")
        ids.append(call.id)
        messages += [
            done.choices[0].message.model_dump(exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": "ok"},
        ]
    assert ids[0] != ids[1]
    client.chat.completions.create(model="text", messages=messages, tools=OPENAI_TOOLS)
    sent = upstream.requests[-1].body["messages"]
    # both would be call_1 upstream: each keeps its own id, and its reply
    assert [m["tool_calls"][0]["id"] for m in sent if m.get("tool_calls")] == ids
    assert [m["tool_call_id"] for m in sent if m["role"] == "tool"] == ids


def test_calls_without_an_id_or_with_a_repeated_one_get_fresh_unique_ids() -> None:
    delivery = CallDelivery(arguments_are_objects=True, front="anthropic", salt="r")
    out = [
        delivery(CallFinished(ToolCall(call_id, "f", {}, "{}", "complete", slot=slot)))
        for slot, call_id in enumerate(["call_0", "call_0", None])
    ]
    ids = [event.call.id for event in out if isinstance(event, CallFinished)]
    assert len(set(ids)) == 3
    assert all(i is not None and i.startswith("toolu_") for i in ids)
    assert upstream_call_id(str(ids[0])) == "call_0"
    assert upstream_call_id(str(ids[1])) is None  # fresh: goes back unchanged
