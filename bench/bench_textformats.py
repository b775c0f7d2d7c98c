# ruff: noqa: E501  (test data: long literal model outputs; DeepSeek markers use U+FF5C)
"""Benchmark: text-format extraction in 4-byte deltas, for every family.

For each family: 1 MB of model text holding 200 calls (prose between them), fed in
4-character deltas. Reports MB/s, and the time per MB at 256 KB, 512 KB and 1 MB
(linear work keeps these within 1.5x of each other). In the same run, compares with
what most server-side parsers do: re-parse the accumulated text on every delta (here
a fresh extractor over all text so far), on a smaller prefix, since it is quadratic.

    python bench/bench_textformats.py [--families hermes,kimi_k2] [--reparse-kb 8]
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from toolwire.assemble import CallAssembler
from toolwire.events import CallFinished
from toolwire.spec import ToolSpec
from toolwire.textformats import EXTRACTORS, make_extractor

TOOLS = [
    ToolSpec.from_dict(
        {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"},
                    "mode": {"type": "integer"},
                },
            },
        }
    )
]
DELTA = 4
CALLS = 200
SIZE = 1 << 20

Render = Callable[[str, dict[str, Any]], str]


def _js(args: dict[str, Any]) -> str:
    return json.dumps(args)


def _env(name: str, args: dict[str, Any], key: str = "arguments") -> str:
    return json.dumps({"name": name, key: args})


def _xml(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


D = "｜DSML｜"
DS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁calls▁end｜>",
)


def _fg(v: Any) -> str:
    return f"<escape>{v}<escape>" if isinstance(v, str) else json.dumps(v)


RENDER: dict[str, Render] = {
    "hermes": lambda n, a: f"<tool_call>\n{_env(n, a)}\n</tool_call>",
    "qwen3_coder": lambda n, a: (
        "<tool_call>\n<function="
        + n
        + ">\n"
        + "".join(f"<parameter={k}>\n{_xml(v)}\n</parameter>\n" for k, v in a.items())
        + "</function>\n</tool_call>"
    ),
    "mistral": lambda n, a: f"[TOOL_CALLS]{n}[ARGS]{_js(a)}",
    "llama3_json": lambda n, a: "<|python_tag|>" + _env(n, a, "parameters") + "<|eom_id|>",
    "pythonic": lambda n, a: (
        "<|python_start|>["
        + n
        + "("
        + ", ".join(f"{k}={v!r}" for k, v in a.items())
        + ")]<|python_end|>"
    ),
    "deepseek_v3": lambda n, a: (
        f"{DS[0]}{DS[1]}function{DS[2]}{n}\n```json\n{_js(a)}\n```{DS[3]}{DS[4]}"
    ),
    "deepseek_v31": lambda n, a: f"{DS[0]}{DS[1]}{n}{DS[2]}{_js(a)}{DS[3]}{DS[4]}",
    "deepseek_dsml": lambda n, a: (
        f'<{D}function_calls><{D}invoke name="{n}">'
        + "".join(
            f'<{D}parameter name="{k}" string="{str(isinstance(v, str)).lower()}">{_xml(v)}</{D}parameter>'
            for k, v in a.items()
        )
        + f"</{D}invoke></{D}function_calls>"
    ),
    "kimi_k2": lambda n, a: (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions."
        + n
        + ":0<|tool_call_argument_begin|>"
        + _js(a)
        + "<|tool_call_end|><|tool_calls_section_end|>"
    ),
    "glm45": lambda n, a: (
        f"<tool_call>{n}\n"
        + "".join(
            f"<arg_key>{k}</arg_key>\n<arg_value>{_xml(v)}</arg_value>\n" for k, v in a.items()
        )
        + "</tool_call>"
    ),
    "glm47": lambda n, a: (
        f"<tool_call>{n}"
        + "".join(f"<arg_key>{k}</arg_key><arg_value>{_xml(v)}</arg_value>" for k, v in a.items())
        + "</tool_call>"
    ),
    "minimax_m2": lambda n, a: (
        f'<minimax:tool_call><invoke name="{n}">'
        + "".join(f'<parameter name="{k}">{_xml(v)}</parameter>' for k, v in a.items())
        + "</invoke></minimax:tool_call>"
    ),
    "harmony": lambda n, a: (
        f"<|start|>assistant<|channel|>commentary to=functions.{n} "
        f"<|constrain|>json<|message|>{_js(a)}<|call|>"
    ),
    "granite": lambda n, a: f"<|tool_call|>[{_env(n, a)}]",
    "seed_oss": lambda n, a: (
        "<seed:tool_call>\n<function="
        + n
        + ">\n"
        + "".join(f"<parameter={k}>\n{_xml(v)}\n</parameter>\n" for k, v in a.items())
        + "</function>\n</seed:tool_call>"
    ),
    "xlam": lambda n, a: f"```json\n[{_env(n, a)}]\n```",
    "functiongemma": lambda n, a: (
        f"<start_function_call>call:{n}"
        + "{"
        + ",".join(f"{k}:{_fg(v)}" for k, v in a.items())
        + "}<end_function_call>"
    ),
    "jamba": lambda n, a: f"<tool_calls>[{_env(n, a)}]</tool_calls>",
    "hunyuan": lambda n, a: f"<tool_calls>[{_env(n, a)}]</tool_calls>",
    "internlm": lambda n, a: f"<|action_start|><|plugin|>{_env(n, a, 'parameters')}<|action_end|>",
    "phi4_mini": lambda n, a: f"functools[{_env(n, a)}]",
    "step3": lambda n, a: (
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        f'<steptml:invoke name="{n}">'
        + "".join(
            f'<steptml:parameter name="{k}">{_xml(v)}</steptml:parameter>' for k, v in a.items()
        )
        + "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
    ),
    "agent": lambda n, a: f"[TOOL_REQUEST] {n} {_js(a)} [TOOL_REQUEST_END]",
}


def make_text(family: str, size: int = SIZE, calls: int = CALLS, lines: int = 100) -> str:
    """About ``size`` characters: prose, then a call (``lines`` lines of file content),
    ``calls`` times."""
    render = RENDER[family]
    share = size // calls
    parts = []
    for i in range(calls):
        args = {"path": f"src/module_{i}.py", "content": "x = 1  # ok\n" * lines, "mode": 420}
        call = render("write_file", args)
        words = "The model explains what it is about to do, step by step. "
        prose = (words * (max(share - len(call), 60) // len(words) + 1))[
            : max(share - len(call), 60)
        ]
        if family == "harmony":
            prose = f"<|start|>assistant<|channel|>final<|message|>{prose[:-40]}<|end|>"
        parts.append(prose + "\n" + call + "\n")
    return "".join(parts)


def run(family: str, text: str, delta: int = DELTA) -> tuple[float, int]:
    """Seconds to extract ``text`` fed in ``delta``-character pieces; calls found."""
    sink = CallAssembler(TOOLS)
    extractor = make_extractor(family, sink, TOOLS)
    found = 0
    start = time.perf_counter()
    feed = extractor.feed
    for i in range(0, len(text), delta):
        feed(text[i : i + delta])
        if len(sink.events) > 4096:
            found += sum(isinstance(e, CallFinished) for e in sink.drain())
    extractor.close()
    sink.end()
    elapsed = time.perf_counter() - start
    found += sum(isinstance(e, CallFinished) for e in sink.drain())
    return elapsed, found


def run_reparse(family: str, text: str, delta: int = DELTA) -> float:
    """Re-parse everything so far on every delta (the common server-side design)."""
    start = time.perf_counter()
    for end in range(delta, len(text) + delta, delta):
        sink = CallAssembler(TOOLS)
        extractor = make_extractor(family, sink, TOOLS)
        extractor.feed(text[:end])
        extractor.close()
        sink.end()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--families", default=",".join(EXTRACTORS))
    ap.add_argument("--reparse-kb", type=int, default=8)
    ns = ap.parse_args()
    mb = 1 << 20
    print(f"{DELTA}-char deltas; {CALLS} calls per MB; re-parse compared on {ns.reparse_kb} KB")
    print(
        f"{'family':15} {'MB/s':>6} {'s/MB@256K':>10} {'s/MB@512K':>10} {'s/MB@1M':>8} "
        f"{'1M/256K':>8} {'calls':>6} {'reparse x':>10}"
    )
    for family in ns.families.split(","):
        text = make_text(family)
        per_mb = {}
        found = 0
        for kb in (256, 512, 1024):
            part = text[: kb * 1024]
            gc.collect()
            gc.disable()  # time the parser, not the collector's pauses
            try:
                t, found = min(run(family, part) for _ in range(3))
            finally:
                gc.enable()
            per_mb[kb] = t / (len(part) / mb)
        small = text[: ns.reparse_kb * 1024]
        t_inc, _ = run(family, small)
        t_re = run_reparse(family, small)
        print(
            f"{family:15} {1 / per_mb[1024]:6.2f} {per_mb[256]:10.3f} {per_mb[512]:10.3f} "
            f"{per_mb[1024]:8.3f} {per_mb[1024] / per_mb[256]:8.2f} {found:6d} {t_re / t_inc:10.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
