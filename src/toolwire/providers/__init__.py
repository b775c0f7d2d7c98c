"""Wire-format decoders: each turns one provider's stream into assembler calls."""

from __future__ import annotations

from toolwire.providers.anthropic import AnthropicDecoder
from toolwire.providers.base import SSEWireDecoder, WireDecoder
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


def detect_format(first_message: str) -> str | None:
    """Guess the wire format from the first JSON message of a stream."""
    head = first_message[:4000]
    if '"choices"' in head or "chat.completion" in head:
        return "openai-chat"
    if '"message_start"' in head or '"content_block_' in head or '"type": "ping"' in head:
        return "anthropic"
    for fmt, markers in _EXTRA_MARKERS.items():
        if fmt in DECODERS and any(m in head for m in markers):
            return fmt
    return None


# Formats registered by other modules declare how to recognise their first message.
_EXTRA_MARKERS: dict[str, tuple[str, ...]] = {}


def register_decoder(name: str, cls: type[WireDecoder], markers: tuple[str, ...] = ()) -> None:
    DECODERS[name] = cls
    if markers:
        _EXTRA_MARKERS[name] = markers


register_decoder(
    "openai-responses",
    OpenAIResponsesDecoder,
    ('"response.created"', '"response.in_progress"', '"response.output_', '"response.queued"'),
)
register_decoder("gemini", GeminiDecoder, ('"candidates"', '"usageMetadata"', '"promptFeedback"'))
register_decoder(
    "ollama", OllamaDecoder, ('"done":false', '"done": false', '"done":true', '"done": true')
)

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
