"""Benchmark: short real streams, in instructions (callgrind), toolwire vs the floor.

Each real capture (``src/toolwire/data/demo/real``: OpenAI and Anthropic, 9-26
messages) is parsed 100 times by the whole pipeline (``StreamParser("auto")``: SSE,
JSON, assembly, repair ladder, finishing), and 100 times by the floor loop
(``orjson.loads`` of each data line and nothing else). Times this small are noise on
a shared machine, instruction counts are not (repeatable within 1%): one process
runs every loop under ``valgrind --tool=callgrind``, which counts only inside each
loop (``functools.reduce`` drives the loops; callgrind collects within it and dumps
after it), after one warm-up parse of each capture. Skipped, with a message, where
valgrind is not installed.

``--breakdown``: where each capture's instructions go, by who works on them: the
stream's set-up (``StreamParser`` built), learning envelopes (``learn_envelope``, and
the ``Envelope`` a decoder builds where it knows one from a message's shape),
finishing calls (``CallFinisher.as_sent`` and ``.finish``, of which the repair ladder:
``repair_json`` and ``partial_value`` called by it), and the rest (framing, JSON, the decoders'
per-message path, routing, the end). Each share is its recorded calls replayed
in a loop of their own, so the shares are close to, not exactly, what they cost
inside the parse.

``--break-even``: where learning envelopes (``providers/envelope.py``) pays: synthetic
OpenAI and Anthropic streams of one call in N argument deltas, parsed with learning
after the first 0, 2, 5 or 8 deltas (each wire's ``learn_after``) and with none.

    python bench/bench_short_streams.py [--runs 100] [--break-even | --breakdown]
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from callgrind import reduce_loops

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "src" / "toolwire" / "data" / "demo" / "real"
GOALS = {"openai": 2.0, "anthropic": 4.0}  # toolwire ÷ floor, in instructions
DELTAS = (4, 8, 12, 16, 24, 32, 48, 64, 128)  # argument deltas per stream, for --break-even
AFTER = (0, 2, 5, 8, 1 << 62)  # deltas read before learning envelopes; the last: never
WIRES = {"openai": "openai-chat", "anthropic": "anthropic"}


def anthropic_events(pieces: list[str]) -> bytes:
    """An Anthropic stream of one tool_use block whose input comes in ``pieces``."""
    events: list[tuple[str, dict[str, object]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "content": [],
                    "model": "m",
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "write_file",
                    "input": {},
                },
            },
        ),
        *(
            (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": p},
                },
            )
            for p in pieces
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use"},
                "usage": {"output_tokens": 20},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


def synthetic(provider: str, deltas: int) -> bytes:
    sys.path.insert(0, str(ROOT / "bench"))
    from streams import call_arguments, openai_call_chunks, sse

    args = call_arguments(deltas * 16)
    size = -(-len(args) // deltas)
    if provider == "openai":
        return sse(openai_call_chunks(args, size))
    return anthropic_events([args[i : i + size] for i in range(0, len(args), size)])


def data_lines(data: bytes) -> list[bytes]:
    return [
        line[5:].strip()
        for line in data.split(b"\n")
        if line.startswith(b"data:") and line.strip() != b"data: [DONE]"
    ]


def child_break_even(runs: int) -> None:
    """Under callgrind: each synthetic stream, learning after each of AFTER deltas."""
    sys.path.insert(0, str(ROOT / "src"))
    from toolwire.parser import StreamParser
    from toolwire.providers import DECODERS

    for provider in GOALS:
        decoder = DECODERS[WIRES[provider]]
        for deltas in DELTAS:
            data = synthetic(provider, deltas)
            for after in AFTER:

                def parse(
                    _: object, __: int, data: bytes = data, after: int = after, wire: Any = decoder
                ) -> None:
                    wire.learn_after = after
                    parser = StreamParser("auto")
                    parser.feed(data)
                    parser.close()

                parse(None, 0)
                functools.reduce(parse, range(runs), None)


# "empty": a replay of nothing, the loop's own cost, taken off the replayed shares
SHARES = ("parse", "set-up", "learning", "finish", "ladder", "floor", "empty")


def child_breakdown(runs: int) -> None:
    """Under callgrind: for each capture, one loop per entry of SHARES."""
    sys.path.insert(0, str(ROOT / "src"))
    import orjson

    from toolwire import finish
    from toolwire.parser import StreamParser
    from toolwire.providers import base, openai_chat

    def recorder(owner: Any, name: str, calls: list[tuple[Any, ...]]) -> Any:
        real = getattr(owner, name)

        def record(*args: Any, **kwargs: Any) -> Any:
            calls.append((real, args, kwargs))
            return real(*args, **kwargs)

        setattr(owner, name, record)
        return real

    def replay(calls: list[tuple[Any, ...]]) -> Any:
        def loop(_: object, __: int) -> None:
            for real, args, kwargs in calls:
                real(*args, **kwargs)

        return loop

    for path in sorted(REAL.glob("*/*.sse")):
        data = path.read_bytes()
        lines = data_lines(data)
        learned: list[tuple[Any, ...]] = []
        finished: list[tuple[Any, ...]] = []
        ladder: list[tuple[Any, ...]] = []
        patched = [
            (base, "learn_envelope", learned),
            (openai_chat, "Envelope", learned),  # (known from the message's shape)
            (finish.CallFinisher, "as_sent", finished),  # the assembler tries it first
            (finish.CallFinisher, "finish", finished),
            (finish, "repair_json", ladder),
            (finish, "partial_value", ladder),
        ]
        reals = [recorder(owner, name, calls) for owner, name, calls in patched]
        parser = StreamParser("auto")
        parser.feed(data)
        parser.close()
        for (owner, name, _), real in zip(patched, reals, strict=True):
            setattr(owner, name, real)
        ladder_calls = list(ladder)  # (finish replayed below records nothing now)

        def whole(_: object, __: int, data: bytes = data) -> None:
            parser = StreamParser("auto")
            parser.feed(data)
            parser.close()

        def setup(_: object, __: int) -> None:
            StreamParser("auto")

        def floor(_: object, __: int, lines: list[bytes] = lines) -> None:
            loads = orjson.loads
            for line in lines:
                loads(line)

        replays = (replay(learned), replay(finished), replay(ladder_calls))
        loops = (whole, setup, *replays, floor, replay([]))
        for loop in loops:
            loop(None, 0)
            functools.reduce(loop, range(runs), None)


def child(runs: int) -> None:
    """Under callgrind: for each capture, the toolwire loop, then the floor loop."""
    sys.path.insert(0, str(ROOT / "src"))
    import orjson

    from toolwire.parser import StreamParser

    for path in sorted(REAL.glob("*/*.sse")):
        data = path.read_bytes()
        lines = data_lines(data)

        def toolwire(_: object, __: int, data: bytes = data) -> None:
            parser = StreamParser("auto")
            parser.feed(data)
            parser.close()

        def floor(_: object, __: int, lines: list[bytes] = lines) -> None:
            loads = orjson.loads
            for line in lines:
                loads(line)

        toolwire(None, 0)  # warm up: lazily built tables, first-use imports
        floor(None, 0)
        functools.reduce(toolwire, range(runs), None)
        functools.reduce(floor, range(runs), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--break-even", action="store_true")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    mode = ["--break-even"] if ns.break_even else ["--breakdown"] if ns.breakdown else []
    if ns.child:
        run = child_break_even if ns.break_even else child_breakdown if ns.breakdown else child
        run(ns.runs)
        return
    found = reduce_loops([__file__, "--child", "--runs", str(ns.runs), *mode])
    if found is None:
        print("skipped: valgrind is not installed (apt-get install valgrind)")
        return
    counts, _ = found
    if ns.break_even:
        report_break_even(counts, ns.runs)
        return
    if ns.breakdown:
        report_breakdown(counts, ns.runs)
        return
    paths = sorted(REAL.glob("*/*.sse"))
    if len(counts) != 2 * len(paths):
        raise SystemExit(f"expected {2 * len(paths)} callgrind dumps, found {len(counts)}")
    print(f"instructions for {ns.runs} parses of each capture (callgrind)")
    print(f"{'capture':42} {'msgs':>5} {'toolwire':>12} {'floor':>11} {'ratio':>6} {'goal':>5}")
    for i, path in enumerate(paths):
        ours, floor = counts[2 * i], counts[2 * i + 1]
        provider = path.parent.name
        messages = len(data_lines(path.read_bytes()))
        ratio = ours / floor
        goal = GOALS.get(provider, 0.0)
        mark = "met" if ratio <= goal else "MISSED"
        print(
            f"{provider + '/' + path.name:42} {messages:5d} {ours:12,d} {floor:11,d} "
            f"{ratio:6.2f} {goal:5.1f} {mark}"
        )


def report_breakdown(counts: list[int], runs: int) -> None:
    paths = sorted(REAL.glob("*/*.sse"))
    if len(counts) != len(SHARES) * len(paths):
        raise SystemExit(
            f"expected {len(SHARES) * len(paths)} callgrind dumps, found {len(counts)}"
        )
    print(f"thousands of instructions per parse (callgrind, {runs} parses each); the")
    print("ladder is part of finish; rest = parse - set-up - learning - finish;")
    print("goal = what the parse may cost to meet its goal, gap = parse - goal")
    heads = ("parse", "set-up", "learn", "finish", "ladder", "rest", "floor", "goal", "gap")
    print(f"{'capture':46}" + "".join(f"{h:>8}" for h in heads))
    for i, path in enumerate(paths):
        parse, *shares, floor, empty = (
            n / runs / 1000 for n in counts[len(SHARES) * i : len(SHARES) * (i + 1)]
        )
        setup, learn, finish, ladder = (n - empty for n in shares)
        goal = GOALS[path.parent.name] * floor
        rest = parse - setup - learn - finish
        row = (parse, setup, learn, finish, ladder, rest, floor, goal, parse - goal)
        name = f"{path.parent.name}/{path.name}"
        print(f"{name:46}" + "".join(f"{n:8.1f}" for n in row))


def report_break_even(counts: list[int], runs: int) -> None:
    print(f"instructions per stream (callgrind, {runs} parses each) with envelopes learned")
    print("after the first N deltas, against never learning; < 1: learning pays")
    heads = "".join(f"{'after ' + str(a):>11}" for a in AFTER[:-1])
    print(f"{'provider':10} {'deltas':>6} {'never':>10}{heads}")
    it = iter(counts)
    for provider in GOALS:
        for deltas in DELTAS:
            found = [next(it) // runs for _ in AFTER]
            never = found[-1]
            ratios = "".join(f"{n / never:11.2f}" for n in found[:-1])
            print(f"{provider:10} {deltas:6d} {never:10,d}{ratios}")


if __name__ == "__main__":
    main()
