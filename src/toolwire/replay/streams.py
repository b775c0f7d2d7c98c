"""Chat Completions stream messages as OpenAI-compatible servers (vLLM, llama.cpp,
SGLang) send them: the building blocks of a replayed answer."""

from __future__ import annotations

from typing import Any

import orjson

DONE = b"data: [DONE]\n\n"


def sse_messages(data: bytes) -> list[bytes]:
    """A recorded SSE stream split into its messages (each keeps its blank line)."""
    return [part + b"\n\n" for part in data.replace(b"\r\n", b"\n").split(b"\n\n") if part.strip()]


def chat_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    """One ``chat.completion.chunk`` message."""
    body = {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": 1717171717,
        "model": "scripted",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }
    return b"data: " + orjson.dumps(body) + b"\n\n"


def usage_chunk(prompt: int, completion: int) -> bytes:
    usage = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    body = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "choices": []}
    return b"data: " + orjson.dumps({**body, "usage": usage}) + b"\n\n"


def call_stream(
    name: str, fragments: list[str], finish: str, call_id: str = "call_1"
) -> list[bytes]:
    """A streamed call: the header, its argument fragments, the finish, usage, DONE."""
    chunks = [chat_chunk({"role": "assistant", "content": None})]
    header = {"index": 0, "id": call_id, "type": "function", "function": {"name": name}}
    chunks.append(
        chat_chunk({"tool_calls": [{**header, "function": {"name": name, "arguments": ""}}]})
    )
    for fragment in fragments:
        chunks.append(
            chat_chunk({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]})
        )
    return [*chunks, chat_chunk({}, finish), usage_chunk(40, 12), DONE]


def text_stream(pieces: list[str], finish: str = "stop") -> list[bytes]:
    chunks = [chat_chunk({"role": "assistant", "content": ""})]
    chunks += [chat_chunk({"content": piece}) for piece in pieces]
    return [*chunks, chat_chunk({}, finish), usage_chunk(20, len(pieces)), DONE]
