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


# -- changes on the Python paths: named, or faithful -------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "repair"),
    [
        ("{1: 'a'}", {"1": "a"}, "non_string_key"),  # JSON keys are strings
        ("{-1: True}", {"-1": True}, "non_string_key"),
        ("{'a': 1e-999}", {"a": 0.0}, "float_underflow"),  # below a double: not 1e-999
        ("{'a': -1e-999}", {"a": -0.0}, "float_underflow"),
        ('{"a": 1e-999}', {"a": 0.0}, "float_underflow"),  # strict JSON reads it so too
        ('[2.4e-324, "x"]', [0.0, "x"], "float_underflow"),
        ('{"a": 0.' + "0" * 400 + "1}", {"a": 0.0}, "float_underflow"),
        ("{a: 1e-999}", {"a": 0.0}, "float_underflow"),  # the lenient parser
    ],
)
def test_F30_python_keys_and_numbers_below_a_double_are_named(
    text: str, expected: Any, repair: str
) -> None:
    result = repair_json(text)
    assert result.value == expected
    assert repair in result.repairs, result.repairs
    assert result.status == "repaired"


@pytest.mark.parametrize(
    "text", ['{"a": 0.0, "b": 0e-999, "c": -0.0}', '[5e-324, 1e-300, "1e-999"]']
)
def test_zeros_and_the_smallest_doubles_are_read_as_written(text: str) -> None:
    result = repair_json(text)
    assert (result.status, result.value) == ("complete", json.loads(text))


@pytest.mark.parametrize(
    ("argument", "value", "repair"),
    [
        ("{1: 'a'}", {"1": "a"}, "non_string_key"),
        ("1e-999", 0.0, "float_underflow"),
        ("-1e-999", -0.0, "float_underflow"),
        ("[1, 1e-999]", [1, 0.0], "float_underflow"),
    ],
)
def test_F30_pythonic_keys_and_numbers_below_a_double_are_named(
    argument: str, value: Any, repair: str
) -> None:
    (call,) = _calls("pythonic", f"[f(x={argument})]")
    assert (call.status, call.arguments) == ("repaired", {"x": value}), call
    assert repair in call.repairs


def test_tuples_are_arrays_alike_in_a_python_literal_and_a_pythonic_call() -> None:
    """A tuple is Python's other spelling of an ordered sequence: read as an array,
    items and order kept. Text that should have been JSON names the Python syntax;
    in a pythonic call Python is the format (see toolwire.repair.pyliteral)."""
    assert repair_json("{'a': (1, 2)}").repairs == ("python_literal",)
    (call,) = _calls("pythonic", "[f(x=(1, (2,)), o={'k': ()})]")
    assert (call.status, call.arguments) == ("complete", {"x": [1, [2]], "o": {"k": []}})


@pytest.mark.parametrize(
    ("text", "expected", "repairs"),
    [
        ("{'a': 1,}", {"a": 1}, ("python_literal", "trailing_comma")),
        ("['x', (1, 2,)]", ["x", [1, 2]], ("python_literal", "trailing_comma")),
        (
            "{'a': 1, # note\n'b': [],}",
            {"a": 1, "b": []},
            ("python_literal", "comment", "trailing_comma"),
        ),
        ("['#',  # note\n'b']", ["#", "b"], ("python_literal", "comment")),
        ("{'a': '\\x23', # note\n}", {"a": "#"}, ("python_literal", "comment", "trailing_comma")),
        ("{'a': (1,)}", {"a": [1]}, ("python_literal",)),  # a one-item tuple needs its comma
        ("{'a': '#', 'b': 'x, ]'}", {"a": "#", "b": "x, ]"}, ("python_literal",)),
        ("{'a': '#', 'b': 'C:\\\\Users'}", {"a": "#", "b": "C:\\Users"}, ("python_literal",)),
    ],
)
def test_python_literal_names_a_trailing_comma_or_comment_json_would_not_allow(
    text: str, expected: Any, repairs: tuple[str, ...]
) -> None:
    result = repair_json(text)
    assert (result.value, result.repairs) == (expected, repairs)


def test_pythonic_call_syntax_is_the_format_not_a_repair() -> None:
    (call,) = _calls("pythonic", "[f(x=[1, 2,],  # note\n  o={'k': 'v',},)]")
    assert (call.status, call.arguments) == ("complete", {"x": [1, 2], "o": {"k": "v"}})


# -- a fenced scalar ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```json\nnull\n```", None),
        ("```json\n42\n```", 42),
        ("```\ntrue\n```", True),
        ("```json\n-1.5e3\n```", -1500.0),
        ('```json\n"x"\n```', "x"),
        ("Here it is:\n```json\nfalse\n```\n", False),
    ],
)
def test_a_fenced_scalar_is_the_value_not_a_backtick_string(text: str, expected: Any) -> None:
    result = repair_json(text)
    assert result.ok and result.value == expected, result
    assert "code_fence" in result.repairs and "smart_quote" not in result.repairs


def test_a_fence_of_other_text_beside_a_fenced_scalar_is_not_the_value() -> None:
    result = repair_json("```bash\nls -l\n```\nand\n```json\n7\n```")
    assert (result.value, result.repairs) == (7, ("surrounding_text", "code_fence"))
