"""Provenance: ``repairs`` names what was wrong with the text, and nothing else.

The property test takes a valid JSON value, writes it with exactly one defect of a
known kind, and requires the repair to name that kind alone (and to recover the
value). A repair named that did not happen, or a defect left unnamed, fails it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.repair import repair_json


def test_commas_between_array_items_are_not_trailing_commas() -> None:
    lenient = repair_json("{a: [1, 2]}")
    assert lenient.repairs == ("unquoted_key",)
    cut = repair_json("[1, 2")
    assert (cut.status, cut.repairs, cut.value) == ("truncated", ("missing_closer",), [1, 2])


@pytest.mark.parametrize(
    ("text", "expected"),
    [("[1,,2]", [1, 2]), ("[,1]", [1]), ("[1, 2,]", [1, 2]), ("{a: [1, 2,]}", {"a": [1, 2]})],
)
def test_superfluous_commas_in_arrays_are_still_named(text: str, expected: object) -> None:
    result = repair_json(text)
    assert result.value == expected
    assert "trailing_comma" in result.repairs


# -- duplicate keys --------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1, "a": 2}', {"a": 2}),  # strict JSON (orjson)
        ('{"a" :1, "a"\n: 2}', {"a": 2}),
        ('{"x": {"a": 1, "a": 2}}', {"x": {"a": 2}}),
        (
            '{"a": 1, "a": 2, "f": 1.5, "n": 12345678901234567890123}',  # the exact-int path
            {"a": 2, "f": 1.5, "n": 12345678901234567890123},
        ),
        ("{a: 1, a: 2}", {"a": 2}),  # the lenient parser
        ("{'a': 1, 'a': 2}", {"a": 2}),  # a Python literal
        ("{1: 1, '1': 2}", {"1": 2}),  # Python keys that collide once written as JSON
        ('"{\\"a\\": 1, \\"a\\": 2}"', {"a": 2}),  # double-encoded
    ],
)
def test_duplicate_keys_are_named_and_the_last_one_wins(text: str, expected: object) -> None:
    result = repair_json(text)
    assert "duplicate_key" in result.repairs, result
    assert result.value == expected


@pytest.mark.parametrize(
    "text",
    [
        '{"url": "https://x.y", "t": "12:30", "a": {"b": 1}}',
        '{"code": "d = {\\"k\\": 1, \\"k\\": 2}"}',  # a repeated key inside a string
        '[{"a": 1}, {"a": 1}]',  # the same key in two objects
    ],
)
def test_colons_in_strings_and_repeated_keys_across_objects_are_not_duplicates(
    text: str,
) -> None:
    result = repair_json(text)
    assert result.status == "complete", result
    assert result.value == json.loads(text)


# -- one defect, one name ---------------------------------------------------------

_KEY = st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True), st.text(max_size=8))
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_VALUES = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEY, inner, max_size=4)),
    max_leaves=12,
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DELIMITER_FIRST = re.compile(r'"[\s,:\]}]')


class _Writer:
    """Writes a value as JSON, with one defect of ``kind`` at its ``target``-th site.

    ``sites`` counts the places the defect could go; ``value`` is what the text with
    the defect means (it differs from the input only where the defect changes it).
    """

    def __init__(self, kind: str, target: int, variant: int) -> None:
        self.kind = kind
        self.target = target
        self.variant = variant
        self.sites = 0

    def site(self, kind: str) -> bool:
        if kind != self.kind:
            return False
        self.sites += 1
        return self.sites - 1 == self.target

    def write(self, value: Any) -> tuple[str, Any]:
        if isinstance(value, dict):
            return self.write_object(value)
        if isinstance(value, list):
            return self.write_array(value)
        if isinstance(value, str):
            return self.write_string(value)
        if value is None or isinstance(value, bool):
            text = json.dumps(value)
            if self.site("python_constant"):
                return {"true": "True", "false": "False", "null": "None"}[text], value
            return text, value
        if isinstance(value, int | float) and self.site("non_finite_number"):
            text, meant = [("Infinity", math.inf), ("-Infinity", -math.inf), ("1e999", math.inf)][
                self.variant % 3
            ]
            return text, meant
        return json.dumps(value), value

    def write_string(self, value: str, key: bool = False) -> tuple[str, Any]:
        body = json.dumps(value, ensure_ascii=False)[1:-1]
        # (not in keys: a key is looked ahead for on one line)
        if not key and self.site("control_character"):
            at = len(value) // 2
            raw = "\n\t\r"[self.variant]
            before = json.dumps(value[:at], ensure_ascii=False)[1:-1]
            after = json.dumps(value[at:], ensure_ascii=False)[1:-1]
            return f'"{before}{raw}{after}"', value[:at] + raw + value[at:]
        if key and _IDENT.fullmatch(value) and self.site("unquoted_key"):
            return value, value
        if self.site("single_quote"):
            return "'" + body.replace("'", "\\'") + "'", value
        return f'"{body}"', value

    def between(self) -> str:
        """Whitespace between tokens, or a comment in it."""
        if self.site("comment"):
            return [" /* note */ ", " // note\n", " # note\n"][self.variant % 3]
        return " "

    def separator(self) -> str:
        return self.between() if self.site("missing_comma") else "," + self.between()

    def write_array(self, items: list[Any]) -> tuple[str, Any]:
        parts: list[str] = []
        meant: list[Any] = []
        for index, item in enumerate(items):
            text, value = self.write(item)
            parts.append(("" if index == 0 else self.separator()) + text)
            meant.append(value)
        return "[" + self.between() + "".join(parts) + self.closing(items) + "]", meant

    def write_object(self, members: dict[str, Any]) -> tuple[str, Any]:
        parts: list[str] = []
        meant: dict[str, Any] = {}
        if members and self.site("duplicate_key"):
            first = next(iter(members))
            parts.append(json.dumps(first) + ": 0")
        for key, item in members.items():
            key_text, key_meant = self.write_string(key, key=True)
            text, value = self.write(item)
            sep = "" if not parts else self.separator()
            parts.append(sep + key_text + ":" + self.between() + text)
            meant[key_meant] = value
        return "{" + self.between() + "".join(parts) + self.closing(members) + "}", meant

    def closing(self, container: list[Any] | dict[str, Any]) -> str:
        return "," if container and self.site("trailing_comma") else ""


def _with_defect(value: Any, kind: str, data: st.DataObject) -> tuple[str, Any] | None:
    """The text of ``value`` with one ``kind`` defect, and its meaning; None if
    ``value`` has no place for that defect."""
    variant = data.draw(st.integers(0, 2), label="variant")
    if kind == "code_fence":  # any value, a scalar too (```json\nnull\n```)
        text = json.dumps(value)
        if "```" in text:
            # a fence inside the value: the fence finder closes the block at the first
            # one (models write ```json {...}``` on one line), so this is not one defect
            return None
        return "```json\n" + text + "\n```", value
    if kind == "missing_closer":
        text = json.dumps(value)
        closers = len(text) - len(text.rstrip("]}"))
        if not closers:
            return None
        drop = data.draw(st.integers(1, closers), label="closers dropped")
        return text[:-drop], value
    if kind == "missing_comma" and _DELIMITER_FIRST.search(json.dumps(value)):
        # `"" ",": 1`: with the comma missing, a string that starts with a delimiter
        # makes the text ambiguous (is `" ",` a string and a comma?).
        return None
    sites = _Writer(kind, -1, variant)
    sites.write(value)
    if not sites.sites:
        return None
    target = data.draw(st.integers(0, sites.sites - 1), label="site")
    return _Writer(kind, target, variant).write(value)


# Each kind, and the names it may be reported under: a Python-looking defect may be
# read by the Python-literal step, whose one name covers Python syntax.
DEFECTS: dict[str, set[str]] = {
    "single_quote": {"single_quote", "python_literal"},
    "python_constant": {"python_constant", "python_literal"},
    "unquoted_key": {"unquoted_key"},
    "trailing_comma": {"trailing_comma"},
    "missing_comma": {"missing_comma"},
    "comment": {"comment"},
    "control_character": {"control_character"},
    "missing_closer": {"missing_closer"},
    "code_fence": {"code_fence"},
    "non_finite_number": {"non_finite_number"},
    "duplicate_key": {"duplicate_key"},
}


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("kind", sorted(DEFECTS))
@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(value=_VALUES, data=st.data())
def test_one_defect_is_named_as_its_kind_alone(kind: str, value: Any, data: st.DataObject) -> None:
    written = _with_defect(value, kind, data)
    if written is None:
        return
    text, meant = written
    result = repair_json(text)
    assert result.ok, (text, result.error)
    names = set(result.repairs)
    assert names and names <= DEFECTS[kind], (text, result.repairs)
    if kind == "python_constant" and "python_literal" in names:
        assert names == {"python_literal"}
    assert result.truncated == (kind == "missing_closer"), (text, result)
    assert _same(result.value, meant), (text, result.value)
