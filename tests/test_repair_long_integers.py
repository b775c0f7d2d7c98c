"""Integers beyond Python's digit limit, and numbers cut off after their point, in every
reader of the repair core: kept as text with a named repair (``long_integer``), never an
internal error or a value JSON cannot be written with (issue 11, value fidelity)."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.repair import repair_json

runner = CliRunner()
DIGITS = "9" * 5000
HEX = "f" * 5000  # 20,000 bits: about 6,000 decimal digits
assert len(DIGITS) > sys.get_int_max_str_digits()

# (text, the value expected at "a" or as the first item)
LONG: list[tuple[str, str]] = [
    (f'{{"a": {DIGITS}}}', DIGITS),  # the strict path
    (f'{{"a": {DIGITS},}}', DIGITS),  # the lenient reader
    (f"{{a: -{DIGITS}}}", "-" + DIGITS),
    (f"[{DIGITS}, 1", DIGITS),  # cut off
    (f"{{'a': {DIGITS}}}", DIGITS),  # a Python literal
    (f"{{'a': 0x{HEX}}}", "0x" + HEX),  # a Python literal not in decimal
    (f"{{'a': -0x{HEX}, 'b': None}}", "-0x" + HEX),
    (f"[0x{HEX}, True]", "0x" + HEX),
    (f"{{'a': 0b{'1' * 16_000}}}", hex(int("1" * 16_000, 2))),  # kept in hex
]


def _first(value: object) -> object:
    return value["a"] if isinstance(value, dict) else value[0]  # type: ignore[index]


@pytest.mark.parametrize(("text", "expected"), LONG, ids=range(len(LONG)))
def test_a_long_integer_is_kept_as_text_and_named(text: str, expected: str) -> None:
    result = repair_json(text)
    assert result.ok, result.error
    assert _first(result.value) == expected
    assert "long_integer" in result.repairs
    json.dumps(result.value)  # JSON can hold it


@pytest.mark.parametrize(("text", "expected"), LONG, ids=range(len(LONG)))
def test_the_repair_cli_prints_a_long_integer(text: str, expected: str) -> None:
    out = runner.invoke(app, ["repair", "--json", "-"], input=text)
    assert out.exit_code in (0, 3), out.output  # 3: cut off
    printed = json.loads(out.stdout)
    assert _first(printed["value"]) == expected and "long_integer" in printed["repairs"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [('{"a": 5.e}', 5.0), ("[9.e, 1]", 9.0), ('{"a": -2.E+}', -2.0), (f"[{DIGITS}.e]", None)],
)
def test_a_number_cut_off_after_its_point_and_exponent(text: str, expected: float | None) -> None:
    """``5.e``: before, the reader built ``5..0`` and failed with Python's own message
    ("could not convert string to float"); a 5,000-digit one is read as a double, which
    it overflows (``non_finite_number``, as ``1e999``)."""
    result = repair_json(text)
    assert result.ok, result.error
    assert "invalid_number" in result.repairs
    value = _first(result.value)
    if expected is None:
        assert value == float("inf") and "non_finite_number" in result.repairs
    else:
        assert value == expected
