"""MiniMax M2: ``<minimax:tool_call><invoke name="N"><parameter name="K">V</parameter>
</invoke></minimax:tool_call>``; values typed by the schema."""

from __future__ import annotations

from typing import ClassVar

from toolwire.textformats.invoke import InvokeExtractor


class MiniMaxM2Extractor(InvokeExtractor):
    WRAPPERS: ClassVar[dict[str, str]] = {"<minimax:tool_call>": "</minimax:tool_call>"}
    START = tuple(WRAPPERS)
    STRAY = tuple(WRAPPERS.values())
