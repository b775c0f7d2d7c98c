"""Wire-format decoders: each turns one provider's stream into assembler calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import SSEWireDecoder, WireDecoder
from toolwire.providers.detect import RECOGNISERS, FormatDetector
from toolwire.providers.gemini import GeminiDecoder
from toolwire.providers.ollama import OllamaDecoder
from toolwire.providers.openai_chat import OpenAIChatDecoder
from toolwire.providers.openai_responses import OpenAIResponsesDecoder
from toolwire.providers.plain_text import PlainTextDecoder
from toolwire.providers.tooldefs import RequestTranslationError

DECODERS: dict[str, type[WireDecoder]] = {
    "openai-chat": OpenAIChatDecoder,
    "anthropic": AnthropicDecoder,
}


def detect_format(head: str | bytes) -> str | None:
    """The wire format the start of an input has the structure of (its first message:
    see ``providers.detect``); None for model text, or input that is no text or empty."""
    detector = FormatDetector()
    data = head.encode("utf-8", "surrogatepass") if isinstance(head, str) else head
    verdict = detector.feed(data) or detector.close()
    return verdict if verdict in DECODERS else None


def register_decoder(
    name: str,
    cls: type[WireDecoder],
    recognise: Callable[[dict[str, Any]], bool] | None = None,
) -> None:
    """Add a wire format; ``recognise`` tells whether a first message (or a body),
    as a JSON object none of the built-in formats claims, is this format's (``auto``).
    It may see any JSON object a model or proxy writes: one it raises on is not its
    format."""
    if recognise is not None and not callable(recognise):
        # (the parameter once took substrings to look for: say so here, not mid-parse)
        raise TypeError(
            f"register_decoder({name!r}): recognise must be a callable that takes the "
            f"first message as a dict, not {type(recognise).__name__}"
        )
    DECODERS[name] = cls
    if recognise is not None:
        RECOGNISERS[name] = recognise


# (``auto`` recognises these by the shape of their messages: ``detect.message_wire``)
register_decoder("openai-responses", OpenAIResponsesDecoder)
register_decoder("gemini", GeminiDecoder)
register_decoder("ollama", OllamaDecoder)

__all__ = [
    "DECODERS",
    "AnthropicDecoder",
    "GeminiDecoder",
    "OllamaDecoder",
    "OpenAIChatDecoder",
    "OpenAIResponsesDecoder",
    "PlainTextDecoder",
    "RequestTranslationError",
    "SSEWireDecoder",
    "WireDecoder",
    "detect_format",
    "register_decoder",
]
