"""Harmony (gpt-oss): messages ``<|start|>assistant<|channel|>C [to=R] [<|constrain|>json]
<|message|>…<|end|>|<|call|>|<|return|>``.

A message with a recipient (``to=functions.N``) is a call to N, on whatever channel;
``analysis`` is reasoning (F16); ``final`` and ``commentary`` are text. Servers often
drop the terminating special tokens, so a call whose JSON is whole is complete
without ``<|call|>``; one cut off inside its JSON is truncated (F1).
"""

from __future__ import annotations

import re

from toolwire.textformats.scanner import Grammar, Markers, TextScanner

_STARTS = ("<|start|>", "<|channel|>")
_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_HEADER_END = Markers("<|message|>", "<|start|>", *_ENDS)
_CONTENT_END = Markers(*_ENDS, *_STARTS)
_CHANNEL = re.compile(r"<\|channel\|>\s*([\w-]+)")
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")


class HarmonyExtractor(TextScanner):
    START = _STARTS
    STRAY = (*_ENDS, "<|message|>", "<|constrain|>")
    THINK = None

    def call(self, marker: str) -> Grammar:
        header, m = yield from self.capture(_HEADER_END)
        header = marker + header
        to = _RECIPIENT.search(header)
        if m != "<|message|>":
            if m in _STARTS:
                self.push_back(m)
            if to is not None:
                self.truncated_call(self._name(to.group(1)))
            return True
        if to is not None:
            index = self.begin_call(self._name(to.group(1)))
            m, scan = yield from self.stream_arguments(index, _CONTENT_END)
            if m in _STARTS:
                self.push_back(m)
            self.end_call(index, truncated=m != "<|call|>" and not scan.balanced)
            return True
        channel = _CHANNEL.search(header)
        emit = self.sink.reasoning if channel and channel.group(1) == "analysis" else self.sink.text
        m = yield (self.until, _CONTENT_END, emit, True)
        if m in _STARTS:
            self.push_back(m)
        return True

    @staticmethod
    def _name(recipient: str) -> str:
        return recipient.removeprefix("functions.")
