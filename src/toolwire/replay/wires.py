"""Scripted answers in each upstream wire format, in the stream shapes the real servers
send (OpenAI Chat Completions, Anthropic Messages, OpenAI Responses, Gemini
``streamGenerateContent?alt=sse``, Ollama ``/api/chat``): the building blocks of a
``Dialogue``.

    Script = anthropic_answer(calls=[WireCall("toolu_1", "add", '{"a": 1}')])

A call's ``arguments`` is its argument text for the wires that stream it in fragments
(Chat, Anthropic, Responses; split in ``pieces``), and the value sent for the wires that send
a call whole (Gemini, Ollama: an object as they send it, a string to script a server
that sends the arguments as text). ``cut``: the answer stops at the output token limit
with its last call unfinished.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from toolwire.replay.server import Script
from toolwire.replay.streams import DONE, chat_chunk, usage_chunk


@dataclass(frozen=True)
class WireCall:
    id: str | None
    name: str
    arguments: Any


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# -- OpenAI Chat Completions ------------------------------------------------------------


def chat_answer(
    text: str = "",
    calls: Sequence[WireCall] = (),
    *,
    cut: bool = False,
    usage: tuple[int, int] = (30, 9),
    pieces: int = 8,
) -> Script:
    """A Chat Completions stream as vLLM sends it: the text in pieces, then each call's
    header (id, name) and its argument fragments, the finish, the usage, ``[DONE]``."""
    chunks = [chat_chunk({"role": "assistant", "content": ""})]
    chunks += [chat_chunk({"content": p}) for p in (_pieces(text, pieces) if text else [])]
    for index, call in enumerate(calls):
        header = {"index": index, "id": call.id, "type": "function"}
        chunks.append(chat_chunk({"tool_calls": [{**header, "function": {"name": call.name}}]}))
        for piece in _pieces(call.arguments, pieces):
            fragment = {"index": index, "function": {"arguments": piece}}
            chunks.append(chat_chunk({"tool_calls": [fragment]}))
    finish = "length" if cut else "tool_calls" if calls else "stop"
    return Script([*chunks, chat_chunk({}, finish), usage_chunk(*usage), DONE])


def gemini_compat_answer(
    calls: Sequence[WireCall], signature: str | Sequence[str | None]
) -> Script:
    """Gemini's OpenAI-compatible API (``/v1beta/openai/chat/completions``): the calls
    whole in one chunk with the finish, the thought signature on the first (or, given
    one per call, each its own; None: none), in
    ``extra_content.google.thought_signature``."""
    signatures = [signature] if isinstance(signature, str) else list(signature)
    entries: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        entry: dict[str, Any] = {
            "function": {"arguments": call.arguments, "name": call.name},
            "id": call.id,
            "index": index,
            "type": "function",
        }
        own = signatures[index] if index < len(signatures) else None
        if own is not None:
            entry = {"extra_content": {"google": {"thought_signature": own}}, **entry}
        entries.append(entry)
    delta = {"role": "assistant", "tool_calls": entries}
    return Script([chat_chunk(delta, "tool_calls"), DONE])


# -- Anthropic Messages -----------------------------------------------------------------


def anthropic_events(events: Sequence[dict[str, Any]]) -> list[bytes]:
    """Events as Anthropic frames them: ``event:`` names the type, then its data."""
    return [b"event: %s\ndata: %s\n\n" % (e["type"].encode(), orjson.dumps(e)) for e in events]


def anthropic_answer(
    text: str = "",
    calls: Sequence[WireCall] = (),
    *,
    cut: bool = False,
    usage: tuple[int, int] = (30, 9),
    pieces: int = 8,
    redacted: Sequence[str] = (),
) -> Script:
    """A Messages stream: a text block, then a ``tool_use`` block per call; first a
    ``redacted_thinking`` block per ``redacted`` data (whole in its start, no delta)."""
    message: dict[str, Any] = {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": "scripted",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1},
    }
    events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
    events.append({"type": "ping"})
    blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
        ({"type": "redacted_thinking", "data": data}, []) for data in redacted
    ]
    if text:
        deltas = [{"type": "text_delta", "text": p} for p in _pieces(text, pieces)]
        blocks.append(({"type": "text", "text": ""}, deltas))
    for call in calls:
        start: dict[str, Any] = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        deltas = [{"type": "input_json_delta", "partial_json": ""}]
        deltas += [
            {"type": "input_json_delta", "partial_json": p} for p in _pieces(call.arguments, pieces)
        ]
        blocks.append((start, deltas))
    for index, (start, deltas) in enumerate(blocks):
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        if not (cut and index == len(blocks) - 1):
            events.append({"type": "content_block_stop", "index": index})
    stop = "max_tokens" if cut else "tool_use" if calls else "end_turn"
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": usage[1]},
        }
    )
    events.append({"type": "message_stop"})
    return Script(anthropic_events(events))


# -- OpenAI Responses -------------------------------------------------------------------


def responses_answer(
    text: str = "",
    calls: Sequence[WireCall] = (),
    *,
    cut: bool = False,
    usage: tuple[int, int] = (30, 9),
    pieces: int = 8,
) -> Script:
    """A Responses stream: ``response.created``, a message item with the text, a
    ``function_call`` item per call, then ``response.completed`` (``incomplete`` when
    cut). Every event carries its ``sequence_number``, as OpenAI's do."""
    response: dict[str, Any] = {
        "id": "resp_scripted",
        "object": "response",
        "created_at": 1717171717,
        "status": "in_progress",
        "model": "scripted",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": None,
    }
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response},
        {"type": "response.in_progress", "response": response},
    ]
    output: list[dict[str, Any]] = []
    if text:
        item_id = "msg_scripted"
        item: dict[str, Any] = {
            "id": item_id,
            "type": "message",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        }
        at = {"item_id": item_id, "output_index": 0, "content_index": 0}
        events.append({"type": "response.output_item.added", "output_index": 0, "item": item})
        part = {"type": "output_text", "text": "", "annotations": []}
        events.append({"type": "response.content_part.added", **at, "part": part})
        events += [
            {"type": "response.output_text.delta", **at, "delta": p, "logprobs": []}
            for p in _pieces(text, pieces)
        ]
        events.append({"type": "response.output_text.done", **at, "text": text, "logprobs": []})
        part = {**part, "text": text}
        events.append({"type": "response.content_part.done", **at, "part": part})
        done = {**item, "status": "completed", "content": [part]}
        events.append({"type": "response.output_item.done", "output_index": 0, "item": done})
        output.append(done)
    for n, call in enumerate(calls):
        index = len(output)
        item_id = f"fc_scripted_{n}"
        item = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": call.id,
            "name": call.name,
        }
        at = {"item_id": item_id, "output_index": index}
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events += [
            {"type": "response.function_call_arguments.delta", **at, "delta": p}
            for p in _pieces(call.arguments, pieces)
        ]
        if cut and n == len(calls) - 1:
            break
        events.append(
            {"type": "response.function_call_arguments.done", **at, "arguments": call.arguments}
        )
        done = {**item, "status": "completed", "arguments": call.arguments}
        events.append({"type": "response.output_item.done", "output_index": index, "item": done})
        output.append(done)
    final = {
        **response,
        "status": "incomplete" if cut else "completed",
        "output": output,
        "usage": {
            "input_tokens": usage[0],
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage[1],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": sum(usage),
        },
    }
    if cut:
        final["incomplete_details"] = {"reason": "max_output_tokens"}
    events.append(
        {"type": "response.incomplete" if cut else "response.completed", "response": final}
    )
    return Script(
        [
            b"event: %s\ndata: %s\n\n"
            % (e["type"].encode(), orjson.dumps({"type": e["type"], "sequence_number": i, **e}))
            for i, e in enumerate(events)
        ]
    )


# -- Gemini -----------------------------------------------------------------------------


def gemini_answer(
    text: str = "",
    calls: Sequence[WireCall] = (),
    *,
    finish: str = "STOP",
    usage: tuple[int, int] = (30, 9),
    pieces: int = 8,
) -> Script:
    """A ``streamGenerateContent?alt=sse`` stream: text in chunks of one part each,
    then the calls whole, in one chunk, with the finish reason (Gemini says ``STOP``
    after calls too) and the usage. Gemini frames its events with CRLF."""
    chunks: list[dict[str, Any]] = []
    for piece in _pieces(text, pieces) if text else []:
        chunks.append({"candidates": [{"content": {"parts": [{"text": piece}], "role": "model"}}]})
    parts: list[dict[str, Any]] = []
    for call in calls:
        function: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if call.id is not None:
            function["id"] = call.id
        parts.append({"functionCall": function})
    last: dict[str, Any] = {"finishReason": finish, "index": 0}
    if parts:
        last["content"] = {"parts": parts, "role": "model"}
    chunks.append({"candidates": [last]})
    chunks[-1]["usageMetadata"] = {
        "promptTokenCount": usage[0],
        "candidatesTokenCount": usage[1],
        "totalTokenCount": sum(usage),
    }
    for chunk in chunks:
        chunk["modelVersion"] = "gemini-scripted"
        chunk["responseId"] = "scripted-response"
    return Script([b"data: " + orjson.dumps(c) + b"\r\n\r\n" for c in chunks])


# -- Ollama -----------------------------------------------------------------------------


def ollama_answer(
    text: str = "",
    calls: Sequence[WireCall] = (),
    *,
    done_reason: str = "stop",
    usage: tuple[int, int] = (30, 9),
    pieces: int = 8,
) -> Script:
    """An ``/api/chat`` stream: newline-delimited JSON, a line per text piece, the calls
    whole in one line, then the ``done`` line with the counts and timings. Ollama says
    ``stop`` after calls too."""
    stamp = {"model": "scripted", "created_at": "2026-11-23T12:00:00.000000Z"}
    lines: list[dict[str, Any]] = []
    for piece in _pieces(text, pieces) if text else []:
        lines.append({**stamp, "message": {"role": "assistant", "content": piece}, "done": False})
    if calls:
        tool_calls: list[dict[str, Any]] = []
        for index, call in enumerate(calls):
            entry: dict[str, Any] = {
                "function": {"index": index, "name": call.name, "arguments": call.arguments}
            }
            if call.id is not None:
                entry["id"] = call.id
            tool_calls.append(entry)
        message = {"role": "assistant", "content": "", "tool_calls": tool_calls}
        lines.append({**stamp, "message": message, "done": False})
    lines.append(
        {
            **stamp,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": done_reason,
            "total_duration": 1000000,
            "load_duration": 10000,
            "prompt_eval_count": usage[0],
            "prompt_eval_duration": 10000,
            "eval_count": usage[1],
            "eval_duration": 10000,
        }
    )
    return Script(
        [orjson.dumps(line) + b"\n" for line in lines], content_type="application/x-ndjson"
    )
