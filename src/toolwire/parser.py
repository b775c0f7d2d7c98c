"""StreamParser: the whole sans-IO pipeline behind one object.

    parser = StreamParser("openai-chat", tools=specs)
    for chunk in byte_chunks:
        for event in parser.feed(chunk):
            ...
    events = parser.close()

Formats: a wire format name (``openai-chat``, ``anthropic``, …), ``auto`` (detected
from the first message), or ``text:<family>`` for raw model text. ``text_format`` adds
a model-text extractor behind a wire format whose text still carries tool markup.

Each wire's stream and its non-streaming body are told apart by the first byte: a
body is JSON (``{``), a stream is SSE (or, for Gemini and Ollama, JSON objects their
decoders read either way). Under ``auto``, the wire is decided from the structure of
the input's first message or object (``providers.detect``), the same however the input
is split, and input that is no wire format is model text, searched for tool calls in
any family's markup (``text:auto``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from toolwire import textformats
from toolwire.assemble import CallAssembler
from toolwire.events import Event, StreamResult
from toolwire.providers import DECODERS, PlainTextDecoder, WireDecoder
from toolwire.providers.bodies import BODY_DECODERS
from toolwire.providers.detect import NOT_TEXT, TEXT, FormatDetector, common_first_wire
from toolwire.sdkobjects import object_value, object_wire
from toolwire.spec import ToolSpec

# first bytes of an input that may be white space or a byte order mark before its start
_MAY_LEAD = frozenset([b"", b" ", b"\t", b"\r", b"\n", b"\xef"])


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

    # State that starts as these class-level values until the stream sets its own (a
    # short stream pays for every attribute set up: callgrind, bench_short_streams.py)
    _extractor: TextExtractor | None = None
    _decoder: WireDecoder | None = None
    _detector: FormatDetector | None = None  # until the input's format is known
    _pending = b""  # the input the detector buffered, for the decoder it picked
    # why the input could not be read at all (empty, not text); an error event says
    # the same, and the stream finishes with ``error``
    input_error: str | None = None

    def __init__(
        self,
        format: str = "auto",
        tools: Iterable[ToolSpec | dict[str, Any]] = (),
        *,
        text_format: str | None = None,
        calls_in_reasoning: bool = False,
    ) -> None:
        self.tools = (
            [t if isinstance(t, ToolSpec) else ToolSpec.from_dict(t) for t in tools]
            if tools
            else []
        )
        self.assembler = CallAssembler(self.tools)
        self.format = format
        text_input = format != "auto" and format.startswith("text:")  # (``auto``: no call)
        if text_input:
            text_format = format.split(":", 1)[1]
        if text_format is not None:
            extractor = self._extractor = _text_extractor(
                text_format, self.assembler, self.tools, calls_in_reasoning
            )
            if text_input:
                self._decoder = PlainTextDecoder(self.assembler, extractor.feed)
            else:
                self.assembler.before_finish = extractor.close
        if not text_input and format != "auto" and format not in DECODERS:
            known = ", ".join([*known_formats(), "text:<family>"])
            raise UnknownFormatError(f"unknown format {format!r}; known: {known}")
        self._calls_in_reasoning = calls_in_reasoning

    def feed(self, data: bytes | str) -> list[Event]:
        if type(data) is not bytes:  # (a str, or a bytearray or memoryview: as bytes)
            data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
        decoder = self._decoder
        if decoder is None:
            if self.input_error is not None:
                return []  # unreadable input: nothing after it is read either
            self._detect(data, final=False)
            decoder = self._decoder
            if decoder is None:
                return self.assembler.drain()
            data, self._pending = self._pending, b""  # what the detector buffered
        decoder.feed(data)
        return self.assembler.drain()

    def feed_object(self, obj: Any) -> list[Event]:
        """One stream message an SDK has already parsed: an ``openai``
        ``ChatCompletionChunk`` or Responses event, an ``anthropic``
        ``RawMessageStreamEvent``, any pydantic model or a dict of a wire's message
        (see ``toolwire.sdkobjects``). Objects a stream helper derives from the
        server's own (text and snapshot events) are skipped. Gives the events the
        message's bytes would; error events carry no wire text."""
        try:
            value = object_value(obj)
        except TypeError as exc:
            self.assembler.error(str(exc))
            return self.assembler.drain()
        if value is None:
            return []
        if self._decoder is None:
            name = self.format if self.format != "auto" else object_wire(value)
            if name is None:
                self.assembler.error(f"not a stream message of any wire: {str(value)[:200]}")
                return self.assembler.drain()
            self._use(name, body=False)
            assert self._decoder is not None
        self._decoder.feed_value(value)
        return self.assembler.drain()

    def close(self) -> list[Event]:
        decoder = self._decoder
        if decoder is None:
            if self.input_error is None:
                self._detect(b"", final=True)
            decoder = self._decoder
        assembler = self.assembler
        if decoder is None:
            if self.input_error is None:
                self.input_error = "the input is empty"
                assembler.error(self.input_error)
            assembler.set_finish_reason("error")
            assembler.end()
            return assembler.drain()
        if self._detector is not None:  # (objects were fed after bytes that decided nothing)
            self._pending, self._detector = self._detector.take(), None
        if self._pending:
            decoder.feed(self._pending)
            self._pending = b""
        decoder.close()
        if self._extractor is not None:
            self._extractor.close()
        assembler.end(dropped=not decoder.finished)
        return assembler.drain()

    def _detect(self, data: bytes, *, final: bool) -> None:
        """Pick the decoder: the wire format (for ``auto``) and its framing, from the
        input's structure (``providers.detect``): however the input is split, the same."""
        detector = self._detector
        if detector is None:
            if self.format != "auto":
                if data[:1] not in _MAY_LEAD:  # (the common start: no detector needed)
                    self._use(self.format, body=data[:1] in b"{[")
                    self._pending = data
                    return
                detector = FormatDetector(self.format)
            else:
                wire = common_first_wire(data)
                if wire is not None:
                    self._use(wire, body=False)
                    self._pending = data
                    return
                detector = FormatDetector()
            self._detector = detector
        verdict = detector.close() if final else detector.feed(data)
        if verdict is None:
            return  # not yet (``close``: the input is empty, and says so)
        self._detector = None
        if verdict == NOT_TEXT:
            self.input_error = "the input is not UTF-8 text (compressed or binary data?)"
            self.assembler.error(self.input_error)
            return
        if verdict == TEXT:
            if self._extractor is None:
                self._extractor = _text_extractor(
                    "auto", self.assembler, self.tools, self._calls_in_reasoning
                )
                self.format = TEXT
            self._decoder = PlainTextDecoder(self.assembler, self._extractor.feed)
        else:
            self._use(verdict, body=detector.body)
        self._pending = detector.take()

    def _use(self, name: str, *, body: bool) -> None:
        """Decode as wire ``name``; ``body``: the input is JSON (a whole body where the
        wire has a separate body decoder)."""
        cls = BODY_DECODERS.get(name) if body else None
        self.format = name
        extractor = self._extractor  # (model text inside the wire's text, if asked for)
        self._decoder = (cls or DECODERS[name])(
            self.assembler, extractor.feed if extractor is not None else None
        )


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
