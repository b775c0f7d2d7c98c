"""Benchmark: text-format extraction when text arrives in large pieces.

A gateway reads upstream bodies in pieces of up to 64 KB, and a non-streaming body
arrives whole, so the per-call cost must not depend on how much text follows a call
in the buffer. Per family, two measurements (per-call cost; medians of alternating
runs):

- one feed: 250 KB, 1 MB and 4 MB of model text (200 calls per MB, prose between
  them) fed in a single piece; linear work keeps the per-call cost flat (4M/250K).
- reads: 5,000 small calls fed in 1 KB and in 64 KB pieces (64K/1K near 1).

    python bench/bench_textformats_reads.py [--families hermes,kimi_k2] [--runs 3]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_textformats import RENDER, TOOLS, make_text

from toolwire.assemble import CallAssembler
from toolwire.events import CallFinished
from toolwire.textformats import EXTRACTORS, make_extractor

KB = 1024
CALLS_PER_MB = 200
SIZES = (250 * KB, 1024 * KB, 4096 * KB)
SMALL_CALLS = 5000
READS = (1 * KB, 64 * KB)


def small_calls_text(family: str, calls: int = SMALL_CALLS) -> str:
    """``calls`` small calls, a short sentence before each."""
    render = RENDER[family]
    parts = []
    for i in range(calls):
        call = render("write_file", {"path": f"f{i}.py", "mode": 420})
        prose = f"Step {i}: writing the file."
        if family == "harmony":
            prose = f"<|start|>assistant<|channel|>final<|message|>{prose}<|end|>"
        parts.append(f"{prose}\n{call}\n")
    return "".join(parts)


def run(family: str, text: str, piece: int) -> tuple[float, int]:
    """Seconds to extract ``text`` fed in ``piece``-character reads; calls found."""
    sink = CallAssembler(TOOLS)
    extractor = make_extractor(family, sink, TOOLS)
    found = 0
    gc.collect()
    gc.disable()  # time the parser, not the collector's pauses
    try:
        start = time.perf_counter()
        for i in range(0, len(text), piece):
            extractor.feed(text[i : i + piece])
            found += sum(isinstance(e, CallFinished) for e in sink.drain())
        extractor.close()
        sink.end()
        elapsed = time.perf_counter() - start
    finally:
        gc.enable()
    found += sum(isinstance(e, CallFinished) for e in sink.drain())
    return elapsed, found


def per_call(family: str, cases: dict[str, tuple[str, int]], runs: int) -> dict[str, float]:
    """Median per-call seconds for each case, the cases run in alternation."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for key, (text, piece) in cases.items():
            t, found = run(family, text, piece)
            times[key].append(t / max(found, 1))
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default=",".join(EXTRACTORS))
    ap.add_argument("--runs", type=int, default=3)
    ns = ap.parse_args()
    print(f"per-call cost, median of {ns.runs} alternating runs")
    print(
        f"{'family':14} {'250K 1 feed':>12} {'1M 1 feed':>10} {'4M 1 feed':>10} {'4M/250K':>8}"
        f" {'1K reads':>9} {'64K reads':>10} {'64K/1K':>7}"
    )
    for family in ns.families.split(","):
        big = make_text(family, SIZES[-1], CALLS_PER_MB * SIZES[-1] // (1024 * KB))
        whole = {f"{s}": (big[:s], s) for s in SIZES}
        small = small_calls_text(family)
        reads = {f"r{p}": (small, p) for p in READS}
        one = per_call(family, whole, ns.runs)
        pieces = per_call(family, reads, ns.runs)
        a, b, c = (one[f"{s}"] for s in SIZES)
        r1, r64 = (pieces[f"r{p}"] for p in READS)
        print(
            f"{family:14} {a * 1e3:9.3f} ms {b * 1e3:7.3f} ms {c * 1e3:7.3f} ms {c / a:8.2f}"
            f" {r1 * 1e6:6.1f} µs {r64 * 1e6:7.1f} µs {r64 / r1:7.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
