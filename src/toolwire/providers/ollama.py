"""Ollama native streaming (``/api/chat``, also ``/api/generate``) → assembler.

Newline-delimited JSON objects. Tool calls arrive whole, arguments as an object; ids
are present only on recent servers, so a missing one is replaced by a stable id.
The last object has ``"done": true`` with ``done_reason`` and the token counts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import orjson

from toolwire.assemble import CallAssembler
from toolwire.events import Usage
from toolwire.providers.base import JsonStreamDecoder, Raw, raw_text, token_count
from toolwire.providers.envelope import MOST_FIXED, LineEnvelope, learn_stamped_line

# Lines that must come, in the pieces after one where a chunk of a kind was read whole,
# before that chunk's line is learned from, and how many are tried. A learn costs
# ~58,000 instructions, and each line an envelope reads ~4,800 less than parsing it
# (callgrind): a stream that ends sooner never pays for one. Learning from the 17th
# line at once cost a stream of 32 lines fed in 4 KB pieces 10-17% more; this way,
# against no envelope for reasoning and that for text: 8-32 lines of reasoning cost
# 1-4% more (two ``_Kind``s, the bookkeeping), 48 2% less, 64 9%, 128 23%, 512 33%;
# 8-16 of text the same, 24-48 11-23% less, 64-512 2-10% less (callgrind)
_LEARN_AFTER = 16
_TRIES = 3
# pieces an envelope may fail to read whole beyond those it read before it is dropped
# (each failure costs its pattern's pass over the piece on top of the line-by-line
# reading: a stream with another kind of line in every piece soon stops paying it)
_SPARE_MISSES = 4
# the longest line kept to learn from: a kind's line is kept until its envelope is
# learned, which may never come (the stream turns to the other kind), and a chunk
# carries a few bytes of text (a 16-character delta's line is ~150 bytes); a longer
# line is not kept, so a 10 MB one is not held to the stream's end (review 17 #1)
_MOST_KEPT = 2 * MOST_FIXED


class _Kind:
    """A kind of chunk read apart, text alone (or reasoning alone: ``_Reasoning``): the
    envelope of its line once learned; the line of the last read whole, to learn from,
    the lines that came in the pieces after, and the tries left; the pieces the
    envelope read whole (or all but the last line) and did not. (Defaults on the
    class: two with an ``__init__`` cost each stream 5,000 instructions, these 1,600,
    callgrind.)"""

    reasoning = False
    envelope: LineEnvelope | None = None
    kept: bytes | None = None
    tries = _TRIES
    waited = runs = misses = 0


class _Reasoning(_Kind):
    reasoning = True


class OllamaDecoder(JsonStreamDecoder):
    format_name = "ollama"
    stream_title = "Ollama"

    def __init__(self, sink: CallAssembler, text_sink: Callable[[str], None] | None = None):
        super().__init__(sink, text_sink)
        self._seed: str | None = None
        # the bytes of a text chunk's line around its timestamp and its text, and of a
        # reasoning chunk's around its stamp and its reasoning, once learned
        # (``read_lines``); ``_kind``: the kind of the last such chunk read, whose
        # envelope ``read_run`` tries (a stream sends reasoning, then text)
        self._kind = self._text = _Kind()
        self._thinking = _Reasoning()

    def feed(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        self.feed_objects(data)

    def close(self) -> None:
        self.close_objects()

    # whether a chunk that holds text and nothing else skips ``on_chunk`` (off: every
    # chunk goes through it, for tests)
    reads_text: ClassVar[bool] = True
    # whether such a chunk's line, once one was read, is read by its envelope (off:
    # every line is parsed whole, for tests)
    reads_envelope: ClassVar[bool] = True

    def read_run(self, data: bytes, end: int) -> int:
        """Lines that are all the learned bytes around a stamp and a string token, read
        at once: one match finds each token's body, one parse decodes them all, each
        apart, as an array of strings (10,000 content deltas: 1.8-1.9x the floor's
        time, 2.2-2.3x parsing each line; 10,000 reasoning deltas: 1.8-1.9x, 2.3-2.5x
        parsing each line; 5,000 of each, one kind after the other: 1.8-1.9x, 2.1x;
        bench_stream.py; the pattern alone costs about what the floor does). A last
        line of another shape (the stream's last chunk, ``done``) is left to
        ``read_lines``, and the lines before it are read."""
        kind = self._kind
        envelope = kind.envelope
        if envelope is None:
            if kind.kept is None or not end:
                return 0
            kind.waited += data.count(b"\n", 0, end)
            if kind.waited < _LEARN_AFTER:
                return 0
            envelope = self._learn(kind, kind.kept)
            if envelope is None:
                return 0
        elif not end or not self.reads_text:
            return 0
        stop = end - 1  # (the last LF)
        if not data.endswith(envelope.suffix, 0, stop):
            stop = data.rfind(b"\n", 0, stop)  # (one search: no pattern's pass in vain)
            if stop < 0:
                return self._missed(kind)
        bodies = envelope.lines.findall(data, 0, stop)
        if len(bodies) != data.count(b"\n", 0, stop + 1):
            return self._missed(kind)  # (one line or more of another shape)
        try:
            texts = orjson.loads(b'["' + b'","'.join(bodies) + b'"]')
        except orjson.JSONDecodeError:
            return self._missed(kind)  # a body that is no string token's: line by line
        kind.runs += 1
        self.text_run(texts, kind.reasoning)
        return stop + 1

    @staticmethod
    def _missed(kind: _Kind) -> int:
        """A piece the envelope of ``kind`` did not read (none of it, 0): too many, and
        it is dropped. Only the envelope of the kind last read is tried, so a stream
        that turns from reasoning to text costs the reasoning's one miss, the piece
        where it turns (read line by line), and the text's envelope none."""
        kind.misses += 1
        if kind.misses > kind.runs + _SPARE_MISSES:
            kind.envelope = None
            kind.tries = 0  # (none learned again)
        return 0

    def line_begun(self, line: bytes) -> bool:
        """A line the envelope would read, cut: an object begun, known without a
        parse that fails (the ends of 10,000 lines' 4 KB pieces: 0.12 ms, not 0.65)."""
        envelope = self._kind.envelope
        if envelope is not None and envelope.begun(line):
            return True
        return super().line_begun(line)

    def read_lines(self, lines: list[bytes]) -> int:
        """``JsonStreamDecoder.read_lines``, where a chunk that holds nothing but text
        (almost every chunk), or nothing but reasoning, is read here, its text joined
        to that of the chunks of its kind before it (handed on before any other chunk
        is read, and at the end): what ``on_chunk`` makes of it, without the calls. (10,000 content
        deltas: 1.7-2.5x the floor's time, 4.0-4.7x through ``on_chunk``, bench_stream.py)"""
        if not self.reads_text:
            return super().read_lines(lines)
        loads = orjson.loads
        run: list[str] = []
        keep = run.append
        # the same for a chunk that holds nothing but reasoning (``thinking``, the
        # text empty), handed on as reasoning (10,000 such: 3.7x the floor's time
        # through ``on_chunk``, 2.3-2.4x this way, 1.8-1.9x with their envelope,
        # ``read_run``, bench_stream.py)
        thoughts: list[str] = []
        seed = self._seed
        text, thinking = self._text, self._thinking
        last_text = last_thought = b""  # (the last line of each read apart)
        read = len(lines)
        for n, line in enumerate(lines):
            try:
                chunk = loads(line)
            except orjson.JSONDecodeError:
                if line.strip(b" \t\r"):
                    read = n
                    break
                continue
            if type(chunk) is not dict:
                read = n
                break
            # (what ``on_chunk`` reads, looked for one by one: comparing key sets
            # cost 2.5 ms more of the 10,000 lines, whose floor is 4.5)
            if (
                "error" not in chunk
                and "thinking" not in chunk
                and "response" not in chunk
                and chunk.get("done") is not True
            ):
                message = chunk.get("message")
                if type(message) is dict and "tool_calls" not in message:
                    content = message.get("content")
                    if "thinking" not in message:
                        if type(content) is str:
                            if seed is None:
                                seed = self._seed = self.seed_of(chunk)
                            last_text = line
                            if thoughts:
                                self.text_run(thoughts, True)
                                thoughts.clear()
                            keep(content)  # (empty or not: ``text_run`` hands on no "")
                            continue
                    elif content == "" and type(thought := message["thinking"]) is str:
                        if seed is None:
                            seed = self._seed = self.seed_of(chunk)
                        last_thought = line
                        if run:
                            self.text_run(run)
                            run.clear()
                        thoughts.append(thought)
                        continue
            if run:
                self._kind = text
                self.text_run(run)
                run.clear()
            elif thoughts:
                self._kind = thinking
                self.text_run(thoughts, True)
                thoughts.clear()
            self.dispatch(chunk, line.strip(b" \t\r"))
            seed = self._seed
        # (the kind of the last chunk read apart: the next piece's envelope; its line,
        # until one is learned, to learn from)
        if run:
            self._kind = text
            if text.envelope is None and text.tries and len(last_text) <= _MOST_KEPT:
                text.kept = last_text
            self.text_run(run)
        elif thoughts:
            self._kind = thinking
            if thinking.envelope is None and thinking.tries and len(last_thought) <= _MOST_KEPT:
                thinking.kept = last_thought
            self.text_run(thoughts, True)
        return read

    def _learn(self, kind: _Kind, line: bytes) -> LineEnvelope | None:
        """The envelope of ``line``, a chunk of ``kind`` read whole, if it has one (see
        ``learn_stamped_line``): around its text, or around its reasoning (its text,
        "", is bytes the envelope keeps)."""
        kind.kept = None
        kind.tries -= 1
        if not self.reads_envelope:
            return None
        chunk: dict[str, Any] = orjson.loads(line)  # (read whole before: an object)
        message = chunk["message"]
        key = "thinking" if kind.reasoning else "content"

        def expected(stamp: str, string: str) -> dict[str, Any]:
            return chunk | {"created_at": stamp, "message": message | {key: string}}

        kind.envelope = learn_stamped_line(line, "created_at", key, expected)
        return kind.envelope

    @staticmethod
    def seed_of(chunk: dict[str, Any]) -> str:
        """The seed of the ids of calls sent without one: the stream's first chunk's."""
        return f"{chunk.get('model', '')}:{chunk.get('created_at', '')}"

    def on_chunk(self, chunk: dict[str, Any], raw: Raw) -> None:
        sink = self.sink
        if self._seed is None:
            self._seed = self.seed_of(chunk)
        error = chunk.get("error")
        if error is not None:
            sink.error(f"the upstream sent an error: {error}", raw_text(raw))
            sink.set_finish_reason("error")
            self.finished = True
            return
        message = chunk.get("message")
        if isinstance(message, dict):
            self.on_message(message, chunk, raw)
        elif message is not None:
            self.wrong_type("message", message, "an object", raw)
        # /api/generate puts the text at the top level
        if "thinking" in chunk:
            sink.reasoning(self.string_field(chunk, "thinking", "", raw))
        if "response" in chunk:
            self.text(self.string_field(chunk, "response", "", raw))
        if chunk.get("done") is True:
            prompt = token_count(chunk.get("prompt_eval_count"))
            output = token_count(chunk.get("eval_count"))
            if prompt is not None or output is not None:
                sink.set_usage(Usage(input_tokens=prompt, output_tokens=output))
            reason = chunk.get("done_reason")
            sink.set_finish_reason(reason if isinstance(reason, str) and reason else "stop")
            self.finished = True

    def on_message(self, message: dict[str, Any], chunk: dict[str, Any], raw: Raw) -> None:
        """``chunk``'s ``message`` (``chunk`` read from ``raw``)."""
        if "thinking" in message:
            self.sink.reasoning(self.string_field(message, "thinking", "message", raw))
        content = message.get("content")
        if type(content) is not str:
            content = self.string_field(message, "content", "message", raw)
        if content:
            self.text(content)
        tool_calls = message.get("tool_calls")
        if not isinstance(tool_calls, list):
            if tool_calls is not None:
                self.wrong_type("message.tool_calls", tool_calls, "an array", raw)
            return
        for i, tc in enumerate(tool_calls):
            if not isinstance(tc, dict):
                self.wrong_type(f"message.tool_calls[{i}]", tc, "an object", raw)
                continue
            fn = tc.get("function")
            if not isinstance(fn, dict):
                if fn is not None:
                    self.wrong_type(f"message.tool_calls[{i}].function", fn, "an object", raw)
                fn = {}
            seed = self._seed or "ollama"
            self.whole_call(tc.get("id"), fn.get("name"), fn.get("arguments"), seed, chunk, raw)
