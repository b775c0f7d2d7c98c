"""Text fed whole at once and closed (a ``stream=false`` response) is read by the
lean steps of ``TextScanner.feed`` / ``_start`` / ``close`` (a fresh scan goes
straight to ``_start``; ``close`` skips the grammar it never started; the envelope
families' ``whole_calls`` is ``read_whole_envelope`` itself). It must report what
the streaming path reports for the same text in any split: the same calls with
their statuses, repairs, names and raw arguments, the same text and reasoning (F15),
and, for the same feeds, the same events with the whole-text reading or without it.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from test_families import CASES as FAMILY_CASES
from test_family_fixes import CASES as FIX_CASES
from test_plain_deltas import _TOOLS, _events
from test_whole_text import _AROUND, _SPACING, _WHOLE_PIECES, _fed
from tf_harness import TOOLS

from toolwire.events import CallFinished, ReasoningDelta, StreamFinished, TextDelta
from toolwire.textformats import EXTRACTORS

_CORPUS = [
    (case.family, case.input)
    for case in [*FAMILY_CASES, *FIX_CASES]
    if case.family in EXTRACTORS and case.tools is TOOLS and not case.options
]


def _bench_call(family: str, name: str, args: dict[str, object], space: str) -> str:
    """A call as ``bench_textformats_whole.py`` writes it, ``space`` before its end."""
    if family == "hermes":
        body = json.dumps({"name": name, "arguments": args})
        return f"<tool_call>\n{body}{space}</tool_call>"
    if family == "llama3_json":
        body = json.dumps({"name": name, "parameters": args})
        return f"<|python_tag|>{body}{space}<|eom_id|>"
    return (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
        f"{name}\n```json\n{json.dumps(args)}{space}```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    )


# what may still become a marker at the end of the text (held back until close)
_TAILS = ["", "", "<", "<to", "<tool_ca", "{", "`", "``", "<|eo", "<｜tool", "</think"]


def _summary(family: str, pieces: list[str]) -> tuple[object, ...]:
    """What a caller sees: calls, text, reasoning, finish reason."""
    events = _events(family, pieces, _TOOLS)
    return (
        [e.call for e in events if isinstance(e, CallFinished)],
        "".join(e.text for e in events if isinstance(e, TextDelta)),
        "".join(e.text for e in events if isinstance(e, ReasoningDelta)),
        [e.finish_reason for e in events if isinstance(e, StreamFinished)],
    )


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


@st.composite
def _generated(draw: st.DrawFn) -> tuple[str, str]:
    """Prose and calls of the three families read whole: the bench's shape, calls cut
    off, naming unknown tools, junk around and inside the markup, markers split."""
    family = draw(st.sampled_from(sorted(_WHOLE_PIECES)))
    units = []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["bench", "bench", "piece", "junk"]))
        if kind == "bench":
            name = draw(st.sampled_from(["write_file", "ping", "delete_everything"]))
            content = draw(st.sampled_from(["x = 1\n" * 20, 'a"b\\', "</tool_call>", "é世"]))
            space = draw(st.sampled_from(["\n", "", " \n", "\u2003", " " * 300]))
            unit = _bench_call(family, name, {"path": "a.py", "content": content}, space)
        elif kind == "piece":
            unit = draw(st.sampled_from(_WHOLE_PIECES[family]))
        else:
            unit = draw(st.sampled_from(["{", "<", "```", "<think>x</think>", "; ", "}"]))
        units.append(draw(st.sampled_from(_AROUND)) + unit + draw(st.sampled_from(_SPACING)))
    text = "".join(units) + draw(st.sampled_from(_TAILS))
    if draw(st.booleans()):
        text = text[: draw(st.integers(0, len(text)))]  # cut off anywhere (F1)
    return family, text


_inputs = st.one_of(st.sampled_from(_CORPUS), _generated())


@settings(max_examples=300, deadline=None)
@given(found=_inputs, cuts=st.lists(st.integers(0, 4096), max_size=4))
def test_text_fed_whole_reads_as_any_split_does_F15(
    found: tuple[str, str], cuts: list[int]
) -> None:
    family, text = found
    whole = _summary(family, [text])
    assert whole == _summary(family, _split(text, cuts))
    if len(text) < 3000:  # one character at a time: every marker split
        assert whole == _summary(family, list(text))


@settings(max_examples=300, deadline=None)
@given(
    found=_inputs.filter(lambda f: f[0] in _WHOLE_PIECES),
    cut=st.integers(0, 4096),
    again=st.booleans(),
)
def test_text_fed_whole_gives_the_events_of_the_requests_F15(
    found: tuple[str, str], cut: int, again: bool
) -> None:
    """The same feeds, events in order, with the whole-text reading and without it;
    then, after close, the text again (a fresh scan: content after the finish)."""
    family, text = found
    steps: list[str | None] = [text[:cut], text[cut:], None]
    if again:
        steps += [text, None]
    assert _fed(family, steps, fast=True) == _fed(family, steps, fast=False)
