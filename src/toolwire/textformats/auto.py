"""Family ``auto``: scan for every family's first marker; the first one seen decides
the family, and the rest of the stream goes to that family's extractor. Before
that, text and ``<think>`` reasoning pass through; with no marker at all the output
is plain text."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from toolwire.textformats.pythonic import names_a_tool_call
from toolwire.textformats.scanner import Grammar, TextScanner

# first marker → family; "<tool_call>" is shared and decided by what follows it
MARKER_FAMILIES: dict[str, str] = {
    "<function=": "qwen3_coder",
    "[TOOL_CALLS]": "mistral",
    "<|python_tag|>": "llama3_json",
    "<|python_start|>": "pythonic",
    "<|tool_call_start|>": "pythonic",
    "<｜tool▁calls▁begin｜>": "deepseek_v3",
    "<｜tool▁call▁begin｜>": "deepseek_v3",
    "<｜DSML｜function_calls>": "deepseek_dsml",
    "<｜DSML｜tool_calls>": "deepseek_dsml",
    "<|tool_calls_section_begin|>": "kimi_k2",
    "<|tool_call_section_begin|>": "kimi_k2",
    "<|tool_call_begin|>": "kimi_k2",
    "<minimax:tool_call>": "minimax_m2",
    "<|start|>": "harmony",
    "<|channel|>": "harmony",
    "<|tool_call|>": "granite",
    "<seed:tool_call>": "seed_oss",
    "<seed:think>": "seed_oss",
    "<start_function_call>": "functiongemma",
    "<tool_calls>": "jamba",
    "<|action_start|>": "internlm",
    "functools[": "phi4_mini",
    "<｜tool_calls_begin｜>": "step3",
    "<steptml:invoke": "step3",
    "[TOOL_REQUEST]": "agent",
    "<invoke": "agent",
    "<tool>": "agent",
}

_TOOL_CALL_BODY = re.compile(
    r"[ \t\r\n]{0,64}(?:(?P<hermes>\{)|(?P<granite>\[)|(?P<qwen3_coder><function=)"
    r"|(?P<glm47>[\w.:/-]{1,128}(?=[ \t]{0,8}(?:\r?\n|\\n|<arg_key>|</tool_call>))))"
)
_BARE = re.compile(
    r'[ \t\r\n]{0,64}(?:(?P<llama3_json>\{[ \t\r\n]{0,16}"(?:name|type)")'
    r"|(?P<pythonic>\[[ \t\r\n]{0,16}[A-Za-z_][\w.]{0,128}[ \t\r\n]{0,8}\()"
    r'|(?P<xlam>\[[ \t\r\n]{0,16}\{[ \t\r\n]{0,16}"(?:name|arguments)"))'
)

Factory = Callable[..., TextScanner]


class AutoExtractor(TextScanner):
    # a fenced call object is read as a call in prose (F35), not a family marker
    START = (*MARKER_FAMILIES, "<tool_call>")

    def __init__(self, *args: Any, factory: Factory, **kwargs: Any) -> None:
        self._factory = factory
        self._args, self._kwargs = args, kwargs
        self.delegate: TextScanner | None = None
        self.family: str | None = None
        super().__init__(*args, **kwargs)

    def feed(self, text: str) -> None:
        if self.delegate is not None:
            self.delegate.feed(text)
        else:
            super().feed(text)

    def close(self) -> None:
        if self.delegate is None:
            super().close()  # may hand over: the family is decided at end of stream
        if self.delegate is not None:
            self.delegate.close()
            self._drop_grammar()  # its own, idle since the hand-over

    def at_start(self) -> Grammar:
        found = yield (self.peek, _BARE, 230, "[{")
        if found:
            family = found.lastgroup
            assert family is not None
            self._hand_over(family, "")

    LOOSE = (*TextScanner.LOOSE, "[")

    def loose_call(self, opener: str) -> Grammar:
        """A Python list of calls after prose (F31) hands the stream to pythonic."""
        if opener != "[":
            return (yield from super().loose_call(opener))
        self.push_back(opener)
        found = yield (names_a_tool_call, self)
        if not found:
            self.skip(1)
            return False
        self._hand_over("pythonic", "")
        return True

    def call(self, marker: str) -> Grammar:
        family: str | None = MARKER_FAMILIES.get(marker)
        if marker == "<tool_call>":
            found = yield (self.peek, _TOOL_CALL_BODY, 200)
            family = found.lastgroup if found else None
        if family is None:
            return False
        self._hand_over(family, marker)
        return True  # the delegate owns the rest of the stream (feed/close forward)

    def _hand_over(self, family: str, marker: str) -> None:
        kwargs = dict(self._kwargs)
        kwargs["start_in_reasoning"] = self._reasoning
        self.family = family
        self.delegate = self._factory(family, *self._args, **kwargs)
        rest = self._buf[self._pos :]
        self._pos = len(self._buf)
        self.delegate.feed(marker + rest)
