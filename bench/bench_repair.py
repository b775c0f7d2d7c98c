"""Benchmark: toolwire.repair vs json_repair, in the same run.

    python bench/bench_repair.py

(a) the whole repair corpus, (b) a ~200 KB Python-style dict (single quotes,
True/None, apostrophes inside double-quoted strings, backslashes), complete and cut
at 90 % (the cut one exercises toolwire's lenient parser instead of
``ast.literal_eval``), (c) linearity: the same shape at 50/100/200/400 KB, time per
MB. Medians of several repeats; the machine is shared, so expect +-20 % noise.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "tests"))

import json_repair  # noqa: E402
from corpus import REPAIR as CORPUS  # noqa: E402  (the repair cases the tests use)

from toolwire.repair import repair_json  # noqa: E402


def toolwire_value(text: str) -> Any:
    return repair_json(text).value


def json_repair_value(text: str) -> Any:
    try:
        return json_repair.repair_json(text, return_objects=True)
    except Exception as exc:  # it raises on some inputs (deep nesting, strict cases)
        return exc


CONTENDERS: list[tuple[str, Callable[[str], Any]]] = [
    ("toolwire", toolwire_value),
    ("json_repair", json_repair_value),
]


def median_time(fn: Callable[[str], Any], text: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def corpus_inputs() -> list[str]:
    inputs = []
    for name in ("jsonrepair", "json_repair"):
        with open(CORPUS / f"{name}.jsonl", encoding="utf-8") as fh:
            inputs.extend(json.loads(line)["input"] for line in fh)
    return inputs


def python_dict(target_bytes: int, seed: int = 0) -> tuple[str, dict[str, Any]]:
    """A Python-repr'd tool argument of about ``target_bytes`` characters."""
    rng = random.Random(seed)
    snippets = [
        'it\'s a "quoted" word',
        "path = 'C:\\\\Users\\\\me\\\\file.txt'",
        'regex = r\'^\\s*(\\w+)\\s*=\\s*"([^"]*)"$\'',
        "print(f'{name}: {value!r}')\\n",
        "don't stop; we're here",
        "emoji \U0001f600 and caf\u00e9",
        "a\\tb\\nc",
    ]
    edits: list[dict[str, Any]] = []
    data: dict[str, Any] = {"dry_run": True, "note": None, "edits": edits}
    size = 0
    while size < target_bytes:
        text = " ".join(rng.choice(snippets) for _ in range(rng.randint(3, 12)))
        edit = {
            "path": f"src/mod_{len(edits)}.py",
            "old": text,
            "new": text.replace("'", "\u2019") + " # it's fixed",
            "replace_all": rng.random() < 0.5,
            "line": rng.randint(1, 10_000),
            "score": round(rng.random(), 4),
            "extra": None,
        }
        edits.append(edit)
        size += len(repr(edit)) + 2
    return repr(data), data


def row(label: str, cells: list[str]) -> None:
    print(f"{label:26}" + "".join(f"{c:>18}" for c in cells))


def main() -> None:
    from importlib.metadata import version

    print(f"python {sys.version.split()[0]}, json-repair {version('json-repair')}")

    # (a) the corpus
    inputs = corpus_inputs()
    print(f"\n(a) repair corpus: {len(inputs)} inputs, whole corpus x5, median")
    row("", ["total ms", "us per case", "ratio"])
    totals = {}
    for name, fn in CONTENDERS:
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            for text in inputs:
                fn(text)
            runs.append(time.perf_counter() - start)
        totals[name] = statistics.median(runs)
    for name, _ in CONTENDERS:
        t = totals[name]
        row(
            name,
            [f"{t * 1e3:.1f}", f"{t / len(inputs) * 1e6:.1f}", f"{t / totals['toolwire']:.2f}x"],
        )

    # (b) ~200 KB Python-style dict
    text, source = python_dict(200_000)
    cut = text[: int(len(text) * 0.9)]
    print(f"\n(b) Python-style dict, {len(text) / 1000:.0f} KB (median of 5 / 3 runs)")
    row("", ["toolwire ms", "json_repair ms", "speed-up"])
    for label, sample in (("complete", text), ("cut at 90% (truncated)", cut)):
        t_tw = median_time(toolwire_value, sample, 5)
        t_jr = median_time(json_repair_value, sample, 3)
        row(label, [f"{t_tw * 1e3:.1f}", f"{t_jr * 1e3:.1f}", f"{t_jr / t_tw:.1f}x"])
    ours = repair_json(text)
    theirs = json_repair_value(text)
    print(
        f"  complete: toolwire equals the source dict: {ours.value == source} "
        f"(status {ours.status}); json_repair equals it: {theirs == source}"
    )
    ours_cut = repair_json(cut)
    edits_ok = sum(
        1 for a, b in zip(ours_cut.value["edits"][:-1], source["edits"], strict=False) if a == b
    )
    print(
        f"  cut: toolwire status {ours_cut.status}, {edits_ok} of "
        f"{len(ours_cut.value['edits']) - 1} whole edits equal the source"
    )

    # (c) linearity
    print("\n(c) linearity, same shape; ms per MB (median of 3 runs; json_repair 1 run at 400 KB)")
    row("size", ["toolwire", "tw cut (lenient)", "json_repair", "jr cut"])
    for kb in (50, 100, 200, 400):
        sample, _ = python_dict(kb * 1000, seed=kb)
        sample_cut = sample[: int(len(sample) * 0.9)]
        mb = len(sample) / 1e6
        repeats = 1 if kb >= 400 else 3
        cells = [
            median_time(toolwire_value, sample, 3) / mb,
            median_time(toolwire_value, sample_cut, 3) / (mb * 0.9),
            median_time(json_repair_value, sample, repeats) / mb,
            median_time(json_repair_value, sample_cut, repeats) / (mb * 0.9),
        ]
        row(f"{kb} KB", [f"{c * 1e3:.0f} ms/MB" for c in cells])


if __name__ == "__main__":
    main()
