"""Full tool round trips through ``Agent`` over each upstream wire other than Chat
Completions: Anthropic Messages, OpenAI Responses, Gemini (``alt=sse``) and Ollama
(``/api/chat``). The model calls two tools in parallel (one call broken as that wire's
servers break them), the agent runs them, and the next request — read from the replay
upstream's log — carries both calls under their ids with valid JSON arguments and one
result per call, in call order, in THAT wire's shape; then the model answers in text."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from toolwire.agent import Agent, cut_off_reply
from toolwire.audit.sinks import MemorySink
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import (
    Dialogue,
    ReplayServer,
    Script,
    WireCall,
    anthropic_answer,
    gemini_answer,
    ollama_answer,
    responses_answer,
)

from .test_loop import RAN, _clear_ran, add  # noqa: F401 (the autouse fixture too)

pytestmark = pytest.mark.anyio


# (kind, call id, name, arguments as an object) / (kind, call id, result text): what a
# request's history says about tool use, read out of each wire's own shape
Entry = tuple[Any, ...]


def anthropic_history(body: dict[str, Any]) -> list[Entry]:
    out: list[Entry] = []
    for message in body["messages"]:
        if not isinstance(message["content"], list):
            continue
        for block in message["content"]:
            if block["type"] == "tool_use":
                assert message["role"] == "assistant"
                assert isinstance(block["input"], dict)  # an object, never text
                out.append(("call", block["id"], block["name"], block["input"]))
            elif block["type"] == "tool_result":
                assert message["role"] == "user"
                content = block["content"]
                text = content if isinstance(content, str) else content[0]["text"]
                out.append(("result", block["tool_use_id"], text))
    return out


def responses_history(body: dict[str, Any]) -> list[Entry]:
    out: list[Entry] = []
    for item in body["input"]:
        if item.get("type") == "function_call":
            assert isinstance(item["arguments"], str)  # JSON text that must parse
            out.append(("call", item["call_id"], item["name"], json.loads(item["arguments"])))
        elif item.get("type") == "function_call_output":
            out.append(("result", item["call_id"], item["output"]))
    return out


def gemini_history(body: dict[str, Any]) -> list[Entry]:
    out: list[Entry] = []
    for content in body["contents"]:
        for part in content["parts"]:
            if "functionCall" in part:
                assert content["role"] == "model"
                call = part["functionCall"]
                assert isinstance(call["args"], dict)
                out.append(("call", call["id"], call["name"], call["args"]))
            elif "functionResponse" in part:
                assert content["role"] == "user"
                response = part["functionResponse"]
                out.append(("result", response["id"], response["response"]["result"]))
                names = [e[2] for e in out if e[0] == "call" and e[1] == response["id"]]
                assert names == [response["name"]]
    return out


def ollama_history(body: dict[str, Any]) -> list[Entry]:
    """Ollama's tool messages name the tool, not the call: they answer the calls in
    order, so the call order is the only link (asserted by the caller)."""
    out: list[Entry] = []
    calls: list[str] = []
    for message in body["messages"]:
        for call in message.get("tool_calls") or []:
            assert message["role"] == "assistant"
            function = call["function"]
            assert isinstance(function["arguments"], dict)
            calls.append(function["name"])
            out.append(("call", None, function["name"], function["arguments"]))
        if message["role"] == "tool":
            assert message["tool_name"] == calls.pop(0)
            out.append(("result", None, message["content"]))
    return out


@dataclass
class Wire:
    format: str
    answer: Callable[..., Script]
    history: Callable[[dict[str, Any]], list[Entry]]
    base: str  # the API base under the server's root, as the vendor's SDKs take it
    path: str  # where the agent's requests go
    broken: Any  # the first call's arguments, broken as this wire's servers break them
    repairs: tuple[str, ...]  # the repairs the broken arguments need
    sends_ids: bool = True  # whether this wire's servers send call ids
    links_by_id: bool = True  # whether its history links results to calls by id


WIRES = {
    "anthropic": Wire(
        "anthropic",
        anthropic_answer,
        anthropic_history,
        "/v1",
        "/v1/messages",
        "{'a': 4, 'b': 5}",
        ("python_literal",),
    ),
    "openai-responses": Wire(
        "openai-responses",
        responses_answer,
        responses_history,
        "/v1",
        "/v1/responses",
        "{'a': 4, 'b': 5,}",
        ("python_literal", "trailing_comma"),
    ),
    "gemini": Wire(
        "gemini",
        gemini_answer,
        gemini_history,
        "/v1beta",
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        {"a": "4", "b": 5},  # numbers as strings: Gemini's usual slip
        ("coerce:a:string->integer",),
        sends_ids=False,  # the Gemini API sends none: the calls get ids of their own
    ),
    "ollama": Wire(
        "ollama",
        ollama_answer,
        ollama_history,
        "",
        "/api/chat",
        {"a": "4", "b": 5},
        ("coerce:a:string->integer",),
        sends_ids=False,
        links_by_id=False,
    ),
}


def agent_for(
    wire: Wire, server: ReplayServer, sink: MemorySink, tool: Any = add, **options: Any
) -> Agent:
    base = f"http://127.0.0.1:{server.port}{wire.base}"
    client = ModelClient(wire.format, base, model="m", retry=RetryPolicy(attempts=1))
    return Agent(client, ToolEngine([tool], sinks=[sink]), **options)


def good(wire: Wire, a: int, b: int) -> Any:
    return f'{{"a": {a}, "b": {b}}}' if isinstance(wire.broken, str) else {"a": a, "b": b}


@pytest.mark.parametrize("name", list(WIRES))
async def test_g5_a_parallel_round_trip_in_each_wire_carries_calls_and_results_in_its_shape(
    name: str,
) -> None:
    """F1/F10 per wire: the broken call is repaired, run, and goes back as valid JSON
    in the wire's own shape; G5: one result per call, in call order."""
    wire = WIRES[name]
    sink = MemorySink()
    calls = [WireCall("call_A", "add", wire.broken), WireCall("call_B", "add", good(wire, 1, 2))]
    if not wire.sends_ids:
        calls = [WireCall(None, c.name, c.arguments) for c in calls]
    turns = [
        wire.answer("Let me add those.", calls, usage=(30, 9)),
        wire.answer("Nine and three.", usage=(70, 5)),
    ]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        result = await agent_for(wire, up, sink).run("add 4+5 and 1+2")
        requests = list(up.requests)
    assert [r.path for r in requests] == [wire.path, wire.path]
    assert result.stop == "done" and result.turns == 2
    assert result.text == "Nine and three."
    assert sorted(RAN) == [(1, 2), (4, 5)]
    first, second = result.calls
    assert (first.call.status, first.call.repairs) == ("repaired", wire.repairs)
    assert (second.call.status, second.call.repairs) == ("complete", ())
    assert [c.status for c in result.calls] == ["ok", "ok"]
    # the next request: the model's turn (text, then both calls as repaired JSON, under
    # the ids the model sent), then one result per call, in call order
    history = wire.history(requests[1].body)
    ids = [first.call.id, second.call.id] if wire.links_by_id else [None, None]
    if wire.sends_ids:
        assert ids == ["call_A", "call_B"]
    assert len(set(ids)) == len(ids) or not wire.links_by_id
    assert history == [
        ("call", ids[0], "add", {"a": 4, "b": 5}),
        ("call", ids[1], "add", {"a": 1, "b": 2}),
        ("result", ids[0], "9"),
        ("result", ids[1], "3"),
    ]
    assert "Let me add those." in json.dumps(requests[1].body)
    # the first request had no tool use in it; usage per turn came from the wire
    assert wire.history(requests[0].body) == []
    assert [(u.input_tokens, u.output_tokens) for u in result.usage_per_turn if u] == [
        (30, 9),
        (70, 5),
    ]
    # the audit keeps the wire's repair and the raw text
    [broken_record] = [r for r in sink.records if r.call_id == first.call.id]
    assert set(wire.repairs) <= set(broken_record.repairs)
    assert {r.turn for r in sink.records} == {1}


@pytest.mark.parametrize("name", ["anthropic", "openai-responses"])
async def test_g1_a_call_cut_at_max_tokens_is_not_run_and_told_so_in_the_wires_shape(
    name: str,
) -> None:
    """F2: a call cut off by the output limit (Anthropic ``max_tokens``, Responses
    ``response.incomplete``) is not run; its reply says so; its arguments go back as
    ``{}`` (the text sent is no JSON), under its own id."""
    wire = WIRES[name]
    sink = MemorySink()
    turns = [
        wire.answer(calls=[WireCall("call_cut", "add", '{"a": 4, "b": ')], cut=True),
        wire.answer("Sorry, again smaller."),
    ]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        result = await agent_for(wire, up, sink).run("add")
        second = up.requests[1].body
    assert RAN == []
    [outcome] = result.calls
    assert outcome.call.status == "truncated" and outcome.status == "invalid_args"
    assert wire.history(second) == [
        ("call", "call_cut", "add", {}),
        ("result", "call_cut", cut_off_reply("add")),
    ]
    assert result.stop == "done" and result.text == "Sorry, again smaller."
    assert [r.status for r in sink.records] == ["invalid_args"]


async def test_f33_an_ollama_call_left_as_text_markup_runs_and_goes_back_as_a_tool_call() -> None:
    """Ollama #15529: the server leaves the model's ``<tool_call>`` markup (Python-style
    arguments) in the content. With ``text_format`` the agent finds it, runs it, and the
    next request carries it as a real ``tool_calls`` entry with an object, and no
    markup in the assistant's text."""
    sink = MemorySink()
    markup = '<tool_call>\n{"name": "add", "arguments": {\'a\': 2, \'b\': 2}}\n</tool_call>'
    turns = [ollama_answer("Adding. " + markup), ollama_answer("Four.")]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        agent = agent_for(WIRES["ollama"], up, sink, text_format="hermes")
        result = await agent.run("2+2")
        second = up.requests[1].body
    assert RAN == [(2, 2)]
    [outcome] = result.calls
    assert outcome.call.status == "repaired" and outcome.call.repairs
    assert ollama_history(second) == [
        ("call", None, "add", {"a": 2, "b": 2}),
        ("result", None, "4"),
    ]
    assistant = second["messages"][1]
    assert "<tool_call>" not in assistant["content"]
    assert result.text == "Four."


@pytest.mark.parametrize("name", ["anthropic", "gemini"])
async def test_a_tool_name_the_wire_refuses_goes_out_renamed_and_runs_under_its_own(
    name: str,
) -> None:
    """``2x.add`` is no valid Anthropic or Gemini tool name: the request declares it
    under a wire name, the model calls that name, the agent runs ``2x.add`` and the
    next request carries the call under the wire name again."""
    wire = WIRES[name]
    sink = MemorySink()
    probe = ModelClient(wire.format, "http://127.0.0.1:1/v1", model="m")
    declared = [{"type": "function", "function": {"name": "2x.add", "parameters": {}}}]
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}], "tools": declared}
    names = probe.prepare(body, "openai-chat").names
    assert names is not None
    wire_name = names.wire("2x.add")
    assert wire_name != "2x.add"
    turns = [wire.answer(calls=[WireCall("call_A", wire_name, good(wire, 1, 1))]), wire.answer("2")]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        result = await agent_for(wire, up, sink, add.rename("2x.add")).run("1+1")
        second = up.requests[1].body
    assert RAN == [(1, 1)]
    [outcome] = result.calls
    assert (outcome.call.name, outcome.call.status, outcome.status) == ("2x.add", "complete", "ok")
    [call, reply] = wire.history(second)
    assert call[2] == wire_name and reply[2] == "2"


@pytest.mark.parametrize("name", ["anthropic", "openai-responses"])
async def test_f32_an_id_the_server_sends_again_next_turn_gets_one_of_its_own(
    name: str,
) -> None:
    """F32: a local server sends ``call_0`` turn after turn. Two history entries under
    one id would be dropped as a repeat by the translation to this wire (the model
    would lose its second turn and ask again forever): the second call gets an id of its
    own, and the third request carries both calls and both results, each pair linked."""
    wire = WIRES[name]
    sink = MemorySink()
    again = wire.answer(calls=[WireCall("call_0", "add", '{"a": 1, "b": 1}')])
    turns = [again, again, wire.answer("Done.")]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        result = await agent_for(wire, up, sink).run("add twice")
        third = up.requests[2].body
    assert result.stop == "done" and result.turns == 3 and RAN == [(1, 1), (1, 1)]
    first_id, second_id = (c.call.id for c in result.calls)
    assert first_id == "call_0" and second_id not in (None, "call_0")
    assert wire.history(third) == [
        ("call", first_id, "add", {"a": 1, "b": 1}),
        ("result", first_id, "2"),
        ("call", second_id, "add", {"a": 1, "b": 1}),
        ("result", second_id, "2"),
    ]


async def test_what_the_wire_could_not_take_is_said_once_per_run() -> None:
    """``ModelClient.prepare`` names what a wire cannot express (Ollama has no forced
    tool choice): the run says it as an event, once, and keeps it in the result."""
    from toolwire.agent import RequestNotes

    wire = WIRES["ollama"]
    turns = [
        wire.answer("", [WireCall(None, "add", {"a": 1, "b": 2})]),
        wire.answer("Three."),
    ]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        agent = agent_for(wire, up, MemorySink(), request={"tool_choice": "required"})
        events = [event async for event in agent.stream("1+2?")]
    dropped = "tool_choice was dropped (Ollama has no forced tool choice)"
    said = [event for event in events if isinstance(event, RequestNotes)]
    assert said == [RequestNotes((dropped,), 1)]  # not again on turn 2
    assert events.index(said[0]) == 0  # before the answer it concerns
    result = events[-1].result  # type: ignore[union-attr]
    assert (result.stop, result.turns, result.notes) == ("done", 2, [dropped])
