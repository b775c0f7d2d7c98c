"""Finding the JSON inside a text: code fences, prose around it, escaped JSON.

These steps only cut text; they never change what is inside a value.
"""

from __future__ import annotations

import re
from typing import Final, NamedTuple

from .lenient import unescape_json_text
from .strict import strict_json

__all__ = ["Extracted", "extract_candidates"]

# ```json ... ``` (or ~~~); the closing fence may be missing (a cut-off answer).
_FENCE: Final = re.compile(r"(`{3,}|~{3,})[A-Za-z0-9_+.\-]*[ \t]*\r?\n?(.*?)(?:\1|\Z)", re.DOTALL)
# [```json {...} ```]: a fence wrapped in brackets by mistake.
_BRACKETED_FENCE: Final = re.compile(
    r"\A\s*[\[{]\s*(`{3,})[A-Za-z0-9_+.\-]*\s*(.*?)\1\s*[\]}]\s*\Z", re.DOTALL
)
_VALUE_START: Final = frozenset("{[\"'\u201c\u2018`\u00b4(-.0123456789/")
_ESCAPED_START: Final = re.compile(r'\A\s*[\[{]?\s*\\"')


class Extracted(NamedTuple):
    """A text to read instead of the whole, and what cutting it out changed. (A
    NamedTuple: a frozen dataclass cost ~4,000 instructions to build, on every text
    the ladder reads past strict JSON; bench_lenient.)"""

    text: str
    repairs: tuple[str, ...]


def extract_candidates(text: str) -> tuple[list[Extracted], list[Extracted]]:
    """Texts to read instead of ``text``: ``(before, after)`` -- tried before reading
    ``text`` itself, and after it failed. ``before`` is ``[Extracted("", ...)]`` when
    the text holds several fenced values."""
    before: list[Extracted] = []
    after: list[Extracted] = []
    stripped = text.strip()
    if not stripped:
        return before, after
    if stripped[0] in "{[\"'" and "`" not in text and "~" not in text and '\\"' not in text:
        # What every rule below looks for -- a fence, an escaped quote, text before the
        # value -- is not there: the usual case, told at C speed (~8,000 instructions
        # less than asking each rule; bench_lenient).
        return before, after
    m = _BRACKETED_FENCE.match(text)
    if m:
        before.append(Extracted(m.group(2), ("code_fence",)))
    fence_at = stripped.find("```")
    if fence_at < 0:
        fence_at = stripped.find("~~~")
    if fence_at >= 0 and not _opens_before(stripped, fence_at):
        blocks = [b for b in _FENCE.finditer(stripped) if b.group(2).strip()]
        json_blocks = [b for b in blocks if _holds_a_value(b.group(2))]
        if len(json_blocks) == 1:
            block = json_blocks[0]
            # text beside the block (prose, another fence) is dropped: named
            beside = stripped[: block.start()].strip() or stripped[block.end() :].strip()
            repairs = ("surrounding_text", "code_fence") if beside else ("code_fence",)
            before.append(Extracted(block.group(2), repairs))
        elif len(json_blocks) > 1:
            # Several fenced values: which one is meant is not ours to guess.
            return [Extracted("", ("code_fence",))], after
    if stripped.endswith("```") and stripped.count("```") % 2 == 1 and fence_at > 0:
        # {"a": 1}``` : a stray closing fence after the value.
        before.append(Extracted(stripped[:-3].rstrip("`"), ("code_fence",)))
    if _ESCAPED_START.match(text):
        before.append(Extracted(unescape_json_text(stripped), ("escaped_json",)))
    if stripped[0] in "{[\"'":
        # A later bracket is never read from when the text opens a value itself: it
        # would hide the value's truncation (F1).
        return before, after
    # Prose before the value: read from the first bracket.
    brace = stripped.find("{")
    bracket = stripped.find("[")
    starts = sorted(p for p in (brace, bracket) if p > 0)
    prose = [Extracted(stripped[p:], ("surrounding_text",)) for p in starts]
    if stripped[0] not in _VALUE_START:
        before.extend(prose)
    else:
        # ` - {"a": 1}`: a stray character before the value.
        after.extend(prose)
    return before, after


def _holds_a_value(block: str) -> bool:
    """Does a fenced block hold a JSON value: one that opens a container or a string
    (read, perhaps repaired, later), or a whole scalar (``null``, ``42``)? Other blocks
    (a shell command) are not the value."""
    body = block.strip()
    return body[:1] in "{[(\"'" or strict_json(body)[0]


def _opens_before(text: str, pos: int) -> bool:
    """Does a JSON value start before ``pos`` (so the fence is inside it)?"""
    head = text[:pos]
    return any(ch in head for ch in '{["')
