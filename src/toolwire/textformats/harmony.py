"""Harmony (gpt-oss): messages ``<|start|>assistant<|channel|>C [to=R] [<|constrain|>json]
<|message|>…<|end|>|<|call|>|<|return|>``.

A message with a recipient (``to=functions.N``) is a call to N, on whatever channel;
``analysis`` is reasoning (F16); ``final`` and ``commentary`` are text. Servers often
drop the terminating special tokens, so a call whose JSON is whole is complete
without ``<|call|>``; one cut off inside its JSON is truncated (F1).

A header is read only when it is exactly what the format writes (role, channel,
recipient, content type); otherwise nothing in it is dropped: a header naming a
recipient makes an invalid call carrying the header and the message, any other
header stays text as written.
"""

from __future__ import annotations

import re

from toolwire.textformats.scanner import Grammar, Markers, TextScanner

_STARTS = ("<|start|>", "<|channel|>")
_ENDS = ("<|end|>", "<|call|>", "<|return|>")
_MESSAGE = "<|message|>"
_HEADER_END = Markers(_MESSAGE, "<|start|>", *_ENDS)
_CONTENT_END = Markers(*_ENDS, *_STARTS)
_SPACE = r"[ \t\r\n]"
# role, channel, recipient (after the role or the channel) and content type, as written
_HEADER = re.compile(
    rf"(?:<\|start\|>[ \t]*assistant(?:{_SPACE}+to=(?P<to>[^\s<]+))?)?"
    rf"(?:{_SPACE}*<\|channel\|>[ \t]*(?P<channel>analysis|commentary|final)"
    rf"(?:{_SPACE}+to=(?P<to2>[^\s<]+))?)?"
    rf"(?:{_SPACE}*<\|constrain\|>[ \t]*(?:json|code)|{_SPACE}+(?:json|code))?"
    rf"{_SPACE}*"
)
_RECIPIENT = re.compile(r"\bto=([^\s<]+)")


class HarmonyExtractor(TextScanner):
    START = _STARTS
    STRAY = (*_ENDS, _MESSAGE, "<|constrain|>")
    THINK = None

    def call(self, marker: str) -> Grammar:
        header, m = yield from self.capture(_HEADER_END)
        header = marker + header
        if m == "<|start|>":
            self.push_back(m)
        read = _HEADER.fullmatch(header)
        if read is not None and read.group("to") and read.group("to2"):
            read = None  # two recipients
        if read is not None:
            to = read.group("to") or read.group("to2")
        else:
            found = _RECIPIENT.search(header)
            to = found.group(1) if found else None
        if m != _MESSAGE:
            yield from self._no_message(header, to, cut=m is None)
            return True
        if read is None:
            yield from self._unreadable(header + m, to)
            return True
        if to is not None:
            index = self.begin_call(self._name(to))
            m, scan = yield from self.stream_arguments(index, _CONTENT_END)
            if m in _STARTS:
                self.push_back(m)
            self.end_call(index, truncated=m != "<|call|>" and not scan.balanced)
            return True
        emit = self.sink.reasoning if read.group("channel") == "analysis" else self.sink.text
        m = yield (self.until, _CONTENT_END, emit, True)
        if m in _STARTS:
            self.push_back(m)
        return True

    def _no_message(self, header: str, to: str | None, *, cut: bool) -> Grammar:
        """A header that never reached ``<|message|>``: cut off (F1), or ended by
        another marker (its ``<|message|>`` damaged, or left out)."""
        if to is None:
            self.sink.text(header)  # no call was named: it stays text
        elif cut:
            index = self.begin_call(self._name(to))
            self.sink.tool(index, None, None, {}, raw=header)
            self.end_call(index, truncated=True)
        else:
            self.whole_call(
                self._name(to), header, unreadable="a message header without its message"
            )
        return
        yield

    def _unreadable(self, header: str, to: str | None) -> Grammar:
        """A header that is not what the format writes: a call naming ``to`` that
        cannot be read (carrying the header and the message), or text as written."""
        if to is None:
            self.sink.text(header)  # the message that follows stays text too
            return
        index = self.begin_call(self._name(to))
        self.arguments(index, header)
        self.sink.tool(index, None, None, None, unreadable="a message header that cannot be read")
        m, _ = yield from self.stream_arguments(index, _CONTENT_END)
        if m in _STARTS:
            self.push_back(m)
        self.end_call(index)

    @staticmethod
    def _name(recipient: str) -> str:
        return recipient.removeprefix("functions.")
