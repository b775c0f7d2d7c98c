"""Schema coercion (F9, F11, F25, F26): by the schema only, never against it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.coerce import CoercionResult, coerce_arguments

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "offset": {"type": "integer"},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "zip": {"type": "string"},
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "done": {"type": "boolean"}},
            },
        },
        "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["offset"],
}


def coerce(value: Any, schema: dict[str, Any] = SCHEMA) -> CoercionResult:
    return coerce_arguments(value, schema)


@pytest.mark.parametrize(
    ("field", "given_value", "expected", "repair"),
    [
        ("offset", "42", 42, "coerce:offset:string->integer"),
        ("offset", " -7 ", -7, "coerce:offset:string->integer"),
        ("ratio", "3.5", 3.5, "coerce:ratio:string->number"),
        ("ratio", "2", 2, "coerce:ratio:string->number"),
        ("flag", "true", True, "coerce:flag:string->boolean"),
        ("flag", "False", False, "coerce:flag:string->boolean"),
        ("zip", 4, "4", "coerce:zip:integer->string"),
        ("zip", 2.5, "2.5", "coerce:zip:number->string"),
    ],
)
def test_F11_scalars_follow_the_schema(
    field: str, given_value: Any, expected: Any, repair: str
) -> None:
    result = coerce({field: given_value})
    assert result.value == {field: expected}
    assert type(result.value[field]) is type(expected)
    assert result.repairs == (repair,)


def test_F11_string_parameter_keeps_leading_zeros() -> None:
    result = coerce({"zip": "02134", "offset": 1})
    assert result.value == {"zip": "02134", "offset": 1}
    assert result.repairs == ()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("offset", "abc"),
        ("offset", "4.5"),
        ("flag", "yes"),
        ("zip", float("inf")),
        ("ratio", "NaN"),
        ("zip", True),
    ],
)
def test_F11_values_that_do_not_convert_stay(field: str, value: Any) -> None:
    result = coerce({field: value})
    assert result.value[field] is value
    assert result.repairs == ()


def test_F26_stringified_array_of_objects_is_decoded_and_typed() -> None:
    result = coerce({"offset": 0, "todos": '[{"id": "1", "done": "false"}]'})
    assert result.value["todos"] == [{"id": 1, "done": False}]
    assert result.repairs == (
        "decode:todos:string->array",
        "coerce:todos[0].id:string->integer",
        "coerce:todos[0].done:string->boolean",
    )


def test_F9_nested_double_encoded_object() -> None:
    result = coerce({"offset": 0, "opts": '{"depth": "3"}'})
    assert result.value["opts"] == {"depth": 3}
    assert "decode:opts:string->object" in result.repairs


def test_F9_top_level_string_decoded_when_schema_says_object() -> None:
    assert coerce('{"offset": "5"}').value == {"offset": 5}


def test_scalar_wrapped_when_schema_says_array() -> None:
    result = coerce({"offset": 0, "tags": "urgent"})
    assert result.value["tags"] == ["urgent"]
    assert result.repairs == ("wrap:tags:string->array",)


def test_enum_case_folding() -> None:
    result = coerce({"offset": 0, "unit": "Celsius"})
    assert result.value["unit"] == "celsius"
    assert result.repairs == ("enum_case:unit",)
    ambiguous = {"type": "string", "enum": ["A", "a"]}
    assert coerce("x", ambiguous).value == "x"
    assert coerce({"u": "b"}, {"properties": {"u": {"enum": ["A", "B", "b"]}}}).repairs == ()


@pytest.mark.parametrize("wrapper", ["arguments", "input", "parameters", "args", "params"])
def test_F25_wrapped_arguments_are_unwrapped(wrapper: str) -> None:
    result = coerce({wrapper: {"offset": "3", "zip": "02134"}})
    assert result.value == {"offset": 3, "zip": "02134"}
    assert result.repairs[0] == f"unwrap:{wrapper}"


def test_F25_wrapper_as_json_string_is_unwrapped() -> None:
    assert coerce({"arguments": '{"offset": 3}'}).value == {"offset": 3}


def test_F25_not_unwrapped_when_schema_has_the_key_or_keys_differ() -> None:
    schema = {"type": "object", "properties": {"input": {"type": "object"}}}
    assert coerce({"input": {"a": 1}}, schema).value == {"input": {"a": 1}}
    assert coerce({"input": {"other": 1}}).value == {"input": {"other": 1}}


def test_anyof_nullable_and_type_lists() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "b": {"type": ["integer", "null"]},
            "c": {"type": "integer", "nullable": True},
            "d": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        },
    }
    result = coerce({"a": "5", "b": "6", "c": None, "d": "7"}, schema)
    assert result.value == {"a": 5, "b": 6, "c": None, "d": "7"}  # "7" fits string: kept


def test_refs_to_local_definitions() -> None:
    schema = {
        "type": "object",
        "properties": {"item": {"$ref": "#/$defs/Item"}, "old": {"$ref": "#/definitions/Old"}},
        "$defs": {"Item": {"type": "object", "properties": {"n": {"type": "integer"}}}},
        "definitions": {"Old": {"type": "boolean"}},
    }
    result = coerce({"item": {"n": "2"}, "old": "true"}, schema)
    assert result.value == {"item": {"n": 2}, "old": True}


def test_additional_properties_and_unknown_keys_kept() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert coerce({"x": "1", "y": 2}, schema).value == {"x": 1, "y": 2}
    assert coerce({"offset": 1, "extra": "kept"}).value == {"offset": 1, "extra": "kept"}


def test_no_defaults_filled() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "x"}}}
    assert coerce({}, schema).value == {}


def test_circular_and_bad_refs_do_not_raise() -> None:
    loop = {"$ref": "#/$defs/A", "$defs": {"A": {"$ref": "#/$defs/A"}}}
    assert coerce({"a": 1}, loop).value == {"a": 1}
    missing = {"properties": {"a": {"$ref": "#/$defs/Nope"}}}
    result = coerce({"a": 1}, missing)
    assert result.value == {"a": 1} and result.errors


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
        max_leaves=10,
    )
)
def test_never_raises(value: Any) -> None:
    assert isinstance(coerce(value), CoercionResult)
    assert isinstance(coerce(value, {"anyOf": [{"type": "integer"}, SCHEMA]}), CoercionResult)
