# ruff: noqa: E501  (test data: model outputs with DeepSeek's U+FF5C markers)
"""Benchmark: model text parsed whole (a ``stream=false`` response, a file), against peers.

Peers, measured in this run on the same texts:
  - sglang's server function-call detectors (``detect_and_parse`` whole,
    ``parse_streaming_increment`` per delta): Qwen25Detector and HermesDetector for
    Hermes, DeepSeekV3Detector, Llama32Detector; shipped in ``llm-router-utils``;
  - ``agent-tool-parser`` (Rust, ``ToolParser.try_parse_all``); it has no streaming
    API, so streamed it re-parses the text so far on every delta.
They are installed with ``--no-deps`` into their own virtual environment (created
by this script, ``--peers-venv``, default ``.bench-peers/``), never into the
project's lock; the detectors' own imports (pydantic, orjson, openai) come from the
project's dev environment, and ``partial-json-parser`` is installed beside them.

Texts: prose and ``write_file`` calls, 2 KB with 4 calls, then 16 KB, 1 MB and 4 MB
with 200 calls per MB. Modes: one ``feed``, 64 KB reads, and 4-character deltas
(streaming; at 2 KB and 16 KB). Toolwire is timed through the whole pipeline
(extractor, assembler, repair ladder, schema check), the peers on their own calls.
Each ``one feed`` sample is one parse right after ``gc.collect()`` (caches cold),
after ``SPECIALIZE`` untimed parses of each parser (its code specialized, as in a
server); at 2 KB, ``warm`` samples are each a loop of parses for about 5 ms of CPU
time (``time.thread_time``; the figure is per parse), so both ends are shown.
The ``one feed`` rows are medians of alternating pairs: each round times toolwire,
then a peer, toolwire, the next peer, and so on, and ``x`` is the median of the
ratios peer / toolwire within each pair (>1: toolwire faster); the other rows time
toolwire and then each peer in turn. A cold parse pays for what ran just before it
(see ``--cold-detail``), so no parser always follows the same one: in the fixed
order these rows had until 2026-12-05, sglang's HermesDetector always followed its
sibling, whose code it shares, and toolwire always followed agent-tool-parser.
Then a correctness table: the same small texts, cut off, naming an
unknown tool, and streamed one character at a time (special tokens split).

``--instructions``: the one-feed runs again under ``valgrind --tool=callgrind``, in
instructions (this machine is shared and noisy; counts repeat within 1%): per MB for
the flatness goal, and peer / toolwire at each size. The collector is off while
counting, so objects a parser leaves in reference cycles are freed uncounted: the
``cycles`` column says how many each parse left (toolwire: none, see
``tests/textformats/test_progress.py``).

    python bench/bench_textformats_whole.py [--families hermes] [--runs 5] [--no-peers]
                                            [--instructions] [--sizes 2K]

``--sizes 2K``: only the 2 KB rows, timed and counted (a few seconds; the flatness lines
need 16K and 4M).

``--cold-detail`` (2 KB): diagnostics of the ``one feed`` rows, which it leaves as they
are. ``fixed order``: the rows as they were measured until 2026-12-05 (one warm-up
parse, so each parser's 2nd to 8th parse is timed, before CPython 3.11 specializes a
function's code on its 8th call; all parsers in one fixed order). ``rotated``: round
``i`` starts at the ``i``-th parser, so each follows each other one in turn (in the
fixed order toolwire always follows agent-tool-parser, whose freed small blocks glibc
merges (``malloc_consolidate``) on the next parse's first ``malloc`` of 1 KB or more: sre's
stack, orjson's buffer; sglang's HermesDetector follows its sibling Qwen25Detector,
whose code it shares). ``after``: each parser right after each parser's parse; ``after
own``: after its own, with page faults and blocks left. ``flushed``: every cache
flushed before each parse (a 128 MiB buffer written over), so no parser's figure
depends on the one before it: the most a cold parse can cost. With ``--instructions``,
callgrind's cache model of a cold parse too.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import logging
import resource
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_textformats import RENDER, TOOLS, make_text
from callgrind import reduce_loop_events

from toolwire.assemble import CallAssembler
from toolwire.events import CallFinished, TextDelta
from toolwire.textformats import make_extractor

ROOT = Path(__file__).resolve().parents[1]
KB = 1024
MB = 1024 * KB
PEER_PACKAGES = (
    "llm-router-utils==0.8.1",
    "agent-tool-parser==0.1.3",
    "partial-json-parser==0.2.1.1.post7",
)
FAMILIES = ("hermes", "deepseek_v3", "llama3_json")
# (label, characters, calls, content lines per call)
SIZES = (
    ("2K", 2 * KB, 4, 20),
    ("16K", 16 * KB, 3, 100),
    ("1M", MB, 200, 100),
    ("4M", 4 * MB, 800, 100),
)
STREAM_SIZES = ("2K", "16K")
DELTA = 4
READ = 64 * KB
WARM_SIZES = ("2K",)  # also timed warm: each sample a loop of parses (``timed_warm``)
WARM_S = 0.005
PEER_BUDGET_S = 10.0  # a streamed peer run longer than this is stopped; reported as a bound

Run = Callable[[str], int]  # parses a text, answers the number of calls found


# -- toolwire -----------------------------------------------------------------------


def toolwire(family: str, piece: int = 0) -> Run:
    """The whole pipeline on ``text`` fed at once (``piece`` 0) or in ``piece``-sized parts."""

    def run(text: str) -> int:
        sink = CallAssembler(TOOLS)
        extractor = make_extractor(family, sink, TOOLS)
        if piece:
            feed = extractor.feed
            for i in range(0, len(text), piece):
                feed(text[i : i + piece])
        else:
            extractor.feed(text)
        extractor.close()
        sink.end()
        return sum(isinstance(e, CallFinished) for e in sink.events)

    return run


def toolwire_calls(family: str, text: str, piece: int = 0) -> tuple[list[Any], str]:
    """The calls toolwire reports for ``text`` and the visible text."""
    sink = CallAssembler(TOOLS)
    extractor = make_extractor(family, sink, TOOLS)
    step = piece or len(text) or 1
    for i in range(0, len(text), step):
        extractor.feed(text[i : i + step])
    extractor.close()
    sink.end()
    calls = [e.call for e in sink.events if isinstance(e, CallFinished)]
    visible = "".join(e.text for e in sink.events if isinstance(e, TextDelta))
    return calls, visible


# -- peers ----------------------------------------------------------------------------


def ensure_peers(venv: Path) -> bool:
    """Create the peers' environment once; put its packages on ``sys.path``."""
    py = venv / "bin" / "python"
    if not py.exists():
        print(f"creating {venv} for the peers ({', '.join(PEER_PACKAGES)}) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run(
            [str(py), "-m", "pip", "install", "-q", "--no-deps", *PEER_PACKAGES], check=True
        )
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if sysconfig.get_python_version() not in site:
        print(f"peers skipped: {venv} is for another Python than this one")
        return False
    sys.path.append(site)  # after the project's own packages
    logging.disable(logging.CRITICAL)  # the detectors log every call they drop
    return True


class Peers:
    """The peers' parsers for one family."""

    def __init__(self, family: str) -> None:
        import agent_tool_parser
        from llm_router_utils.sglang.srt.entrypoints.openai.protocol import Function, Tool
        from llm_router_utils.sglang.srt.function_call import (
            deepseekv3_detector,
            hermes_detector,
            llama32_detector,
            qwen25_detector,
        )

        spec = TOOLS[0]
        self.tools = [
            Tool(
                type="function", function=Function(name=spec.name, parameters=dict(spec.parameters))
            )
        ]
        self.allowed = {spec.name}
        self.atp = agent_tool_parser
        self.detectors: dict[str, Any] = {
            "hermes": {
                "sglang-qwen25": qwen25_detector.Qwen25Detector,
                "sglang-hermes": hermes_detector.HermesDetector,
            },
            "deepseek_v3": {"sglang": deepseekv3_detector.DeepSeekV3Detector},
            "llama3_json": {"sglang": llama32_detector.Llama32Detector},
        }[family]

    def whole(self) -> dict[str, Run]:
        runs: dict[str, Run] = {}
        for name, cls in self.detectors.items():
            runs[name] = lambda text, cls=cls: len(cls().detect_and_parse(text, self.tools).calls)
        runs["agent-tool-parser"] = lambda text: len(self.atp_calls(text))
        return runs

    def atp_calls(self, text: str) -> list[Any]:
        return list(self.atp.ToolParser(allowed_tools=self.allowed).try_parse_all(text))

    def sglang_stream(self, cls: Any, text: str, delta: int) -> tuple[list[Any], str]:
        """Calls (name, argument text) and visible text, fed ``delta`` characters at a time."""
        det = cls()
        names: dict[int, str] = {}
        args: dict[int, list[str]] = {}
        visible: list[str] = []
        t0 = time.perf_counter()
        for i in range(0, len(text), delta):
            r = det.parse_streaming_increment(text[i : i + delta], self.tools)
            visible.append(r.normal_text or "")
            for item in r.calls:
                if item.name:
                    names[item.tool_index] = item.name
                args.setdefault(item.tool_index, []).append(item.parameters or "")
            if time.perf_counter() - t0 > PEER_BUDGET_S:
                raise Bound(time.perf_counter() - t0, i, len(text))
        calls = [(names.get(k), "".join(v)) for k, v in sorted(args.items())]
        return calls, "".join(visible)

    def streamed(self, delta: int) -> dict[str, Run]:
        runs: dict[str, Run] = {}
        for name, cls in self.detectors.items():
            runs[name] = lambda text, cls=cls: len(self.sglang_stream(cls, text, delta)[0])

        def reparse(text: str) -> int:
            t0 = time.perf_counter()
            found = 0
            for end in range(delta, len(text) + delta, delta):
                found = len(self.atp_calls(text[:end]))
                if time.perf_counter() - t0 > PEER_BUDGET_S:
                    raise Bound(time.perf_counter() - t0, end, len(text))
            return found

        runs["agent-tool-parser"] = reparse
        return runs


class Bound(Exception):
    """A run that ran out of its budget after ``done`` of ``total`` characters."""

    def __init__(self, elapsed: float, done: int, total: int) -> None:
        self.elapsed, self.done, self.total = elapsed, done, total


# -- timing ---------------------------------------------------------------------------


def timed(run: Run, text: str, *, flush: bool = False) -> tuple[float, int]:
    gc.collect()
    if flush:  # see ``timed_flushed``
        buffer, zeros = _flush_buffer()
        buffer[::64] = zeros
    gc.disable()  # time the parsers, not the collector's pauses
    try:
        t0 = time.perf_counter()
        found = run(text)
        return time.perf_counter() - t0, found
    finally:
        gc.enable()


def timed_warm(run: Run, text: str) -> tuple[float, int]:
    """Seconds per parse over a loop of parses taking about ``WARM_S`` of CPU time
    (caches warm; CPU time, as the machine may be shared), the collector as usual."""
    t0 = time.thread_time()
    found = run(text)
    once = max(time.thread_time() - t0, 1e-6)
    n = max(1, round(WARM_S / once))
    t0 = time.thread_time()
    for _ in range(n):
        run(text)
    return (time.thread_time() - t0) / n, found


# ``--cold-detail``'s ``flushed`` rows: a buffer four times the last-level cache,
# written one byte per line before each sample, so that every parse starts with none
# of its code or data cached, whatever ran before it
FLUSH_BYTES = 128 * MB


@functools.cache
def _flush_buffer() -> tuple[bytearray, bytes]:
    buffer = bytearray(FLUSH_BYTES)
    return buffer, bytes(len(range(0, FLUSH_BYTES, 64)))


def timed_flushed(run: Run, text: str) -> tuple[float, int]:
    """``timed`` with every cache flushed after ``gc.collect()`` (``--cold-detail``):
    no parser's figure depends on the one before it."""
    return timed(run, text, flush=True)


def timed_after_own(run: Run, text: str) -> tuple[float, int]:
    """``timed`` right after an untimed parse by the same parser (``--cold-detail``):
    in ``alternate`` each parser follows another, whose traces in the caches and in
    malloc's free lists the cold figure also measures."""
    run(text)
    return timed(run, text)


def cold_counts(run: Run, text: str) -> tuple[int, int]:
    """Minor page faults during one parse under ``timed``'s conditions, and the
    allocated blocks it left (``--cold-detail``)."""
    gc.collect()
    gc.disable()
    try:
        blocks = sys.getallocatedblocks()
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        run(text)
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        return faults, sys.getallocatedblocks() - blocks
    finally:
        gc.enable()


def after_each(runs: dict[str, Run], text: str, rounds: int) -> None:
    """``--cold-detail``: each parser's cold parse right after each parser's (its own
    included), medians of ``rounds``. ``alternate`` takes each parser after the one
    before it in the row; what that one left in the caches (code a sibling parser
    shares) and in malloc's free lists (a native parser's freed blocks, which the
    next large ``malloc``, the regex engine's stack, consolidates) is measured too."""
    names = list(runs)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(rounds):
        for name in names:
            for before in names:
                timed(runs[before], text)
                times.setdefault((name, before), []).append(timed(runs[name], text)[0])
    print(f"{'2K':4} {'after':12} {'(ms; rows: parser timed, columns: the parser before it)'}")
    print(f"{'':4} {'':12} {'':18} " + " ".join(f"{b[:12]:>12}" for b in names))
    for name in names:
        cells = " ".join(f"{statistics.median(times[name, b]) * 1e3:12.3f}" for b in names)
        print(f"{'2K':4} {'after':12} {name:18} {cells}", flush=True)


# untimed parses after which every function a parse runs once is specialized: CPython
# 3.11 quickens a function on its 8th call. The ``one feed`` rows warm up with these
# (a server parses thousands of bodies; and in pairs toolwire runs once per peer, so
# with one warm-up parse it would be specialized rounds before the peers are).
SPECIALIZE = 10


def cold_detail(runs: dict[str, Run], text: str, rounds: int) -> None:
    """``--cold-detail``: what a cold 2 KB parse costs besides instructions."""
    # the rows as they were measured until 2026-12-05: one warm-up parse (each
    # parser's 2nd to 8th parse timed, before specialization), all parsers in a fixed
    # order; then that order rotated each round (each parser after each other one in
    # turn; whole turns)
    turns = -(-rounds // len(runs)) * len(runs)
    for mode, figures in (
        ("fixed order", alternate(runs, text, rounds)),
        ("rotated", alternate(runs, text, turns, rotate=True)),
        ("flushed", alternate(runs, text, rounds, timed_flushed, warm_up=SPECIALIZE)),
    ):
        for name, (t, ratio, _, _) in figures.items():
            print(f"{'2K':4} {mode:12} {name:18} {fmt_s(t)} {'':8} {ratio:7.2f}", flush=True)
    after_each(runs, text, rounds)
    after_own = alternate(runs, text, rounds, timed_after_own)
    counts: dict[str, list[tuple[int, int]]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            counts[name].append(cold_counts(run, text))
    for name, (t, ratio, _, _) in after_own.items():
        faults = statistics.median(f for f, _ in counts[name])
        blocks = statistics.median(b for _, b in counts[name])
        print(
            f"{'2K':4} {'after own':12} {name:18} {fmt_s(t)} {'':8} {ratio:7.2f} {'':6}"
            f" faults {faults:3.0f}, blocks left {blocks:+4.0f}",
            flush=True,
        )


def alternate(
    runs: dict[str, Run],
    text: str,
    rounds: int,
    timer: Callable[[Run, str], tuple[float, int]] = timed,
    *,
    warm_up: int = 1,
    rotate: bool = False,
    pairs: bool = False,
) -> dict[str, tuple[float, float, int, bool]]:
    """Per run: median seconds, median ratio to the first run (``toolwire``), calls
    found, and whether it ran out of budget (then the time is a lower bound, scaled up
    to the whole text). ``warm_up``: untimed parses of each run first; ``rotate``
    (``--cold-detail``): round ``i`` starts at the ``i``-th run, so that each run
    follows each other one in turn (else the order is fixed: the first run always
    follows the last one). ``pairs``: the first run against each other one in turn,
    ``rounds`` alternating pairs each (first, A, first, A, ..., then first, B, ...):
    each peer follows toolwire and toolwire follows that peer, and each ratio is taken
    within its pair; the first run's time is the median of all its samples. A cold
    parse pays for what ran just before it (code a sibling parser shares is still
    cached, a native parser's freed blocks are merged on the next large ``malloc``,
    see ``--cold-detail``); in the fixed order sglang's HermesDetector always follows
    its sibling and toolwire always follows agent-tool-parser."""
    times: dict[str, list[float]] = {k: [] for k in runs}
    ratios: dict[str, list[float]] = {k: [] for k in runs}
    found: dict[str, int] = {}
    bounded: set[str] = set()
    first = next(iter(runs))
    for run in runs.values():  # warm up: first-use imports, compiled patterns, caches
        for _ in range(warm_up):
            with contextlib.suppress(Bound):
                timed(run, text[: 4 * KB])
    names = list(runs)
    if pairs:
        others = [name for name in names if name != first]
        schedule = [[first, name] for name in others for _ in range(rounds)]
        schedule = schedule or [[first]] * rounds
    else:
        schedule = [
            names[i % len(names) :] + names[: i % len(names)] if rotate else names
            for i in range(rounds)
        ]
    for order in schedule:
        took: dict[str, float] = {}
        for name in order:
            run = runs[name]
            if name in bounded:
                continue
            try:
                t, found[name] = timer(run, text)
            except Bound as b:
                t, found[name] = b.elapsed * b.total / max(b.done, 1), -1
                bounded.add(name)
            times[name].append(t)
            took[name] = t
        base = took.get(first, 0.0)
        for name, t in took.items():
            if base:
                ratios[name].append(t / base)
    return {
        k: (
            statistics.median(times[k]),
            statistics.median(ratios[k]),
            found.get(k, 0),
            k in bounded,
        )
        for k in runs
    }


# -- correctness ------------------------------------------------------------------------


def call_text(family: str, name: str, args: dict[str, Any]) -> str:
    return RENDER[family](name, args)


def correctness_cases(family: str) -> dict[str, str]:
    first = call_text(family, "write_file", {"path": "a.py", "content": "x = 1\n", "mode": 420})
    second = call_text(family, "write_file", {"path": "b.py", "content": "y = 2\n", "mode": 420})
    unknown = call_text(family, "delete_everything", {"path": "/"})
    cut = second[: second.index('"y = ') + 4]  # inside the second call's arguments
    return {
        "truncated": f"Writing two files.\n{first}\n{cut}",
        "unknown tool": f"Writing a file.\n{first}\n{unknown}\n",
        "split tokens": f"Writing two files.\n{first}\n{second}\n",
    }


def verdict_toolwire(family: str, case: str, text: str) -> str:
    piece = 1 if case == "split tokens" else 0
    calls, visible = toolwire_calls(family, text, piece)
    statuses = [c.status for c in calls]
    if case == "truncated":
        ok = statuses == ["complete", "truncated"]
        return f"{'ok' if ok else 'WRONG'}: {statuses}"
    if case == "unknown tool":
        ok = statuses == ["complete", "invalid"] and calls[1].name == "delete_everything"
        return f"{'ok' if ok else 'WRONG'}: {statuses}, unknown one named"
    whole, _ = toolwire_calls(family, text)
    same = [(c.name, c.arguments) for c in calls] == [(c.name, c.arguments) for c in whole]
    leaked = "｜" in visible or "<tool_call" in visible or "python_tag" in visible
    ok = same and len(calls) == 2 and not leaked
    return f"{'ok' if ok else 'WRONG'}: {len(calls)} calls as whole" + (
        ", markup in text" if leaked else ""
    )


def verdict_peer(peers: Peers, name: str, case: str, text: str) -> str:
    if case == "split tokens":
        if name == "agent-tool-parser":
            return "n/a (no streaming; re-parses)"
        calls, visible = peers.sglang_stream(peers.detectors[name], text, 1)
        whole = peers.detectors[name]().detect_and_parse(text, peers.tools).calls
        leaked = "｜" in visible or "<tool_call" in visible or "python_tag" in visible
        ok = len(calls) == len(whole) == 2 and not leaked
        return f"{'ok' if ok else 'WRONG'}: {len(calls)} calls (whole: {len(whole)})" + (
            ", markup in text" if leaked else ""
        )
    if name == "agent-tool-parser":
        found = [(c.name, json.dumps(c.args)) for c in peers.atp_calls(text)]
    else:
        found = [
            (c.name, c.parameters)
            for c in peers.detectors[name]().detect_and_parse(text, peers.tools).calls
        ]
    names = [n for n, _ in found]
    if case == "truncated":
        if len(found) < 2:
            return f"WRONG: {len(found)} call(s), the cut-off call lost silently"
        return f"WRONG: {len(found)} calls, the cut-off one given as complete"
    if "delete_everything" not in names:
        return f"WRONG: {len(found)} call(s), the unknown call dropped silently"
    return f"accepted {names} (no status)"


# -- instructions (callgrind) ------------------------------------------------------


def child_instructions(families: list[str], with_peers: bool, sizes: list[str]) -> None:
    """Under callgrind: each one-feed run, driven by ``functools.reduce`` (callgrind
    collects inside it and dumps after it); prints the labels in dump order."""
    for family in families:
        peers = Peers(family) if with_peers else None
        for label, size, calls, lines in SIZES:
            if label not in sizes:
                continue
            text = make_text(family, size, calls, lines)
            repeat = max(1, MB // (size * 4))  # small texts: several parses, for the count
            for name, run in {
                "toolwire": toolwire(family),
                **(peers.whole() if peers else {}),
            }.items():
                run(text)  # warm up

                def step(_: object, __: int, run: Run = run, text: str = text) -> None:
                    run(text)

                gc.collect()
                gc.disable()  # as in the timed runs: the parsers, not the collector
                functools.reduce(step, range(repeat), None)
                # what the parses left to the collector, whose freeing is not counted
                left = gc.collect()
                gc.enable()
                print(f"{family}\t{label}\t{len(text)}\t{name}\t{repeat}\t{left}", flush=True)


# callgrind's cache model for ``--cold-detail``: this machine's L1 caches and, as the
# last level, its L2 (1 MiB per core): a parse's lines are out of it after
# ``gc.collect()``, which walks every container object (valgrind's default last
# level, the 32 MiB L3, keeps nearly all of them: ~100 misses a parse, no signal)
CACHE_MODEL = ("--cache-sim=yes", "--I1=32768,8,64", "--D1=49152,12,64", "--LL=1048576,16,64")
COLD_ROUNDS = 5


def child_cold_misses(families: list[str], with_peers: bool) -> None:
    """Under callgrind with ``CACHE_MODEL``: 2 KB parses each right after
    ``gc.collect()``, as ``timed`` takes them, one ``functools.reduce`` call each,
    the parsers in ``alternate``'s order; prints the labels in dump order."""
    _, size, calls, lines = SIZES[0]
    for family in families:
        peers = Peers(family) if with_peers else None
        text = make_text(family, size, calls, lines)
        runs = {"toolwire": toolwire(family), **(peers.whole() if peers else {})}
        for run in runs.values():
            for _ in range(20):  # code quickened and specialized, as in a server
                run(text)
        for i in range(COLD_ROUNDS):
            for name, run in runs.items():

                def step(_: object, __: int, run: Run = run, text: str = text) -> None:
                    run(text)

                gc.collect()
                gc.disable()
                functools.reduce(step, range(1), None)
                gc.enable()
                print(f"{family}\t{name}\t{i}", flush=True)


def under_callgrind(
    child: str,
    families: list[str],
    venv: Path | None,
    more: list[str],
    options: tuple[str, ...] = (),
) -> tuple[list[dict[str, int]], list[list[str]]] | None:
    """This script's ``child`` mode under callgrind: the events of each reduce call,
    and the labels the child printed (tab-separated), in the same order."""
    args = [__file__, child, "--families", ",".join(families), *more]
    args += ["--peers-venv", str(venv)] if venv else ["--no-peers"]
    found = reduce_loop_events(args, options)
    if found is None:
        print("\ncallgrind counts skipped: valgrind is not installed (apt-get install valgrind)")
        return None
    events, stdout = found
    return events, [line.split("\t") for line in stdout.splitlines() if "\t" in line]


def cold_misses(families: list[str], venv: Path | None) -> None:
    found = under_callgrind("--child-cold-misses", families, venv, [], CACHE_MODEL)
    if found is None:
        return
    events, rows = found
    print("\n## 2 KB, one parse after gc.collect(), callgrind's cache model")
    print("(medians; L2 misses = lines a cold parse reads from beyond a 1 MiB L2: code, data)")
    print(f"{'family':12} {'parser':18} {'instr':>9} {'L2 code':>8} {'L2 data':>8} {'x data':>7}")
    per: dict[tuple[str, str], list[dict[str, int]]] = {}
    for (family, name, _), each in zip(rows, events, strict=True):
        per.setdefault((family, name), []).append(each)
    base: dict[str, float] = {}
    for (family, name), each in per.items():
        instr = statistics.median(e.get("Ir", 0) for e in each)
        code = statistics.median(e.get("ILmr", 0) for e in each)
        data = statistics.median(e.get("DLmr", 0) + e.get("DLmw", 0) for e in each)
        base.setdefault(family, data)
        print(
            f"{family:12} {name:18} {instr:9,.0f} {code:8,.0f} {data:8,.0f}"
            f" {data / base[family]:7.2f}"
        )


def instructions(families: list[str], venv: Path | None, sizes: list[str]) -> None:
    found = under_callgrind("--child-instructions", families, venv, ["--sizes", ",".join(sizes)])
    if found is None:
        return
    events, rows = found
    counts = [each.get("Ir", 0) for each in events]
    print("\n## one feed, in instructions (callgrind); x = peer / toolwire")
    print("(cycles: objects per parse left to the cycle collector, whose work is not counted)")
    print(
        f"{'family':12} {'size':4} {'parser':18} {'instr/parse':>13} {'instr/MB':>13} {'x':>6}"
        f" {'cycles':>6}"
    )
    base: dict[tuple[str, str], float] = {}
    per_mb: dict[str, dict[str, float]] = {}
    for (family, label, chars, name, repeat, left), count in zip(rows, counts, strict=True):
        each = count / int(repeat)
        if name == "toolwire":
            base[family, label] = each
            per_mb.setdefault(family, {})[label] = each / (int(chars) / MB)
        print(
            f"{family:12} {label:4} {name:18} {each:13,.0f} {each / (int(chars) / MB):13,.0f}"
            f" {each / base[family, label]:6.2f} {int(left) / int(repeat):6.0f}"
        )
    for family, figures in per_mb.items():
        if "4M" not in figures or "16K" not in figures:
            continue
        print(
            f"{family}: toolwire instructions per MB, 4M / 16K = {figures['4M'] / figures['16K']:.2f}"
        )


# -- main -----------------------------------------------------------------------------


def fmt_s(t: float) -> str:
    return f"{t * 1e3:9.3f} ms" if t < 1 else f"{t:9.2f} s "


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--families", default=",".join(FAMILIES))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--peers-venv", type=Path, default=ROOT / ".bench-peers")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--instructions", action="store_true")
    ap.add_argument("--sizes", default=",".join(label for label, *_ in SIZES))
    ap.add_argument(
        "--cold-detail",
        action="store_true",
        help="2 KB: the cold parse after each parser's, page faults, blocks left; "
        "with --instructions, cache misses per cold parse (callgrind's cache model)",
    )
    ap.add_argument("--child-instructions", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child-cold-misses", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    with_peers = not ns.no_peers and ensure_peers(ns.peers_venv)
    families = ns.families.split(",")
    if ns.child_instructions:
        child_instructions(families, with_peers, ns.sizes.split(","))
        return
    if ns.child_cold_misses:
        child_cold_misses(families, with_peers)
        return
    print(f"medians of {ns.runs} alternating rounds; x = peer time / toolwire time in each round")
    for family in families:
        peers = Peers(family) if with_peers else None
        print(f"\n== {family}")
        print(
            f"{'size':4} {'mode':12} {'parser':18} {'time':>12} {'s/MB':>8} {'x':>7} {'calls':>6}"
        )
        per_mb: dict[str, dict[str, float]] = {"one feed": {}, "64K reads": {}}
        for label, size, calls, lines in SIZES:
            if label not in ns.sizes.split(","):
                continue
            text = make_text(family, size, calls, lines)
            modes: list[tuple[str, dict[str, Run]]] = [
                ("one feed", {"toolwire": toolwire(family), **(peers.whole() if peers else {})}),
                ("64K reads", {"toolwire": toolwire(family, READ)}),
            ]
            if label in WARM_SIZES:
                modes.insert(1, ("warm", modes[0][1]))
            if label in STREAM_SIZES:
                streamed = peers.streamed(DELTA) if peers else {}
                modes.append((f"{DELTA}-char", {"toolwire": toolwire(family, DELTA), **streamed}))
            for mode, runs in modes:
                rounds = ns.runs if size <= MB or mode != f"{DELTA}-char" else 1
                timer = timed_warm if mode == "warm" else timed
                # the cold rows in alternating pairs (see ``alternate``); the warm
                # ones, loops of ~5 ms each, do not feel the order
                cold = mode == "one feed"
                figures = alternate(
                    runs, text, rounds, timer, pairs=cold, warm_up=SPECIALIZE if cold else 1
                )
                expected = figures["toolwire"][2]
                for name, (t, ratio, found, bound) in figures.items():
                    mb = t / (len(text) / MB)
                    if name == "toolwire" and mode in per_mb:
                        per_mb[mode][label] = mb
                    note = " (bound: stopped, scaled)" if bound else ""
                    if 0 <= found < expected:
                        note += f" (found {found} of {expected} calls)"
                    print(
                        f"{label:4} {mode:12} {name:18} {fmt_s(t)} {mb:8.4f} {ratio:7.2f} {found:6d}{note}",
                        flush=True,
                    )
                if mode == "one feed" and label in WARM_SIZES and ns.cold_detail:
                    cold_detail(runs, text, ns.runs)
        for mode, figures in per_mb.items():
            if "4M" not in figures or "16K" not in figures:
                continue
            flat = figures["4M"] / figures["16K"]
            print(f"toolwire {mode}: s/MB at 4M / s/MB at 16K = {flat:.2f}")
        if peers:
            print(f"{'case':14} {'parser':18} verdict")
            for case, text in correctness_cases(family).items():
                print(f"{case:14} {'toolwire':18} {verdict_toolwire(family, case, text)}")
                for name in [*peers.detectors, "agent-tool-parser"]:
                    print(f"{case:14} {name:18} {verdict_peer(peers, name, case, text)}")
    if ns.instructions:
        instructions(families, ns.peers_venv if with_peers else None, ns.sizes.split(","))
        if ns.cold_detail:
            cold_misses(families, ns.peers_venv if with_peers else None)


if __name__ == "__main__":
    main()
