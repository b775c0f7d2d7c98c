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
decoders read either way). Under ``auto``, JSON input is recognised by the shape of
its first object, and input that is no wire format is model text, searched for tool
calls in any family's markup (``text:auto``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterable
from typing import Any, Protocol

import orjson

from toolwire import textformats
from toolwire.assemble import CallAssembler
from toolwire.events import Event, StreamResult
from toolwire.providers import DECODERS, PlainTextDecoder, WireDecoder, detect_format
from toolwire.providers.bodies import BODY_DECODERS, json_wire
from toolwire.providers.jsonstream import JsonObjectSplitter
from toolwire.repair import partial_value
from toolwire.sdkobjects import object_value, object_wire
from toolwire.spec import ToolSpec

_DETECT_LIMIT = 65536  # bytes looked at before giving up on recognising a wire format
_FIRST_LOOK = 256  # bytes searched for a wire's markers before the whole head
_SSE_FIELD = re.compile(r"(?:data|event|id|retry)?:")
_LEADING = frozenset(b" \t\r\n\xef\xbb\xbf")  # white space and byte-order-mark bytes
_JSON_START = frozenset(b"{[")


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
    _pending_size = 0
    _start: int | None = None  # the input's first byte that is not white space
    _objects: JsonObjectSplitter | None = None  # finds the first JSON object (auto)
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
            self._extractor = _text_extractor(
                text_format, self.assembler, self.tools, calls_in_reasoning
            )
            if not text_input:
                self.assembler.before_finish = self._extractor.close
        self._calls_in_reasoning = calls_in_reasoning
        self._pending: list[bytes] = []
        if text_input:
            self._decoder = PlainTextDecoder(self.assembler, self._text_sink())
        elif format != "auto" and format not in DECODERS:
            known = ", ".join([*known_formats(), "text:<family>"])
            raise UnknownFormatError(f"unknown format {format!r}; known: {known}")

    def _text_sink(self) -> Any:
        return self._extractor.feed if self._extractor is not None else None

    def feed(self, data: bytes | str) -> list[Event]:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        decoder = self._decoder
        if decoder is None:
            if self.input_error is not None:
                return []  # unreadable input: nothing after it is read either
            self._pending.append(data)
            self._pending_size += len(data)
            self._detect(data, final=False)
            decoder = self._decoder
            if decoder is None:
                return self.assembler.drain()
            data = b"".join(self._pending)
            self._pending = []
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
        if self._pending:
            decoder.feed(b"".join(self._pending))
            self._pending = []
        decoder.close()
        if self._extractor is not None:
            self._extractor.close()
        assembler.end(dropped=not decoder.finished)
        return assembler.drain()

    def _detect(self, data: bytes, *, final: bool) -> None:
        """Pick the decoder: the wire format (for ``auto``) and its framing."""
        whole = None  # the input so far, once joined
        if self._start is None:
            for byte in data:
                if byte not in _LEADING:
                    self._start = byte
                    break
            else:
                return  # white space so far (``close`` reports an empty input)
            data = whole = b"".join(self._pending)
        if self.format != "auto":
            self._use(self.format, body=self._start in _JSON_START)
        elif self._start in _JSON_START:
            self._detect_json(data, final=final)
        elif (
            final
            or data.find(b"\n") >= 0  # (``find``: ``in`` costs bytes a TypeError, see sse.py)
            or data.find(b"\r") >= 0
            or self._pending_size > _DETECT_LIMIT
        ):
            # look again only when a line may have completed: linear however it is split
            self._detect_stream(whole, final=final)

    def _detect_json(self, data: bytes, *, final: bool) -> None:
        """JSON input: a whole body, a JSON-framed stream, or model text that is JSON;
        the shape of its first object decides."""
        if self._objects is None:
            self._objects = JsonObjectSplitter()
        first = self._objects.feed(data)
        if first:
            value = _json_value(first[0])
        elif self._objects.junk:
            value = None  # text outside any object: not JSON the wires send
        elif final:
            # it never closed: a cut-off body still has the shape of one
            value = partial_value(b"".join(self._pending).decode("utf-8", "replace"))
        else:
            return  # the first object is not complete yet
        self._objects = None
        name = json_wire(value) if isinstance(value, dict) else None
        if name is None:
            self._use_text(final=final)
        else:
            self._use(name, body=True)

    def _detect_stream(self, buffered: bytes | None, *, final: bool) -> None:
        """Stream input: the wire format from the first complete message (``buffered``:
        the input so far, if the caller has it at hand)."""
        if buffered is None:
            buffered = b"".join(self._pending)
        # the first 256 bytes are searched alone first: a stream's first message
        # carries its wire's markers near its start, and input fed whole is then not
        # all decoded and searched (callgrind: 4-8 K instructions of a short
        # Anthropic capture, bench_short_streams.py); a head without them (comments,
        # ``retry:``, a long first message) leaves the search to the whole head
        name = detect_format(buffered[:_FIRST_LOOK].decode("utf-8", "replace"))
        text = ""
        if name is None:
            text = buffered.decode("utf-8", "replace")
            name = detect_format(text)
        if name is not None:
            self._use(name, body=False)
            return
        # SSE framing whose first blocks carry no data yet (comments, retry:) is
        # waited out; anything else with a whole first block is not a wire format.
        # Blank lines before the first field end no block: a stream cut after them,
        # inside its first field's name ("e" | "vent: ..."), waits for the rest
        head = text.lstrip("\ufeff\r\n")
        whole_block = "\n\n" in head or "\r\n\r\n" in head or "\r\r" in head
        undecided = _SSE_FIELD.match(head) is not None
        if final or (whole_block and not undecided) or len(buffered) > _DETECT_LIMIT:
            self._use_text(final=final)

    def _use(self, name: str, *, body: bool) -> None:
        """Decode as wire ``name``; ``body``: the input is JSON (a whole body where the
        wire has a separate body decoder)."""
        cls = BODY_DECODERS.get(name) if body else None
        self.format = name
        extractor = self._extractor  # (``_text_sink``, inlined: a call less per stream)
        self._decoder = (cls or DECODERS[name])(
            self.assembler, extractor.feed if extractor is not None else None
        )

    def _use_text(self, *, final: bool) -> None:
        """No wire format: model text, with its tool calls in whatever markup it uses."""
        try:
            codecs.getincrementaldecoder("utf-8")().decode(b"".join(self._pending), final)
        except UnicodeDecodeError:
            self.input_error = "the input is not UTF-8 text (compressed or binary data?)"
            self.assembler.error(self.input_error)
            self._pending = []
            return
        if self._extractor is None:
            self._extractor = _text_extractor(
                "auto", self.assembler, self.tools, self._calls_in_reasoning
            )
            self.format = "text:auto"
        self._decoder = PlainTextDecoder(self.assembler, self._text_sink())


def _json_value(raw: bytes) -> Any:
    """A complete JSON object's value, leniently (a proxy may write Python-style JSON)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return partial_value(raw.decode("utf-8", "replace"))


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
