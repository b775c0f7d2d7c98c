"""Structure-aware fuzzing of the text-format extractors.

Each input is a valid family text (a test case's input) with a few mutations: a
marker of the family inserted, deleted or duplicated, a special token split, the
text cut short, random characters, and sentinel words dropped anywhere. Each input
is parsed whole and in random chunkings, under a CPU-time bound, and checked:
no exception, no hang, the same result for every chunking (F15), and, when no call
is reported, every sentinel that is still whole in the input is somewhere in the
output (text, reasoning, errors): text that is not a call is never lost.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tf_bound import cpu_bound
from tf_harness import TOOLS, parse_chunks, random_chunks, summary

from toolwire.events import StreamResult

# special tokens and tags as the families write them; JSON and Python punctuation
_TOKEN = re.compile(
    r"<[|｜][^<>\s]{1,40}?[|｜]>|</?[A-Za-z_｜:]+[A-Za-z_0-9｜:]*(?:=|>)?|\[[A-Z_]{2,20}\]"
    r"|```json|```|functools\[|call:|to=functions\.|<escape>"
)
_PUNCTUATION = ("{", "}", "[", "]", "(", ")", '"', "'", ":", ",", ";", "=", "\n", "\\", " ")
_RANDOM = "\x00\x1b\t\r\n \\\"'{}[]<>|=:,;/é中🙂\u2028\ufeff｜▁"
SENTINEL = re.compile(r"Zq\d+x")


def vocabulary(seeds: list[str]) -> list[str]:
    """The markers that occur in a family's valid texts, plus punctuation."""
    found = {m.group() for s in seeds for m in _TOKEN.finditer(s)}
    return sorted(found) + list(_PUNCTUATION)


@dataclass
class Mutator:
    seeds: list[str]
    rng: random.Random

    def __post_init__(self) -> None:
        self.vocab = vocabulary(self.seeds)
        self.serial = 0

    def _sentinel(self) -> str:
        self.serial += 1
        return f"Zq{self.serial}x"

    def _at(self, text: str) -> int:
        return self.rng.randint(0, len(text))

    def _occurrence(self, text: str) -> tuple[int, int] | None:
        present = [t for t in self.vocab if t in text]
        if not present:
            return None
        token = self.rng.choice(present)
        starts = [m.start() for m in re.finditer(re.escape(token), text)]
        start = self.rng.choice(starts)
        return start, start + len(token)

    def mutate(self, text: str) -> str:
        rng = self.rng
        kind = rng.randrange(8)
        if kind == 0:  # insert a marker
            i = self._at(text)
            return text[:i] + rng.choice(self.vocab) + text[i:]
        if kind in (1, 2, 3):  # delete, duplicate or split a marker
            span = self._occurrence(text)
            if span is None:
                return text
            a, b = span
            if kind == 1:
                return text[:a] + text[b:]
            if kind == 2:
                return text[:b] + text[a:b] + text[b:]
            cut = rng.randint(a + 1, b - 1) if b - a > 1 else a
            return text[:cut] + rng.choice((" ", "\n", self._sentinel(), "")) + text[cut:]
        if kind == 4:  # cut short
            return text[: self._at(text)]
        if kind == 5:  # random characters
            i = self._at(text)
            junk = "".join(rng.choice(_RANDOM) for _ in range(rng.randint(1, 4)))
            return text[:i] + junk + text[i:]
        if kind == 6:  # duplicate a slice
            a = self._at(text)
            b = min(len(text), a + rng.randint(1, 40))
            return text[:b] + text[a:b] + text[b:]
        i = self._at(text)  # a sentinel word anywhere
        return text[:i] + self._sentinel() + text[i:]

    def inputs(self) -> Iterator[str]:
        while True:
            text = self.rng.choice(self.seeds)
            if self.rng.random() < 0.5:  # two seeds back to back
                text += self.rng.choice(("", "\n", " ")) + self.rng.choice(self.seeds)
            for _ in range(self.rng.randint(1, 4)):
                text = self.mutate(text)
            if not SENTINEL.search(text):
                i = self._at(text)
                text = text[:i] + self._sentinel() + text[i:]
            yield text


def output_blob(result: StreamResult) -> str:
    """Everything the parse handed on, as one searchable string."""
    parts = [result.text, result.reasoning]
    for call in result.calls:
        parts += [call.name, call.name_as_sent or "", call.id or "", call.raw_arguments]
        parts.append(json.dumps([call.arguments, call.partial_arguments], ensure_ascii=False))
    parts += [e.raw for e in result.errors]
    return "\n".join(parts)


def check_input(
    family: str,
    text: str,
    rng: random.Random,
    chunkings: int = 2,
    *,
    account: bool = True,
    strict: bool = False,
) -> None:
    """One fuzz input: bounded, no error, chunking-invariant, nothing lost (with
    ``strict``, in call markup too, see ``lost_sentinels``)."""
    data = text.encode()
    tools: list[dict[str, Any]] = TOOLS
    label = f"{family} {text!r}"
    with cpu_bound(1.0, label):
        whole = parse_chunks(family, [data], tools)
        expected = summary(whole)
        for _ in range(chunkings):
            chunks = random_chunks(data, rng)
            got = summary(parse_chunks(family, chunks, tools))
            assert got == expected, f"{label}: chunking {chunks!r} differs"
    assert not whole.errors, f"{label}: {whole.errors}"
    if account:
        lost = lost_sentinels(text, whole, strict=strict)
        assert not lost, f"{label}: text lost; output {summary(whole)}"


def lost_sentinels(text: str, result: StreamResult, *, strict: bool = False) -> list[str]:
    """Sentinels whole in ``text`` that the output does not hold. Unless ``strict``,
    only when no call was reported: text with no call in it passes through whole.
    ``strict``: inside call markup too (the families in test_fuzz's ``STRICT``)."""
    if not strict and result.calls:
        return []
    blob = output_blob(result)
    return [s for s in SENTINEL.findall(text) if s not in blob]


def fuzz(
    family: str,
    seeds: list[str],
    *,
    seconds: float,
    max_inputs: int,
    check: Callable[[str, str, random.Random], None] = check_input,
) -> int:
    """Check mutated inputs until the budget is spent; answers how many ran."""
    rng = random.Random(f"fuzz-{family}")
    mutator = Mutator(seeds, rng)
    deadline = time.monotonic() + seconds
    count = 0
    for text in mutator.inputs():
        if count >= max_inputs or time.monotonic() > deadline:
            break
        check(family, text, rng)
        count += 1
    return count
