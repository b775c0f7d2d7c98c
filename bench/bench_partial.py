"""The value of streaming arguments after every delta (what a UI shows), against peers.

    python bench/bench_partial.py [--repeats N] [--install-peers]

What a UI does with each, timed per delta, all in this run on the same deltas:
  - toolwire: the assembler takes the delta (as the OpenAI decoder hands it over) and
    ``partial_arguments(0)`` answers the value; the assembly alone is shown too, so the
    cost of the answer itself is the difference;
  - toolwire before issue 15: the repair ladder's ``partial_value`` on all text so far;
  - jiter: ``jiter.from_json(text.encode(), partial_mode="trailing-strings")`` on all
    text so far (what the anthropic SDK does);
  - partial-json-parser: ``partial_json_parser.loads`` on all text so far;
  - json_repair: ``json_repair.loads`` on all text so far.
Every peer re-reads everything on every delta: that is how each is used, since none
keeps state between calls. Figures are process CPU time per delta, medians over runs
in which the contenders alternate (each sample at least 20 ms; a slow peer is sampled
until it has used the budget); ratios are medians of the paired runs. A peer that
needs more than the budget for one run is stopped and reported as a lower bound.

jiter and json-repair are in the environment already (the ``bench`` extra; jiter also
comes with openai). partial-json-parser (pure Python) is not in the lock:
``--install-peers`` puts whatever peer is missing into a separate folder with
``pip install --target``.

The last table counts values shown that disagree with the final value (see
``toolwire.assemble.partialjson.prefix_consistent``) on arguments full of numbers.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from streams import call_arguments

from toolwire.assemble import CallAssembler
from toolwire.assemble.partialjson import prefix_consistent
from toolwire.repair import partial_value

PEERS_DIR = Path(tempfile.gettempdir()) / "toolwire-bench-partial-peers"
PEER_PACKAGES = {
    "jiter": "jiter>=0.5,<1",
    "partial_json_parser": "partial-json-parser>=0.2,<0.3",
    "json_repair": "json-repair>=0.30,<1",
}
BUDGET_S = 10.0  # one run of a contender longer than this is stopped


class Bound(Exception):
    """A run stopped at the budget: its per-delta cost is at least ``per_delta``."""

    def __init__(self, per_delta: float, share: float) -> None:
        self.per_delta = per_delta
        self.share = share


Run = Callable[[list[str]], Any]


def toolwire_assembly(deltas: list[str]) -> Any:
    asm = CallAssembler()
    asm.tool(0, "call_1", "write_file", "")
    for d in deltas:
        if not asm.fast_arguments(0, d):
            asm.tool(0, None, None, d)
    return None


def toolwire_partial(deltas: list[str]) -> Any:
    asm = CallAssembler()
    asm.tool(0, "call_1", "write_file", "")
    value = None
    for d in deltas:
        if not asm.fast_arguments(0, d):
            asm.tool(0, None, None, d)
        value = asm.partial_arguments(0)
    return value


def reparsing(parse: Callable[[str], Any]) -> Run:
    """A peer that reads all text so far on each delta."""

    def run(deltas: list[str]) -> Any:
        text = ""
        value = None
        t0 = time.perf_counter()
        for i, d in enumerate(deltas):
            text += d
            value = parse(text)
            if i % 64 == 0 and time.perf_counter() - t0 > BUDGET_S:
                raise Bound((time.perf_counter() - t0) / (i + 1), (i + 1) / len(deltas))
        return value

    return run


def peer_parsers() -> dict[str, Callable[[str], Any] | str]:
    """Each peer's parse of all text so far, or why it is missing."""
    out: dict[str, Callable[[str], Any] | str] = {}
    missing = "not installed (--install-peers)"
    try:
        import jiter

        out["jiter"] = lambda t: jiter.from_json(t.encode(), partial_mode="trailing-strings")
    except ImportError:
        out["jiter"] = missing
    try:
        import partial_json_parser

        out["partial-json-parser"] = partial_json_parser.loads
    except ImportError:
        out["partial-json-parser"] = missing
    try:
        import json_repair

        out["json_repair"] = json_repair.loads
    except ImportError:
        out["json_repair"] = missing
    return out


def install_peers() -> None:
    missing = []
    for module, requirement in PEER_PACKAGES.items():
        try:
            __import__(module)
        except ImportError:
            missing.append(requirement)
    if missing:
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--target", str(PEERS_DIR)]
        subprocess.run([*cmd, *missing], check=True)


def per_delta(run: Run, deltas: list[str], loops: int) -> float:
    """CPU time of this process per delta: on a shared machine, wall time would also
    count the time other processes held the CPU."""
    t0 = time.process_time()
    for _ in range(loops):
        run(deltas)
    return (time.process_time() - t0) / len(deltas) / loops


def speed(size: int, delta: int, repeats: int) -> None:
    args = call_arguments(size)
    deltas = [args[i : i + delta] for i in range(0, len(args), delta)]
    final = json.loads(args)
    contenders: dict[str, Run | str] = {
        "toolwire assembly only": toolwire_assembly,
        "toolwire partial_arguments": toolwire_partial,
        "toolwire before (ladder)": reparsing(partial_value),
    }
    for name, parse in peer_parsers().items():
        contenders[name] = parse if isinstance(parse, str) else reparsing(parse)
    runs = {k: v for k, v in contenders.items() if not isinstance(v, str)}
    if toolwire_partial(deltas) != final:
        raise SystemExit("toolwire's last value is not the final value")
    times: dict[str, list[float]] = {k: [] for k in runs}
    ratios: dict[str, list[float]] = {k: [] for k in runs}
    bounds: dict[str, Bound] = {}
    loops: dict[str, int] = {}
    for name, run in runs.items():  # warm up; a sample lasts at least 20 ms
        try:
            one = per_delta(run, deltas, 1) * len(deltas)
        except Bound as b:
            bounds[name] = b
            continue
        loops[name] = max(1, round(0.02 / one))
    spent = dict.fromkeys(runs, 0.0)
    for _ in range(repeats):
        ours = per_delta(toolwire_partial, deltas, loops["toolwire partial_arguments"])
        for name, run in runs.items():
            # a slow peer is sampled until it has used the budget (once at least)
            if name in bounds or spent[name] > BUDGET_S:
                continue
            if name == "toolwire partial_arguments":
                t = ours
            else:
                t = per_delta(run, deltas, loops[name])
            spent[name] += t * len(deltas) * loops[name]
            times[name].append(t)
            ratios[name].append(t / ours)
    print(f"\n## {size // 1024} KB arguments in {delta}-byte deltas ({len(deltas)} deltas)")
    print(f"{'who':<28} {'µs per delta':>13} {'÷ toolwire':>11}")
    for name, value in contenders.items():
        if isinstance(value, str):
            print(f"{name:<28} {value}")
        elif name in bounds:
            b = bounds[name]
            ratio = b.per_delta / statistics.median(times["toolwire partial_arguments"])
            print(
                f"{name:<28} {'>' + format(b.per_delta * 1e6, '.1f'):>13} "
                f"{'>' + format(ratio, '.1f'):>11}  (stopped at {b.share:.0%} of one run)"
            )
        else:
            print(
                f"{name:<28} {statistics.median(times[name]) * 1e6:>13.2f} "
                f"{statistics.median(ratios[name]):>11.2f}"
            )


def numbers_arguments() -> str:
    """Arguments full of numbers and literals, about 2 KB."""
    rows = [
        {"id": 31191 + i, "price": 12.5 * i, "ratio": 1e-3 * i, "ok": i % 2 == 0, "note": None}
        for i in range(30)
    ]
    return json.dumps({"query": "prices", "rows": rows})


def honesty(delta: int) -> None:
    args = numbers_arguments()
    final = json.loads(args)
    deltas = [args[i : i + delta] for i in range(0, len(args), delta)]
    print(f"\n## Shown values that disagree with the final ({len(args)} B, {delta}-byte deltas)")
    print(f"{'who':<28} {'disagreeing':>12} {'of':>6}")
    asm = CallAssembler()
    asm.tool(0, "call_1", "f", "")
    shown: dict[str, list[Any]] = {"toolwire partial_arguments": []}
    for d in deltas:
        asm.tool(0, None, None, d)
        shown["toolwire partial_arguments"].append(asm.partial_arguments(0))
    parsers = {"toolwire before (ladder)": partial_value, **peer_parsers()}
    for name, parse in parsers.items():
        if isinstance(parse, str):  # not installed
            continue
        values = shown[name] = []
        text = ""
        for d in deltas:
            text += d
            try:
                values.append(parse(text))
            except Exception:  # a peer that refuses a prefix shows nothing
                values.append(None)
    for name, values in shown.items():
        bad = sum(1 for v in values if v is not None and not prefix_consistent(v, final))
        print(f"{name:<28} {bad:>12} {len(values):>6}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--install-peers", action="store_true")
    opts = parser.parse_args()
    if PEERS_DIR.is_dir():
        sys.path.append(str(PEERS_DIR))
    if opts.install_peers:
        install_peers()
        sys.path.append(str(PEERS_DIR))
    speed(2048, 4, opts.repeats)
    speed(65536, 16, opts.repeats)
    honesty(4)
    print("\ngoal: toolwire partial_arguments per delta within 3x of jiter on both streams")
