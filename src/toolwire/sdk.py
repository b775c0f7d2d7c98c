"""Using toolwire with the SDK you already have: an ``openai`` or ``anthropic`` stream's
objects into ``StreamParser``, nothing re-serialised.

    stream = client.chat.completions.create(model=..., messages=..., tools=..., stream=True)
    result = parse_sdk_stream(stream, tools)          # StreamResult: calls, text, usage
    async_result = await aparse_sdk_stream(async_stream, tools)

To pass each object on as it arrives, feed them yourself: ``parser.feed_object(obj)``.
The SDKs are not imported (see ``toolwire.sdkobjects``). An error the SDK raises while
streaming (a dropped connection) is the caller's, raised here as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import Any

from toolwire.events import Event, StreamResult
from toolwire.parser import StreamParser
from toolwire.spec import ToolSpec

Tools = Iterable[ToolSpec | dict[str, Any]]


def parse_sdk_stream(
    stream: Iterable[Any], tools: Tools = (), *, format: str = "auto", **options: Any
) -> StreamResult:
    """A whole SDK stream (its objects), parsed; ``options`` as ``StreamParser``'s."""
    parser = StreamParser(format, tools, **options)
    events: list[Event] = []
    for obj in stream:
        events += parser.feed_object(obj)
    events += parser.close()
    return StreamResult.collect(events)


async def aparse_sdk_stream(
    stream: AsyncIterable[Any], tools: Tools = (), *, format: str = "auto", **options: Any
) -> StreamResult:
    """``parse_sdk_stream`` for an async SDK client's stream."""
    parser = StreamParser(format, tools, **options)
    events: list[Event] = []
    async for obj in stream:
        events += parser.feed_object(obj)
    events += parser.close()
    return StreamResult.collect(events)
