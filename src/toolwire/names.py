"""Tool-name normalization (F18, F21).

Order: exact match → strip provider decorations → case/separator-insensitive unique
match. A normalized name is used only when it is a declared tool; anything else stays
as sent and the caller reports the closest declared names.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass

# Decorations providers and models put around a function name. Each is tried alone and
# then combined; the result counts only if it is a declared tool.
_PREFIXES = re.compile(
    r"^(?:functions?[._:]|tools?[._:]|default_api[._:]|call_functions?[._]?|"
    r"call_|functions(?=[A-Za-z_]))",
    re.IGNORECASE,  # FUNCTIONSlist_directory (Kimi K2)
)
_SUFFIXES = re.compile(r"(?::\d+|_\d+|\d+)$")
_SEPARATORS = re.compile(r"[\s_\-.:/]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True, slots=True)
class NameMatch:
    """``name`` is the declared tool the name resolves to (None when none does)."""

    name: str | None
    repair: str | None = None
    suggestions: tuple[str, ...] = ()


def _fold(name: str) -> str:
    """Case- and separator-insensitive key: readFile, read-file, READ_FILE → readfile."""
    return _SEPARATORS.sub("", _CAMEL.sub("_", name)).lower()


def _undecorated(name: str) -> list[str]:
    """Candidate names with known decorations removed, most specific first."""
    stripped = name.strip().strip("<|>").strip()
    out: list[str] = []
    for candidate in (stripped, stripped.split()[-1] if stripped.split() else stripped):
        no_prefix = _PREFIXES.sub("", candidate, count=1)
        for base in (candidate, no_prefix):
            no_suffix = _SUFFIXES.sub("", base, count=1)
            for item in (base, no_suffix):
                if item and item not in out:
                    out.append(item)
    return out


def suggest_names(name: str, declared: Collection[str], limit: int = 3) -> tuple[str, ...]:
    """The declared names closest to ``name`` (may be empty)."""
    by_fold = {_fold(d): d for d in declared}
    close = difflib.get_close_matches(_fold(name), list(by_fold), n=limit, cutoff=0.5)
    return tuple(by_fold[c] for c in close)


def resolve_tool_name(name: str, declared: Collection[str]) -> NameMatch:
    """Map a name as sent to a declared tool, only when the match is certain."""
    if name in declared:
        return NameMatch(name)
    candidates = _undecorated(name)
    for candidate in candidates:
        if candidate in declared:
            return NameMatch(candidate, repair=f"name:{name}->{candidate}")
    folded: dict[str, list[str]] = {}
    for d in declared:
        folded.setdefault(_fold(d), []).append(d)
    for candidate in candidates:
        hits = folded.get(_fold(candidate), [])
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
