"""The repair corpus (two public JSON-repair suites) as a gate: per-file and union pass rates.

Run with ``pytest -s tests/test_repair_corpus.py`` to see the measured rates. Cases in
``repair_skips.SKIPS`` are principled disagreements and leave the denominator; every
other case counts. Cases with a ``schema`` option go through repair -> coerce and are
judged by value; expected failures pass when the pipeline (repair -> coerce ->
jsonschema validation) reports a problem.
"""

from __future__ import annotations

import collections
from functools import cache

import pytest
from corpus_cases import Case, load_cases, run_case
from repair_skips import SKIPS

CASES = load_cases()
MIN_FILE_RATE = 0.90
MIN_UNION_RATE = 0.95


@cache
def results() -> dict[str, tuple[bool, str]]:
    return {case.key: run_case(case) for case in CASES}


def test_case_keys_are_unique_and_skips_exist() -> None:
    keys = [case.key for case in CASES]
    assert len(keys) == len(set(keys))
    stale = sorted(set(SKIPS) - set(keys))
    assert not stale, f"skip entries for cases not in the corpus: {stale}"


def test_skipped_cases_still_disagree() -> None:
    # A skipped case that now passes should leave the skip list.
    now_passing = [key for key in SKIPS if results()[key][0]]
    assert not now_passing, f"remove these from repair_skips.SKIPS: {now_passing}"


@pytest.mark.parametrize("case", CASES, ids=[case.key for case in CASES])
def test_corpus_case(case: Case) -> None:
    if case.key in SKIPS:
        pytest.skip(SKIPS[case.key])
    passed, got = results()[case.key]
    if not passed:
        pytest.xfail(f"counted against the pass rate; toolwire gives: {got}")


def test_pass_rates() -> None:
    counts: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    failing: dict[str, list[str]] = collections.defaultdict(list)
    for case in CASES:
        bucket = counts[case.file]
        bucket["total"] += 1
        if case.key in SKIPS:
            bucket["skipped"] += 1
            continue
        if results()[case.key][0]:
            bucket["passed"] += 1
        else:
            failing[case.file].append(f"#{case.index} {case.key}")
    union = sum(counts.values(), collections.Counter())
    lines = []
    rates = {}
    for name, bucket in [*counts.items(), ("union", union)]:
        judged = bucket["total"] - bucket["skipped"]
        rates[name] = bucket["passed"] / judged
        lines.append(
            f"{name:12} {bucket['passed']:4}/{judged:<4} = {rates[name]:6.1%}"
            f"  (total {bucket['total']}, skipped {bucket['skipped']})"
        )
    by_reason = collections.Counter(reason.split("]")[0].lstrip("[") for reason in SKIPS.values())
    lines.append("skips by reason: " + ", ".join(f"{k} {v}" for k, v in by_reason.most_common()))
    report = "\n".join(lines)
    print("\nrepair corpus pass rates\n" + report)
    for name, _bucket in counts.items():
        assert rates[name] >= MIN_FILE_RATE, f"{report}\nfailing in {name}: {failing[name]}"
    assert rates["union"] >= MIN_UNION_RATE, f"{report}\nfailing: {dict(failing)}"
