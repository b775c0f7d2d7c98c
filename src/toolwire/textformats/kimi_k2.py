"""Kimi K2: ``<|tool_calls_section_begin|><|tool_call_begin|>functions.N:IDX
<|tool_call_argument_begin|>{args}<|tool_call_end|>…<|tool_calls_section_end|>``.

``functions.N:IDX`` is the call's id and is kept as written (it must round-trip to
the model); the name is N. Arguments stream as they arrive.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import orjson

from toolwire.spec import ToolSpec
from toolwire.textformats.scanner import Grammar, Markers, TextScanner

SECTION_BEGIN = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_END = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
CALL_END = "<|tool_call_end|>"

_ID_END = Markers(ARG_BEGIN, CALL_END, CALL_BEGIN, *SECTION_END)
_ARGS_END = Markers(CALL_END, CALL_BEGIN, *SECTION_END)
_BETWEEN = Markers(CALL_BEGIN, *SECTION_END)
_ID = re.compile(r"(?:\s*functions\s*\.)?(.*?)(?:\s*:\s*\d+)?\s*", re.DOTALL)
_COUNTER = re.compile(r"\s*\d*\s*")


def name_from_id(call_id: str) -> str:
    """``functions.get_weather:0`` → ``get_weather``; ``functions.a.b:0`` → ``a.b``;
    whitespace around the parts is not part of the name. Other decorations
    (``FUNCTIONSlist_directory``) are left to name normalization, which names them."""
    m = _ID.fullmatch(call_id)
    return m.group(1).strip() if m else call_id.strip()


def infer_name(arguments: str, tools: Mapping[str, ToolSpec]) -> str | None:
    """The one declared tool whose parameters fit these arguments' keys, for an id
    that is a bare counter (``0``); None when the arguments are unreadable or no
    single tool fits."""
    try:
        value = orjson.loads(arguments) if arguments.strip() else {}
    except orjson.JSONDecodeError:
        return None
    if not isinstance(value, dict):
        return None
    keys = set(value)
    fits = []
    for tool in tools.values():
        params = tool.parameters
        props = params.get("properties")
        required = set(params.get("required") or ())
        # declared properties say which keys belong (``properties: {}``: none do)
        known = set(props) if isinstance(props, Mapping) else None
        if required <= keys and (known is None or keys <= known):
            fits.append(tool.name)
    return fits[0] if len(fits) == 1 else None


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
        if m == ARG_BEGIN and _COUNTER.fullmatch(name_from_id(call_id)):
            yield from self._counter_only(call_id)
            return
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

    def _counter_only(self, call_id: str) -> Grammar:
        """An id without a name (a bare counter): the name is inferred from the
        arguments when the declared tools leave one choice, and the inference is
        named as a repair; otherwise the call has no name and is invalid."""
        raw, m = yield from self.capture(_ARGS_END)
        if m is not None and m != CALL_END:
            self.push_back(m)
        raw = raw.strip()
        name = infer_name(raw, self.tools) if m is not None else None
        repairs = (f"name_inferred:{name}",) if name else ()
        index = self.begin_call(name, call_id or None, repairs)
        if raw:
            self.arguments(index, raw)
        self.end_call(index, truncated=m is None)
