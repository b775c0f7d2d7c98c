"""Google Gemini ``streamGenerateContent`` → assembler.

Two framings, told apart by the first byte: Server-Sent Events (``alt=sse``) or a
JSON array streamed element by element (the default); a plain JSON object (the
non-streaming ``generateContent`` response) reads like a one-element array.

Gemini sends each function call whole, its arguments as an object, possibly several
per candidate and usually without an id; toolwire gives each a stable id derived
from the response id and the call's position, so the same stream always yields the
same ids. Gemini has no "tool calls" finish reason (it says ``STOP``); the assembler
reports ``tool_calls`` whenever calls were made (F17).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import Any, ClassVar, NamedTuple

import orjson

from toolwire.assemble import CallAssembler
from toolwire.events import Usage
from toolwire.invalid_utf8 import REPLACEMENT, mark_invalid_utf8
from toolwire.providers.base import JsonStreamDecoder, Raw, raw_text, token_count
from toolwire.providers.envelope import (
    DIGITS_AS_ZERO,
    MOST_FIXED,
    SPARE_LEARNINGS,
    TEXT,
    integer_shape,
    learn_envelope,
)
from toolwire.sse import SSEDecoder

# finishReason values that end a turn because of content policy; the assembler's
# table knows the common ones, these are the rest.
_FILTER_REASONS = frozenset(
    {"IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION", "LANGUAGE"}
)
_ERROR_REASONS = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})


class TextEnvelope(NamedTuple):
    """The bytes of a chunk of one part's text around that text's string token and,
    where it has them, the integers of its ``usageMetadata`` (see ``learn_text``)."""

    prefix: bytes  # from the block's start through the text's opening quote
    tail: bytes  # the bytes the block ends in: after the usage, or after the text
    start: int  # the text token's opening quote in the block
    stop: int  # its end, from the block's end
    middle: bytes  # with a usage: from the text's closing quote up to that object
    shape: bytes | None  # the usage's shape (``integer_shape``), if it has one
    firsts: Callable[[bytes], tuple[int, ...]]  # the first digits of its integers
    usage_size: int  # its size
    after_text: int  # the sizes of the middle and the usage


_USAGE_KEY = b'"usageMetadata"'


def _read_text(chunk: Any) -> Any:
    return chunk["candidates"][0]["content"]["parts"][0]["text"]


def learn_text(block: bytes, text: str, chunk: dict[str, Any]) -> TextEnvelope | None:
    """The envelope of ``block``, an SSE block whose data line was read strictly as
    ``chunk``: a chunk of nothing but ``text``, in the one part of its one candidate
    (``read_blocks``). A later block of the same bytes around another string token
    means the same with another text (``providers.envelope``); where the chunk's
    ``usageMetadata`` (an object) follows the text, its integers may differ too:
    whatever they are, what matches is the same JSON, and the object's bytes are kept
    and read at the end, as the usage of the chunk the decoder read last. None where
    the block is not of that shape, the usage is of another (``integer_shape``), or
    it cannot be told apart from the rest without a parse: a backslash outside the
    text (a key written with escapes, a quote that may not delimit a string), or the
    key twice (orjson reads the last)."""
    found = learn_envelope(block, "text", text, TEXT, 0, _read_text)
    if found is None or found.gap or found.obfuscated or not block.endswith(found.suffix):
        return None  # (a padded block: Gemini pads none)
    prefix, suffix = found.prefix, found.suffix
    start = len(prefix) - 1
    meta = chunk.get("usageMetadata")
    if type(meta) is not dict:
        return TextEnvelope(prefix, suffix, start, 1 - len(suffix), b"", None, _no_integers, 0, 0)
    key, after = suffix.partition(_USAGE_KEY)[1:]
    if (
        not key
        or after.find(_USAGE_KEY) >= 0
        or prefix.find(_USAGE_KEY) >= 0
        or prefix.find(b"\\") >= 0
        or suffix.find(b"\\") >= 0
    ):
        return None  # (a usage before the text, or one that may not be the chunk's)
    value = after.lstrip(b" \t")
    if value[:1] != b":":
        return None
    value = value[1:].lstrip(b" \t")
    if len(prefix) + len(suffix) > MOST_FIXED:
        return None
    shape = integer_shape(value)
    if shape is None:
        return None
    end = len(shape[0])
    try:
        if orjson.loads(value[:end]) != meta:
            return None
    except orjson.JSONDecodeError:
        return None
    middle = suffix[: len(suffix) - len(value)]
    # (an itemgetter of two positions or more, the first 0, gives a tuple)
    firsts = itemgetter(0, 0, *shape[1])
    return TextEnvelope(
        prefix,
        value[end:],
        start,
        1 - len(suffix),
        middle,
        shape[0],
        firsts,
        end,
        len(middle) + end,
    )


def _no_integers(usage: bytes) -> tuple[int, ...]:
    return ()


def gemini_usage(meta: dict[str, Any]) -> Usage:
    """``usageMetadata`` → Usage. Gemini counts thoughts apart from the candidates;
    toolwire's output tokens include reasoning, as OpenAI's do."""
    candidates = token_count(meta.get("candidatesTokenCount"))
    thoughts = token_count(meta.get("thoughtsTokenCount"))
    output = None
    if candidates is not None or thoughts is not None:
        output = (candidates or 0) + (thoughts or 0)
    return Usage(
        input_tokens=token_count(meta.get("promptTokenCount")),
        output_tokens=output,
        cache_read_tokens=token_count(meta.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
    )


class GeminiDecoder(JsonStreamDecoder):
    format_name = "gemini"
    stream_title = "Gemini"
    chunk_noun = "chunks"

    # per-stream state, set on the stream once it changes (as ``SSEWireDecoder``'s): the
    # envelope of the last chunk of one part's text read whole (``learn_text``), how
    # many blocks envelopes read, how many were learned and how many blocks gave none
    _envelope: TextEnvelope | None = None
    _hits = 0
    _learned = 0
    _missed = 0

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._mode: str | None = None  # "sse" or "json", chosen by the first byte
        self._head = b""
        self._sse = SSEDecoder()
        self._response_id = ""
        # the usage of the last chunk that had one, read apart (``read_blocks``): made
        # a Usage at the end, where the assembler reads it (one per chunk: 6-10 ms of
        # 10,000 chunks, whose floor is 8-13)
        self._usage_meta: dict[str, Any] | bytes | None = None
        self._waiting = self.learn_after  # chunks of text to read whole before learning

    def feed(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        if self._mode is None:
            self._head += data
            first = self._head.lstrip()[:1]
            if not first:
                return
            self._mode = "json" if first in (b"[", b"{") else "sse"
            data, self._head = self._head, b""
        if self._mode == "sse":
            blocks = self._sse.feed_blocks(data)
            if blocks:
                self.read_blocks(blocks)
        else:
            self.feed_objects(data)

    def close(self) -> None:
        if self._mode == "sse":
            block = self._sse.close_block()
            if block:
                self.read_blocks([block])
        elif self._mode == "json":
            whole = self.close_objects()  # False: it ended inside an object
            if whole and self._json.array_closed and not self.finished:
                self.finished = True  # the array's "]" is this framing's end marker
        meta = self._usage_meta
        if meta is not None:
            if isinstance(meta, bytes):  # an envelope's usage, kept as bytes: an object
                meta = orjson.loads(meta)
            self.sink.set_usage(gemini_usage(meta))
            self._usage_meta = None

    # whether the common SSE block is parsed from its bytes (``read_blocks``), and a
    # chunk that holds text and nothing else then skips ``on_chunk`` (off: every block
    # is read as its SSE message, every chunk by ``on_chunk``; for tests)
    reads_bytes: ClassVar[bool] = True
    reads_text: ClassVar[bool] = True
    # whether such a chunk's envelope is learned and reads the blocks it fits (off:
    # each is parsed whole; for tests)
    reads_envelope: ClassVar[bool] = True
    # Chunks of text read whole before the first envelope is learned: learning one
    # costs what reading about 8 such chunks by it saves (86 thousand instructions; a
    # chunk of the API's shape 10.8 thousand by it, 21.8 whole, callgrind), so a stream
    # that short never pays for it.
    learn_after: ClassVar[int] = 8

    def read_blocks(self, blocks: list[bytes]) -> None:
        """SSE blocks. The common one (one data line) is parsed from its bytes, as
        ``SSEDecoder.message`` would decode them (orjson takes only valid UTF-8). A
        chunk that holds nothing but the text of one part is read here, its text
        joined to that of the chunks before it (handed on before any other message
        is read, and at the end): what ``on_chunk`` makes of it, without its calls
        (with the usage made once: 10,000 chunks of 16-character parts 2.4-2.7x the
        floor's time, 5.8-6.1x before, bench_stream.py). Such a chunk is read by the
        envelope of the last one read whole where it fits (``learn_text``), the
        string alone decoded and the usage kept as bytes (the same chunks in 1.1x
        the floor's instructions, 1.85x read whole, callgrind). Any other block is
        read as its SSE message."""
        loads = orjson.loads
        reads_text = self.reads_text
        run: list[str] = []
        keep = run.append
        response_id = self._response_id
        reads_bytes = self.reads_bytes
        envelope = self._envelope
        if envelope is not None:
            prefix, tail, start, stop, middle, shape, firsts, usage_size, after_text = envelope
        hits = 0
        for block in blocks:
            if (
                envelope is not None
                and (rest := block.removeprefix(prefix)) is not block
                and (body := rest.removesuffix(tail)) is not rest
                and (
                    shape is None
                    or (
                        body[-after_text:-usage_size] == middle
                        and (usage := body[-usage_size:]).translate(DIGITS_AS_ZERO) == shape
                        and 48 not in firsts(usage)
                    )
                )
            ):
                # (parsed only once all of that holds: a parse that fails costs a
                # block ~2 µs, what reading it whole does, review 16 #2)
                try:
                    text = loads(block[start:stop])
                except orjson.JSONDecodeError:
                    pass  # not one string token: the block is read whole
                else:
                    if shape is not None:
                        self._usage_meta = usage
                    hits += 1
                    keep(text)
                    continue
            chunk = None
            if reads_bytes and block[:6] == b"data: " and block.find(b"\n") < 0:
                data = block[6:]
                try:
                    chunk = loads(data)
                except orjson.JSONDecodeError:
                    chunk = None
                if (
                    type(chunk) is dict
                    and reads_text
                    and "error" not in chunk
                    and "promptFeedback" not in chunk
                ):
                    # (indexed, not looked up and type-checked step by step: only
                    # a dict's item is a str, through a list of one of each)
                    try:
                        (candidate,) = chunk["candidates"]
                        (part,) = candidate["content"]["parts"]
                        text = part["text"]
                    except (KeyError, TypeError, ValueError):
                        text = None
                    if (
                        type(text) is str
                        and len(part) == 1
                        and "finishReason" not in candidate
                        and candidate.get("index", 0) == 0
                    ):
                        if not response_id:
                            found = chunk.get("responseId")
                            if type(found) is str:
                                response_id = self._response_id = found
                        meta = chunk.get("usageMetadata")
                        if type(meta) is dict:
                            self._usage_meta = meta  # (made a Usage at close)
                        keep(text)
                        self._waiting -= 1
                        if self._waiting < 0 and self.reads_envelope and self._learns(hits):
                            hits = 0
                            found = learn_text(block, text, chunk)
                            if found is None:
                                self._missed += 1
                            else:
                                self._learned += 1
                                envelope = self._envelope = found
                                (
                                    prefix,
                                    tail,
                                    start,
                                    stop,
                                    middle,
                                    shape,
                                    firsts,
                                    usage_size,
                                    after_text,
                                ) = envelope
                        continue
            if type(chunk) is dict:
                if run:
                    self.text_run(run)
                    run.clear()
                self.dispatch(chunk, data)
            else:
                message = self._sse.message(block)
                if message is None:
                    continue  # (a comment, an id: nothing read, no text handed on)
                if run:
                    self.text_run(run)
                    run.clear()
                marker = None
                if REPLACEMENT in message.data:  # bytes that were not UTF-8? (F29)
                    marked, marker = mark_invalid_utf8(block)
                    if marker is not None:
                        message = self._sse.message(marked) or message
                with self.marked_bytes(marker):
                    self._on_text(message.data)
            response_id = self._response_id
        self._hits += hits
        if run:
            self.text_run(run)

    def _learns(self, hits: int) -> bool:
        """Whether to learn the envelope of the chunk of text just read whole (having
        read ``hits`` blocks by the one it has since the last count): a stream whose
        chunks never fit the last one's soon stops trying (as ``SSEWireDecoder.learn``)."""
        self._hits += hits
        # (a learn costs what 8 blocks read by its envelope save: learning after each
        # hit made a stream of two chunk shapes in turn 2-3x slower, review 16 #3)
        return self._learned + self._missed <= SPARE_LEARNINGS + self._hits // 8

    def _on_text(self, data: str) -> None:
        if not data or data == "[DONE]":
            return
        chunk = self.load_json(data)
        if isinstance(chunk, dict):
            self.dispatch(chunk, data)

    def on_chunk(self, chunk: dict[str, Any], raw: Raw) -> None:
        sink = self.sink
        error = chunk.get("error")
        if error is not None:
            detail = error.get("message") if isinstance(error, dict) else error
            sink.error(f"the upstream sent an error: {detail}", raw_text(raw))
            sink.set_finish_reason("error")
            self.finished = True
            return
        if not self._response_id and isinstance(chunk.get("responseId"), str):
            self._response_id = chunk["responseId"]
        candidates = chunk.get("candidates")
        reason: str | None = None
        if candidates is not None and not isinstance(candidates, list):
            self.wrong_type("candidates", candidates, "an array", raw)
        if isinstance(candidates, list):
            for candidate in candidates:
                if not isinstance(candidate, dict) or candidate.get("index", 0) != 0:
                    continue  # toolwire follows the first candidate
                content = candidate.get("content")
                parts = content.get("parts") if isinstance(content, dict) else None
                if parts is not None and not isinstance(parts, list):
                    self.wrong_type("candidates[0].content.parts", parts, "an array", raw)
                elif parts is not None:
                    for i, part in enumerate(parts):
                        if isinstance(part, dict):
                            self.on_part(part, i, chunk, raw)
                value = candidate.get("finishReason")
                if isinstance(value, str) and value != "FINISH_REASON_UNSPECIFIED":
                    reason = value
        usage = chunk.get("usageMetadata")
        if isinstance(usage, dict):
            sink.set_usage(gemini_usage(usage))
            self._usage_meta = None  # (a usage read apart before it is older)
        feedback = chunk.get("promptFeedback")
        if isinstance(feedback, dict) and isinstance(feedback.get("blockReason"), str):
            sink.error(f"the prompt was blocked: {feedback['blockReason']}", raw_text(raw))
            reason = reason or "SAFETY"
        if reason is not None:
            if reason in _ERROR_REASONS:
                sink.error(f"Gemini ended the turn with {reason}", raw_text(raw))
            elif reason in _FILTER_REASONS:
                reason = "SAFETY"
            sink.set_finish_reason(reason)
            self.finished = True

    def on_part(self, part: dict[str, Any], i: int, chunk: dict[str, Any], raw: Raw) -> None:
        """The ``i``-th part of the first candidate of ``chunk`` (read from ``raw``)."""
        text = part.get("text")
        if type(text) is not str:
            text = self.string_field(part, "text", f"candidates[0].content.parts[{i}]", raw)
        if text:
            if part.get("thought") is True:
                self.sink.reasoning(text)
            else:
                self.text(text)
        call = part.get("functionCall")
        call_id = None
        if isinstance(call, dict):
            call_id = self.on_function_call(call, chunk, raw)
        elif call is not None:
            path = f"candidates[0].content.parts[{i}].functionCall"
            self.wrong_type(path, call, "an object", raw)
        signature = part.get("thoughtSignature")
        if isinstance(signature, str):  # Gemini 3 refuses a call sent back without it
            # (of a text part, or a call not read, when call_id is None; a call's goes
            # on the call the id was just given to, before its CallStarted)
            self.sink.signature("thought_signature", signature, call_id)

    def on_function_call(self, call: dict[str, Any], chunk: dict[str, Any], raw: Raw) -> str | None:
        sink = self.sink
        if "partialArgs" in call or call.get("willContinue"):
            # Vertex's streamed arguments (jsonPath fragments) are not read yet: say so
            # rather than present a half-built call.
            sink.error(
                "Gemini streamed function-call arguments (partialArgs) are not supported",
                raw_text(raw),
            )
            return None
        seed = self._response_id or "gemini"
        return self.whole_call(call.get("id"), call.get("name"), call.get("args"), seed, chunk, raw)
