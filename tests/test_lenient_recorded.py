"""The lenient reader, its prefix mode, the repair ladder and the partial value give on
every prefix of 300 damaged documents what they gave before the reader was made fast
(digests recorded in tests/corpus/lenient_expected.jsonl; see tests/lenient_damage.py)."""

from __future__ import annotations

import json

import pytest
from lenient_damage import EXPECTED, documents, readings

RECORDED = [json.loads(line) for line in EXPECTED.read_text(encoding="utf-8").splitlines()]


def test_recorded_documents_are_the_generated_ones() -> None:
    # the generator and the data file agree (a changed generator needs new data)
    assert [r["doc"] for r in RECORDED] == documents()


@pytest.mark.parametrize("chunk", range(10))
def test_every_prefix_reads_as_recorded(chunk: int) -> None:
    for record in RECORDED[chunk::10]:
        doc = record["doc"]
        now = readings(doc)
        for reader, digests in now.items():
            if digests != record[reader]:
                size = len(digests) // (len(doc) + 1)
                cut = next(
                    k
                    for k in range(len(doc) + 1)
                    if digests[k * size : (k + 1) * size]
                    != record[reader][k * size : (k + 1) * size]
                )
                pytest.fail(f"{reader} differs on {doc[:cut]!r}")
