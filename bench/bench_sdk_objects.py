"""SDK stream objects into the parser: ``feed_object`` (the object's dict, read by the
decoder) against re-serialising each object to JSON and feeding the bytes.

Run: ``python bench/bench_sdk_objects.py [--rounds N]``. The objects are real: the
``openai`` and ``anthropic`` SDKs stream a scripted answer (text in many deltas, then two
calls in many argument fragments) from the replay upstream on loopback, once; the
timing then parses the kept objects over and over, in alternating pairs (object path,
bytes path), and reports the medians of µs per object (process CPU time).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))

import anthropic
import openai

from toolwire.parser import StreamParser
from toolwire.replay import (
    ReplayServer,
    WireCall,
    anthropic_answer,
    chat_answer,
    responses_answer,
)

CLOCK = time.process_time
TEXT = "The sum of the two numbers is what you asked for. " * 12
ARGS = '{"a": 4, "b": 5, "note": "' + "x" * 400 + '"}'
CALLS = [WireCall("call_A", "add", ARGS), WireCall("call_B", "add", ARGS)]


def sdk_objects(server: ReplayServer, wire: str) -> list[Any]:
    if wire == "anthropic":
        client = anthropic.Anthropic(base_url=server.url.removesuffix("/v1"), api_key="k")
        return list(
            client.messages.create(
                model=wire, max_tokens=9, messages=[{"role": "user", "content": "x"}], stream=True
            )
        )
    oai = openai.OpenAI(base_url=server.url, api_key="k")
    if wire == "openai-responses":
        return list(oai.responses.create(model=wire, input="x", stream=True))
    return list(
        oai.chat.completions.create(
            model=wire, messages=[{"role": "user", "content": "x"}], stream=True
        )
    )


def as_sse(obj: Any, wire: str) -> bytes:
    """What a user without ``feed_object`` writes: the object back to SSE bytes."""
    data = obj.to_json(indent=None).encode()
    if wire == "openai-chat":
        return b"data: " + data + b"\n\n"
    return b"event: " + obj.type.encode() + b"\ndata: " + data + b"\n\n"


def run(objects: list[Any], feed: Callable[[StreamParser, Any], object], wire: str) -> float:
    t0 = CLOCK()
    parser = StreamParser(wire)
    for obj in objects:
        feed(parser, obj)
    parser.close()
    return (CLOCK() - t0) / len(objects) * 1e6


def main(rounds: int) -> None:
    scripts = {
        "openai-chat": chat_answer(TEXT, CALLS, pieces=4),
        "anthropic": anthropic_answer(TEXT, CALLS, pieces=4),
        "openai-responses": responses_answer(TEXT, CALLS, pieces=4),
    }
    with ReplayServer(scripts) as server:
        kept = {wire: sdk_objects(server, wire) for wire in scripts}
    print(f"{'wire':18} {'objects':>7} {'feed_object µs':>15} {'to_json+feed µs':>16} ratio")
    for wire, objects in kept.items():
        for _ in range(3):  # warm up
            run(objects, StreamParser.feed_object, wire)
        pairs = []
        for _ in range(rounds):
            a = run(objects, StreamParser.feed_object, wire)
            b = run(objects, lambda p, o, w=wire: p.feed(as_sse(o, w)), wire)
            pairs.append((a, b))
        obj_us = statistics.median(a for a, _ in pairs)
        bytes_us = statistics.median(b for _, b in pairs)
        ratio = statistics.median(a / b for a, b in pairs)
        print(f"{wire:18} {len(objects):7d} {obj_us:15.2f} {bytes_us:16.2f} {ratio:5.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=41)
    main(parser.parse_args().rounds)
