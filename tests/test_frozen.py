"""fast_constructor: the same frozen dataclass instances as the class's own constructor."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field

import pytest

from toolwire.audit.record import ExecutionRecord
from toolwire.engine.results import ToolResult
from toolwire.frozen import Draft, fast_constructor


@dataclass(frozen=True, slots=True)
class Point:
    x: int
    y: int = 0
    tags: list[str] = field(default_factory=list)
    label: str = field(default="", kw_only=True)


def test_builds_an_equal_frozen_instance_of_the_class() -> None:
    new = fast_constructor(Point)
    p = new(1, 2, ["a"], label="p")
    assert type(p) is Point
    assert p == Point(1, 2, ["a"], label="p")
    assert repr(p) == repr(Point(1, 2, ["a"], label="p"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(p)) == p
    assert dataclasses.replace(p, y=5) == Point(1, 5, ["a"], label="p")


def test_defaults_and_factories_are_those_of_the_class() -> None:
    new = fast_constructor(Point)
    a, b = new(1), new(1)
    assert a == Point(1)
    assert a.tags == [] and a.tags is not b.tags
    with pytest.raises(TypeError):
        new()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        new(1, bogus=2)  # type: ignore[call-arg]


def test_engine_types_round_trip() -> None:
    fields = {
        "record_id": "rec_1",
        "call_id": "c",
        "tool_name": "t",
        "status": "ok",
        "started_at": 1.0,
        "duration_ms": 2.0,
        "executor": "async",
        "repairs": ("r",),
        "extra": {"k": 1},
    }
    record = fast_constructor(ExecutionRecord)(**fields)  # type: ignore[arg-type]
    assert record == ExecutionRecord(**fields)  # type: ignore[arg-type]
    assert record.to_dict() == ExecutionRecord(**fields).to_dict()  # type: ignore[arg-type]
    result = fast_constructor(ToolResult)("c", "t", "ok", "", None, record)
    assert result == ToolResult("c", "t", "ok", "", None, record)


def test_refuses_classes_it_cannot_mirror() -> None:
    @dataclass(slots=True)
    class Open:
        x: int

    @dataclass(frozen=True)
    class NoSlots:
        x: int

    @dataclass(frozen=True, slots=True)
    class Checked:
        x: int

        def __post_init__(self) -> None:
            assert self.x >= 0

    for cls in (Open, NoSlots, Checked, int):
        with pytest.raises(TypeError):
            fast_constructor(cls)


def test_refuses_fields_it_would_not_mirror() -> None:
    @dataclass(frozen=True, slots=True)
    class WithInitVar:
        x: int
        scale: dataclasses.InitVar[int] = 1

    with pytest.raises(TypeError):
        fast_constructor(WithInitVar)


def test_fields_left_out_of_init_keep_their_defaults() -> None:
    @dataclass(frozen=True, slots=True)
    class Counted:
        x: int
        seen: int = field(default=0, init=False)

    c = fast_constructor(Counted)(3)
    assert c == Counted(3) and c.seen == 0


def test_a_draft_filled_field_by_field_seals_into_a_frozen_instance() -> None:
    draft = Draft(Point)
    d = draft.new()
    d.x, d.y, d.tags, d.label = 1, 2, ["a"], "p"
    p = draft.seal(d)
    assert type(p) is Point and p == Point(1, 2, ["a"], label="p")
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.y = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        draft.seal(p)  # already sealed
    with pytest.raises(AttributeError):
        d2 = draft.new()
        d2.z = 1  # not a field


def test_a_field_left_out_of_a_draft_is_noticed_when_read() -> None:
    draft = Draft(Point)
    d = draft.new()
    d.x = 1
    p = draft.seal(d)
    with pytest.raises(AttributeError):
        _ = p.y
