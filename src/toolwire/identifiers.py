"""Identifiers as words: ``readFile``, ``read_file``, ``READ-FILE`` and ``read.file`` are
all ``["read", "file"]``. Tool names, argument keys and header names are compared this way."""

from __future__ import annotations

import re

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[\s_\-.:/]+")


def snake_words(name: str) -> str:
    """Lowercase words joined by ``_``: ``X-Api-Key`` → ``x_api_key``, ``apiKey`` → ``api_key``."""
    return _SEPARATORS.sub("_", _CAMEL.sub("_", name)).strip("_").lower()


def identifier_words(name: str) -> list[str]:
    """The lowercase words of an identifier (empty words dropped)."""
    return [w for w in snake_words(name).split("_") if w]


def folded(name: str) -> str:
    """Case- and separator-insensitive key: readFile, read-file, READ_FILE → readfile."""
    return _SEPARATORS.sub("", _CAMEL.sub("_", name)).lower()
