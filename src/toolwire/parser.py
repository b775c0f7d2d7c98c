"""StreamParser: the whole sans-IO pipeline behind one object.

    parser = StreamParser("openai-chat", tools=specs)
    for chunk in byte_chunks:
        for event in parser.feed(chunk):
            ...
    events = parser.close()

Formats: a wire format name (``openai-chat``, ``anthropic``, …), ``auto`` (detected
from the first message), or ``text:<family>`` for raw model text. ``text_format`` adds
a model-text extractor behind a wire format whose text still carries tool markup.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Protocol

from toolwire import textformats
from toolwire.assemble import CallAssembler
from toolwire.events import Event, StreamResult
from toolwire.providers import DECODERS, PlainTextDecoder, WireDecoder, detect_format
from toolwire.spec import ToolSpec

_DETECT_LIMIT = 65536  # bytes looked at before giving up on recognising a wire format
_SSE_FIELD = re.compile(r"(?:data|event|id|retry)?:")


class UnknownFormatError(ValueError):
    """A format name toolwire does not know."""


class TextExtractor(Protocol):
    """A model-text extractor (see ``toolwire.textformats``)."""

    def feed(self, text: str) -> None: ...

    def close(self) -> None: ...


def _text_extractor(
    family: str, sink: CallAssembler, tools: list[ToolSpec], calls_in_reasoning: bool
) -> TextExtractor:
    try:
        extractor: TextExtractor = textformats.make_extractor(
            family, sink, tools, calls_in_reasoning=calls_in_reasoning
        )
    except textformats.UnknownFamilyError as exc:
        raise UnknownFormatError(str(exc)) from exc
    return extractor


def known_formats() -> list[str]:
    return ["auto", *DECODERS]


class StreamParser:
    """One stream's parser. All state is per object (F23)."""

    def __init__(
        self,
        format: str = "auto",
        tools: Iterable[ToolSpec | dict[str, Any]] = (),
        *,
        text_format: str | None = None,
        calls_in_reasoning: bool = False,
    ) -> None:
        self.tools = [t if isinstance(t, ToolSpec) else ToolSpec.from_dict(t) for t in tools]
        self.assembler = CallAssembler(self.tools)
        self.format = format
        self._extractor: TextExtractor | None = None
        if format.startswith("text:"):
            text_format = format.split(":", 1)[1]
        if text_format is not None:
            self._extractor = _text_extractor(
                text_format, self.assembler, self.tools, calls_in_reasoning
            )
            if not format.startswith("text:"):
                self.assembler.before_finish = self._extractor.close
        self._decoder: WireDecoder | None = None
        self._pending: list[bytes] = []
        self._pending_size = 0
        if format.startswith("text:"):
            self._decoder = PlainTextDecoder(self.assembler, self._text_sink())
        elif format != "auto":
            cls = DECODERS.get(format)
            if cls is None:
                known = ", ".join([*known_formats(), "text:<family>"])
                raise UnknownFormatError(f"unknown format {format!r}; known: {known}")
            self._decoder = cls(self.assembler, self._text_sink())

    def _text_sink(self) -> Any:
        return self._extractor.feed if self._extractor is not None else None

    def feed(self, data: bytes | str) -> list[Event]:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if self._decoder is None:
            self._pending.append(data)
            self._pending_size += len(data)
            # look again only when a line may have completed: linear however it is split
            if b"\n" in data or b"\r" in data or self._pending_size > _DETECT_LIMIT:
                self._detect(final=False)
            if self._decoder is None:
                return []
            data = b"".join(self._pending)
            self._pending = []
        self._decoder.feed(data)
        return self.assembler.drain()

    def close(self) -> list[Event]:
        if self._decoder is None:
            self._detect(final=True)
            assert self._decoder is not None
            self._decoder.feed(b"".join(self._pending))
            self._pending = []
        self._decoder.close()
        if self._extractor is not None:
            self._extractor.close()
        self.assembler.end(dropped=not self._decoder.finished)
        return self.assembler.drain()

    def _detect(self, *, final: bool) -> None:
        """Pick the wire format from the first complete message (format ``auto``)."""
        buffered = b"".join(self._pending)
        text = buffered.decode("utf-8", "replace")
        name = detect_format(text)
        if name is None:
            # SSE framing whose first blocks carry no data yet (comments, retry:) is
            # waited out; anything else with a whole first block is not a wire format
            whole_block = b"\n\n" in buffered or b"\r\n\r\n" in buffered
            undecided = _SSE_FIELD.match(text.lstrip("\ufeff\r\n")) is not None
            if final or (whole_block and not undecided) or len(buffered) > _DETECT_LIMIT:
                # nothing recognisable: treat it as raw model text rather than lose it
                self._decoder = PlainTextDecoder(self.assembler, self._text_sink())
            return
        self.format = name
        self._decoder = DECODERS[name](self.assembler, self._text_sink())


def parse_stream(
    data: bytes | str,
    format: str = "auto",
    tools: Iterable[ToolSpec | dict[str, Any]] = (),
    *,
    text_format: str | None = None,
    calls_in_reasoning: bool = False,
) -> StreamResult:
    """Parse a whole stream at once."""
    parser = StreamParser(
        format, tools, text_format=text_format, calls_in_reasoning=calls_in_reasoning
    )
    events = parser.feed(data)
    events.extend(parser.close())
    return StreamResult.collect(events)
