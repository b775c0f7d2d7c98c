"""The finisher: statuses, repairs, coercion and validation errors a model can act on."""

from __future__ import annotations

import pytest

from toolwire.finish import CallFinisher
from toolwire.spec import ToolSpec, load_tool_specs

READ = ToolSpec(
    "read_file",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "offset": {"type": "integer"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)
F = CallFinisher([READ])


def test_complete_call() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments='{"path": "a"}')
    assert (call.status, call.arguments, call.repairs, call.errors) == (
        "complete",
        {"path": "a"},
        (),
        (),
    )


def test_missing_required_argument_is_invalid_with_a_clear_error() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments='{"offset": 1}')
    assert call.status == "invalid"
    assert call.errors == ("missing required argument: 'path'",)
    assert call.arguments == {"offset": 1}  # kept, so the engine can show the model


def test_unexpected_argument_is_named() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments='{"path": "a", "mode": "r"}')
    assert call.status == "invalid"
    assert "mode" in call.errors[0]


def test_unreadable_arguments_are_invalid_and_kept_raw() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments="<<<not json at all>>>")
    assert call.status == "invalid"
    assert call.arguments is None
    assert call.raw_arguments == "<<<not json at all>>>"


def test_truncated_call_is_never_final_F1() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments='{"path": "a"}', truncated=True)
    assert call.status == "truncated"
    assert call.arguments is None
    assert call.partial_arguments == {"path": "a"}


def test_non_object_arguments_are_invalid() -> None:
    call = F.finish(id="c", name="read_file", raw_arguments="[1, 2]")
    assert call.status == "invalid"
    assert "JSON object" in call.errors[-1]


def test_without_declared_tools_names_are_kept_and_not_validated() -> None:
    call = CallFinisher().finish(id=None, name="anything", raw_arguments='{"x": 1}')
    assert (call.name, call.status) == ("anything", "complete")


def test_name_normalization_is_a_recorded_repair_F18() -> None:
    call = F.finish(id="c", name="functions.read_file:0", raw_arguments='{"path": "a"}')
    assert (call.name, call.status, call.name_as_sent) == (
        "read_file",
        "repaired",
        "functions.read_file:0",
    )


def test_tool_spec_shapes() -> None:
    specs = load_tool_specs(
        [
            {"name": "a", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "b", "description": "B"}},
            {"name": "c", "input_schema": {"type": "object", "properties": {}}},
        ]
    )
    assert [s.name for s in specs] == ["a", "b", "c"]
    assert specs[1].description == "B"
    assert specs[1].parameters == {"type": "object", "properties": {}}


def test_invalid_tool_schema_is_reported_not_raised() -> None:
    broken = CallFinisher([ToolSpec("t", {"type": "no-such-type"})])
    call = broken.finish(id=None, name="t", raw_arguments="{}")
    assert call.status == "invalid"
    assert "schema" in call.errors[0]


def test_validators_are_shared_between_finishers_for_the_same_schema() -> None:
    a = CallFinisher([ToolSpec("t", {"type": "object", "properties": {"x": {"type": "string"}}})])
    b = CallFinisher([ToolSpec("t", {"properties": {"x": {"type": "string"}}, "type": "object"})])
    c = CallFinisher([ToolSpec("t", {"type": "object", "properties": {"x": {"type": "integer"}}})])
    assert a.validator("t") is b.validator("t")
    assert a.validator("t") is not c.validator("t")


def test_a_schema_changed_in_place_gets_the_validator_of_what_it_says_now() -> None:
    """Validators are shared by the schema's content: a schema changed in place since
    (deep inside too) must not get the validator of what it said."""
    schema: dict[str, object] = {"type": "object", "properties": {"x": {"type": "string"}}}
    spec = ToolSpec("t", schema)
    before = CallFinisher([spec])
    assert before.finish(id=None, name="t", raw_arguments='{"x": "a"}').status == "complete"
    assert CallFinisher([spec]).validator("t") is before.validator("t")  # found again
    schema["properties"]["x"]["type"] = "integer"  # type: ignore[index]
    after = CallFinisher([spec])
    assert after.validator("t") is not before.validator("t")
    call = after.finish(id=None, name="t", raw_arguments='{"x": "a"}')
    assert call.status == "invalid"
    assert after.validator("t") is CallFinisher([ToolSpec("t", dict(schema))]).validator("t")


def test_a_value_changed_in_place_to_an_equal_one_of_another_type_is_seen() -> None:
    """Validators are found by the schema's JSON, which tells ``true`` from ``1``
    (equal in Python): a ``const`` changed in place from 1 to True is a new schema."""
    schema: dict[str, object] = {"type": "object", "properties": {"x": {"const": 1}}}
    spec = ToolSpec("t", schema)
    assert CallFinisher([spec]).finish(id=None, name="t", raw_arguments='{"x": 1}').status == (
        "complete"
    )
    schema["properties"]["x"]["const"] = True  # type: ignore[index]
    after = CallFinisher([spec])
    assert after.finish(id=None, name="t", raw_arguments='{"x": 1}').status == "invalid"
    assert after.finish(id=None, name="t", raw_arguments='{"x": true}').status == "complete"


def test_a_schema_met_in_another_key_order_first_shares_its_validator() -> None:
    """Found as written first, then by sorted keys: the order a schema's keys come in
    never makes a second validator, whichever order came first."""
    first = CallFinisher([ToolSpec("t", {"properties": {"y": {}}, "type": "object"})])
    again = CallFinisher([ToolSpec("t", {"properties": {"y": {}}, "type": "object"})])
    other = CallFinisher([ToolSpec("t", {"type": "object", "properties": {"y": {}}})])
    assert first.validator("t") is again.validator("t") is other.validator("t")


def test_a_schema_changed_in_place_does_not_change_the_validator_others_share() -> None:
    """A validator holds its own copy of the schema: one caller changing its schema
    in place later must not change what another schema of the old content accepts."""
    first: dict[str, object] = {
        "type": "object",
        "properties": {"x": {"enum": [1]}},
        "required": ["x"],
    }
    assert (
        CallFinisher([ToolSpec("t", first)])
        .finish(id=None, name="t", raw_arguments='{"x": 1}')
        .status
        == "complete"
    )
    first["properties"]["x"]["enum"] = ["a"]  # type: ignore[index]
    second = {"type": "object", "properties": {"x": {"enum": [1]}}, "required": ["x"]}
    call = CallFinisher([ToolSpec("t", second)]).finish(id=None, name="t", raw_arguments='{"x": 1}')
    assert call.status == "complete", call.errors


def test_accepts_as_sent_only_when_finish_would_return_the_object_unchanged() -> None:
    cases: list[tuple[str, object]] = [
        ("read_file", {"path": "a"}),  # fits
        ("read_file", {"path": "a", "offset": "3"}),  # needs coercion
        ("read_file", {"offset": 1}),  # missing required
        ("read_file", {"arguments": {"path": "a"}}),  # a wrapper to unwrap (F25)
        ("read_file", ["a"]),  # not an object
        ("Read_File", {"path": "a"}),  # a name that needs resolving
        ("other", {"path": "a"}),  # unknown tool
    ]
    for name, value in cases:
        call = F.finish(id="c", name=name, raw_arguments="", value=value)
        unchanged = call.status == "complete" and call.arguments is value and call.name == name
        assert F.accepts_as_sent(name, value) is unchanged, (name, value)
    assert F.accepts_as_sent("read_file", {"path": "a"})


def test_arguments_the_decoder_could_not_read_are_invalid_not_truncated() -> None:
    """A Python call with a syntax error is not JSON: the JSON ladder would take its
    open quote for a cut-off; the decoder's verdict stands and the text is kept."""
    raw = "read_file(path='it's')"
    call = F.finish(id=None, name="read_file", raw_arguments=raw, unreadable="not Python")
    assert (call.status, call.arguments, call.raw_arguments, call.repairs) == (
        "invalid",
        None,
        raw,
        (),
    )
    assert "not Python" in call.errors


def test_validators_evicted_by_threads_at_once_raise_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two threads finding the cache full took the same oldest validator out, and the
    second failed (KeyError; review of 2026-12-05): a valid call came out invalid."""
    import sys
    import threading

    from toolwire import finish

    monkeypatch.setattr(finish, "_SHARED_MAX", 4)
    monkeypatch.setattr(finish, "_SHARED", {})
    monkeypatch.setattr(finish, "_AS_WRITTEN", {})
    failures: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(300):
                schema = {"type": "object", "properties": {f"x{n}_{i}": {"type": "string"}}}
                finish.shared_validator(schema)
        except BaseException as exc:
            failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert failures == []
    assert len(finish._SHARED) <= 4 and len(finish._AS_WRITTEN) <= 4
