"""The ``<invoke name="N"><parameter name="K">V</parameter></invoke>`` grammar,
shared by minimax_m2, deepseek_dsml and the agents' plain-text form. Values are typed
by the tool's schema; DSML's ``string="true"`` keeps the text as it is.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from toolwire.textformats.qwen3_coder import strip_newlines
from toolwire.textformats.scanner import Grammar, Markers, TextScanner
from toolwire.textformats.values import json_or_text, parameter_schema, type_value

_ATTR = re.compile(r"""([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""")
_NAMED = re.compile(r"[ \t\r\n]+name\s*=")


def attributes(tag: str) -> dict[str, str]:
    return {
        m.group(1): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(tag)
    }


class InvokeExtractor(TextScanner):
    """Subclasses set the tag prefix (the DSML token prefix for DSML) and the wrappers."""

    PREFIX = ""
    WRAPPERS: ClassVar[dict[str, str]] = {}  # open → close
    LEADS: tuple[str, ...] = ()  # markup that may come between a wrapper and an invoke

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
            m = yield (self.until, self._next_invoke, None, False)
            if m != self._invoke:
                return True  # the wrapper closed, or the stream ended
            closed_by = yield from self._read_invoke()
            if closed_by is None or closed_by in self._closes:
                return True

    def _read_invoke(self) -> Grammar:
        """After ``<invoke``: one call. Answers what ended it (None: cut off)."""
        tag, m = yield from self.capture(self._tag_end)
        name = attributes(tag).get("name", tag.strip())
        index = self.begin_call(name)
        if m is None:
            self.end_call(index, truncated=True)
            return None
        schema = self.schema_for(name)
        args: dict[str, Any] = {}
        m = yield (self.until, self._next_param, None, False)
        while m == self._param:
            tag, m = yield from self.capture(self._tag_end)
            if m is None:
                break
            attrs = attributes(tag)
            raw, m = yield from self.capture(self._value_end)
            if m is None:
                break  # the value was cut off: it is not kept
            key = attrs.get("name", "")
            args[key] = self._value(strip_newlines(raw), attrs, parameter_schema(schema, key))
            if m == f"</{self.PREFIX}parameter>":
                m = yield (self.until, self._next_param, None, False)
        if args:
            self.arguments(index, args)
        self.end_call(index, truncated=m is None)  # F1: what was whole stays partial
        return m

    def _value(self, raw: str, attrs: dict[str, str], schema: Any) -> Any:
        flag = attrs.get("string")
        if flag == "true":
            return raw
        if flag == "false" and schema is None:
            return json_or_text(raw)
        return type_value(raw, schema)
