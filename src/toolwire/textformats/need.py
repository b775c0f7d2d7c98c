"""The vocabulary of grammar requests, shared by the scanner and the readers it runs."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, Final


class _Need:
    def __repr__(self) -> str:
        return "NEED"


NEED: Final = _Need()  # a request cannot be answered until more text arrives
WS_LIMIT: Final = 256  # whitespace allowed between a marker and what must follow it
SPACE: Final = frozenset(" \t\r\n")  # JSON's whitespace

Emit = Callable[[str], None]
Request = tuple[Any, ...]
# A family's grammar: yields requests, receives their answers, returns a result.
Grammar = Generator[Request, Any, Any]
# a call read whole at once (text fed whole): its name, its arguments' text and
# ``orjson.loads`` of it
WholeCall = tuple[str, str, Any]
