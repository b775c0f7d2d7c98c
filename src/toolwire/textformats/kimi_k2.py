"""Kimi K2: ``<|tool_calls_section_begin|><|tool_call_begin|>functions.N:IDX
<|tool_call_argument_begin|>{args}<|tool_call_end|>…<|tool_calls_section_end|>``.

``functions.N:IDX`` is the call's id and is kept as written (it must round-trip to
the model); the name is N. Arguments stream as they arrive.
"""

from __future__ import annotations

import re

from toolwire.textformats.scanner import Grammar, Markers, TextScanner

SECTION_BEGIN = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_END = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"

_ID_END = Markers(ARG_BEGIN, CALL_END, CALL_BEGIN, *SECTION_END)
_ARGS_END = Markers(CALL_END, CALL_BEGIN, *SECTION_END)
_BETWEEN = Markers(CALL_BEGIN, *SECTION_END)
_ID = re.compile(r"(?:functions\.)?(.*?)(?::\d+)?")


def name_from_id(call_id: str) -> str:
    """``functions.get_weather:0`` → ``get_weather``."""
    m = _ID.fullmatch(call_id)
    return m.group(1) if m else call_id


class KimiK2Extractor(TextScanner):
    START = (*SECTION_BEGIN, CALL_BEGIN)
    STRAY = (*SECTION_END, CALL_END, ARG_BEGIN)

    def call(self, marker: str) -> Grammar:
        return (
            yield from self.call_section(marker in SECTION_BEGIN, CALL_BEGIN, _BETWEEN, self._one)
        )

    def _one(self) -> Grammar:
        raw_id, m = yield from self.capture(_ID_END)
        call_id = raw_id.strip()
        index = self.begin_call(name_from_id(call_id) or None, call_id or None)
        if m != ARG_BEGIN:
            if m is not None and m != CALL_END:
                self.push_back(m)
            self.end_call(index, truncated=m is None)
            return
        m, scan = yield from self.stream_arguments(index, _ARGS_END)
        if m is not None and m != CALL_END:
            self.push_back(m)
        # without its end marker a call is whole only if its JSON is (F1)
        self.end_call(index, truncated=m != CALL_END and not scan.balanced)
