"""Benchmark: instructions per character of the repair ladder on text the lenient
reader reads (callgrind; the figures are too small and the machine too noisy for wall
time).

Inputs: the cut-off arguments of the real Anthropic capture
(``data/demo/real/anthropic/incomplete_partial_json_response.sse``), a write_file call
(one long string value) cut at 70 %, nested objects and arrays cut at 90 %, a
Python-style dict cut at 90 % (``bench_repair.python_dict``), and the whole repair
corpus. Each is repaired ``--runs`` times by ``repair_json``; the figure is
instructions per parse divided by the input's length. Skipped, with a message, where
valgrind is not installed.

    python bench/bench_lenient.py [--runs 50]
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callgrind import reduce_loops

ROOT = Path(__file__).resolve().parents[1]
CAPTURE = ROOT / "src/toolwire/data/demo/real/anthropic/incomplete_partial_json_response.sse"


def capture_arguments() -> str:
    """The tool_use input of the capture, as streamed (it is cut off by max_tokens)."""
    pieces = []
    for line in CAPTURE.read_text().splitlines():
        if line.startswith("data:"):
            event = json.loads(line[5:])
            delta = event.get("delta", {})
            if delta.get("type") == "input_json_delta":
                pieces.append(delta["partial_json"])
    return "".join(pieces)


def nested(size: int, seed: int = 3) -> str:
    """JSON of nested objects and arrays with short strings, numbers and literals."""
    rng = random.Random(seed)
    items = []
    total = 0
    while total < size:
        item = {
            "id": rng.randint(1, 10**6),
            "name": f"item {len(items)}",
            "tags": [rng.choice(["a", "bb", "ccc"]) for _ in range(rng.randint(0, 4))],
            "meta": {"ok": rng.random() < 0.5, "score": round(rng.random(), 3), "note": None},
        }
        items.append(item)
        total += len(json.dumps(item)) + 2
    return json.dumps({"items": items, "count": len(items)})


def inputs() -> list[tuple[str, list[str]]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from bench_repair import corpus_inputs, python_dict
    from streams import call_arguments

    write = call_arguments(2000)
    obj = nested(2000)
    pydict, _ = python_dict(20_000)
    return [
        ("anthropic capture (cut off)", [capture_arguments()]),
        ("write_file 2 KB cut at 70%", [write[: len(write) * 7 // 10]]),
        ("nested 2 KB cut at 90%", [obj[: len(obj) * 9 // 10]]),
        ("python dict 20 KB cut at 90%", [pydict[: len(pydict) * 9 // 10]]),
        ("repair corpus (all inputs)", corpus_inputs()),
    ]


def child(runs: int) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from toolwire.repair import repair_json

    for _, texts in inputs():

        def parse(_: object, __: int, texts: list[str] = texts) -> None:
            for text in texts:
                repair_json(text)

        parse(None, 0)  # warm up
        functools.reduce(parse, range(runs), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        child(ns.runs)
        return
    found = reduce_loops([__file__, "--child", "--runs", str(ns.runs)])
    if found is None:
        print("skipped: valgrind is not installed (apt-get install valgrind)")
        return
    counts, _ = found
    cases = inputs()
    print(f"repair_json instructions (callgrind, {ns.runs} parses of each input)")
    print(f"{'input':32} {'chars':>8} {'per parse':>12} {'per char':>9}")
    for (label, texts), total in zip(cases, counts, strict=True):
        chars = sum(len(t) for t in texts)
        per_parse = total / ns.runs
        print(f"{label:32} {chars:8d} {per_parse:12,.0f} {per_parse / chars:9.0f}")


if __name__ == "__main__":
    main()
