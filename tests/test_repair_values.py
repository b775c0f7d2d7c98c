"""Value fidelity: numbers and Python values without a JSON form are never changed
silently (F30), big integers are kept, and a cut-off input is said to be one (F1)."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.events import StreamResult
from toolwire.finish import CallFinisher
from toolwire.parser import StreamParser
from toolwire.repair import repair_json
from toolwire.spec import ToolSpec

runner = CliRunner()
LONG = "9" * 5000  # beyond Python's default int/str digit limit (4,300)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a":1e999999}', math.inf),  # strict JSON that no double holds
        ('{"a": -1e400}', -math.inf),
        ("{a: 1e999}", math.inf),  # the lenient parser
        ("{'a': 1e999}", math.inf),  # a Python literal (F30)
        ("{'a': -1e999}", -math.inf),
        ('{"a": 1e999,}', math.inf),
    ],
)
def test_F30_numbers_beyond_a_double_are_named_like_nan(text: str, expected: float) -> None:
    result = repair_json(text)
    assert result.value == {"a": expected}
    assert "non_finite_number" in result.repairs
    assert result.status == "repaired"


def test_F30_python_values_without_json_form_are_never_silent() -> None:
    for text in ("{'a': b'z'}", "{'a': {1, 2}}", "{'a': 1j}", "{'a': float('nan')}"):
        result = repair_json(text)
        assert result.status in ("repaired", "failed"), (text, result)
        assert result.status == "failed" or result.repairs, (text, result)
        assert result.value is None or None not in result.value.values(), (text, result)


def test_integer_beyond_the_digit_limit_is_kept_as_its_digits() -> None:
    result = repair_json('{"n": ' + LONG + "}")
    assert result.status == "repaired", result.error
    assert result.value == {"n": LONG}
    assert result.repairs == ("long_integer",)
    python = repair_json("{'n': " + LONG + ", 'm': -" + LONG + "}")
    assert python.value == {"n": LONG, "m": "-" + LONG}
    assert "long_integer" in python.repairs


def _finish(arguments: str, schema: dict[str, Any]) -> Any:
    spec = ToolSpec.from_dict({"name": "f", "parameters": schema})
    return CallFinisher([spec]).finish(id="c", name="f", raw_arguments=arguments)


def test_integer_beyond_the_digit_limit_through_coerce_and_validation() -> None:
    as_integer = _finish('{"n": ' + LONG + "}", {"properties": {"n": {"type": "integer"}}})
    assert as_integer.status == "invalid"
    assert not any("internal" in e or "stopped" in e for e in as_integer.errors), as_integer
    as_string = _finish('{"n": ' + LONG + "}", {"properties": {"n": {"type": "string"}}})
    assert (as_string.status, as_string.arguments) == ("repaired", {"n": LONG})


def test_long_integer_strings_coerce_to_integers() -> None:
    digits = "1" * 400  # an int, but no float holds it
    call = _finish('{"n": "' + digits + '"}', {"properties": {"n": {"type": "integer"}}})
    assert (call.status, call.arguments) == ("repaired", {"n": int(digits)})


def test_cli_prints_a_long_integer() -> None:
    out = runner.invoke(app, ["repair", "--json", "[" + LONG + "]"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["value"] == [LONG]


# -- text formats ------------------------------------------------------------------

TOOLS = [
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {"n": {"type": "integer"}, "x": {}, "o": {"type": "object"}},
        },
    }
]


def _calls(family: str, text: str) -> list[Any]:
    parser = StreamParser(f"text:{family}", TOOLS)
    events = [*parser.feed(text.encode()), *parser.close()]
    return StreamResult.collect(events).calls


def _qwen(key: str, value: str) -> str:
    return (
        f"<tool_call>\n<function=f>\n<parameter={key}>\n{value}\n</parameter>\n"
        "</function>\n</tool_call>"
    )


@pytest.mark.parametrize("digits", ["99999999999999999999", "-99999999999999999999999"])
def test_qwen3_coder_integers_of_20_digits_are_complete(digits: str) -> None:
    (call,) = _calls("qwen3_coder", _qwen("n", digits))
    assert (call.status, call.arguments) == ("complete", {"n": int(digits)})


def test_qwen3_coder_integer_beyond_the_digit_limit_is_not_an_extractor_failure() -> None:
    (call,) = _calls("qwen3_coder", _qwen("n", LONG))
    assert call.status == "invalid"
    assert call.arguments == {"n": LONG}
    assert any("integer" in e for e in call.errors), call.errors


@pytest.mark.parametrize(
    ("argument", "value", "repair"),
    [
        ("1e999", math.inf, "non_finite_number"),
        ("-1e999", -math.inf, "non_finite_number"),
        ("float('nan')", "float('nan')", "python_source"),
        ("nan", "nan", "python_source"),
        ("b'z'", "b'z'", "python_source"),
        ("{1, 2}", "{1, 2}", "python_source"),
        ("1j", "1j", "python_source"),
        ("a + b", "a + b", "python_source"),
        ("{'k': 1, 'k': 2}", {"k": 2}, "duplicate_key"),
        ("true", True, "json_constant"),
        (LONG, LONG, "long_integer"),
    ],
)
def test_F30_pythonic_values_without_json_form_are_named(
    argument: str, value: Any, repair: str
) -> None:
    (call,) = _calls("pythonic", f"[f(x={argument})]")
    assert call.status == "repaired", call
    assert call.arguments == {"x": value}
    assert repair in call.repairs


def test_pythonic_literals_with_json_forms_stay_complete() -> None:
    (call,) = _calls("pythonic", "[f(x=[1, -2.5, 'a', None, True, (3, 4), {'k': {}}])]")
    assert call.status == "complete", call
    assert call.arguments == {"x": [1, -2.5, "a", None, True, [3, 4], {"k": {}}]}


def test_pythonic_integer_beyond_64_bits_is_complete() -> None:
    (call,) = _calls("pythonic", "[f(n=-99999999999999999999999)]")
    assert (call.status, call.arguments) == ("complete", {"n": -99999999999999999999999})


# -- toolwire repair on cut-off input ------------------------------------------------


def test_F1_cli_repair_of_cut_off_input_says_so_and_exits_3() -> None:
    out = runner.invoke(app, ["repair", "-"], input='{"a": "x')
    assert out.exit_code == 3
    assert json.loads(out.stdout) == {"a": "x"}
    assert len(out.stderr.strip().splitlines()) == 1 and "cut off" in out.stderr
    detailed = runner.invoke(app, ["repair", "--json", "-"], input='{"a": "x')
    assert detailed.exit_code == 3
    assert json.loads(detailed.stdout)["status"] == "truncated"


def test_cli_repair_exit_codes_stay_0_and_1() -> None:
    assert runner.invoke(app, ["repair", "[1, 2,]"]).exit_code == 0
    assert runner.invoke(app, ["repair", ""]).exit_code == 1
