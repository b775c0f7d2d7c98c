"""The ``<invoke name="N"><parameter name="K">V</parameter></invoke>`` grammar,
shared by minimax_m2, deepseek_dsml and the agents' plain-text form. Values are typed
by the tool's schema; DSML's ``string="true"`` keeps the text as it is.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from toolwire.textformats.qwen3_coder import strip_newlines
from toolwire.textformats.scanner import Grammar, Markers, MarkupCall, TextScanner
from toolwire.textformats.values import Repairs, json_or_text, parameter_schema, type_value

_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_NAMED = re.compile(r"[ \t\r\n]+name\s*=")
_INVOKE_ATTRS = frozenset({"name"})
_PARAMETER_ATTRS = frozenset({"name", "string"})


def unread(tag: str, known: frozenset[str]) -> str:
    """What a tag holds besides the attributes the format defines (whitespace, unless
    the tag is damaged or carries attributes the format does not read)."""
    if not known.intersection(attributes(tag)):
        return tag  # nothing in it was read
    seen: set[str] = set()

    def read(m: re.Match[str]) -> str:
        key = m.group(1)
        if key not in known or key in seen:
            return m.group(0)  # given twice: only the last one is read
        seen.add(key)
        return ""

    return _ATTR.sub(read, tag)


def attributes(tag: str) -> dict[str, str]:
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(tag)
    }


class InvokeExtractor(TextScanner):
    """Subclasses set the tag prefix (the DSML token prefix for DSML) and the wrappers."""

    PREFIX = ""
    WRAPPERS: ClassVar[dict[str, str]] = {}  # open → close
    LEADS: tuple[str, ...] = ()  # markup that may come between a wrapper and an invoke
    GAP_MARKUP: re.Pattern[str] | None = None  # the family's markup between invokes

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        p = self.PREFIX
        self._invoke = f"<{p}invoke"
        self._invoke_close = f"</{p}invoke>"
        self._param = f"<{p}parameter"
        closes = tuple(self.WRAPPERS.values())
        self._tag_end = Markers(">")
        self._next_invoke = Markers(self._invoke, *closes)
        self._next_param = Markers(self._param, self._invoke_close, *closes)
        self._value_end = Markers(f"</{p}parameter>", self._param, self._invoke_close, *closes)
        self._closes = closes

    def call(self, marker: str) -> Grammar:
        if marker == self._invoke:
            named = yield (self.peek, _NAMED, 64)
            if not named:
                return False
            yield from self._read_invoke()
            return True
        r = yield from self.after_marker((self._invoke, *self.LEADS))
        if isinstance(r, bool):
            return r
        while True:
            # between the invokes: only markup (whitespace, and the family's own)
            gap, m = yield from self.capture(self._next_invoke)
            self.unreadable_gap(gap)
            if m != self._invoke:
                return True  # the wrapper closed, or the stream ended
            closed_by = yield from self._read_invoke()
            if closed_by is None or closed_by in self._closes:
                return True

    def unreadable_gap(self, gap: str) -> None:
        """Text between a wrapper and its invokes that is not markup is reported as a
        call that cannot be read, carrying it (never dropped)."""
        rest = self.GAP_MARKUP.sub("", gap) if self.GAP_MARKUP is not None else gap
        if rest.strip():
            self.whole_call(None, gap.strip(), unreadable="text where a call belongs")

    def _read_invoke(self) -> Grammar:
        """After ``<invoke``: one call. Answers what ended it (None: cut off)."""
        self.keep_markup(len(self._invoke))
        tag, m = yield from self.capture(self._tag_end)
        attrs = attributes(tag)
        name = attrs.get("name", tag.strip())
        index = self.begin_call(name)
        if m is None:
            self.end_markup_call(index, MarkupCall(), cut=True)
            return None
        schema = self.schema_for(name)
        read = MarkupCall()
        if "name" in attrs:  # else the whole tag is the name
            read.gap(unread(tag, _INVOKE_ATTRS))
        if tag[:1].strip():
            read.gap(tag)  # <invokename="f">: the tag's name run into its attribute
        m = yield (self.until, self._next_param, read.gap, False)
        while m == self._param:
            tag, m = yield from self.capture(self._tag_end)
            if m is None:
                break
            attrs = attributes(tag)
            read.gap(unread(tag, _PARAMETER_ATTRS))
            if tag[:1].strip():
                read.gap(tag)
            raw, m = yield from self.capture(self._value_end)
            if m is None:
                break  # the value was cut off: the markup keeps it
            key = attrs.get("name", "")
            flag = attrs.get("string")
            if flag is not None and flag not in ("true", "false"):
                read.gap(f"string={flag}")  # says neither how to read the value
            schema_of_key = parameter_schema(schema, key)
            value = self._value(strip_newlines(raw), flag, schema_of_key, read.repairs)
            read.put(key, value)
            if m == f"</{self.PREFIX}parameter>":
                m = yield (self.until, self._next_param, read.gap, False)
        self.end_markup_call(index, read, cut=m is None)
        return m

    def _value(self, raw: str, flag: str | None, schema: Any, repairs: Repairs) -> Any:
        if flag == "true":
            return raw
        if flag == "false" and schema is None:
            return json_or_text(raw, repairs)
        return type_value(raw, schema, repairs)
