"""The fast fit check never says 'fits' where jsonschema says invalid."""

from __future__ import annotations

from typing import Any

import jsonschema
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.schemacheck import compile_check

SCHEMAS: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "path": {"type": "string", "minLength": 1},
            "offset": {"type": "integer", "minimum": 0},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
            "ratio": {"type": ["number", "null"], "maximum": 1},
            "flag": {"type": "boolean"},
            "nested": {
                "type": "object",
                "properties": {"k": {"type": "integer"}},
                "additionalProperties": False,
            },
        },
        "required": ["path"],
        "additionalProperties": {"type": "string"},
    },
    {"type": "object", "properties": {}, "additionalProperties": False},
    {"type": "object"},
]

VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "c", "F", "a.py", "x"]),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                ["path", "offset", "unit", "tags", "ratio", "flag", "nested", "k", "z"]
            ),
            inner,
            max_size=5,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(range(len(SCHEMAS))), VALUES)
def test_fits_implies_jsonschema_valid(which: int, value: Any) -> None:
    schema = SCHEMAS[which]
    check = compile_check(schema)
    assert check is not None
    if check(value):
        assert jsonschema.Draft202012Validator(schema).is_valid(value), value


def test_typical_valid_arguments_take_the_fast_path() -> None:
    check = compile_check(SCHEMAS[0])
    assert check is not None
    assert check({"path": "a.py", "offset": 3, "unit": "c", "tags": ["x"], "ratio": None})
    assert not check({"offset": 3})  # missing required
    assert not check({"path": "a", "unit": "C"})  # enum is exact
    assert not check({"path": "a", "offset": True})  # a bool is not an integer
    assert not check({"path": "a", "nested": {"k": 1, "other": 2}})


def test_schemas_outside_the_subset_are_not_compiled() -> None:
    assert compile_check({"type": "string", "pattern": "^a"}) is None
    assert compile_check({"anyOf": [{"type": "string"}]}) is None
    assert compile_check({"$ref": "#/$defs/x"}) is None
    assert compile_check({"enum": [1, True]}) is None
