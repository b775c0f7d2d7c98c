"""Every case of the shared stream corpus, as given and in random re-chunkings (F15, F27)."""

from __future__ import annotations

from typing import Any

import pytest
from corpus import mismatches, stream_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.events import StreamResult
from toolwire.parser import StreamParser, parse_stream

CASES = stream_cases()
IDS = [c["id"] for c in CASES]


def parse_in_pieces(case: dict[str, Any], cuts: list[int]) -> StreamResult:
    data = case["input"].encode("utf-8")
    parser = StreamParser(case["format"], case["tools"])
    events = []
    start = 0
    for cut in [*sorted(set(cuts)), len(data)]:
        events.extend(parser.feed(data[start:cut]))
        start = cut
    events.extend(parser.close())
    return StreamResult.collect(events)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_corpus_case_as_given(case: dict[str, Any]) -> None:
    result = parse_stream(case["input"], case["format"], case["tools"])
    assert not mismatches(result, case["expect"]), mismatches(result, case["expect"])


@pytest.mark.parametrize("case", CASES, ids=IDS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_corpus_case_any_chunking(case: dict[str, Any], data: st.DataObject) -> None:
    size = len(case["input"].encode("utf-8"))
    cuts = data.draw(st.lists(st.integers(0, size), max_size=max(1, size // 4)))
    expected = parse_stream(case["input"], case["format"], case["tools"])
    got = parse_in_pieces(case, cuts)
    assert got.calls == expected.calls
    assert got.text == expected.text
    assert got.finish_reason == expected.finish_reason
    assert not mismatches(got, case["expect"])


def test_corpus_byte_by_byte() -> None:
    """One byte per read: the most extreme chunking, on every case."""
    for case in CASES:
        size = len(case["input"].encode("utf-8"))
        got = parse_in_pieces(case, list(range(size)))
        assert not mismatches(got, case["expect"]), case["id"]
