"""Fuzzing every family with mutated valid texts, bounded in time (see tf_fuzz).

Each family gets a small budget in CI; ``TOOLWIRE_FUZZ_SECONDS`` (per family) and
``TOOLWIRE_FUZZ_INPUTS`` raise it for a longer run:

    TOOLWIRE_FUZZ_SECONDS=120 TOOLWIRE_FUZZ_INPUTS=1000000 pytest tests/textformats/test_fuzz.py
"""

from __future__ import annotations

import os
import random

import pytest
from test_families import CASES
from tf_fuzz import check_input, fuzz
from tf_harness import TOOLS, check_split_invariance

from toolwire.assemble import CallAssembler
from toolwire.parser import parse_stream
from toolwire.spec import ToolSpec
from toolwire.textformats import FAMILIES, make_extractor
from toolwire.textformats.auto import AutoExtractor

SECONDS = float(os.environ.get("TOOLWIRE_FUZZ_SECONDS", "1.0"))
MAX_INPUTS = int(os.environ.get("TOOLWIRE_FUZZ_INPUTS", "400"))


def _seeds(family: str) -> list[str]:
    if family == "auto":
        return [c.input for c in CASES]
    return [c.input for c in CASES if c.family == family]


# families that lose nothing inside call markup either: text between tags, a cut-off
# value, a damaged header is in the output somewhere (tf_fuzz.lost_sentinels)
STRICT = {
    "qwen3_coder",
    "seed_oss",
    "glm45",
    "glm47",
    "minimax_m2",
    "deepseek_dsml",
    "step3",
    "deepseek_v3",
    "deepseek_v31",
    "kimi_k2",
    "harmony",
    # JSON envelopes (textformats.jsoncalls), and auto, which hands over to any family
    "hermes",
    "mistral",
    "llama3_json",
    "granite",
    "xlam",
    "jamba",
    "hunyuan",
    "internlm",
    "phi4_mini",
    "agent",
    "auto",
}


def auto_family(text: str) -> str | None:
    """The family ``auto`` hands ``text`` to (None: none, it is plain text)."""
    extractor = make_extractor("auto", CallAssembler(), [ToolSpec.from_dict(t) for t in TOOLS])
    assert isinstance(extractor, AutoExtractor)
    extractor.feed(text)
    extractor.close()
    return extractor.family


@pytest.mark.parametrize("family", [f for f in FAMILIES if _seeds(f)])
def test_mutated_text_never_hangs_raises_or_loses_text_F15(family: str) -> None:
    def check(family: str, text: str, rng: random.Random) -> None:
        # auto is as strict as the family it hands the text to
        chosen = auto_family(text) if family == "auto" else family
        check_input(family, text, rng, strict=chosen is None or chosen in STRICT)

    count = fuzz(family, _seeds(family), seconds=SECONDS, max_inputs=MAX_INPUTS, check=check)
    assert count > 0


# -- what the fuzzers found ----------------------------------------------------------


@pytest.mark.parametrize(
    ("family", "text"),
    [
        # raw (non-JSON) argument text streamed in pieces: a piece that opened a second
        # value after a balanced one became a second call, only in some chunkings
        ("mistral", "[TOOL_CALLS]ping[ARGS]x{}\nTOOL_CALLS]ping[ARGS]{}"),
        ("kimi_k2", "<|tool_call_begin|>functions.ping:0<|tool_call_argument_begin|>{}<|s{}"),
        # <|plugin|> not followed by JSON was given back after a later feed had
        # already compacted it out of the buffer
        ("internlm", '<|action_start|><|plugin|> \nnot json {"name":'),
    ],
)
def test_fuzz_findings_are_the_same_in_any_chunking_F15(family: str, text: str) -> None:
    check_split_invariance(family, text, TOOLS, f"fuzz-{family}")


def test_fuzz_finding_auto_closes_a_family_it_chose_at_end_of_stream_F1() -> None:
    # a short output starting with "[" is decided only at its end; the family chosen
    # then was never closed, so its cut-off call and its text were lost
    text = '[TOOL_CALLS][{"name": "get_weather", "arguments "x", "arguments": {"ci'
    r = parse_stream(text, "text:auto", TOOLS)
    assert [(c.name, c.status) for c in r.calls] == [("get_weather", "truncated")]


def test_fuzz_finding_a_separator_read_before_a_feed_can_be_given_back_F15() -> None:
    # "," after an envelope, then no "{": the comma was given back after a later feed
    # had compacted it out of the buffer, so the text after it depended on chunking
    text = '<|action_start|><|plugin|>{"name": "ping", "parameters": {}},\t<|x|>'
    check_split_invariance("internlm", text, TOOLS, "fuzz-push-back")
