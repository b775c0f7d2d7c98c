"""RepairResult writes its own ``__init__`` (a cheaper build, see
``toolwire.repair.result``), as ToolCall does: it must behave as the frozen slots
dataclass the generated one made. The reference is the class as declared before
(``tests/test_toolcall.reference``); every behaviour a caller can see is compared."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
import sys
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.repair import RepairResult

from .test_toolcall import raised, reference

Reference = reference(RepairResult)
FIELDS = [f.name for f in dataclasses.fields(Reference)]

_TEXT = st.text(max_size=8)
_RESULTS = st.tuples(
    st.none() | st.integers() | _TEXT | st.dictionaries(_TEXT, st.integers(), max_size=3),
    st.booleans(),
    st.lists(_TEXT, max_size=2).map(tuple),
    st.booleans(),
    st.none() | _TEXT,
)


def _parameters(cls: type) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default) for p in inspect.signature(cls).parameters.values()]


def test_the_same_fields_and_signature() -> None:
    """The written-out __init__ takes what the generated one took (a field added to
    the class and not to __init__ fails here); still frozen slots, of the same size."""
    assert _parameters(RepairResult) == _parameters(Reference)
    assert [f.default_factory for f in dataclasses.fields(RepairResult)] == [
        dataclasses.MISSING
    ] * len(FIELDS)  # the __init__ knows no factory
    assert RepairResult.__match_args__ == Reference.__match_args__
    assert RepairResult.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert RepairResult.__slots__ == Reference.__slots__
    result, ref = RepairResult({"a": 1}, True, (), False), Reference({"a": 1}, True, (), False)
    with pytest.raises(TypeError):
        vars(result)
    assert sys.getsizeof(result) == sys.getsizeof(ref)
    assert result.__getstate__() == ref.__getstate__()


@given(_RESULTS, st.integers(4, 5))
def test_behaves_as_the_frozen_dataclass(values: tuple[Any, ...], given_: int) -> None:
    result, ref = RepairResult(*values[:given_]), Reference(*values[:given_])
    assert dataclasses.astuple(result) == dataclasses.astuple(ref)
    assert result == RepairResult(**dict(zip(FIELDS, values[:given_], strict=False)))
    assert repr(result) == repr(ref).replace("Reference(", "RepairResult(", 1)
    assert dataclasses.asdict(result) == dataclasses.asdict(ref)
    assert result != cast(object, ref)  # equality is within the class
    assert not result != RepairResult(*values[:given_])  # noqa: SIM202 - __ne__ too
    try:
        expected = hash(ref)
    except TypeError:  # a dict value: unhashable, as before
        with pytest.raises(TypeError):
            hash(result)
    else:
        assert hash(result) == expected
    for other in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
        assert type(other) is RepairResult and other == result
    for name, value in zip(FIELDS, values[::-1], strict=True):
        changed = dataclasses.replace(result, **{name: value})
        assert dataclasses.astuple(changed) == dataclasses.astuple(
            dataclasses.replace(ref, **{name: value})
        )
        assert type(changed) is RepairResult


def test_frozen() -> None:
    result, ref = RepairResult(1, True, (), False), Reference(1, True, (), False)
    for name in (*FIELDS, "other"):
        for action, args in ((setattr, (name, None)), (delattr, (name,))):
            expected = raised(action, ref, *args)
            assert expected is not None
            assert raised(action, result, *args) is expected
    for name in FIELDS:
        assert raised(setattr, result, name, None) is dataclasses.FrozenInstanceError
    assert result == RepairResult(1, True, (), False, None)
    with pytest.raises(TypeError):
        RepairResult(1, True, ())  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        RepairResult(1, True, (), False, None, other=1)  # type: ignore[call-arg]
