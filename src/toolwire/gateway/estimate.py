"""A local estimate of a request's input tokens (``count_tokens``, ``message_start``).

Counts the text the model would read: system prompt, message text, tool results, the
calls' arguments and the tool definitions, with the offline tokenizer. An estimate:
the upstream's own count, reported at the end of a stream, wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from toolwire.jsontext import dumps
from toolwire.tokens import estimate_tokens


def _texts(value: Any, out: list[str]) -> None:
    """Every string inside a content value, in order; objects as compact JSON."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for item in value:
            _texts(item, out)
    elif isinstance(value, Mapping):
        kind = value.get("type")
        if kind in ("image", "image_url", "document", "file"):
            out.append("x" * 1500)  # a picture costs about that much; its bytes are not text
            return
        for key in ("text", "thinking", "content", "input", "arguments", "name", "output"):
            if key in value:
                item = value[key]
                if isinstance(item, str):
                    out.append(item)
                elif key in ("input", "arguments"):
                    out.append(dumps(item))
                else:
                    _texts(item, out)
        if "function" in value:
            _texts(value["function"], out)
        if "tool_calls" in value:
            _texts(value["tool_calls"], out)


def estimate_input_tokens(body: Mapping[str, Any]) -> int:
    texts: list[str] = []
    _texts(body.get("system"), texts)
    _texts(body.get("instructions"), texts)  # Responses
    for message in body.get("messages") or []:
        _texts(message, texts)
    _texts(body.get("input"), texts)
    tools = body.get("tools")
    if tools:
        texts.append(orjson.dumps(tools).decode())
    return sum(estimate_tokens(text) for text in texts)
