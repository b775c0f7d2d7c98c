"""Never hang, and never pay for the text after a call: every scanner loop advances,
and a call costs its own length however much text follows it in the buffer (F22)."""

from __future__ import annotations

import gc
import time

import pytest
from test_families import CASES
from tf_bound import cpu_bound
from tf_harness import TOOLS

from toolwire.assemble import CallAssembler
from toolwire.parser import parse_stream
from toolwire.spec import ToolSpec
from toolwire.textformats import EXTRACTORS, make_extractor
from toolwire.textformats.functiongemma import read_arguments


@pytest.mark.parametrize("family", ["functiongemma", "auto"])
def test_functiongemma_list_item_at_a_brace_never_hangs(family: str) -> None:
    # a list item at "}" consumed nothing, and the list loop asked again forever
    text = "<start_function_call>call:f{a:[}<end_function_call>"
    with cpu_bound(2, text):
        result = parse_stream(text, f"text:{family}", [])
    assert not result.errors
    [call] = result.calls
    # the body is handed over as written; the repair ladder names what it took
    assert (call.name, call.raw_arguments) == ("f", "{a:[}")
    assert call.status != "complete"


def test_functiongemma_stray_closers_and_deep_nesting_are_unreadable_not_fatal() -> None:
    with cpu_bound(2, "read_arguments"):
        assert read_arguments("{a:[1 ] ]}") == ("{a:[1 ] ]}", ())
        assert read_arguments("{a:{b:[}]}") == ("{a:{b:[}]}", ())
        deep = "{a:" + "[" * 5000 + "]" * 5000 + "}"
        assert read_arguments(deep) == (deep, ())
    assert read_arguments("{a:[1, <escape>x<escape>], b:{c:true}}") == (
        {"a": [1, "x"], "b": {"c": True}},
        (),
    )


# -- linear time: the text after a call is never looked at per call -----------------

_TOOLS = [ToolSpec.from_dict(t) for t in TOOLS]
_CALLS = 200


def _seconds(family: str, text: str) -> float:
    best = float("inf")
    for _ in range(3):
        sink = CallAssembler(_TOOLS)
        extractor = make_extractor(family, sink, _TOOLS)
        start = time.process_time()
        extractor.feed(text)
        extractor.close()
        sink.end()
        best = min(best, time.process_time() - start)
    return best


def _calls_text(family: str) -> str:
    """The family's prose-and-call cases, repeated: about ``_CALLS`` calls."""
    inputs = [c.input for c in CASES if c.family == family and c.id.startswith(f"{family}-text")]
    assert inputs, family
    block = "\n".join(inputs) + "\n"
    return block * (_CALLS // len(inputs))


@pytest.mark.parametrize("family", sorted(EXTRACTORS))
def test_calls_cost_the_same_whatever_text_follows_them_in_one_feed_F22(family: str) -> None:
    """200 calls, then 2 MB of prose, in one piece (a non-streaming body): before, each
    call scanned (or copied) the rest of the buffer, 200 x 2 MB."""
    calls = _calls_text(family)
    tail = "\n" + "The rest of the answer is prose without markup. " * 43_000
    alone = _seconds(family, calls) + _seconds(family, tail)
    together = _seconds(family, calls + tail)
    assert together < 3 * alone + 0.02, f"{family}: {together:.3f}s vs {alone:.3f}s apart"


def test_calls_without_their_closing_tag_look_ahead_for_it_once_per_feed_F22() -> None:
    """A Hermes call read whole looks ahead for its ``</tool_call>``; 200 calls that
    never close it, then 2 MB of prose: the prose is searched once, not once per call."""
    call = '<tool_call>\n{"name": "search", "arguments": {"query": "a"}}\n'
    calls = call * _CALLS
    tail = "\n" + "The rest of the answer is prose without markup. " * 43_000
    alone = _seconds("hermes", calls) + _seconds("hermes", tail)
    together = _seconds("hermes", calls + tail)
    assert together < 3 * alone + 0.02, f"{together:.3f}s vs {alone:.3f}s apart"


@pytest.mark.parametrize("tail", ["", "\n<", "\n<|eot_id|>"])
def test_llama_calls_read_in_one_pass_look_for_each_end_tag_once_F22(tail: str) -> None:
    """Llama 3 JSON read whole in one pass (``read_usual_text``): each call looks for the
    first of its end tags; one that never comes (``<|eot_id|>``), or comes only at the
    end, is not searched for to the end of the text once per call (review 20: 16,000
    calls took 4.2 s, 4x for each doubling). A tail the pass declines (``<``) leaves
    the text to ``_whole_text``, once."""
    call = '\n<|python_tag|>{"name": "search", "parameters": {"query": "a"}}<|eom_id|>'
    gc.disable()  # (see the test below)
    try:
        few = _seconds("llama3_json", "Prose." + call * 2000 + tail)
        many = _seconds("llama3_json", "Prose." + call * 8000 + tail)
    finally:
        gc.enable()
    assert many < 8 * few + 0.02, f"{many:.3f}s for 4x the calls of {few:.3f}s"


@pytest.mark.parametrize(
    ("family", "call", "end"),
    [
        (
            "hermes",
            '<tool_call>{"name": "search", "arguments": {"query": "a"}}' + " prose" * 100,
            "</tool_call>",
        ),
        ("llama3_json", '{"name": "search", "parameters": {"query": "a"}}; ', "<|eom_id|>"),
    ],
)
def test_calls_before_one_closing_tag_are_not_copied_out_once_each_F22(
    family: str, call: str, end: str
) -> None:
    """Many calls before a single tag that would close each (tags left open, calls in
    a row): the text up to the tag is tried as one call once, not once per call."""
    start = "<|python_tag|>" if family == "llama3_json" else ""
    gc.disable()  # the collector's passes over the growing events grow faster than linearly
    try:
        few = _seconds(family, start + call * 2000 + end)
        many = _seconds(family, start + call * 8000 + end)
    finally:
        gc.enable()
    assert many < 8 * few + 0.02, f"{family}: {many:.3f}s for 4x the calls of {few:.3f}s"


@pytest.mark.parametrize("family", [*sorted(EXTRACTORS), "auto"])
def test_a_closed_extractor_and_its_sink_are_freed_without_the_cycle_collector(
    family: str,
) -> None:
    """Nothing refers back to an extractor once closed (its grammar's generator did):
    it, its sink and their events go when dropped, not at the collector's next pass
    (which instruction counts taken with the collector off would leave out)."""
    text = _calls_text(family if family != "auto" else "hermes")

    def parse(piece: int) -> None:
        sink = CallAssembler(_TOOLS)
        extractor = make_extractor(family, sink, _TOOLS)
        for i in range(0, len(text), piece):
            extractor.feed(text[i : i + piece])
        extractor.close()
        sink.end()

    for piece in (len(text), 7):
        parse(piece)  # first-use caches
        gc.collect()
        gc.disable()
        try:
            parse(piece)
            assert gc.collect() == 0, f"{family}: cyclic garbage left, fed in {piece}s"
        finally:
            gc.enable()
