"""Tool-name normalization (F18, F21).

Order: exact match → strip provider decorations → case/separator-insensitive unique
match. A normalized name is used only when it is a declared tool; anything else stays
as sent and the caller reports the closest declared names.

Only documented decorations are removed (F18): a namespace prefix (``functions.``,
``functions:``, ``tools.``, ``default_api.``), an index suffix (``:0``), and Kimi K2's
glued forms (``FUNCTIONSlist_directory``, ``call_functionsread_file9``, whose trailing
digits are its call counter). A bare digit run (``sha256``) or a word out of a phrase is
part of the name, not a decoration. A name with compatibility characters (one NFKC
normalization changes, such as U+212A KELVIN SIGN for ``K``) matches only exactly.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass

from toolwire.identifiers import folded

_NAMESPACE = re.compile(r"^(?:functions?|tools?|default_api)[.:]", re.IGNORECASE)
_INDEX = re.compile(r":\d+$")
# Kimi K2: FUNCTIONSlist_directory, call_functionsread_file9 (any case; not "functions_x").
_KIMI_GLUED = re.compile(r"^(?:call_)?functions(?=[A-Za-z])", re.IGNORECASE)
_COUNTER = re.compile(r"\d+$")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """``name`` is the declared tool the name resolves to (None when none does)."""

    name: str | None
    repair: str | None = None
    suggestions: tuple[str, ...] = ()


def _undecorated(name: str) -> list[str]:
    """Candidate names with documented decorations removed, most specific first."""
    stripped = name.strip().strip("<|>").strip()
    out = [stripped]
    base = _INDEX.sub("", stripped, count=1)
    out.append(base)
    namespaced = _NAMESPACE.sub("", base, count=1)
    out.append(namespaced)
    if _KIMI_GLUED.match(base):
        glued = _KIMI_GLUED.sub("", base, count=1)
        counter = _COUNTER.search(glued)
        # The counter is glued to the name, which may end in digits itself: the
        # longest name first (read_file9 → read_file; sha2561 → sha256 before sha).
        start = counter.start() if counter else len(glued)
        out += [glued[:end] for end in range(len(glued), start - 1, -1)]
    seen: list[str] = []
    for item in out:
        if item and item not in seen:
            seen.append(item)
    return seen


def _has_compatibility_characters(name: str) -> bool:
    return not name.isascii() and not unicodedata.is_normalized("NFKC", name)


def suggest_names(name: str, declared: Collection[str], limit: int = 3) -> tuple[str, ...]:
    """The declared names closest to ``name`` (may be empty)."""
    by_fold = {folded(d): d for d in declared}
    close = difflib.get_close_matches(folded(name), list(by_fold), n=limit, cutoff=0.5)
    return tuple(by_fold[c] for c in close)


def resolve_tool_name(name: str, declared: Collection[str]) -> NameMatch:
    """Map a name as sent to a declared tool, only when the match is certain."""
    if name in declared:
        return NameMatch(name)
    if _has_compatibility_characters(name):
        return NameMatch(None, suggestions=suggest_names(name, declared))
    candidates = _undecorated(name)
    for candidate in candidates:
        if candidate in declared:
            return NameMatch(candidate, repair=f"name:{name}->{candidate}")
    folded_names: dict[str, list[str]] = {}
    for d in declared:
        folded_names.setdefault(folded(d), []).append(d)
    for candidate in candidates:
        hits = folded_names.get(folded(candidate), [])
        if len(hits) == 1:
            return NameMatch(hits[0], repair=f"name:{name}->{hits[0]}")
    return NameMatch(None, suggestions=suggest_names(name, declared))


def unknown_tool_message(name: str, match: NameMatch, declared: Collection[str]) -> str:
    """An error a model can act on: what it called, and what it could call instead."""
    if match.suggestions:
        listed = ", ".join(match.suggestions)
        return f"unknown tool {name!r}; did you mean: {listed}?"
    names = sorted(declared)
    shown = ", ".join(names[:10]) + (", …" if len(names) > 10 else "")
    return f"unknown tool {name!r}; available tools: {shown or '(none declared)'}"


def ambiguous_tool_message(name: str, candidates: Collection[str]) -> str:
    """A name several servers declare, so that no tool keeps it: which ones to call."""
    listed = " or ".join(repr(c) for c in candidates)
    return f"Tool {name!r} is ambiguous: more than one server offers it; call {listed}."
