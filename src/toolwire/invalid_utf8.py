"""Bytes that are not UTF-8, replaced so that the replacement can be traced (F29).

Decoding with U+FFFD in place of bad bytes is a repair, and only the call whose
argument text got one may be called repaired: a U+FFFD the model really sent is no
repair. So the bad bytes of a message are first replaced by a marker, a character
that message does not hold (raw or as a JSON escape); whoever reads the message's
strings turns the marker into U+FFFD and knows which strings it was in.

Only messages that fail strict decoding take this path; a multi-byte character split
across reads never gets here, since messages are decoded whole (F27).
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"
_REPLACEMENT_BYTES = REPLACEMENT.encode()
# noncharacters: Unicode keeps them out of interchange, so a model hardly sends them
_MARKERS = [chr(c) for c in range(0xFDD0, 0xFDF0)]


def mark_invalid_utf8(raw: bytes) -> tuple[bytes, str | None]:
    """``raw`` with each bad sequence replaced by a marker's UTF-8, and the marker;
    ``raw`` itself and None when it is valid UTF-8. Should every marker already occur
    in ``raw``, the marker is U+FFFD itself: every U+FFFD in the message then counts
    as replaced (too many repairs named, never too few)."""
    try:
        raw.decode()
    except UnicodeDecodeError:
        pass
    else:
        return raw, None
    lowered = raw.lower()
    marker = next(
        (
            m
            for m in _MARKERS
            if m.encode() not in raw and f"\\u{ord(m):04x}".encode() not in lowered
        ),
        REPLACEMENT,
    )
    # a real U+FFFD is always its own three bytes (a lead byte never continues a bad
    # sequence), so the text between them is decoded alone and its bad bytes marked
    pieces = raw.split(_REPLACEMENT_BYTES)
    text = REPLACEMENT.join(
        p.decode("utf-8", "replace").replace(REPLACEMENT, marker) for p in pieces
    )
    return text.encode(), marker
