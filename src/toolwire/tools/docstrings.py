"""Read a function's summary and per-parameter descriptions from its docstring.

Understands the three common styles: Google (``Args:`` sections), Sphinx (``:param x:``)
and NumPy (``Parameters`` underlined with dashes). Anything else is summary text.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

_GOOGLE_SECTION = re.compile(r"^\s*(Args|Arguments|Parameters|Params)\s*:\s*$")
_GOOGLE_OTHER = re.compile(
    r"^\s*(Returns?|Yields?|Raises?|Examples?|Notes?|Attributes|See Also|Warnings?)\s*:\s*$"
)
_GOOGLE_ITEM = re.compile(r"^(\s*)\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_PARAM = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_OTHER = re.compile(r"^\s*:(returns?|rtype|raises?|type)\b")
_NUMPY_UNDERLINE = re.compile(r"^\s*-{3,}\s*$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::.*)?$")


@dataclass(frozen=True, slots=True)
class Docstring:
    summary: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> Docstring:
    if not doc:
        return Docstring()
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    params: dict[str, str] = {}
    i = 0
    section: str | None = None  # "google", "numpy", "other"
    current: str | None = None
    indent = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if _GOOGLE_SECTION.match(line):
            section, current = "google", None
        elif _GOOGLE_OTHER.match(line):
            section, current = "other", None
        elif _NUMPY_UNDERLINE.match(nxt) and line.strip():
            section = "numpy" if line.strip() in ("Parameters", "Arguments") else "other"
            current = None
            i += 1
        elif m := _SPHINX_PARAM.match(line):
            section, current = "sphinx", m.group(1)
            params[current] = m.group(2).strip()
        elif _SPHINX_OTHER.match(line):
            section, current = "other", None
        elif (
            section == "google"
            and (m := _GOOGLE_ITEM.match(line))
            and (current is None or len(m.group(1)) <= indent)
        ):
            current, indent = m.group(2), len(m.group(1))
            params[current] = m.group(3).strip()
        elif section == "numpy" and not line.startswith((" ", "\t")) and line.strip():
            m = _NUMPY_ITEM.match(line.strip())
            current = m.group(1) if m else None
            if current:
                params[current] = ""
        elif section in ("google", "numpy", "sphinx") and current and line.strip():
            params[current] = (params[current] + " " + line.strip()).strip()
        elif section is None:
            summary.append(line)
        i += 1
    return Docstring(summary="\n".join(summary).strip(), params=params)
