"""DeepSeek V3 / R1: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>N``
newline, a fenced ```` ```json ```` object, ``<｜tool▁call▁end｜>`` … ``<｜tool▁calls▁end｜>``.

The V3.1 body (``N<｜tool▁sep｜>{args}``) is read by the same grammar: the text before
``<｜tool▁sep｜>`` is the type ``function`` only when a name line follows.
"""

from __future__ import annotations

import re

import orjson

from toolwire.assemble import JsonScanner
from toolwire.textformats.need import WS_LIMIT
from toolwire.textformats.scanner import Grammar, Markers, TextScanner, WholeCall

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"

_HEAD = Markers(SEP, CALL_END, CALLS_END, CALL_BEGIN)
_NAME_LINE = Markers("\n", "```", "{", CALL_END, CALLS_END, CALL_BEGIN)
_AFTER = Markers(CALL_END, CALLS_END, CALL_BEGIN)
_BETWEEN = Markers(CALL_BEGIN, CALLS_END)
# the usual call up to its arguments' first character (see ``_whole``): a name line
# without a character where ``_NAME_LINE`` could stop or a V3.1 body could begin, then
# the whitespace ``expect`` skips
_SPACES = rf"[ \t\r\n]{{0,{WS_LIMIT}}}"
_WHOLE_HEAD = re.compile(rf"function{SEP}([^\n`{{\[<]+)\n{_SPACES}```json{_SPACES}(?=[{{\[])")
# ``call_section``'s steps around the calls: the first call's marker after the
# section's (``expect``), and the marker after a call, past whitespace (``unreadable``:
# \s as ``str.strip`` drops it)
_FIRST = re.compile(rf"{_SPACES}{CALL_BEGIN}")
_NEXT = re.compile(rf"\s*({CALL_BEGIN}|{CALLS_END})")


class DeepSeekV3Extractor(TextScanner):
    START = (CALLS_BEGIN, CALL_BEGIN)
    STRAY = (CALL_END, CALLS_END, SEP)

    def call(self, marker: str) -> Grammar:
        return (
            yield from self.call_section(marker == CALLS_BEGIN, CALL_BEGIN, _BETWEEN, self._one)
        )

    def whole_calls(self, marker: str) -> list[WholeCall] | None:
        """``call``'s section read at once, when each call in it is in the usual shape
        (see ``_read_whole``) and it ends with its marker (see
        ``TextScanner.whole_calls``)."""
        buf = self._buf
        if marker == CALLS_BEGIN:
            first = _FIRST.match(buf, self._pos)
            if first is None:
                return None
            self._pos = first.end()
        calls = []
        while True:
            found = self._read_whole()
            if found is None:
                return None
            calls.append(found)
            after = _NEXT.match(buf, self._pos)
            if after is None:
                return None
            self._pos = after.end()
            if after.group(1) == CALLS_END:
                return calls

    def _whole(self) -> bool:
        """The usual V3 call all in the buffer (text fed whole, a large read): read at
        once, as one call (see ``_read_whole``). False, nothing consumed, for anything
        else.

        Measured with callgrind on 2 KB of text with 4 calls: the streaming path costs
        about 140 K instructions more per call (its requests, the bracket scan, the
        call begun, fed and closed in three steps)."""
        found = self._read_whole()
        if found is None:
            return False
        name, arguments, loaded = found
        self.whole_call(name, arguments, loaded=loaded)
        return True

    def _read_whole(self) -> WholeCall | None:
        """The usual V3 call, ``function<｜tool▁sep｜>N``, a fenced object and its end
        marker, all in the buffer: the position moved past its end marker, its name,
        arguments and ``orjson.loads`` of them; None, nothing consumed, for anything
        else. The arguments run from the ``{`` to the closing fence before the end
        marker and must be strict JSON: then they are what ``json_until`` would find,
        and the call is the one the streaming path reads (F15)."""
        buf = self._buf
        m = _WHOLE_HEAD.match(buf, self._pos)
        if m is None:
            return None
        name = m.group(1).strip()
        end = _AFTER.search(buf, m.end())
        if not name or end is None or end.group() != CALL_END:
            return None
        arguments = buf[m.end() : end.start()].rstrip()
        if arguments.endswith("```"):
            arguments = arguments[:-3].rstrip()  # the closing fence
        try:  # ``try_loads`` written out: a function less a parse runs (see ``whole_calls``)
            loaded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
        self._pos = end.end()
        return name, arguments, loaded

    def _one(self) -> Grammar:
        if self._whole():
            return
        head, m = yield from self.capture(_HEAD)
        if m is None:
            self.truncated_call(head.strip() or None)  # cut off before the separator (F1)
            return
        if m != SEP:
            # a call without its separator cannot be read: invalid, with its text
            self.whole_call(None, head.strip(), unreadable="a call without its separator")
            if m in (CALLS_END, CALL_BEGIN):
                self.push_back(m)
            return
        name = head.strip()
        r = yield (self.expect, ("{", "["))
        if r is False and name == "function":  # V3: the name is on the next line
            line, m = yield from self.capture(_NAME_LINE)
            name = line.strip()
            if m is None:
                self.truncated_call(name or None)
                return
            if m != "\n":
                self.push_back(m)
            r = yield (self.expect, ("```json", "```", "{", "["))
            if isinstance(r, str) and r.startswith("```"):
                self.skip(len(r))
                r = yield (self.expect, ("{", "["))
        index = self.begin_call(name or None)
        if r is None:
            self.end_call(index, truncated=True)
            return
        if r is False:  # not JSON: hand the text over as it is, the finisher judges it
            m, scan = yield from self.stream_arguments(index, _AFTER)
            if m in (CALLS_END, CALL_BEGIN):
                self.push_back(m)
            self.end_call(index, truncated=m is None and not scan.balanced)
            return
        # an end marker ends the arguments even while their JSON is open: the markup
        # and the text after it are never swallowed into a value
        done = yield (self.json_until, JsonScanner(), _AFTER, self.argument_text(index))
        cut = done is None
        if done is True:
            after, done = yield from self.capture(_AFTER)
            rest = after.strip()
            if rest.startswith("```"):
                rest = rest[3:].strip()  # the closing fence
            if rest:  # other text after the arguments: kept with them, unreadable
                self.arguments(index, after)
                why = "text after the arguments, where only the call's end belongs"
                self.sink.tool(index, None, None, None, unreadable=why)
        self.end_call(index, truncated=cut)
        if done in (CALLS_END, CALL_BEGIN):
            self.push_back(done)
