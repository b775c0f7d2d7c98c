"""Structure-aware fuzzing of wire streams (issue 11): valid streams of each format,
mutated the way broken servers and proxies break them, and a time-bounded driver.

A stream is a list of messages (parsed JSON values) and the framing that writes
them. A mutation changes a field's type, deletes or duplicates a field or message,
puts a lone surrogate into a string, or, after framing, truncates the bytes or
inserts random ones. Everything is drawn from a ``random.Random`` with a known seed,
so a failure names the seed that reproduces it.

``TOOLWIRE_FUZZ_SCALE`` multiplies every input count and time budget (a longer run:
``TOOLWIRE_FUZZ_SCALE=50 pytest tests -k fuzz``).
"""

from __future__ import annotations

import copy
import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from toolwire.events import Event, ReasoningDelta, TextDelta

SCALE = float(os.environ.get("TOOLWIRE_FUZZ_SCALE", "1"))

LONE_SURROGATES = ("\ud800", "\udfff", "a\udc00b", "\ud83d")


def _openai_chat() -> list[Any]:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
        return {**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    def args(index: int, text: str) -> dict[str, Any]:
        return chunk({"tool_calls": [{"index": index, "function": {"arguments": text}}]})

    return [
        chunk({"role": "assistant", "content": ""}),
        chunk({"reasoning_content": "Need the weather."}),
        chunk({"content": "Checking "}),
        chunk({"content": "Oslo."}),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        args(0, '{"city"'),
        args(0, ': "Os'),
        args(0, 'lo"}'),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Bern"}'},
                    }
                ]
            }
        ),
        chunk({}, "tool_calls"),
        {
            **head,
            "choices": [],
            "usage": {
                "prompt_tokens": 9,
                "completion_tokens": 7,
                "prompt_tokens_details": {"cached_tokens": 1},
                "completion_tokens_details": {"reasoning_tokens": 2},
            },
        },
        "[DONE]",
    ]


def _anthropic() -> list[Any]:
    def delta(index: int, kind: str, key: str, value: str) -> dict[str, Any]:
        return {
            "type": "content_block_delta",
            "index": index,
            "delta": {"type": kind, key: value},
        }

    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "m",
                "usage": {"input_tokens": 12, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "thinking", "thinking": ""},
        },
        delta(0, "thinking_delta", "thinking", "Need weather."),
        delta(0, "signature_delta", "signature", "c2ln"),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        delta(1, "text_delta", "text", "Checking "),
        delta(1, "text_delta", "text", "Oslo."),
        {"type": "content_block_stop", "index": 1},
        {"type": "ping"},
        {
            "type": "content_block_start",
            "index": 2,
            "content_block": {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {},
            },
        },
        delta(2, "input_json_delta", "partial_json", ""),
        delta(2, "input_json_delta", "partial_json", '{"city": "Os'),
        delta(2, "input_json_delta", "partial_json", 'lo"}'),
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 30},
        },
        {"type": "message_stop"},
    ]


def _openai_responses() -> list[Any]:
    fc = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather"}
    return [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "delta": "Need weather.",
        },
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {"type": "message", "id": "msg_1", "role": "assistant", "content": []},
        },
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "delta": "Checking Oslo.",
        },
        {
            "type": "response.output_item.done",
            "output_index": 1,
            "item": {
                "type": "message",
                "id": "msg_1",
                "content": [{"type": "output_text", "text": "Checking Oslo."}],
            },
        },
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**fc, "arguments": "", "status": "in_progress"},
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": '{"city": "Os',
        },
        {
            "type": "response.function_call_arguments.delta",
            "item_id": "fc_1",
            "output_index": 2,
            "delta": 'lo"}',
        },
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 2,
            "arguments": '{"city": "Oslo"}',
        },
        {
            "type": "response.output_item.done",
            "output_index": 2,
            "item": {**fc, "arguments": '{"city": "Oslo"}', "status": "completed"},
        },
        {
            "type": "response.output_item.done",
            "output_index": 3,
            "item": {"type": "reasoning", "id": "rs_2", "summary": [{"text": "Done."}]},
        },
        {
            "type": "response.completed",
            "response": {
                "status": "completed",
                "usage": {
                    "input_tokens": 12,
                    "input_tokens_details": {"cached_tokens": 2},
                    "output_tokens": 9,
                    "output_tokens_details": {"reasoning_tokens": 4},
                },
            },
        },
    ]


def _gemini() -> list[Any]:
    def cand(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **extra}],
            "responseId": "resp-9",
        }

    return [
        cand([{"text": "Weighing it.", "thought": True}]),
        cand([{"text": "Looking up Zürich "}]),
        {
            **cand(
                [
                    {"functionCall": {"name": "get_weather", "args": {"city": "Zürich"}}},
                    {"functionCall": {"id": "c2", "name": "get_weather", "args": {"city": "Bern"}}},
                ],
                finishReason="STOP",
            ),
            "usageMetadata": {
                "promptTokenCount": 20,
                "candidatesTokenCount": 8,
                "thoughtsTokenCount": 5,
                "cachedContentTokenCount": 1,
            },
            "promptFeedback": {"safetyRatings": []},
        },
    ]


def _ollama() -> list[Any]:
    head = {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z"}
    return [
        {
            **head,
            "message": {"role": "assistant", "content": "", "thinking": "Need weather."},
            "done": False,
        },
        {**head, "message": {"role": "assistant", "content": "Checking."}, "done": False},
        {
            **head,
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
                    {
                        "id": "c2",
                        "function": {"name": "get_weather", "arguments": {"city": "Bern"}},
                    },
                ],
            },
            "done": False,
        },
        {
            **head,
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "prompt_eval_count": 20,
            "eval_count": 9,
        },
    ]


# stand-ins for arrays nested deeper than orjson writes (254) or reads (1024); the
# framing puts the nesting in their place (json.dumps itself cannot write it)
DEEP = ("\0deep:300", "\0deep:1100")


def _json(value: Any, rng: random.Random) -> str:
    # ASCII escapes or raw characters: a lone surrogate then reaches the bytes as
    # "\ud800" or as invalid UTF-8
    if isinstance(value, str):
        return value
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    for marker in DEEP:
        depth = int(marker.split(":")[1])
        text = text.replace(json.dumps(marker), "[" * depth + "]" * depth)
    return text


def _sse(messages: list[Any], rng: random.Random, named: bool = False) -> str:
    out = []
    for message in messages:
        event = message.get("type") if named and isinstance(message, dict) else None
        head = f"event: {event}\n" if isinstance(event, str) else ""
        out.append(f"{head}data: {_json(message, rng)}\n\n")
    return "".join(out)


def _gemini_array(messages: list[Any], rng: random.Random) -> str:
    return "[" + ",\r\n".join(_json(m, rng) for m in messages) + "]"


def _ndjson(messages: list[Any], rng: random.Random) -> str:
    return "".join(_json(m, rng) + "\n" for m in messages)


@dataclass(frozen=True)
class WireSeed:
    """A valid stream of one format: its messages and how they are framed."""

    name: str
    format: str
    messages: Callable[[], list[Any]]
    frame: Callable[[list[Any], random.Random], str]


SEEDS = [
    WireSeed("openai-chat", "openai-chat", _openai_chat, _sse),
    WireSeed("anthropic", "anthropic", _anthropic, lambda m, r: _sse(m, r, named=True)),
    WireSeed(
        "openai-responses", "openai-responses", _openai_responses, lambda m, r: _sse(m, r, True)
    ),
    WireSeed("gemini-sse", "gemini", _gemini, _sse),
    WireSeed("gemini-array", "gemini", _gemini, _gemini_array),
    WireSeed("ollama", "ollama", _ollama, _ndjson),
]


# -- mutations --------------------------------------------------------------------------


def paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every position inside a JSON value (not the root itself)."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield (*path, key)
            yield from paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield (*path, i)
            yield from paths(child, (*path, i))


def at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _other_type(rng: random.Random, old: Any, pool: list[Any]) -> Any:
    choices: list[Any] = [
        5,
        -1,
        0,
        2**64,
        1.5,
        True,
        False,
        None,
        "x",
        "",
        [],
        [1, "a"],
        {},
        {"a": 1},
        rng.choice(LONE_SURROGATES),
    ]
    if rng.random() < 0.03:  # nesting deeper than orjson writes (254) or reads (1024)
        return rng.choice(DEEP)
    if pool and rng.random() < 0.3:
        return copy.deepcopy(rng.choice(pool))  # another field's value: a plausible shape
    if isinstance(old, str) and rng.random() < 0.3:
        return [old]
    return rng.choice(choices)


def _with_surrogate(rng: random.Random, text: str) -> str:
    cut = rng.randint(0, len(text))
    return text[:cut] + rng.choice(LONE_SURROGATES) + text[cut:]


def mutate_messages(rng: random.Random, messages: list[Any]) -> list[Any]:
    """One structural mutation of a stream's messages."""
    messages = copy.deepcopy(messages)
    if not messages:
        return messages
    op = rng.random()
    i = rng.randrange(len(messages))
    if op < 0.08:  # drop a message
        del messages[i]
        return messages
    if op < 0.16:  # repeat a message
        messages.insert(rng.randrange(len(messages) + 1), copy.deepcopy(messages[i]))
        return messages
    if op < 0.2:  # swap two messages
        j = rng.randrange(len(messages))
        messages[i], messages[j] = messages[j], messages[i]
        return messages
    message = messages[i]
    where = list(paths(message))
    if not where:
        messages[i] = _other_type(rng, message, [])
        return messages
    path = rng.choice(where)
    parent = at(message, path[:-1])
    key = path[-1]
    old = parent[key]
    if op < 0.3:  # delete a field
        del parent[key]
    elif op < 0.38 and isinstance(parent, dict):  # the same value under another member
        sibling = rng.choice(list(parent))
        parent[sibling] = copy.deepcopy(old)
    elif op < 0.5:  # a lone surrogate in some string
        strings = [p for p in where if isinstance(at(message, p), str)]
        if strings:
            text = rng.choice(strings)
            at(message, text[:-1])[text[-1]] = _with_surrogate(rng, at(message, text))
        else:
            parent[key] = rng.choice(LONE_SURROGATES)
    else:  # a field of another type
        pool = [at(message, p) for p in where]
        parent[key] = _other_type(rng, old, pool)
    return messages


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """A mutation of the framed bytes: cut off, random bytes in, a byte changed."""
    op = rng.random()
    where = rng.randint(0, len(data))
    if op < 0.4:
        return data[:where]
    if op < 0.8:
        junk = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        return data[:where] + junk + data[where:]
    if data:
        where = min(where, len(data) - 1)
        return data[:where] + bytes([rng.randrange(256)]) + data[where + 1 :]
    return data


def fuzzed_stream(seed: WireSeed, rng: random.Random) -> bytes | str:
    """One mutated stream of ``seed``'s format, as bytes or (sometimes) as str."""
    messages = seed.messages()
    for _ in range(rng.choice((1, 1, 2, 3))):
        messages = mutate_messages(rng, messages)
    text = seed.frame(messages, rng)
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.25:
        data = mutate_bytes(rng, data)
    elif rng.random() < 0.2:
        return text  # a str with lone surrogates in it, as a str-fed caller has
    return data


def joined_text(events: list[Event]) -> list[Event]:
    """``events`` with each run of text deltas as one, and of reasoning deltas (with no
    signature): a decoder may hand on the text (or reasoning) of the messages one
    ``feed`` reads as one delta."""
    out: list[Event] = []
    for event in events:
        last = out[-1] if out else None
        if type(event) is TextDelta and type(last) is TextDelta:
            out[-1] = TextDelta(last.text + event.text)
        elif (
            type(event) is ReasoningDelta
            and type(last) is ReasoningDelta
            and not (event.signature or last.signature)
        ):
            out[-1] = ReasoningDelta(last.text + event.text)
        else:
            out.append(event)
    return out


def pieces(rng: random.Random, data: bytes | str) -> list[bytes | str]:
    """``data`` cut anywhere, including inside a UTF-8 character."""
    out: list[bytes | str] = []
    i = 0
    while i < len(data):
        step = rng.choice((1, 3, 17, 64, 4096))
        out.append(data[i : i + step])
        i += step
    return out


# -- the driver -------------------------------------------------------------------------


class Hang(Exception):
    """One input took longer than the watchdog allows."""


@contextmanager
def watchdog(seconds: float) -> Iterator[None]:
    """Raise ``Hang`` in the running code when it takes longer than ``seconds``
    (a hang becomes a failure naming its input, not a stuck suite)."""

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_budgeted(
    inputs: int, seconds: float, case: Callable[[random.Random, int], None], base_seed: int = 0
) -> int:
    """Run ``case(rng, seed)`` for up to ``inputs`` seeds (scaled) or until the time
    budget (scaled) is spent, at least 20; returns how many ran. Each case gets its own
    ``random.Random(seed)``: a failure's seed reproduces it alone."""
    limit = max(1, int(inputs * SCALE))
    deadline = time.monotonic() + seconds * SCALE
    ran = 0
    for n in range(limit):
        seed = base_seed + n
        case(random.Random(seed), seed)
        ran += 1
        if ran >= 20 and time.monotonic() > deadline:
            break
    return ran
