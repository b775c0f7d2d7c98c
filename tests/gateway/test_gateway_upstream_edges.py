"""The gateway where the upstream misbehaves or says more than usual: an upstream that
echoes its key, Anthropic thinking signatures, clients that leave a whole (non-streamed)
answer, a complete call followed by a cut one, drops mid-answer, the request's
translation notes and the model list. Real loopback servers on both sides."""

from __future__ import annotations

import json
import logging
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest
from gateway.serving import KEY, GatewayServer
from upstream import DONE, PLAIN_TEXT, WEATHER_SCHEMA, Script, ScriptedUpstream, chat_chunk

from toolwire.audit import MemorySink
from toolwire.client import ClientTimeouts, RetryPolicy
from toolwire.gateway import GatewayConfig
from toolwire.gateway.config import ModelRoute
from toolwire.replay import WireCall, call_stream, gemini_compat_answer, text_stream
from toolwire.replay.wires import anthropic_events

pytestmark = pytest.mark.gateway

UPSTREAM_KEY = "token-abc123"  # of no known key shape: only the literal key finds it
KEY_ENV = "TOOLWIRE_TEST_EDGES_UPSTREAM_KEY"
ANTHROPIC_HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
SIGNATURE = "EqQBCkYIBxgCKkDsignature+/="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmK"


def signed_thinking_then_call() -> list[dict[str, Any]]:
    """An Anthropic answer with a signed thinking block, then a ``tool_use``."""
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "m",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": "", "signature": ""},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "I should call it."},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "signature_delta", "signature": SIGNATURE},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_01A", "name": "get_weather"},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'},
        },
        {"type": "content_block_stop", "index": 1},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 20},
        },
        {"type": "message_stop"},
    ]


def redacted_then_signed_then_call() -> list[dict[str, Any]]:
    """The same answer with a ``redacted_thinking`` block first: it comes whole in its
    ``content_block_start``, with no deltas."""
    events = signed_thinking_then_call()
    for event in events:
        if isinstance(event.get("index"), int):
            event["index"] += 1
    redacted = [
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "redacted_thinking", "data": REDACTED},
        },
        {"type": "content_block_stop", "index": 0},
    ]
    return [events[0], *redacted, *events[1:]]


def signed_body(*first: dict[str, Any]) -> bytes:
    """The same answer as a whole ``message`` (what a request without stream gets),
    after the blocks ``first``."""
    return json.dumps(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [
                *first,
                {"type": "thinking", "thinking": "I should call it.", "signature": SIGNATURE},
                {
                    "type": "tool_use",
                    "id": "toolu_01A",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                },
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 20},
        }
    ).encode()


# a complete call in slot 0, then a second call cut off by the output limit
CALL_THEN_CUT = [
    *call_stream("get_weather", ['{"city": "A"}'], None)[:-1],
    chat_chunk(
        {
            "tool_calls": [
                {
                    "index": 1,
                    "id": "c2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "B'},
                }
            ]
        }
    ),
    chat_chunk({}, "length"),
    DONE,
]

SCRIPTS: dict[str, Script] = {
    "refuses-key": Script(
        PLAIN_TEXT, always_fail=(401, None), error_message="key {key} is not valid"
    ),
    "errs-with-key": Script(
        anthropic_events(
            [
                {"type": "message_start", "message": {"usage": {"input_tokens": 3}}},
                {
                    "type": "error",
                    "error": {"type": "api_error", "message": f"bad key {UPSTREAM_KEY}"},
                },
            ]
        )
    ),
    "signed": Script(anthropic_events(signed_thinking_then_call()), body=signed_body()),
    "redacted": Script(
        anthropic_events(redacted_then_signed_then_call()),
        body=signed_body({"type": "redacted_thinking", "data": REDACTED}),
    ),
    "gemini-compat": gemini_compat_answer(
        [
            WireCall("function-call-1", "get_weather", '{"city":"Oslo"}'),
            WireCall("function-call-2", "get_weather", '{"city":"Rome"}'),
        ],
        "c2lnQQ==",
    ),
    "gemini-compat-ids": gemini_compat_answer(
        [
            WireCall("dup", "get_weather", '{"city":"Oslo"}'),
            WireCall("dup", "get_weather", '{"city":"Rome"}'),
            WireCall("function-call-" + "7" * 60, "get_weather", '{"city":"Lima"}'),
        ],
        ["SIG_A", "SIG_B", "SIG_C"],
    ),
    "slow-stream": Script(text_stream(["tick "] * 200), chunk_delay=0.05),
    "call-then-cut": Script(CALL_THEN_CUT),
    "drop-text": Script(PLAIN_TEXT, drop_after=2),
    "drop-call": Script(
        call_stream("get_weather", ['{"city": ', '"Lima"}'], "tool_calls"), drop_after=2
    ),
}


@pytest.fixture(scope="module")
def upstream() -> Iterator[ScriptedUpstream]:
    with ScriptedUpstream(SCRIPTS) as server:
        yield server


@pytest.fixture(scope="module")
def sink() -> MemorySink:
    return MemorySink()


@pytest.fixture(scope="module")
def gateway(upstream: ScriptedUpstream, sink: MemorySink) -> Iterator[GatewayServer]:
    """Chat Completions upstream for every name, and ``anthropic/<script>``: the same
    scripts behind an Anthropic-format upstream."""
    common: dict[str, Any] = {
        "upstream_url": upstream.url,
        "upstream_key_env": KEY_ENV,
        "timeouts": ClientTimeouts(read=2.0),
        "retry": RetryPolicy(attempts=1),
    }
    routes = tuple(
        ModelRoute(name=f"anthropic/{name}", upstream_format="anthropic", model=name, **common)
        for name in SCRIPTS
    )
    config = GatewayConfig(**common, api_keys=(KEY,), audit=sink, routes=routes, text_format="auto")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(KEY_ENV, UPSTREAM_KEY)
        with GatewayServer(config) as server:
            yield server


def chat(model: str, stream: bool = False, **extra: Any) -> dict[str, Any]:
    tools = [
        {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER_SCHEMA}}
    ]
    messages = [{"role": "user", "content": "weather?"}]
    return {"model": model, "stream": stream, "messages": messages, "tools": tools, **extra}


def messages(model: str, stream: bool = False, **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "stream": stream,
        "max_tokens": 2000,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
        **extra,
    }


def sse_data(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]


# -- 1. the upstream's key never reaches the client, the logs or the audit -------------


def test_an_upstream_that_echoes_its_key_does_not_pass_it_on(
    gateway: GatewayServer, upstream: ScriptedUpstream, sink: MemorySink
) -> None:
    assert os.environ.get(KEY_ENV) == UPSTREAM_KEY
    answers = [
        httpx.post(
            gateway.url + "/v1/chat/completions",
            json=chat("refuses-key"),
            headers={"x-api-key": KEY},
        ),
        httpx.post(
            gateway.url + "/v1/messages", json=messages("refuses-key"), headers=ANTHROPIC_HEADERS
        ),
        httpx.post(
            gateway.url + "/v1/responses",
            json={"model": "refuses-key", "input": "x"},
            headers={"x-api-key": KEY},
        ),
        httpx.post(
            gateway.url + "/v1/messages",
            json=messages("anthropic/errs-with-key", True),
            headers=ANTHROPIC_HEADERS,
        ),
        httpx.post(
            gateway.url + "/v1/messages",
            json=messages("anthropic/errs-with-key"),
            headers=ANTHROPIC_HEADERS,
        ),
    ]
    assert upstream.requests[0].headers["authorization"] == f"Bearer {UPSTREAM_KEY}"
    for answer in answers:
        assert UPSTREAM_KEY not in answer.text
        assert "[REDACTED]" in answer.text  # the message itself still reaches the client
    assert [a.status_code for a in answers] == [502, 502, 502, 200, 502]
    assert UPSTREAM_KEY not in repr([r.to_dict() for r in sink.records])


# -- 2. Anthropic thinking signatures pass through, both ways --------------------------


@pytest.mark.parametrize("script", ["signed", "redacted"])
@pytest.mark.parametrize("stream", [False, True])
def test_anthropic_thinking_blocks_reach_the_client_and_go_back_unchanged(
    gateway: GatewayServer, upstream: ScriptedUpstream, stream: bool, script: str
) -> None:
    """Anthropic rejects a tool-use turn sent back without its thinking blocks as it
    gave them: signed ones with their signature, redacted ones whole. The client gets
    them in order, and they go back unchanged."""
    client = anthropic.Anthropic(base_url=gateway.url, api_key=KEY, max_retries=0)
    request: dict[str, Any] = {
        "model": f"anthropic/{script}",
        "max_tokens": 2000,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "tools": [{"name": "get_weather", "input_schema": WEATHER_SCHEMA}],
    }
    history: list[Any] = [{"role": "user", "content": "weather?"}]
    if stream:
        with client.messages.stream(messages=history, **request) as events:
            message = events.get_final_message()
    else:
        message = client.messages.create(messages=history, **request)
    expected = [{"type": "thinking", "thinking": "I should call it.", "signature": SIGNATURE}]
    if script == "redacted":
        expected.insert(0, {"type": "redacted_thinking", "data": REDACTED})
    *thoughts, call = message.content
    assert [block.model_dump() for block in thoughts] == expected
    assert call.type == "tool_use" and call.input == {"city": "Oslo"}
    assert message.stop_reason == "tool_use"
    # turn 2, as Claude Code sends it: the assistant turn as received, then the result
    history += [
        {"role": "assistant", "content": [block.model_dump() for block in message.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call.id, "content": "rain"}],
        },
    ]
    client.messages.create(messages=history, **request)
    *sent, use = upstream.requests[-1].body["messages"][1]["content"]
    assert sent == expected
    assert use["id"] == "toolu_01A"  # the upstream's own id again
    assert upstream.requests[-1].body["thinking"] == request["thinking"]


def chat_client_calls(
    client: openai.OpenAI, history: list[Any], request: dict[str, Any], stream: bool
) -> list[dict[str, Any]]:
    """The calls of the answer as a Chat client sends them back (``extra_content``
    kept), read by the OpenAI SDK from the stream or the body."""
    if not stream:
        message = client.chat.completions.create(messages=history, **request).choices[0].message
        return [c.model_dump(exclude_none=True) for c in message.tool_calls or []]
    calls: dict[int, dict[str, Any]] = {}
    for chunk in client.chat.completions.create(messages=history, stream=True, **request):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            entry = calls.setdefault(delta.index, {"arguments": ""})
            entry.update(delta.model_extra or {})  # extra_content
            function = delta.function
            assert function is not None
            if delta.id:
                entry["id"], entry["name"] = delta.id, function.name
            entry["arguments"] += function.arguments or ""
    return [
        {
            "id": c["id"],
            "type": "function",
            "function": {"name": c["name"], "arguments": c["arguments"]},
            **({"extra_content": c["extra_content"]} if "extra_content" in c else {}),
        }
        for _, c in sorted(calls.items())
    ]


def signed(signature: str) -> dict[str, Any]:
    return {"google": {"thought_signature": signature}}


@pytest.mark.parametrize("stream", [False, True])
def test_a_gemini_signature_reaches_a_chat_client_and_goes_back_unchanged(
    gateway: GatewayServer, upstream: ScriptedUpstream, stream: bool
) -> None:
    """Gemini 3 refuses a call sent back without its thought signature: a Chat client
    gets it where Gemini's OpenAI-compatible API puts it, and sends it back there."""
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    request: dict[str, Any] = {"model": "gemini-compat", "tools": chat("")["tools"]}
    history: list[Any] = [{"role": "user", "content": "weather?"}]
    sent = chat_client_calls(client, history, request, stream)
    assert [c.get("extra_content") for c in sent] == [signed("c2lnQQ=="), None]
    history += [
        {"role": "assistant", "content": None, "tool_calls": sent},
        *({"role": "tool", "tool_call_id": c["id"], "content": "rain"} for c in sent),
    ]
    client.chat.completions.create(messages=history, **request)
    back = upstream.requests[-1].body["messages"][1]["tool_calls"]
    assert [c["id"] for c in back] == ["function-call-1", "function-call-2"]
    assert back[0]["extra_content"] == signed("c2lnQQ==")
    assert "extra_content" not in back[1]


@pytest.mark.parametrize("stream", [False, True])
def test_each_gemini_signature_goes_with_its_own_call_whatever_id_the_call_gets(
    gateway: GatewayServer, upstream: ScriptedUpstream, sink: MemorySink, stream: bool
) -> None:
    """Two calls under one upstream id and one whose id is too long for a client id:
    each call gets an id of its own and keeps its own signature (none goes out on
    another call, none is lost), and nothing is noted as dropped."""
    client = openai.OpenAI(base_url=gateway.url + "/v1", api_key=KEY, max_retries=0)
    request: dict[str, Any] = {"model": "gemini-compat-ids", "tools": chat("")["tools"]}
    history: list[Any] = [{"role": "user", "content": "weather?"}]
    before = len(sink.records)
    sent = chat_client_calls(client, history, request, stream)
    assert [json.loads(c["function"]["arguments"])["city"] for c in sent] == [
        "Oslo",
        "Rome",
        "Lima",
    ]
    assert len({c["id"] for c in sent}) == 3
    assert [c.get("extra_content") for c in sent] == [
        signed("SIG_A"),
        signed("SIG_B"),
        signed("SIG_C"),
    ]
    deadline = time.monotonic() + 2
    while len(sink.records) < before + 3:
        assert time.monotonic() < deadline, "no audit records"
        time.sleep(0.01)
    assert [r.extra.get("notes") for r in sink.records[before:]] == [None] * 3
    history += [
        {"role": "assistant", "content": None, "tool_calls": sent},
        *({"role": "tool", "tool_call_id": c["id"], "content": "rain"} for c in sent),
    ]
    client.chat.completions.create(messages=history, **request)
    back = upstream.requests[-1].body["messages"][1]["tool_calls"]
    assert [c.get("extra_content") for c in back] == [
        signed("SIG_A"),
        signed("SIG_B"),
        signed("SIG_C"),
    ]


def test_thinking_without_a_signature_says_so() -> None:
    """Where toolwire makes the thinking block (any other upstream) it has no signature
    to give: the field is empty, never made up, and the encoder notes it."""
    from toolwire.encoders import make_encoder
    from toolwire.events import ReasoningDelta, StreamFinished

    for whole in (False, True):
        encoder = make_encoder("anthropic", whole=whole)
        out = "".join(encoder.encode([ReasoningDelta("hm"), StreamFinished("stop")]))
        assert '"signature":""' in out
        assert any("no signature" in note for note in encoder.lossy)


# -- 3. a client that leaves a whole answer closes the upstream request ----------------


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/chat/completions", chat("slow-stream")),
        ("/v1/messages", messages("slow-stream")),
        ("/v1/responses", {"model": "slow-stream", "input": "x"}),
    ],
)
def test_a_client_leaving_a_whole_answer_closes_the_upstream_request(
    gateway: GatewayServer, upstream: ScriptedUpstream, path: str, body: dict[str, Any]
) -> None:
    """The upstream takes 10 s; the client (stream false) leaves once the upstream has
    the request (a raw socket: it leaves exactly then, however loaded the machine)."""
    before, asked = len(upstream.disconnects), len(upstream.requests)
    payload = json.dumps(body).encode()
    host, port = gateway.url.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
        f"x-api-key: {KEY}\r\nanthropic-version: 2023-06-01\r\n"
        f"content-length: {len(payload)}\r\n\r\n"
    )
    with socket.create_connection((host, int(port))) as client:
        client.sendall(head.encode() + payload)
        deadline = time.monotonic() + 10
        while len(upstream.requests) == asked:  # the gateway is reading the upstream
            assert time.monotonic() < deadline, "the request never reached the upstream"
            time.sleep(0.01)
        time.sleep(0.2)
    left = time.monotonic()
    while len(upstream.disconnects) == before and time.monotonic() < left + 5:
        time.sleep(0.01)
    assert len(upstream.disconnects) > before, "the upstream was read on to its end"
    assert upstream.disconnects[-1] - left < 1.0


# -- 4. a complete call, then a cut one: the client runs the one it got ----------------


@pytest.mark.parametrize("stream", [False, True])
def test_calls_delivered_before_a_cut_one_end_the_turn_as_tool_calls(
    gateway: GatewayServer, sink: MemorySink, stream: bool
) -> None:
    url = gateway.url
    anth = httpx.post(
        url + "/v1/messages", json=messages("call-then-cut", stream), headers=ANTHROPIC_HEADERS
    )
    oai = httpx.post(
        url + "/v1/chat/completions", json=chat("call-then-cut", stream), headers=ANTHROPIC_HEADERS
    )
    tools = [{"type": "function", "name": "get_weather", "parameters": WEATHER_SCHEMA}]
    resp_body = {"model": "call-then-cut", "input": "x", "tools": tools, "stream": stream}
    resp = httpx.post(url + "/v1/responses", json=resp_body, headers=ANTHROPIC_HEADERS)
    if stream:
        a_events, o_events, r_events = sse_data(anth.text), sse_data(oai.text), sse_data(resp.text)
        a_blocks = [
            e["content_block"]["type"] for e in a_events if e["type"] == "content_block_start"
        ]
        a_stop = [e["delta"]["stop_reason"] for e in a_events if e["type"] == "message_delta"]
        choices = [c for e in o_events for c in e.get("choices", [])]
        o_calls = [
            t["function"]["name"]
            for c in choices
            for t in c["delta"].get("tool_calls") or []
            if "name" in t.get("function", {})
        ]
        o_finish = [c["finish_reason"] for c in choices if c["finish_reason"]]
        final = r_events[-1]["response"]
    else:
        a_blocks, a_stop = [b["type"] for b in anth.json()["content"]], [anth.json()["stop_reason"]]
        message = oai.json()["choices"][0]
        o_calls = [t["function"]["name"] for t in message["message"]["tool_calls"]]
        o_finish = [message["finish_reason"]]
        final = resp.json()
    assert (a_blocks, a_stop) == (["tool_use"], ["tool_use"])
    assert (o_calls, o_finish) == (["get_weather"], ["tool_calls"])
    assert [o["type"] for o in final["output"]] == ["function_call"]
    assert (final["status"], final["incomplete_details"]) == ("completed", None)
    # the held-back call is in the audit, as every held-back call is
    mine = [r for r in sink.records if r.extra["model"] == "call-then-cut"][-6:]
    assert [(r.status, r.extra["delivered"]) for r in mine] == [
        ("ok", True),
        ("truncated", False),
    ] * 3


# -- 6. what of a request was dropped is visible: header, log, audit -------------------


@pytest.mark.parametrize("stream", [False, True])
def test_the_requests_translation_notes_are_shown(
    gateway: GatewayServer,
    upstream: ScriptedUpstream,
    sink: MemorySink,
    caplog: pytest.LogCaptureFixture,
    stream: bool,
) -> None:
    caplog.set_level(logging.DEBUG, logger="toolwire.gateway")
    body = messages(
        "call-then-cut",
        stream,
        top_k=5,
        context_management={"edits": []},
        thinking={"type": "adaptive"},
        metadata={"user_id": "user-1"},
        output_config={"effort": "low", "format": {"type": "json_schema"}},
        system=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
    )
    body["tools"].append({"type": "web_search_20250305", "name": "web_search"})
    headers = {**ANTHROPIC_HEADERS, "anthropic-beta": "context-management-2025-06-27"}
    answer = httpx.post(gateway.url + "/v1/messages", json=body, headers=headers)
    assert answer.status_code == 200
    notes = answer.headers["x-toolwire-notes"]
    for dropped in (
        "server tool 'web_search_20250305' was dropped",
        "cache_control was dropped",
        "top_k was dropped",
        "context_management was dropped",
        "output_config fields other than effort were dropped",
        "thinking 'adaptive' is approximated as reasoning_effort='medium'",
        "the anthropic-beta header was not passed on",
    ):
        assert dropped in notes
    sent = upstream.requests[-1].body
    assert (sent["reasoning_effort"], sent["user"]) == ("low", "user-1")  # effort wins
    request_id = answer.headers["x-request-id"]
    assert any(request_id in r.getMessage() and "top_k" in r.getMessage() for r in caplog.records)
    deadline = time.monotonic() + 2
    while not any(r.extra["request_id"] == request_id for r in sink.records):
        assert time.monotonic() < deadline, "no audit record"
        time.sleep(0.01)
    record = next(r for r in sink.records if r.extra["request_id"] == request_id)
    assert "top_k was dropped (no OpenAI equivalent)" in record.extra["notes"]
    # the answer's own notes too: the cut call held back after the delivered one
    assert any("truncated call to 'get_weather' was held back" in n for n in record.extra["notes"])


def test_a_request_that_loses_nothing_has_no_notes(gateway: GatewayServer) -> None:
    answer = httpx.post(
        gateway.url + "/v1/chat/completions", json=chat("call-then-cut"), headers={"x-api-key": KEY}
    )
    assert answer.status_code == 200 and "x-toolwire-notes" not in answer.headers
