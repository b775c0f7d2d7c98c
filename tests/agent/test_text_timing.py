"""Text reaches the caller while the model is still streaming: held text goes out when
it is due (``text_interval`` after the last batch) even when the next piece of the
stream is slow to come, and before a call the model starts (``CallStreaming``, sent as
soon as the call's name is known). Timed against a replay server that pauses between
chunks."""

from __future__ import annotations

import time

import pytest

from toolwire.agent import Agent, AgentEvent, CallParsed, CallStreaming, TextOut
from toolwire.client import ModelClient, RetryPolicy
from toolwire.engine import ToolEngine
from toolwire.replay import DONE, Dialogue, ReplayServer, Script, chat_chunk, text_stream

from .test_loop import RAN, _clear_ran, add  # noqa: F401 (the autouse fixture too)

pytestmark = pytest.mark.anyio

PAUSE = 1.0  # the server's pause after each chunk


def call_after_text() -> list[bytes]:
    """Text in two pieces in the first network chunk; then, a pause later each, the
    call's start and its arguments."""
    head = {"index": 0, "id": "c1", "type": "function"}
    return [
        chat_chunk({"role": "assistant", "content": "Let me "})
        + chat_chunk({"content": "add that."}),
        chat_chunk({"tool_calls": [{**head, "function": {"name": "add", "arguments": ""}}]}),
        chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"a": 1, "b": 2}'}}]})
        + chat_chunk({}, "tool_calls")
        + DONE,
    ]


async def timed_run(**options: float) -> list[tuple[float, AgentEvent]]:
    turns = [Script(call_after_text(), chunk_delay=PAUSE), Script(text_stream(["3."]))]
    with ReplayServer({"m": Dialogue(turns)}) as up:
        client = ModelClient("openai-chat", up.url, model="m", retry=RetryPolicy(attempts=1))
        agent = Agent(client, ToolEngine([add]), **options)
        start = time.monotonic()
        return [(time.monotonic() - start, e) async for e in agent.stream("add 1 and 2")]


def first(events: list[tuple[float, AgentEvent]], kind: type) -> tuple[int, float]:
    """The position and time of the first event of ``kind``."""
    return next((n, at) for n, (at, e) in enumerate(events) if isinstance(e, kind))


async def test_held_text_goes_out_when_due_though_the_stream_pauses() -> None:
    events = await timed_run(text_interval=0.05)
    said, said_at = first(events, TextOut)
    streaming, streaming_at = first(events, CallStreaming)
    assert events[said][1] == TextOut("Let me add that.", 1)
    # out ~50 ms after it arrived, not when the next chunk (the call) came a pause later
    assert streaming > said and streaming_at - said_at > PAUSE / 2


async def test_text_held_when_a_call_starts_goes_out_before_it() -> None:
    """No batch is due before the call starts (a long interval): the text goes out as
    the call starts, before the call's arguments arrive, not when the turn ends."""
    events = await timed_run(text_interval=3600.0)
    kinds = [type(e).__name__ for _, e in events]
    assert kinds[:3] == ["TextOut", "CallStreaming", "CallParsed"]
    (said_at, said), (streaming_at, streaming) = events[0], events[1]
    assert said == TextOut("Let me add that.", 1)
    assert streaming == CallStreaming("add", "c1", 0, 1)
    _, parsed_at = first(events, CallParsed)
    assert streaming_at - said_at < PAUSE / 2 and parsed_at - streaming_at > PAUSE / 2
