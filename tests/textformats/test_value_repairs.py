"""Schema-typed (XML-style) families: reading a parameter's text as a value names what
it changed, and the call says so (``repaired``, never ``complete``): issues 10/11, F30.

Each family writes every value as text; an object or array parameter, or one of any
type, is read as JSON. ``1e999`` is named like NaN (``non_finite_number``), a repeated
key (``duplicate_key``), an integer past Python's digit limit kept as its digits
(``long_integer``), a nonzero number read as 0.0 (``float_underflow``); an integer
beyond 64 bits is kept exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from toolwire.events import StreamResult
from toolwire.parser import StreamParser

LONG = "9" * 5000  # beyond Python's default int/str digit limit (4,300)

TOOLS: list[dict[str, Any]] = [
    {
        "name": "f",
        "parameters": {
            "type": "object",
            "properties": {
                "o": {"type": "object"},
                "a": {"type": "array"},
                "x": {},  # any type
                "n": {"type": "number"},
                "i": {"type": "integer"},
            },
        },
    }
]


def _qwen(key: str, value: str) -> str:
    return (
        f"<tool_call>\n<function=f>\n<parameter={key}>\n{value}\n</parameter>\n"
        "</function>\n</tool_call>"
    )


def _seed(key: str, value: str) -> str:
    return (
        f"<seed:tool_call>\n<function=f>\n<parameter={key}>\n{value}\n</parameter>\n"
        "</function>\n</seed:tool_call>"
    )


def _glm45(key: str, value: str) -> str:
    return f"<tool_call>f\n<arg_key>{key}</arg_key>\n<arg_value>{value}</arg_value>\n</tool_call>"


def _glm47(key: str, value: str) -> str:
    return f"<tool_call>f<arg_key>{key}</arg_key><arg_value>{value}</arg_value></tool_call>"


def _minimax(key: str, value: str) -> str:
    return (
        f'<minimax:tool_call>\n<invoke name="f">\n<parameter name="{key}">{value}</parameter>\n'
        "</invoke>\n</minimax:tool_call>"
    )


def _dsml(key: str, value: str) -> str:
    return (
        f'<｜DSML｜function_calls>\n<｜DSML｜invoke name="f">\n<｜DSML｜parameter name="{key}" '
        f'string="false">{value}</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'
    )


def _step3(key: str, value: str) -> str:
    return (
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
        f'<steptml:parameter name="{key}">{value}</steptml:parameter></steptml:invoke>'
        "<｜tool_call_end｜><｜tool_calls_end｜>"
    )


def _agent(key: str, value: str) -> str:
    return f'<invoke name="f">\n<parameter name="{key}">{value}</parameter>\n</invoke>'


FAMILIES: dict[str, Callable[[str, str], str]] = {
    "qwen3_coder": _qwen,
    "seed_oss": _seed,
    "glm45": _glm45,
    "glm47": _glm47,
    "minimax_m2": _minimax,
    "deepseek_dsml": _dsml,
    "step3": _step3,
    "agent": _agent,
}


def _call(family: str, key: str, value: str, tools: list[dict[str, Any]] = TOOLS) -> Any:
    parser = StreamParser(f"text:{family}", tools)
    result = StreamResult.collect(
        [*parser.feed(FAMILIES[family](key, value).encode()), *parser.close()]
    )
    assert not result.errors, result.errors
    (call,) = result.calls
    return call


CHANGED = [
    ("o", '{"a": 1e999}', {"o": {"a": math.inf}}, "non_finite_number"),
    ("a", "[-1e999]", {"a": [-math.inf]}, "non_finite_number"),
    ("o", '{"a": 1, "a": 2}', {"o": {"a": 2}}, "duplicate_key"),
    ("x", '{"a": 1, "a": 2}', {"x": {"a": 2}}, "duplicate_key"),
    ("o", '{"a": ' + LONG + "}", {"o": {"a": LONG}}, "long_integer"),
    ("o", '{"a": 1e-999}', {"o": {"a": 0.0}}, "float_underflow"),
    ("x", "[1e-999]", {"x": [0.0]}, "float_underflow"),
    ("n", "1e-999", {"n": 0.0}, "float_underflow"),
    ("o", "{'a': (1, 2)}", {"o": {"a": [1, 2]}}, "python_literal"),
]


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize(("key", "text", "arguments", "repair"), CHANGED)
def test_F30_a_value_changed_in_reading_is_named(
    family: str, key: str, text: str, arguments: Any, repair: str
) -> None:
    call = _call(family, key, text)
    assert call.arguments == arguments
    assert call.status == "repaired", call
    assert repair in call.repairs


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_values_read_exactly_stay_complete(family: str) -> None:
    big = "-123456789012345678901234567890"  # beyond 64 bits: kept exactly, not a float
    for key, text, value in [
        ("x", big, int(big)),
        ("o", '{"id": ' + big + ', "f": 1.5}', {"id": int(big), "f": 1.5}),
        ("x", '{"a": 0.0, "b": 1e-300}', {"a": 0.0, "b": 1e-300}),
        ("i", "12345678901234567890.0", 12345678901234567890),  # not via a double
        ("i", "1.5e30", 1500000000000000000000000000000),
        ("x", '{"a": 1e999}', '{"a": 1e999}'),  # not JSON a double holds: kept as text
    ]:
        call = _call(family, key, text)
        assert call.arguments == {key: value}, (key, text)
        assert type(call.arguments[key]) is type(value)
        assert call.status == "complete", (text, call)


@pytest.mark.parametrize("family", ["minimax_m2", "deepseek_dsml", "step3"])
def test_F30_a_value_without_a_schema_is_read_by_strict_json_with_its_changes_named(
    family: str,
) -> None:
    # no tools declared: DSML's string="false" values are JSON; the others stay text
    call = _call(family, "x", '{"a": 1, "a": 2}', tools=[])
    if family == "deepseek_dsml":
        assert (call.status, call.arguments) == ("repaired", {"x": {"a": 2}})
        assert call.repairs == ("duplicate_key",)
        big = _call(family, "x", "123456789012345678901234567890", tools=[])
        assert big.arguments == {"x": 123456789012345678901234567890}
    else:
        assert (call.status, call.arguments) == ("complete", {"x": '{"a": 1, "a": 2}'})


def test_agent_use_and_sparkle_forms_name_changes_too() -> None:
    for text in ['<use f x=\'{"a": 1, "a": 2}\'>', '✨ tool_call: f for x \'{"a": 1, "a": 2}\'']:
        parser = StreamParser("text:agent", TOOLS)
        result = StreamResult.collect([*parser.feed(text.encode()), *parser.close()])
        (call,) = result.calls
        assert (call.status, call.arguments) == ("repaired", {"x": {"a": 2}}), text
        assert call.repairs == ("duplicate_key",)


def test_functiongemma_repeated_keys_and_changed_numbers_are_named() -> None:
    repeated = "<start_function_call>call:f{x:1,x:2}<end_function_call>"
    parser = StreamParser("text:functiongemma", TOOLS)
    (call,) = StreamResult.collect([*parser.feed(repeated.encode()), *parser.close()]).calls
    assert (call.status, call.arguments, call.repairs) == ("repaired", {"x": 2}, ("duplicate_key",))
    tiny = (
        "<start_function_call>call:f{x:1e-999,i:123456789012345678901234567890}<end_function_call>"
    )
    parser = StreamParser("text:functiongemma", TOOLS)
    (call,) = StreamResult.collect([*parser.feed(tiny.encode()), *parser.close()]).calls
    assert call.arguments == {"x": 0.0, "i": 123456789012345678901234567890}
    assert (call.status, call.repairs) == ("repaired", ("float_underflow",))


CUT_IN_A_SECOND_PARAMETER = {
    "qwen3_coder": '<tool_call>\n<function=f>\n<parameter=o>\n{"a": 1, "a": 2}\n</parameter>\n'
    "<parameter=x>\n12",
    "glm45": '<tool_call>f\n<arg_key>o</arg_key>\n<arg_value>{"a": 1, "a": 2}</arg_value>\n'
    "<arg_key>x</arg_key>\n<arg_value>12",
    "minimax_m2": '<minimax:tool_call>\n<invoke name="f">\n<parameter name="o">{"a": 1, "a": 2}'
    '</parameter>\n<parameter name="x">12',
}


@pytest.mark.parametrize("family", sorted(CUT_IN_A_SECOND_PARAMETER))
def test_F1_a_cut_off_call_names_what_reading_its_whole_parameters_changed(family: str) -> None:
    parser = StreamParser(f"text:{family}", TOOLS)
    text = CUT_IN_A_SECOND_PARAMETER[family]
    (call,) = StreamResult.collect([*parser.feed(text.encode()), *parser.close()]).calls
    assert call.status == "truncated"
    assert call.partial_arguments == {"o": {"a": 2}}
    assert "duplicate_key" in call.repairs
