"""A replay model server on loopback: recorded streams in the shapes real servers
send, with fault modes (``toolwire demo`` and the tests use it; no network)."""

from toolwire.replay.server import Answer, Dialogue, Received, ReplayServer, Script
from toolwire.replay.streams import (
    DONE,
    call_stream,
    chat_chunk,
    sse_messages,
    text_stream,
    usage_chunk,
)

__all__ = [
    "DONE",
    "Answer",
    "Dialogue",
    "Received",
    "ReplayServer",
    "Script",
    "call_stream",
    "chat_chunk",
    "sse_messages",
    "text_stream",
    "usage_chunk",
]
