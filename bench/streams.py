"""Stream builders shared by the benchmarks (OpenAI Chat Completions SSE)."""

from __future__ import annotations

import json
import random
import re
from typing import Any

HEADER = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def code_like_text(size: int, seed: int = 7) -> str:
    """Source-code-like text with quotes, backslashes, tabs, newlines and non-ASCII."""
    rng = random.Random(seed)
    words = [
        "def",
        "return",
        "self",
        'print("x")',
        "a\\b",
        "\t",
        "\n",
        "é",
        "世界",
        "{",
        "}",
        "# ok",
    ]
    out: list[str] = []
    total = 0
    while total < size:
        w = rng.choice(words)
        out.append(w)
        out.append(" ")
        total += len(w) + 1
    return "".join(out)[:size]


def call_arguments(size: int) -> str:
    """JSON argument text of about ``size`` bytes: a write_file call."""
    return json.dumps({"path": "src/app/main.py", "content": code_like_text(size)})


def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
    return json.dumps(
        {**HEADER, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    )


def openai_call_chunks(args: str, delta_size: int, name: str = "write_file") -> list[str]:
    """The data lines of one streamed call whose arguments come in ``delta_size`` pieces."""
    lines = [
        chunk(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                ],
            }
        )
    ]
    for i in range(0, len(args), delta_size):
        piece = args[i : i + delta_size]
        lines.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
    lines.append(chunk({}, "tool_calls"))
    return lines


def sse(lines: list[str]) -> bytes:
    return ("".join(f"data: {line}\n\n" for line in lines) + "data: [DONE]\n\n").encode()


WRITE_FILE_TOOL = {
    "name": "write_file",
    "parameters": {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
}


def obfuscation(rng: random.Random) -> str:
    """What OpenAI's API puts in a message's ``obfuscation`` member: 0-16 random
    letters and digits."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))


def api_2025(data: bytes, seed: int = 7) -> bytes:
    """OpenAI Chat SSE as OpenAI's API writes it since 2025: the service tier after the
    model, a null usage before ``choices`` (where usage is asked for), and a last
    member of 0-16 random letters and digits (``obfuscation``, on by default)."""
    rng = random.Random(seed)
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data: {") and line.endswith(b"}"):
            line = re.sub(
                rb'("model": ?"[^"]*", ?)', rb'\1"service_tier":"default",', line, count=1
            )
            line = line.replace(b'"choices":', b'"usage":null,"choices":', 1)
            lines[i] = line[:-1] + b',"obfuscation":"' + obfuscation(rng).encode() + b'"}'
    return b"\n".join(lines)


def responses_events(args: str, delta_size: int) -> bytes:
    """An OpenAI Responses stream as OpenAI's API writes it: a function call whose
    argument text comes in ``delta_size``-character deltas, every event numbered
    (``sequence_number``) and ending in a member of random characters."""
    rng = random.Random(7)
    item = {"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": ""}
    item |= {"call_id": "call_1", "name": "write_file"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    for i in range(0, len(args), delta_size):
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 0,
                "delta": args[i : i + delta_size],
            }
        )
    done = {**item, "status": "completed", "arguments": args}
    events.append({"type": "response.output_item.done", "output_index": 0, "item": done})
    usage = {"input_tokens": 10, "output_tokens": len(events), "total_tokens": 10 + len(events)}
    events.append(
        {
            "type": "response.completed",
            "response": {"id": "resp_1", "status": "completed", "usage": usage},
        }
    )
    out = []
    for number, event in enumerate(events):
        event = {"type": event.pop("type"), "sequence_number": number, **event}
        event["obfuscation"] = obfuscation(rng)
        out.append(f"event: {event['type']}\ndata: {json.dumps(event, separators=(',', ':'))}\n\n")
    return "".join(out).encode()


def ollama_lines(text: str, delta_size: int, thinking: bool = False) -> bytes:
    """An Ollama ``/api/chat`` stream (newline-delimited JSON) of ``text`` in
    ``delta_size``-character content deltas (``thinking``: reasoning deltas, the text
    empty, as qwen3 or deepseek-r1 asked to think send them), then the final object
    with the counts."""
    out = []
    for i in range(0, len(text), delta_size):
        piece = text[i : i + delta_size]
        if thinking:
            message = {"role": "assistant", "content": "", "thinking": piece}
        else:
            message = {"role": "assistant", "content": piece}
        at = f"2025-06-01T10:00:{i // delta_size % 60:02d}.{i:09d}Z"
        out.append({"model": "qwen3:8b", "created_at": at, "message": message, "done": False})
    message = {"role": "assistant", "content": ""}
    out.append(
        {
            "model": "qwen3:8b",
            "created_at": "2025-06-01T10:01:00Z",
            "message": message,
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 12,
            "eval_count": len(out),
        }
    )
    return "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in out).encode()


def anthropic_text_events(text: str, delta_size: int) -> bytes:
    """An Anthropic Messages stream of one text block whose text comes in
    ``delta_size``-character deltas, each message padded before its last brace as the
    API pads them (a varying run of spaces)."""
    rng = random.Random(7)
    start = {"id": "msg_1", "type": "message", "role": "assistant", "content": []}
    start |= {"model": "claude", "usage": {"input_tokens": 10, "output_tokens": 1}}
    events: list[tuple[str, dict[str, Any]]] = [
        ("message_start", {"type": "message_start", "message": start}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
    ]
    for i in range(0, len(text), delta_size):
        delta = {"type": "text_delta", "text": text[i : i + delta_size]}
        events.append(
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta})
        )
    events += [
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn"},
                "usage": {"output_tokens": len(events)},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    out = []
    for kind, event in events:
        data = json.dumps(event, separators=(",", ":"))
        if kind != "message_stop":
            data = data[:-1] + " " * rng.randint(0, 40) + "}"
        out.append(f"event: {kind}\ndata: {data}\n\n")
    return "".join(out).encode()


def gemini_sse(text: str, delta_size: int) -> bytes:
    """A Gemini ``streamGenerateContent?alt=sse`` stream of ``text`` in
    ``delta_size``-character parts, each chunk with its usage so far (CRLF, as the API
    writes it)."""
    out = []
    for n, i in enumerate(range(0, len(text), delta_size)):
        part = {"content": {"parts": [{"text": text[i : i + delta_size]}], "role": "model"}}
        usage = {"promptTokenCount": 10, "candidatesTokenCount": n, "totalTokenCount": 10 + n}
        chunk = {"candidates": [{**part, "index": 0}], "usageMetadata": usage}
        chunk |= {"modelVersion": "gemini-2.5-flash", "responseId": "r1"}
        out.append(chunk)
    out[-1]["candidates"][0]["finishReason"] = "STOP"
    return "".join(f"data: {json.dumps(c, separators=(',', ':'))}\r\n\r\n" for c in out).encode()
