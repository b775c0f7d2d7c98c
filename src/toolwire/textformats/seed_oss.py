"""Seed-OSS: the Qwen3-Coder XML grammar inside ``<seed:tool_call>``, reasoning in
``<seed:think>``."""

from __future__ import annotations

from toolwire.textformats.qwen3_coder import Qwen3CoderExtractor


class SeedOssExtractor(Qwen3CoderExtractor):
    WRAP_OPEN = "<seed:tool_call>"
    WRAP_CLOSE = "</seed:tool_call>"
    START = (WRAP_OPEN,)
    STRAY = (WRAP_CLOSE,)
    THINK = ("<seed:think>", "</seed:think>")
