"""Wire-format encoders: canonical events → a client's wire format.

The mirror image of ``toolwire.providers``: N decoders and M encoders meet in the
canonical event model, so converting any format to any other is decode → encode,
never a pairwise converter.

    converter = StreamConverter("openai-chat", "anthropic", tools=specs)
    for chunk in upstream_bytes:
        for wire in converter.feed(chunk):
            send(wire)
    for wire in converter.close():
        send(wire)

``whole=True`` (any of the functions below) gives the non-streaming response body
instead: one JSON object, written when the turn finishes (``encode_response``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from toolwire.encoders.anthropic import AnthropicBodyEncoder, AnthropicEncoder
from toolwire.encoders.base import ArgumentsMode, StreamEncoder, arguments_text
from toolwire.encoders.body import WholeBodyEncoder
from toolwire.encoders.gemini import GeminiBodyEncoder, GeminiEncoder
from toolwire.encoders.ollama import OllamaBodyEncoder, OllamaEncoder
from toolwire.encoders.openai_chat import OpenAIChatBodyEncoder, OpenAIChatEncoder
from toolwire.encoders.openai_responses import OpenAIResponsesBodyEncoder, OpenAIResponsesEncoder
from toolwire.events import (
    CallFinished,
    Event,
    ReasoningDelta,
    StreamFinished,
    StreamResult,
    TextDelta,
)
from toolwire.parser import StreamParser
from toolwire.spec import ToolSpec

ENCODERS: dict[str, type[StreamEncoder]] = {
    "openai-chat": OpenAIChatEncoder,
    "anthropic": AnthropicEncoder,
    "openai-responses": OpenAIResponsesEncoder,
    "gemini": GeminiEncoder,
    "ollama": OllamaEncoder,
}


# the non-streaming response body of each format
BODY_ENCODERS: dict[str, type[WholeBodyEncoder]] = {
    "openai-chat": OpenAIChatBodyEncoder,
    "anthropic": AnthropicBodyEncoder,
    "openai-responses": OpenAIResponsesBodyEncoder,
    "gemini": GeminiBodyEncoder,
    "ollama": OllamaBodyEncoder,
}


class UnknownEncoderError(ValueError):
    """A target format toolwire cannot encode."""


def make_encoder(format: str, *, whole: bool = False, **options: Any) -> StreamEncoder:
    """An encoder for ``format`` (``gemini-array``: Gemini's JSON-array framing).
    ``whole``: the format's non-streaming response body rather than its stream (the
    JSON array is one document already: ``gemini-array`` is the same either way)."""
    if format == "gemini-array":
        return GeminiEncoder(array=True, **options)
    cls = (BODY_ENCODERS if whole else ENCODERS).get(format)
    if cls is None:
        known = ", ".join([*ENCODERS, "gemini-array"])
        raise UnknownEncoderError(f"cannot encode {format!r}; known: {known}")
    return cls(**options)


def encode_events(events: Iterable[Event], format: str, **options: Any) -> str:
    """A whole event list as one wire stream (``whole=True``: as the response body)."""
    return "".join(make_encoder(format, **options).encode(events))


def encode_response(turn: Iterable[Event] | StreamResult, format: str, **options: Any) -> str:
    """A finished turn (its events, or a parse result) as the format's non-streaming
    response body: one JSON object. A turn without a finish reason failed and gets the
    format's error object (the encoder's ``status_code`` is then 500)."""
    events = _result_events(turn) if isinstance(turn, StreamResult) else turn
    return encode_events(events, format, whole=True, **options)


def _result_events(result: StreamResult) -> list[Event]:
    """The events a parse result stands for: reasoning, text, calls, the finish."""
    events: list[Event] = [ReasoningDelta(result.reasoning), TextDelta(result.text)]
    events.extend(result.errors)  # a failed turn's body says why
    events.extend(CallFinished(call) for call in result.calls)
    if result.finish_reason is not None:
        events.append(StreamFinished(result.finish_reason, result.usage))
    return events


class StreamConverter:
    """Re-encodes one stream: source bytes → canonical events → target wire chunks.

    ``transform`` may rewrite each event on the way (e.g. restoring shortened tool
    names, ``ToolNameMap.restore``). ``events`` keeps what was decoded, for callers
    that also want the calls themselves.
    """

    def __init__(
        self,
        source: str,
        target: str,
        tools: Iterable[ToolSpec | dict[str, Any]] = (),
        *,
        transform: Callable[[Event], Event] | None = None,
        **encoder_options: Any,
    ) -> None:
        self.parser = StreamParser(source, tools)
        self.encoder = make_encoder(target, **encoder_options)
        self.transform = transform
        self.events: list[Event] = []

    @property
    def lossy(self) -> list[str]:
        return self.encoder.lossy

    def start(self) -> list[str]:
        return self.encoder.start()

    def feed(self, data: bytes | str) -> list[str]:
        return self._encode(self.parser.feed(data))

    def close(self) -> list[str]:
        out = self._encode(self.parser.close())
        out.extend(self.encoder.close())
        return out

    def _encode(self, events: list[Event]) -> list[str]:
        out: list[str] = []
        for event in events:
            if self.transform is not None:
                event = self.transform(event)
            self.events.append(event)
            out.extend(self.encoder.feed(event))
        return out


@dataclass(slots=True)
class Conversion:
    """A whole converted stream: the wire text, what the source said, what was lost."""

    output: str
    source: StreamResult
    lossy: list[str] = field(default_factory=list)


def convert_stream(
    data: bytes | str,
    source: str,
    target: str,
    tools: Iterable[ToolSpec | dict[str, Any]] = (),
    **encoder_options: Any,
) -> Conversion:
    """Re-encode a whole stream from one wire format to another."""
    converter = StreamConverter(source, target, tools, **encoder_options)
    parts = converter.start()
    parts.extend(converter.feed(data))
    parts.extend(converter.close())
    return Conversion("".join(parts), StreamResult.collect(converter.events), converter.lossy)


__all__ = [
    "BODY_ENCODERS",
    "ENCODERS",
    "AnthropicBodyEncoder",
    "AnthropicEncoder",
    "ArgumentsMode",
    "Conversion",
    "GeminiBodyEncoder",
    "GeminiEncoder",
    "OllamaBodyEncoder",
    "OllamaEncoder",
    "OpenAIChatBodyEncoder",
    "OpenAIChatEncoder",
    "OpenAIResponsesBodyEncoder",
    "OpenAIResponsesEncoder",
    "StreamConverter",
    "StreamEncoder",
    "UnknownEncoderError",
    "WholeBodyEncoder",
    "arguments_text",
    "convert_stream",
    "encode_events",
    "encode_response",
    "make_encoder",
]
