"""Running text-format cases whole and in many random chunkings (F15)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from toolwire.events import StreamResult
from toolwire.parser import StreamParser, parse_stream
from toolwire.textformats.scanner import TextScanner

CHUNKINGS = 50  # random re-chunkings per case, plus one byte at a time

TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer"},
            },
            "required": ["city"],
        },
    },
    {
        "name": "search",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": "integer"},
                "score": {"type": "number"},
                "exact": {"type": "boolean"},
                "filters": {"type": "object"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "zip": {"type": "string"},
            },
            "required": ["query"],
        },
    },
    {"name": "ping", "parameters": {"type": "object", "properties": {}}},
    {
        "name": "write_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    },
]


@dataclass
class Case:
    id: str
    family: str
    input: str
    calls: list[tuple[str, Any, str]]  # (name, arguments, status)
    text: str | None = None
    reasoning: str | None = None
    ids: list[str | None] | None = None
    tools: list[dict[str, Any]] = field(default_factory=lambda: TOOLS)
    options: dict[str, Any] = field(default_factory=dict)


def parse_chunks(family: str, chunks: list[bytes], tools: list[dict[str, Any]]) -> StreamResult:
    parser = StreamParser(f"text:{family}", tools)
    events = []
    for chunk in chunks:
        events.extend(parser.feed(chunk))
    events.extend(parser.close())
    return StreamResult.collect(events)


def random_chunks(data: bytes, rng: random.Random) -> list[bytes]:
    """Split anywhere, inside multi-byte characters too (F27); sizes from 1 byte up."""
    chunks = []
    i = 0
    biggest = rng.choice((2, 4, 8, 32, 128))
    while i < len(data):
        n = rng.randint(1, biggest)
        chunks.append(data[i : i + n])
        i += n
    return chunks


def summary(result: StreamResult) -> dict[str, Any]:
    out = result.to_dict()
    out["reasoning"] = result.reasoning
    out["ids"] = [c.id for c in result.calls]
    return out


def check_case(case: Case) -> None:
    whole = parse_stream(case.input, f"text:{case.family}", case.tools)
    got = [(c.name, c.arguments, c.status) for c in whole.calls]
    assert got == case.calls, f"{case.id}: calls {whole.calls}"
    if case.text is not None:
        assert whole.text == case.text, f"{case.id}: text {whole.text!r}"
    if case.reasoning is not None:
        assert whole.reasoning == case.reasoning, f"{case.id}: reasoning {whole.reasoning!r}"
    if case.ids is not None:
        assert [c.id for c in whole.calls] == case.ids
    check_split_invariance(case.family, case.input, case.tools, case.id)


def check_split_invariance(
    family: str, text: str, tools: list[dict[str, Any]], label: str, runs: int = CHUNKINGS
) -> None:
    data = text.encode()
    expected = summary(parse_chunks(family, [data], tools))
    bytewise = summary(parse_chunks(family, [data[i : i + 1] for i in range(len(data))], tools))
    assert bytewise == expected, f"{label}: one byte at a time differs"
    rng = random.Random(f"{label}")
    for run in range(runs):
        chunks = random_chunks(data, rng)
        got = summary(parse_chunks(family, chunks, tools))
        assert got == expected, (
            f"{label}: chunking #{run} {[c.decode('utf-8', 'replace') for c in chunks]}"
        )


@contextmanager
def reading(family: type[TextScanner], *, whole: bool, usual: bool = True) -> Iterator[None]:
    """``family`` with text fed whole read before the grammar starts (``whole``; else by
    the requests alone) and by its one pass first (``usual``, where it has one), until
    the block ends."""
    assert family._reads_whole
    one_pass = vars(family).get("usual_text")
    family._reads_whole = whole
    if not usual:
        family.usual_text = TextScanner.usual_text  # type: ignore[method-assign]
    try:
        yield
    finally:
        family._reads_whole = True
        if one_pass is not None:
            family.usual_text = one_pass  # type: ignore[method-assign]
        elif "usual_text" in vars(family):
            del family.usual_text


def feed_steps(extractor: TextScanner, steps: list[str | None]) -> None:
    """Each step fed to ``extractor``: text, or None for ``close``."""
    for step in steps:
        if step is None:
            extractor.close()
        else:
            extractor.feed(step)
