"""Where the tests find the conformance corpus (see tests/corpus/README.md).

The repository carries all of it: the streams and real captures are the package's demo
data (``src/toolwire/data/demo``), the repair cases are in ``tests/corpus/repair``.
``$TOOLWIRE_CORPUS`` points every part at one directory laid out like the shared corpus
(``streams.jsonl``, ``real/``, ``repair/``) instead. A missing file is an error, never a
skip: a test that cannot find its data must not pass quietly.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from toolwire.events import StreamResult

ROOT = Path(__file__).resolve().parents[1]
_DEMO = ROOT / "src" / "toolwire" / "data" / "demo"
_OVERRIDE = os.environ.get("TOOLWIRE_CORPUS")

STREAMS = Path(_OVERRIDE, "streams.jsonl") if _OVERRIDE else _DEMO / "streams.jsonl"
REAL = Path(_OVERRIDE, "real") if _OVERRIDE else _DEMO / "real"
REPAIR = Path(_OVERRIDE, "repair") if _OVERRIDE else ROOT / "tests" / "corpus" / "repair"


def stream_cases() -> list[dict[str, Any]]:
    lines = STREAMS.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def real_captures(provider: str = "*") -> list[Path]:
    """The real captured streams (``openai``, ``anthropic`` or all), sorted."""
    found = sorted(REAL.glob(f"{provider}/*.sse"))
    if not found:
        raise FileNotFoundError(f"no real captures under {REAL}")
    return found


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
