"""The recorded streams bundled with toolwire (``toolwire/data/demo``): the
conformance streams, one per failure mode, and streams recorded from open-model
servers, each with the tools it was asked with and the result it should give."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from typing import Any


@dataclass(frozen=True)
class RecordedStream:
    name: str
    format: str
    data: bytes
    tools: list[dict[str, Any]]
    covers: list[str]
    expect: dict[str, Any] | None
    source: str = field(default="")


def read_cases(filename: str) -> list[RecordedStream]:
    """The cases of one JSONL file in ``toolwire/data/demo``."""
    text = (resources.files("toolwire.data.demo") / filename).read_text(encoding="utf-8")
    out: list[RecordedStream] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        case = json.loads(line)
        out.append(
            RecordedStream(
                case["id"],
                case["format"],
                case["input"].encode(),
                case["tools"],
                case["covers"],
                case["expect"],
                case.get("source", ""),
            )
        )
    return out


def real_captures() -> list[RecordedStream]:
    """The real OpenAI and Anthropic captures (no expected result recorded)."""
    root = resources.files("toolwire.data.demo") / "real"
    out: list[RecordedStream] = []
    for provider, fmt in (("openai", "openai-chat"), ("anthropic", "anthropic")):
        for entry in sorted((root / provider).iterdir(), key=lambda p: p.name):
            if entry.name.endswith(".sse"):
                name = f"real {provider} {entry.name.removesuffix('.sse')}"
                out.append(RecordedStream(name, fmt, entry.read_bytes(), [], [], None))
    return out


def open_model_streams() -> list[RecordedStream]:
    """Broken streams in the shapes open-model servers send (openai-chat): the
    recorded ones, then the failure-mode streams."""
    failure_modes = [
        case for case in read_cases("streams.jsonl") if case.format == "openai-chat" and case.covers
    ]
    return read_cases("servers.jsonl") + failure_modes
