"""Stream assembly benchmark: linearity, peers, and the orjson floor.

    python bench/bench_stream.py [--quick]

Peers, all in this run on the same streams:
  - openai-python ``ChatCompletionStreamState`` (its chunk accumulation helper),
  - langchain-core ``AIMessageChunk`` merging (``acc + chunk`` per delta),
  - per-delta re-parse with ``jiter.from_json(partial_mode="trailing-strings")`` (what
    the anthropic SDK does for tool input).
The peers are given the data lines already split out of the SSE framing (their SSE
parsing is not timed, which favours them) and decode each with ``orjson.loads`` (the
cheapest decoding any client could do); toolwire is timed on raw SSE bytes in 4 KB
reads, whole pipeline (SSE, JSON, assembly, repair ladder, schema validation).
The floor is ``orjson.loads`` on each data line and nothing else.
Figures are medians; ratios are medians of alternating paired runs in this run.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from bench_short_streams import anthropic_events
from streams import (
    WRITE_FILE_TOOL,
    anthropic_text_events,
    api_2025,
    call_arguments,
    code_like_text,
    gemini_sse,
    ollama_lines,
    openai_call_chunks,
    responses_events,
    sse,
)

from toolwire.events import CallFinished
from toolwire.parser import StreamParser
from toolwire.spec import ToolSpec

TOOLS = [ToolSpec.from_dict(WRITE_FILE_TOOL)]
PEER_BUDGET_S = 20.0  # a peer run longer than this is stopped and reported as a bound


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def paired(
    first: Callable[[], object], second: Callable[[], object], repeats: int
) -> tuple[float, float, float]:
    """Run the two alternately; medians of each and the median of second ÷ first.
    Alternating keeps a change in the machine's load from landing on one side only."""
    a, b, ratios = [], [], []
    for _ in range(repeats):
        ta = median_time(first, 1)
        tb = median_time(second, 1)
        a.append(ta)
        b.append(tb)
        ratios.append(tb / ta)
    return statistics.median(a), statistics.median(b), statistics.median(ratios)


def run_toolwire(data: bytes) -> None:
    parser = StreamParser("openai-chat", TOOLS)
    events = []
    for i in range(0, len(data), 4096):
        events.extend(parser.feed(data[i : i + 4096]))
    events.extend(parser.close())
    call = next(e.call for e in events if isinstance(e, CallFinished))
    assert call.status == "complete", call


def run_floor(lines: list[bytes]) -> None:
    loads = orjson.loads
    for line in lines:
        loads(line)


class Bound(Exception):
    """A peer that ran out of its time budget after ``done`` of ``total`` deltas."""

    def __init__(self, elapsed: float, done: int, total: int) -> None:
        self.elapsed, self.done, self.total = elapsed, done, total


def peer_openai(lines: list[bytes]) -> Callable[[], None]:
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    def run() -> None:
        state: Any = ChatCompletionStreamState()
        t0 = time.perf_counter()
        for i, line in enumerate(lines):
            state.handle_chunk(ChatCompletionChunk.construct(**orjson.loads(line)))
            if time.perf_counter() - t0 > PEER_BUDGET_S:
                raise Bound(time.perf_counter() - t0, i + 1, len(lines))
        state.get_final_completion()

    return run


def peer_langchain(lines: list[bytes]) -> Callable[[], None]:
    from langchain_core.messages import AIMessageChunk

    def tool_call_chunks(line: bytes) -> list[dict[str, Any]]:
        delta = orjson.loads(line)["choices"][0]["delta"]
        return [
            {
                "name": tc.get("function", {}).get("name"),
                "args": tc.get("function", {}).get("arguments"),
                "id": tc.get("id"),
                "index": tc.get("index"),
            }
            for tc in delta.get("tool_calls") or []
        ]

    def run() -> None:
        acc: Any = None
        t0 = time.perf_counter()
        for i, line in enumerate(lines):
            tcs = tool_call_chunks(line)
            msg = AIMessageChunk(content="", tool_call_chunks=tcs)
            acc = msg if acc is None else acc + msg
            if time.perf_counter() - t0 > PEER_BUDGET_S:
                raise Bound(time.perf_counter() - t0, i + 1, len(lines))

    return run


def peer_jiter(lines: list[bytes]) -> Callable[[], None]:
    import jiter

    def run() -> None:
        buf = b""
        t0 = time.perf_counter()
        for i, line in enumerate(lines):
            for tc in orjson.loads(line)["choices"][0]["delta"].get("tool_calls") or []:
                buf += tc["function"]["arguments"].encode()
            if buf:
                jiter.from_json(buf, partial_mode="trailing-strings")
            if time.perf_counter() - t0 > PEER_BUDGET_S:
                raise Bound(time.perf_counter() - t0, i + 1, len(lines))

    return run


PEERS = {
    "openai-python": peer_openai,
    "langchain-core": peer_langchain,
    "jiter re-parse": peer_jiter,
}


def linearity(sizes: list[int], repeats: int) -> None:
    print("\n## Linearity: one call, arguments in 16-byte deltas (toolwire whole pipeline)")
    print(f"{'args':>8} {'deltas':>8} {'median ms':>10} {'ms per MB':>10}")
    per_mb = []
    for size in sizes:
        data = sse(openai_call_chunks(call_arguments(size), 16))
        t = median_time(lambda data=data: run_toolwire(data), repeats)
        per_mb.append(t / (size / 1_048_576) * 1000)
        print(f"{size // 1024:>6} K {size // 16:>8} {t * 1000:>10.1f} {per_mb[-1]:>10.1f}")
    print(f"time per MB, largest ÷ smallest: {per_mb[-1] / per_mb[0]:.2f}x  (goal <= 1.5x)")


def peers(size: int, delta: int, repeats: int) -> None:
    lines = openai_call_chunks(call_arguments(size), delta)
    data = sse(lines)
    raw_lines = [line.encode() for line in lines]
    ours = median_time(lambda: run_toolwire(data), repeats)
    print(f"\n## Peers: {size // 1024} KB arguments in {delta}-byte deltas ({len(lines)} chunks)")
    print(f"{'who':<16} {'median ms':>12} {'toolwire is':>14}")
    print(f"{'toolwire':<16} {ours * 1000:>12.2f} {'':>14}")
    for name, make in PEERS.items():
        try:
            run = make(raw_lines)
        except ImportError as exc:
            print(f"{name:<16} {'not installed':>12} ({exc.name}); pip install -e '.[bench]'")
            continue
        try:
            if size > 100_000:
                t = median_time(run, 1)
                ratio = t / ours
            else:
                _, t, ratio = paired(lambda: run_toolwire(data), run, 7)
            print(f"{name:<16} {t * 1000:>12.2f} {ratio:>13.1f}x faster")
        except Bound as b:
            share = b.done / b.total
            print(
                f"{name:<16} {'>' + format(b.elapsed * 1000, '.0f'):>12} "
                f"{'>' + format(b.elapsed / ours, '.0f'):>13}x faster"
                f" (stopped after {b.elapsed:.0f} s at {share:.0%} of the deltas)"
            )


def floor_ratio(label: str, data: bytes, repeats: int) -> None:
    lines = [
        line[6:]
        for line in data.split(b"\n")
        if line.startswith(b"data: ") and line != b"data: [DONE]"
    ] or [line for line in data.split(b"\n") if line]  # (newline-delimited JSON)
    floor, ours, ratio = paired(lambda: run_floor(lines), lambda: run_toolwire_any(data), repeats)
    print(
        f"{label:<40} {len(lines):>7} chunks  toolwire {ours * 1000:8.2f} ms  "
        f"floor {floor * 1000:7.2f} ms  ratio {ratio:5.2f}  (goal <= 2.0)"
    )


def run_toolwire_any(data: bytes) -> None:
    parser = StreamParser("auto")
    for i in range(0, len(data), 4096):
        parser.feed(data[i : i + 4096])
    parser.close()


def ten_thousand_chunks() -> list[str]:
    """A whole stream of about 10,000 chunks: header, argument deltas, finish."""
    target = 9_998 * 16
    size = target
    for _ in range(5):  # escapes make the JSON longer than its content: scale down
        size = size * target // len(call_arguments(size))
    return openai_call_chunks(call_arguments(size), 16)


def main() -> None:
    quick = "--quick" in sys.argv
    repeats = 3 if quick else 7
    linearity([64 * 1024, 256 * 1024, 1024 * 1024], repeats)
    peers(2 * 1024, 4, repeats * 3)
    peers(256 * 1024, 16, repeats)
    print("\n## Whole pipeline ÷ floor (orjson.loads per data line)")
    corpus = Path(__file__).resolve().parents[1] / "src/toolwire/data/demo/real"
    for path in sorted(corpus.glob("*/*.sse")):
        floor_ratio(f"real {path.parent.name}/{path.name}", path.read_bytes(), repeats * 20)
    chunks = sse(ten_thousand_chunks())
    floor_ratio("10,000-chunk stream (16-byte deltas)", chunks, repeats)
    # OpenAI's API adds a member of random characters to every chunk (and the service
    # tier, a null usage): each chunk's bytes differ at its end
    floor_ratio("the same, OpenAI's API shape of 2025", api_2025(chunks), repeats)
    args = call_arguments(9_998 * 16)
    floor_ratio("Responses events, 16-byte argument deltas", responses_events(args, 16), repeats)
    text = code_like_text(9_998 * 16)
    floor_ratio("Ollama lines, 16-character content deltas", ollama_lines(text, 16), repeats)
    floor_ratio("the same, reasoning deltas (thinking)", ollama_lines(text, 16, True), repeats)
    pieces = [args[i : i + 16] for i in range(0, len(args), 16)]
    floor_ratio("Anthropic arguments, 16-byte deltas", anthropic_events(pieces), repeats)
    floor_ratio(
        "Anthropic text, 16-character deltas, padded", anthropic_text_events(text, 16), repeats
    )
    floor_ratio("Gemini SSE, 16-character parts", gemini_sse(text, 16), repeats)


if __name__ == "__main__":
    main()
