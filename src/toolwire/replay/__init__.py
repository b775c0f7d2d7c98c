"""A replay model server on loopback: recorded streams in the shapes real servers
send, with fault modes (``toolwire demo`` and the tests use it; no network)."""

from toolwire.replay.server import Answer, Dialogue, Received, ReplayServer, Script, tool_results
from toolwire.replay.streams import (
    DONE,
    call_stream,
    chat_chunk,
    sse_messages,
    text_stream,
    usage_chunk,
)
from toolwire.replay.wires import (
    WireCall,
    anthropic_answer,
    chat_answer,
    gemini_answer,
    gemini_compat_answer,
    ollama_answer,
    responses_answer,
)

__all__ = [
    "DONE",
    "Answer",
    "Dialogue",
    "Received",
    "ReplayServer",
    "Script",
    "WireCall",
    "anthropic_answer",
    "call_stream",
    "chat_answer",
    "chat_chunk",
    "gemini_answer",
    "gemini_compat_answer",
    "ollama_answer",
    "responses_answer",
    "sse_messages",
    "text_stream",
    "tool_results",
    "usage_chunk",
]
