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


def api_2025(data: bytes, seed: int = 7) -> bytes:
    """OpenAI Chat SSE as OpenAI's API writes it since 2025: the service tier after the
    model, a null usage before ``choices`` (where usage is asked for), and a last
    member of 0-16 random letters and digits (``obfuscation``, on by default)."""
    rng = random.Random(seed)
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    lines = data.split(b"\n")
    for i, line in enumerate(lines):
        if line.startswith(b"data: {") and line.endswith(b"}"):
            line = re.sub(
                rb'("model": ?"[^"]*", ?)', rb'\1"service_tier":"default",', line, count=1
            )
            line = line.replace(b'"choices":', b'"usage":null,"choices":', 1)
            value = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 16)))
            lines[i] = line[:-1] + b',"obfuscation":"' + value.encode() + b'"}'
    return b"\n".join(lines)
