"""Access to the shared conformance corpus (../shared/corpus beside the repository)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolwire.events import StreamResult

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path(os.environ.get("TOOLWIRE_CORPUS", ROOT.parent / "shared" / "corpus"))

needs_corpus = pytest.mark.skipif(
    not (CORPUS / "streams.jsonl").exists(),
    reason=f"the shared conformance corpus is not at {CORPUS} (set TOOLWIRE_CORPUS)",
)


def stream_cases() -> list[dict[str, Any]]:
    path = CORPUS / "streams.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def mismatches(result: StreamResult, expect: dict[str, Any]) -> list[str]:
    """What differs between a parse result and a corpus expectation (empty: equal)."""
    problems: list[str] = []
    want_calls = expect.get("calls", [])
    if len(want_calls) != len(result.calls):
        problems.append(f"{len(result.calls)} calls, expected {len(want_calls)}: {result.calls}")
    for i, (want, got) in enumerate(zip(want_calls, result.calls, strict=False)):
        for key, value in want.items():
            if getattr(got, key) != value:
                problems.append(f"call {i} {key}: {getattr(got, key)!r} != {value!r} ({got})")
    if "finish_reason" in expect and expect["finish_reason"] != result.finish_reason:
        problems.append(f"finish_reason {result.finish_reason!r} != {expect['finish_reason']!r}")
    if "text" in expect and expect["text"] != result.text:
        problems.append(f"text {result.text!r} != {expect['text']!r}")
    return problems
