"""What the interactive chat shows and keeps, without a keyboard: real runs of the
agent against the replay server, shown on a recording ``rich`` console; a run cancelled
while one of its calls is still running, and the history it leaves."""

from __future__ import annotations

import io
import re
from typing import Any

import anyio
import pytest
from rich.console import Console

from toolwire.agent import Agent, TextOut
from toolwire.agent.loop import cancelled_reply
from toolwire.audit.sinks import MemorySink
from toolwire.cli.chat_render import ChatView
from toolwire.cli.chat_repl import Session
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.engine.engine import PendingApproval
from toolwire.replay import (
    DONE,
    Dialogue,
    ReplayServer,
    Script,
    call_stream,
    chat_chunk,
    text_stream,
    usage_chunk,
)

from .chat_tools import add, remove, wait

pytestmark = pytest.mark.anyio


def recording() -> Console:
    return Console(record=True, file=io.StringIO(), width=100, color_system="standard")


def agent_for(server: ReplayServer, tools: list[Any], sink: MemorySink, **options: Any) -> Agent:
    client = ModelClient("openai-chat", server.url, model="m", retry=RetryPolicy(attempts=1))
    return Agent(client, ToolEngine(tools, sinks=[sink]), **options)


def serve(*turns: list[bytes]) -> ReplayServer:
    return ReplayServer({"m": Dialogue([Script(chunks) for chunks in turns])})


async def test_text_dimmed_reasoning_and_a_panel_with_the_repair() -> None:
    thinking = [chat_chunk({"reasoning_content": "I should add them."})]
    call = call_stream("add", ["{'a': 2, 'b': 3}"], "tool_calls")
    console = recording()
    view = ChatView(console)
    with serve([*thinking, *call], text_stream(["It is ", "5."])) as up:
        async for event in agent_for(up, [add], MemorySink()).stream("2+3?"):
            view.show(event)
    text = console.export_text(clear=False)
    # a line as the call starts streaming, its panel once it has run
    assert text.startswith("I should add them.\ncalling add…\n╭─ add ")
    panel = text[text.index("╭") : text.rindex("╯")]
    assert '{"a":2,"b":3}' in panel
    assert re.search(r"status +ok \(wire: repaired\)", panel)
    assert re.search(r"repairs +python_literal", panel)
    assert re.search(r"result +5 ", panel) and re.search(r"time +\d+ ms", panel)
    assert "call_1" in panel
    assert text.endswith("It is 5.\ndone · 2 turns · 1 call · 60 in / 14 out tokens\n")
    styled = console.export_text(styles=True)
    assert "\x1b[2;3mI should add them." in styled  # reasoning: dim italic


def test_what_the_wire_could_not_take_is_shown_once_per_session() -> None:
    from toolwire.agent import RequestNotes

    console = recording()
    view = ChatView(console)
    note = "tool_choice was dropped (Ollama has no forced tool choice)"
    view.show(TextOut("Hi", 1))
    view.show(RequestNotes((note,), 1))
    view.show(RequestNotes((note,), 3))  # the next run says it again: shown once
    assert console.export_text() == f"Hi\ntoolwire: not sent as asked: {note}\n"


async def test_a_held_call_is_shown_with_why_before_the_question() -> None:
    console = recording()
    view = ChatView(console)
    asked: list[str] = []

    async def approver(pending: PendingApproval) -> bool:
        view.held(pending)
        asked.append(console.export_text())
        view.answered(pending, False)
        return False

    call = call_stream("remove", ['{"path": "a.txt"}'], "tool_calls")
    sink = MemorySink()
    with serve(call, text_stream(["Not removed."])) as up:
        agent = agent_for(up, [remove], sink, approver=approver)
        async for event in agent.stream("remove a.txt"):
            view.show(event)
    [question] = asked
    assert re.search(r"status +needs approval", question)
    assert re.search(r"held +tool 'remove' is marked destructive", question)
    after = console.export_text()
    assert re.search(r"status +denied", after) and "the user declined it" in after
    assert [r.status for r in sink.records] == ["denied"]


def two_calls() -> list[bytes]:
    """``add`` and ``wait`` in one answer (run in parallel)."""
    chunks = [chat_chunk({"role": "assistant", "content": "Both at once."})]
    for index, (call_id, name, arguments) in enumerate(
        [("c_add", "add", '{"a": 1, "b": 2}'), ("c_wait", "wait", '{"seconds": 30}')]
    ):
        header = {"index": index, "id": call_id, "type": "function"}
        function = {"name": name, "arguments": arguments}
        chunks.append(chat_chunk({"tool_calls": [{**header, "function": function}]}))
    return [*chunks, chat_chunk({}, "tool_calls"), usage_chunk(30, 10), DONE]


async def test_a_run_cancelled_mid_call_leaves_one_reply_per_call_and_goes_on() -> None:
    """Cancelled while ``wait`` runs (``add`` done): the audit has ``add`` ok and
    ``wait`` cancelled; the history the loop settled has the prompt, the model's turn
    with both calls, ``add``'s result and ``wait`` told it was cancelled (G5: one reply
    per call); the next prompt goes out on top of it."""
    console = recording()
    session = Session(ChatView(console))
    sink = MemorySink()
    with serve(two_calls(), text_stream(["Fine."])) as up:
        agent = agent_for(up, [add, wait], sink)
        async with anyio.create_task_group() as tg:
            tg.start_soon(session.turn, agent, "both")
            with anyio.fail_after(10):
                while not any(r.tool_name == "add" for r in sink.records):
                    await anyio.sleep(0.01)
            session.cancel()
        assert "cancelled · the conversation goes on" in console.export_text(clear=False)
        assert sorted((r.tool_name, r.status) for r in sink.records) == [
            ("add", "ok"),
            ("wait", "cancelled"),
        ]
        kept = session.history
        assert kept == [
            {"role": "user", "content": "both"},
            {
                "role": "assistant",
                "content": "Both at once.",
                "tool_calls": [
                    {
                        "id": "c_add",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a":1,"b":2}'},
                    },
                    {
                        "id": "c_wait",
                        "type": "function",
                        "function": {"name": "wait", "arguments": '{"seconds":30}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "c_add", "content": "3"},
            {"role": "tool", "tool_call_id": "c_wait", "content": cancelled_reply("wait", True)},
        ]
        await session.turn(agent, "and then?")
        assert up.requests[-1].body["messages"] == [
            *kept,
            {"role": "user", "content": "and then?"},
        ]
    assert session.history[-1] == {"role": "assistant", "content": "Fine."}
