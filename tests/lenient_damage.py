"""Damaged JSON for the lenient reader's recorded expectations (tests/test_lenient_recorded.py).

``documents()`` writes, from a fixed seed, JSON-ish documents with the faults models make:
single quotes, trailing commas, comments, Python literals, unescaped newlines, bare keys,
missing commas and quotes, smart quotes, NaN, escapes (valid, invalid, surrogates),
numbers of every shape, strings holding brackets and quotes, and pretty-printed nesting.
The test reads every prefix of every document (truncation at every offset).

``python tests/lenient_damage.py`` rewrites ``tests/corpus/lenient_expected.jsonl`` from the
reader as it is now: do that only when a change of its results is meant (and say so in the
commit), never to make a failing comparison pass.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
EXPECTED = ROOT / "corpus" / "lenient_expected.jsonl"
SEED = 15
COUNT = 300

_WORDS = [
    "a",
    "path",
    "file name",
    "x_1",
    "caf\u00e9",
    "\u4e16\u754c",
    "it's",
    'say "hi"',
    "a\\b",
    "line\nbreak",
    "tab\there",
    "{x",
    "[1, 2",
    "}]",
    "a, b: c",
    "https://x.y/z",
    "\U0001f600",
    "",
    " ",
    "#not",
    "//no",
    "/*c*/",
    "true",
    "12",
]


def _string(rng: random.Random) -> str:
    return "".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 3)))


def _number(rng: random.Random) -> str:
    return rng.choice(
        [
            "0",
            "-0",
            "7",
            "-12",
            "3.25",
            "1e5",
            "-2.5E-3",
            "12345678901234567890123",
            "1e999",
            "1e-999",
            "0.1",
            "1.0",
            "-0.0",
            str(rng.randint(-(10**6), 10**6)),
            repr(rng.random()),
        ]
    )


class _Writer:
    """Writes a random value as JSON, each piece perhaps damaged."""

    def __init__(self, rng: random.Random, damage: float, indent: int | None) -> None:
        self.rng = rng
        self.damage = damage
        self.indent = indent
        self.long_key = rng.random() < 0.05

    def hit(self, scale: float = 1.0) -> bool:
        return self.rng.random() < self.damage * scale

    def nl(self, depth: int) -> str:
        if self.indent is None:
            return ""
        return "\n" + " " * (self.indent * depth)

    def string(self, text: str, key: bool = False) -> str:
        rng = self.rng
        if key and self.hit() and text.isidentifier():
            return text  # a bare key
        if not key and self.hit(0.3) and text.replace(" ", "").isalnum():
            return text  # an unquoted value
        body = json.dumps(text, ensure_ascii=rng.random() < 0.2)[1:-1]
        if self.hit(0.5):
            body = body.replace("\\n", "\n")  # an unescaped newline
        if self.hit(0.3):
            body = body.replace('\\"', '"')  # an inner quote left unescaped
        if self.hit(0.2):
            body += rng.choice(["\\d", "\\'", "\\ud83d", "\\ud83d\\ude00", "\\x41", "\\u12"])
        if self.hit(0.5):
            return "'" + body.replace('\\"', '"').replace("'", "\\'") + "'"
        if self.hit(0.1):
            return "\u201c" + body + "\u201d"
        if self.hit(0.1):
            return '"' + body  # a missing closing quote
        return '"' + body + '"'

    def scalar(self) -> str:
        rng = self.rng
        kind = rng.randint(0, 4)
        if kind == 0:
            return self.string(_string(rng))
        if kind == 1:
            return _number(rng)
        if kind == 2:
            words = ["true", "false", "null"]
            if self.hit():
                words = ["True", "False", "None", "NaN", "Infinity", "undefined", "-Infinity"]
            return rng.choice(words)
        if kind == 3 and self.hit():
            return rng.choice([".5", "2.", "1_000", "+3", "0789", "2e", "-", "0x1F"])
        return self.string(_string(rng))

    def gap(self) -> str:
        if self.hit(0.3):
            return self.rng.choice([" // note\n", " /* c */ ", " # hash\n", "\u00a0"])
        return ""

    def value(self, depth: int) -> str:
        rng = self.rng
        if depth >= 4 or rng.random() < 0.35:
            return self.scalar()
        if rng.random() < 0.5:
            return self.obj(depth)
        return self.arr(depth)

    def sep(self, after: str = " ") -> str:
        if self.hit(0.3):
            return after  # a missing comma
        return "," + after

    def inner(self, pieces: list[str], depth: int) -> str:
        """The members or items of a container, between its brackets."""
        inner = ""
        for i, piece in enumerate(pieces):
            inner += self.nl(depth + 1) + self.gap() + piece
            if i < len(pieces) - 1:
                inner += self.sep("" if self.indent is not None else " ")
        if pieces and self.hit(0.5):
            inner += ","  # a trailing comma
        return inner

    def obj(self, depth: int) -> str:
        rng = self.rng
        members = []
        for _ in range(rng.randint(0, 4)):
            key = "k" * 210 if self.long_key and rng.random() < 0.3 else _string(rng) or "k"
            colon = "" if self.hit(0.2) else ":"
            members.append(self.string(key, key=True) + colon + " " + self.value(depth + 1))
        return "{" + self.inner(members, depth) + self.nl(depth) + "}"

    def arr(self, depth: int) -> str:
        rng = self.rng
        items = [self.value(depth + 1) for _ in range(rng.randint(0, 4))]
        inner = self.inner(items, depth)
        if self.hit(0.1):
            return "(" + inner + ")"  # a tuple
        return "[" + inner + self.nl(depth) + "]"


def documents() -> list[str]:
    rng = random.Random(SEED)
    docs = []
    for n in range(COUNT):
        damage = 0.0 if n % 3 == 0 else rng.choice([0.05, 0.15, 0.4])
        indent = rng.choice([None, None, 2, 8, 40])
        writer = _Writer(rng, damage, indent)
        doc = writer.obj(0) if rng.random() < 0.7 else writer.arr(0)
        if rng.random() < 0.1:
            doc = rng.choice(["Here: ", "```json\n", " "]) + doc
        docs.append(doc[: 420 if writer.long_key else 200])
    return docs


def outcome_digest(outcome: Any) -> str:
    """A short digest of a reading's every part (``repr`` keeps key order, float bits,
    ``True`` apart from ``1``, NaN)."""
    text = repr((repr(outcome.value), outcome.ok, tuple(outcome.repairs), outcome.truncated))
    text += repr(getattr(outcome, "error", None))
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=3).digest()
    return base64.b64encode(digest).decode()


def readings(doc: str) -> dict[str, str]:
    """Digests of each reader on every prefix of ``doc``: lenient, lenient in prefix
    mode, the whole ladder, and the partial value."""
    sys.path.insert(0, str(ROOT.parent / "src"))
    from toolwire.repair import partial_value, repair_json
    from toolwire.repair.lenient import LenientOutcome, parse_lenient

    out: dict[str, list[str]] = {"lenient": [], "prefix": [], "ladder": [], "partial": []}
    for cut in range(len(doc) + 1):
        text = doc[:cut]
        out["lenient"].append(outcome_digest(parse_lenient(text)))
        out["prefix"].append(outcome_digest(parse_lenient(text, prefix=True)))
        out["ladder"].append(outcome_digest(repair_json(text)))
        value = partial_value(text)
        out["partial"].append(outcome_digest(LenientOutcome(value, True, (), False)))
    return {k: "".join(v) for k, v in out.items()}


def main() -> None:
    with EXPECTED.open("w", encoding="utf-8") as fh:
        for doc in documents():
            fh.write(json.dumps({"doc": doc, **readings(doc)}) + "\n")


if __name__ == "__main__":
    main()
