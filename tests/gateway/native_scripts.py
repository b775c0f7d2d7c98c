"""Recorded answers of upstreams that speak their own APIs: Gemini (``alt=sse`` stream and
``generateContent`` body), Ollama ``/api/chat`` (NDJSON stream and body) and OpenAI
Responses (SSE events and the ``response`` body), in the shapes those servers send.
Each carries a call whose arguments need repair (an integer sent as a string; a
Python-style dict), and Responses one cut off by its output limit."""

from __future__ import annotations

import json
from typing import Any

from upstream import Script

GEMINI_VERSION = {"modelVersion": "gemini-2.5-flash", "responseId": "k3ZHaO2rFpGHz7IP"}
GEMINI_USAGE = {"promptTokenCount": 41, "candidatesTokenCount": 14, "totalTokenCount": 55}
GEMINI_TEXT = {"text": "Checking the weather."}
GEMINI_CALL = {
    "functionCall": {"name": "get_weather", "args": {"city": "Oslo", "days": "3"}},
    "thoughtSignature": "CiQBVKhc7qg1bSx1w0Ig1GJrJ7u0e0bNY8DX4wVVtsqP0Tq6l2U=",
}


def gemini_chunk(parts: list[dict[str, Any]], finish: str | None = None) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "usageMetadata": GEMINI_USAGE, **GEMINI_VERSION}


GEMINI = Script(
    [
        b"data: " + json.dumps(gemini_chunk([GEMINI_TEXT])).encode() + b"\r\n\r\n",
        b"data: " + json.dumps(gemini_chunk([GEMINI_CALL], "STOP")).encode() + b"\r\n\r\n",
    ],
    body=json.dumps(gemini_chunk([GEMINI_TEXT, GEMINI_CALL], "STOP")).encode(),
)

OLLAMA_CALL = {"function": {"name": "get_weather", "arguments": {"city": "Oslo", "days": "3"}}}
OLLAMA_DONE = {
    "done_reason": "stop",
    "done": True,
    "total_duration": 2209448458,
    "load_duration": 24587125,
    "prompt_eval_count": 173,
    "prompt_eval_duration": 111000000,
    "eval_count": 26,
    "eval_duration": 2059000000,
}


def ollama_line(message: dict[str, Any], **extra: Any) -> bytes:
    line = {
        "model": "qwen3:8b",
        "created_at": "2025-06-09T12:00:00.000000Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
        **extra,
    }
    return json.dumps(line).encode() + b"\n"


OLLAMA = Script(
    [
        ollama_line({"thinking": "The user wants the weather."}),
        ollama_line({"content": "Checking the weather."}),
        ollama_line({"tool_calls": [OLLAMA_CALL]}),
        ollama_line({}, **OLLAMA_DONE),
    ],
    content_type="application/x-ndjson",
    body=ollama_line(
        {
            "content": "Checking the weather.",
            "thinking": "The user wants the weather.",
            "tool_calls": [OLLAMA_CALL],
        },
        **OLLAMA_DONE,
    ).rstrip(b"\n"),
)


def responses_events(
    fragments: list[str], terminal: str = "completed"
) -> tuple[list[bytes], bytes]:
    """A Responses stream with one function call, and its ``response`` body."""
    arguments = "".join(fragments)
    item = {
        "id": "fc_68a1",
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_Lq2",
        "name": "get_weather",
    }
    base = {
        "id": "resp_68a1",
        "object": "response",
        "created_at": 1755000000,
        "model": "gpt-oss-20b",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
    }
    done_item = {**item, "arguments": arguments, "status": "completed"}
    final = {
        **base,
        "status": terminal,
        "output": [done_item if terminal == "completed" else {**item, "arguments": arguments}],
        "usage": {"input_tokens": 52, "output_tokens": 18, "total_tokens": 70},
    }
    if terminal == "incomplete":
        final["incomplete_details"] = {"reason": "max_output_tokens"}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": {**base, "status": "in_progress"}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
    ]
    for fragment in fragments:
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": item["id"],
                "output_index": 0,
                "delta": fragment,
            }
        )
    if terminal == "completed":
        events += [
            {
                "type": "response.function_call_arguments.done",
                "item_id": item["id"],
                "output_index": 0,
                "arguments": arguments,
            },
            {"type": "response.output_item.done", "output_index": 0, "item": done_item},
        ]
    events.append({"type": f"response.{terminal}", "response": final})
    chunks = [
        f"event: {e['type']}\ndata: {json.dumps({**e, 'sequence_number': n})}\n\n".encode()
        for n, e in enumerate(events)
    ]
    return chunks, json.dumps(final).encode()


_chunks, _body = responses_events(["{'city': 'Lima', ", "'days': '2',}"])
RESPONSES = Script(_chunks, body=_body)
_cut_chunks, _cut_body = responses_events(['{"city": ', '"Par'], terminal="incomplete")
RESPONSES_CUT = Script(_cut_chunks, body=_cut_body)

NATIVE_SCRIPTS = {
    "gemini-call": GEMINI,
    "ollama-call": OLLAMA,
    "responses-call": RESPONSES,
    "responses-cut": RESPONSES_CUT,
}
