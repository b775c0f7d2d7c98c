"""OpenAI Chat Completions streaming chunks (``chat.completion.chunk``) → assembler.

Also reads the non-streaming ``message`` shape, the legacy ``function_call`` delta (a
call alone; beside ``tool_calls``, a mirror of one of them) and the
``reasoning_content`` / ``reasoning`` fields that open-model servers add.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from toolwire.events import Usage
from toolwire.jsontext import dumps
from toolwire.providers.base import Raw, SSEWireDecoder, raw_text, token_count
from toolwire.providers.envelope import ARGUMENTS, REASONING, TEXT, Envelope
from toolwire.sse import SSEMessage


def usage_keys(inputs: str, outputs: str) -> tuple[str, str, str, str]:
    """The keys of one naming of OpenAI's usage counts and their details."""
    return (
        f"{inputs}_tokens",
        f"{outputs}_tokens",
        f"{inputs}_tokens_details",
        f"{outputs}_tokens_details",
    )


# Chat Completions names its counts ``prompt_tokens`` and ``completion_tokens``
CHAT_USAGE = usage_keys("prompt", "completion")


def openai_usage(usage: dict[str, Any], keys: tuple[str, str, str, str] = CHAT_USAGE) -> Usage:
    """OpenAI's usage object, its counts named by ``keys`` (``usage_keys``: Chat
    Completions' by default; the Responses API's are ``input_`` and ``output_``)."""
    in_key, out_key, in_details, out_details = keys
    inputs = usage.get(in_key)
    outputs = usage.get(out_key)
    details = usage.get(in_details)
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    more = usage.get(out_details)
    reasoning = more.get("reasoning_tokens") if isinstance(more, dict) else None
    # A plain int or None (what JSON gives) is the count as ``token_count`` would take
    # it, without its call (a thousand instructions each, callgrind); anything else
    # (a bool, an int subclass, a float, a string) goes through it.
    # Positional: keywords cost a Usage a tenth more (callgrind).
    return Usage(
        inputs if inputs is None or type(inputs) is int else token_count(inputs),
        outputs if outputs is None or type(outputs) is int else token_count(outputs),
        cached if cached is None or type(cached) is int else token_count(cached),
        None,
        reasoning if reasoning is None or type(reasoning) is int else token_count(reasoning),
    )


# delta fields that carry text
_TEXT_FIELDS = ("content", "reasoning_content", "reasoning", "refusal")
_CHECKED_FIELDS = frozenset((*_TEXT_FIELDS, "tool_calls"))

# the first choice: index 0, or no index at all (some servers omit or null it)
_FIRST_CHOICE = (0, None)


def _read_arguments(chunk: Any) -> Any:
    return chunk["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]


# how each lone delta's string is read from a parsed chunk (for envelope learning)
def _delta_reader(key: str) -> Callable[[Any], Any]:
    def read(chunk: Any) -> Any:
        return chunk["choices"][0]["delta"][key]

    return read


_READ_DELTA = {key: _delta_reader(key) for key in ("content", "reasoning_content", "reasoning")}


# A chunk's head as OpenAI's API (and vLLM, SGLang...) writes it: the members before
# ``choices``, which toolwire never reads, then ``choices`` opening; strings of
# printable ASCII without quote or backslash, a JSON integer. Whatever follows, a block
# that opens with these bytes reads as ``{"choices":[`` followed by the same bytes: the
# head is valid JSON up to there, none of its members is ``choices`` or ``error``, nor
# ``usage`` but as null (OpenAI's API writes ``"usage":null`` there when usage is asked
# for: toolwire reads a null usage as none, and a later one wins either way), and JSON
# after ``[`` reads the same whatever came before it. OpenAI's API writes
# ``service_tier`` after the model since 2025. A stream learns its head from its first
# chunk (one match: 5,900 instructions, callgrind), and reads each later chunk that no
# envelope reads without its head (``on_rest``).
_STRING = rb'"[ !#-\[\]-~]*"'
_CHUNK_HEAD = re.compile(
    rb'data: \{"id":' + _STRING + rb',"object":"chat\.completion\.chunk",'
    rb'"created":(?:0|[1-9][0-9]*),"model":' + _STRING + rb","
    rb'(?:"service_tier":(?:' + _STRING + rb"|null),)?"
    rb'(?:"system_fingerprint":(?:' + _STRING + rb"|null),)?"
    rb'(?:"usage":null,)?'
    rb'"choices":\['
)
_CHOICES = b'{"choices":['  # what the head reads as

# What follows the head in OpenAI's argument delta: the first choice's delta holds one
# call's argument text and nothing else (group 1: the call's index, of at most 9
# digits, as orjson reads any; 2: the text's string token, checked by ``loads``). Its
# envelope is known from these bytes: the stream's first argument delta learns it
# without ``learn_envelope``'s search, and without being parsed as a whole (that
# delta, with what the assembler does with it: 56,000 → 30,000 instructions, callgrind).
_ARGUMENT_DELTA = re.compile(
    rb'\{"index":0,"delta":\{"tool_calls":\[\{"index":(0|[1-9][0-9]{0,8}),'
    rb'"function":\{"arguments":("(?:[^"\\\n]|\\.)*")'
    rb'\}\}\]\},"logprobs":null,"finish_reason":null\}\]\}'
).fullmatch
_ARGUMENT_SUFFIX = b'"}}]},"logprobs":null,"finish_reason":null}]}'

# What follows the head in OpenAI's chunk that starts a call: its index, id and name
# (plain strings: their bytes are their text) and no argument text, alone or in the
# stream's first chunk beside the role and null content and refusal; ``_lone`` (by way
# of ``_first_chunk``) reads it as one ``tool`` call, and so does ``on_rest``, without
# parsing it (14,000 instructions less, callgrind).
_CALL_START = re.compile(
    rb'\{"index":0,"delta":\{(?:"role":"assistant","content":null,)?'
    rb'"tool_calls":\[\{"index":(0|[1-9][0-9]{0,8}),"id":(' + _STRING + rb"),"
    rb'"type":"function","function":\{"name":(' + _STRING + rb'),"arguments":""\}\}\]'
    rb'(?:,"refusal":null)?\},"logprobs":null,"finish_reason":null\}\]\}'
).fullmatch

# the rest of a finish chunk as OpenAI writes it (an empty delta, the reason; no usage,
# error or other choice), by its bytes: what ``on_json`` makes of it is to set the
# reason (parsing and reading it cost 14,000 instructions more, callgrind)
_FINISH_CHUNKS = {
    b'{"index":0,"delta":{},"logprobs":null,"finish_reason":"%s"}]}' % reason.encode(): reason
    for reason in ("stop", "tool_calls", "length", "content_filter", "function_call")
}


class OpenAIChatDecoder(SSEWireDecoder):
    format_name = "openai-chat"

    def on_message(self, message: SSEMessage) -> None:
        data = message.data
        if data[:1] == "{":
            try:
                chunk = orjson.loads(data)
            except orjson.JSONDecodeError:
                pass  # for the repair ladder below
            else:
                if type(chunk) is dict:
                    self.on_json(chunk, None, data)
                    return
        if not data:
            return
        if data == "[DONE]":
            self.finished = True
            return
        value = self.load_json(data)
        if value is not None:
            self.on_chunk(value, data)

    reads_json = True
    # OpenAI's chunks are large (ids, fingerprints, logprobs): an envelope pays from
    # the first delta it reads (bench/bench_short_streams.py --break-even)
    learn_after = 0
    end_block = b"data: [DONE]"
    head_pattern = _CHUNK_HEAD

    def on_value(self, value: dict[str, Any]) -> None:
        """A chunk from an SDK. The SDKs keep the terminal ``[DONE]`` to themselves,
        so a finish reason is the end a stream of objects shows."""
        if self.on_json(value, None, ""):
            return  # the bulk of a stream: one text or argument fragment
        choices = value.get("choices")
        if isinstance(choices, list) and any(
            isinstance(c, dict) and c.get("finish_reason") for c in choices
        ):
            self.finished = True

    def on_rest(self, block: bytes, rest: bytes) -> bool:
        """A chunk that opens with the stream's head (see ``_CHUNK_HEAD``): read from
        ``rest`` as ``_blocks`` reads the whole block (one data line: ``on_json``)."""
        reason = _FINISH_CHUNKS.get(rest)
        usage = value = None
        if reason is None:
            found = _ARGUMENT_DELTA(rest)
            if found is not None:
                token = found[2]
                try:
                    args = orjson.loads(token)
                except orjson.JSONDecodeError:
                    return False  # (an escape JSON has not)
                return self._argument_delta(block, int(found[1]), args, token)
            found = _CALL_START(rest)
            if found is not None:
                index, call_id, name = found.groups()
                try:
                    self.sink.tool(int(index), call_id[1:-1].decode(), name[1:-1].decode(), "")
                except Exception as exc:  # as ``_blocks``
                    self.uninterpretable(exc, block[6:].decode("utf-8", "replace"))
                return True
            if rest.find(b"\n") >= 0:
                return False  # more lines than the data line: the general reading
            try:
                if rest[:10] == b'],"usage":' and rest[-1:] == b"}":
                    # the usage chunk (no choices, then usage): ``on_json`` reads the
                    # usage alone, so only it is parsed (4,000 instructions less than
                    # with the choices, callgrind)
                    usage = orjson.loads(rest[10:-1])
                    if type(usage) is not dict:
                        return True  # (``on_json`` takes no other usage: nothing to read)
                else:
                    value = orjson.loads(_CHOICES + rest)
            except orjson.JSONDecodeError:
                return False  # for the repair ladder
        try:
            if usage is not None:
                self.sink.set_usage(openai_usage(usage))
            elif value is None:
                self.sink.set_finish_reason(reason)
            else:
                self._block = block  # (for ``learn``)
                self.on_json(value, None, block[6:])
        except Exception as exc:  # as ``_blocks``
            self.uninterpretable(exc, block[6:].decode("utf-8", "replace"))
        return True

    def _argument_delta(self, block: bytes, index: int, args: str, token: bytes) -> bool:
        """An argument delta read by ``_ARGUMENT_DELTA``: what ``_lone`` does with it,
        its envelope known from its bytes."""
        self._block = block
        try:
            if self.learning[ARGUMENTS]:
                self.learning[ARGUMENTS] -= 1
            else:
                opening = len(block) - len(token) - len(_ARGUMENT_SUFFIX) + 2
                envelope = Envelope(block[:opening], _ARGUMENT_SUFFIX, ARGUMENTS, index)
                self.learn("arguments", args, ARGUMENTS, index, _read_arguments, envelope)
            if not self.sink.fast_arguments(index, args):
                self.sink.tool(index, None, None, args)
        except Exception as exc:  # as ``_blocks``
            self.uninterpretable(exc, block[6:].decode("utf-8", "replace"))
        return True

    def _lone(self, delta: dict[str, Any]) -> bool:
        """Take a delta of one field, learning the envelope of a delta string; False if
        it is not one of the common shapes (the general path then reads it)."""
        sink = self.sink
        if "tool_calls" in delta:
            calls = delta["tool_calls"]
            if type(calls) is not list or len(calls) != 1:
                return False
            call = calls[0]
            if type(call) is not dict:
                return False
            index = call.get("index")
            function = call.get("function")
            if type(index) is not int or type(function) is not dict:
                return False
            args = function.get("arguments")
            if len(call) == 2 and len(function) == 1 and type(args) is str:
                # argument text alone: the bulk of a call
                if self.learning[ARGUMENTS]:
                    self.learning[ARGUMENTS] -= 1
                else:
                    self.learn("arguments", args, ARGUMENTS, index, _read_arguments)
                if not sink.fast_arguments(index, args):
                    sink.tool(index, None, None, args)
                return True
            # a call's first chunk (its id and name), read as ``on_delta`` reads it
            # without the type checks and the look for other fields that a chunk of
            # several fields takes (9,000 instructions a chunk, callgrind); what the
            # checks would report (or F10's object for arguments) goes there
            call_id = call.get("id")
            name = function.get("name")
            if (
                (args is not None and type(args) is not str)
                or (call_id is not None and type(call_id) is not str)
                or (name is not None and type(name) is not str)
            ):
                return False
            sink.tool(index, call_id, name, args)
            if "extra_content" in call:  # Gemini's, as ``on_delta`` reads it
                self._thought_signature(call["extra_content"], call_id, index)
            return True
        if "content" in delta:
            key = "content"
            role = TEXT
        elif "reasoning_content" in delta:
            key = "reasoning_content"
            role = REASONING
        elif "reasoning" in delta:
            key = "reasoning"
            role = REASONING
        else:
            return False
        value = delta[key]
        if type(value) is not str:
            return False
        if self.learning[role]:
            self.learning[role] -= 1
        else:
            self.learn(key, value, role, -1, _READ_DELTA[key])
        if role is REASONING:
            sink.reasoning(value)
        elif value:
            self.text(value)
        return True

    def _first_chunk(self, delta: dict[str, Any]) -> bool:
        """OpenAI's first chunk: the role and null fields (``content``, ``refusal``),
        which the general path skips (the role is never read), alone or beside one
        call's header, read as ``_lone`` reads a lone header (about 10,000 instructions
        less a stream, callgrind); False for any other shape (the general path reads
        it)."""
        calls = None
        for key, value in delta.items():
            if key == "tool_calls":
                calls = value
            elif value is not None and key != "role":
                return False
        if calls is None:
            return True  # the role and nulls alone: nothing the general path reads
        # one call's header: ``_lone`` reads it (with an id it is never the argument
        # text alone that ``_lone`` learns an envelope from), and of a delta with
        # ``tool_calls`` it reads nothing else: the role and nulls beside are no matter
        if type(calls) is list and len(calls) == 1 and type(calls[0]) is dict and "id" in calls[0]:
            return self._lone(delta)
        return False

    def on_json(self, value: dict[str, Any], event: bytes | None, data: Raw) -> bool:
        """A chunk read without repair: the common block's (``_blocks``), a message's
        read strictly (``on_message``) or an SDK's (``on_value``). One that carries one
        field of the first choice's delta and nothing else toolwire reads (no finish
        reason, usage or error: the bulk of every stream) goes to ``_lone``, one of
        several fields to ``_first_chunk``; True if it took it. The finish chunk (an
        empty delta) and the usage chunk (no choices) are read here too; any other
        chunk goes to ``on_chunk``. (The tests sit here, in the function ``_blocks``
        calls, not in one it calls: a call less a chunk, 2,400 instructions a short
        OpenAI stream, callgrind.)"""
        choices = value.get("choices")
        if type(choices) is list and "error" not in value:
            if len(choices) == 1:
                choice = choices[0]
                if (
                    type(choice) is dict
                    and choice.get("index") in _FIRST_CHOICE
                    and value.get("usage") is None
                ):
                    delta = choice.get("delta")
                    reason = choice.get("finish_reason")
                    if reason is None:
                        if type(delta) is dict and (
                            self._lone(delta) if len(delta) == 1 else self._first_chunk(delta)
                        ):
                            return True
                    elif type(delta) is dict and not delta:
                        # the finish chunk (an empty delta): its reason, as the
                        # general path reads it, without its second look at the
                        # chunk (5,500 instructions a stream, callgrind)
                        if reason:
                            self.sink.set_finish_reason(str(reason))
                        return False
            elif not choices:
                # the usage chunk (no choices): as the general path reads it
                # (3,900 instructions a stream, callgrind)
                usage = value.get("usage")
                if type(usage) is dict:
                    self.sink.set_usage(openai_usage(usage))
                    return False
        self.on_chunk(value, data)
        return False

    def on_chunk(self, chunk: dict[str, Any], raw: Raw) -> None:
        """Read a chunk, any chunk: the general path."""
        sink = self.sink
        error = chunk.get("error")
        if error is not None:
            detail = error.get("message") if isinstance(error, dict) else error
            sink.error(f"the upstream sent an error: {detail}", raw_text(raw))
            return
        choices = chunk.get("choices")
        if isinstance(choices, list):
            for choice in choices:
                if not isinstance(choice, dict):
                    continue
                if choice.get("index") not in _FIRST_CHOICE:
                    continue  # toolwire follows the first choice (n=1)
                delta = choice.get("delta")
                if delta is None:
                    delta = choice.get("message")
                if isinstance(delta, dict) and delta:  # (the finish chunk's is empty)
                    self._check_types(delta, choice, raw)
                    self.on_delta(delta, chunk, raw)
                reason = choice.get("finish_reason")
                if reason:
                    sink.set_finish_reason(str(reason))
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            sink.set_usage(openai_usage(usage))

    def _check_types(self, delta: dict[str, Any], choice: dict[str, Any], raw: Raw) -> None:
        """Report the fields of a delta that ``on_delta`` cannot read for their type
        (it skips them): what the model said is never dropped without a word."""
        for field, value in delta.items():  # most deltas: strings only, a quick look
            if value is None or type(value) is str:
                continue
            if field == "tool_calls" and type(value) is list:
                # the usual calls: nothing to report (the walk below is dearer; a
                # function per call cost a header chunk 1,700 instructions, callgrind)
                for call in value:
                    if type(call) is not dict:
                        break
                    function = call.get("function")
                    if function is not None and (
                        type(function) is not dict
                        or type(function.get("arguments")) not in _ARGUMENT_TYPES
                    ):
                        break
                else:
                    continue
            if field in _CHECKED_FIELDS:
                key = "message" if choice.get("delta") is None else "delta"
                self._report_types(delta, f"choices[0].{key}", raw)
                return

    def _report_types(self, delta: dict[str, Any], path: str, raw: Raw) -> None:
        for field in _TEXT_FIELDS:
            value = delta.get(field)
            if field == "content" and type(value) is list:  # content parts
                for i, part in enumerate(value):
                    if type(part) is not dict:
                        self.wrong_type(f"{path}.content[{i}]", part, "an object", raw)
                    elif "text" in part and type(part["text"]) is not str:
                        self.wrong_type(f"{path}.content[{i}].text", part["text"], "a string", raw)
            elif value is not None and type(value) is not str:
                self.wrong_type(f"{path}.{field}", value, "a string", raw)
        calls = delta.get("tool_calls")
        if calls is None:
            return
        if type(calls) is not list:
            self.wrong_type(f"{path}.tool_calls", calls, "an array", raw)
            return
        for i, call in enumerate(calls):
            where = f"{path}.tool_calls[{i}]"
            if type(call) is not dict:
                self.wrong_type(where, call, "an object", raw)
                continue
            function = call.get("function")
            if function is not None and type(function) is not dict:
                self.wrong_type(f"{where}.function", function, "an object", raw)
            elif function is not None:
                arguments = function.get("arguments")
                if arguments is not None and type(arguments) not in (str, dict):  # F10: dict
                    expected = "a string or an object"
                    self.wrong_type(f"{where}.function.arguments", arguments, expected, raw)

    def on_delta(self, delta: dict[str, Any], chunk: dict[str, Any], raw: Raw) -> None:
        """The first choice's ``delta`` (or ``message``) of ``chunk``, read from ``raw``."""
        sink = self.sink
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str):
            sink.reasoning(reasoning)
        content = delta.get("content")
        if isinstance(content, str):
            if content:
                self.text(content)
        elif isinstance(content, list):  # content parts
            for part in content:
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    self.text(part["text"])
        refusal = delta.get("refusal")
        if isinstance(refusal, str) and refusal:
            self.text(refusal)
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for tc in tool_calls:
                if not isinstance(tc, dict):
                    continue
                fn = tc.get("function")
                if not isinstance(fn, dict):
                    fn = {}
                index = tc.get("index")
                call_id = tc.get("id")
                name = fn.get("name")
                arguments = fn.get("arguments")
                unreadable = ""
                if arguments is not None and type(arguments) is not str:  # F10
                    arguments, unreadable = self.exact_arguments(arguments, chunk, raw)
                sink.tool(
                    index if isinstance(index, int) else None,
                    call_id if isinstance(call_id, str) else None,
                    name if isinstance(name, str) else None,
                    arguments,
                    unreadable=unreadable,
                )
                if "extra_content" in tc:  # Gemini's, in a call's first entry (as in ``_lone``)
                    self._thought_signature(tc["extra_content"], call_id, index)
        legacy = delta.get("function_call")
        if isinstance(legacy, dict):
            if not isinstance(tool_calls, list) or not tool_calls:
                # old servers
                arguments, unreadable = self.exact_arguments(legacy.get("arguments"), chunk, raw)
                sink.tool(0, None, legacy.get("name"), arguments, unreadable=unreadable)
            elif not _mirrors(legacy, tool_calls):
                sink.error(
                    "a legacy function_call differs from the tool_calls sent with it; "
                    "it was ignored",
                    dumps(legacy),
                )

    def _thought_signature(self, extra: Any, call_id: Any, index: Any) -> None:
        """A call's Gemini thought signature (in the entry that gives the call's id):
        Gemini 3 refuses the call sent back without it."""
        signature = gemini_thought_signature(extra)
        if signature is not None:
            call_id = call_id if isinstance(call_id, str) else None
            index = index if isinstance(index, int) else None
            self.sink.signature("thought_signature", signature, call_id, index)


def gemini_thought_signature(extra: Any) -> str | None:
    """A tool call's Gemini thought signature where Gemini's OpenAI-compatible API puts
    it: ``extra_content.google.thought_signature`` (``extra``: the call's
    ``extra_content``; ``toolwire.agent`` sends it back there)."""
    google = extra.get("google") if isinstance(extra, Mapping) else None
    signature = google.get("thought_signature") if isinstance(google, Mapping) else None
    return signature if isinstance(signature, str) else None


_ARGUMENT_TYPES = (str, dict, type(None))  # F10: an object for arguments


def _mirrors(legacy: dict[str, Any], tool_calls: list[Any]) -> bool:
    """The legacy ``function_call`` repeats one of the ``tool_calls`` beside it, as
    servers that speak both send (llama-cpp-python): the same argument text, and no
    other name (either may leave the name out after the first fragment)."""
    name = legacy.get("name")
    arguments = legacy.get("arguments") or ""
    for tc in tool_calls:
        fn = tc.get("function") if isinstance(tc, dict) else None
        if (
            isinstance(fn, dict)
            and (fn.get("arguments") or "") == arguments
            and (name is None or fn.get("name") in (None, name))
        ):
            return True
    return False
