"""ToolCall and Usage write their own ``__init__`` (a cheaper build, see
``toolwire.events``): each must behave as the frozen dataclass the generated one made.
The reference of each is the class as it was declared before, a frozen slots dataclass
of the same fields with the generated ``__init__``; every behaviour a caller can see
is compared with it."""

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

from toolwire.events import ToolCall, Usage


def reference(cls: type) -> Any:
    """``cls``'s fields, declared the way it was before: a frozen slots dataclass with
    the generated __init__."""
    return dataclasses.make_dataclass(
        "Reference",
        [
            (f.name, f.type, dataclasses.field(default=f.default))
            if f.default is not dataclasses.MISSING
            else (f.name, f.type)
            for f in dataclasses.fields(cls)
        ],
        frozen=True,
        slots=True,
    )


Reference = reference(ToolCall)
UsageReference = reference(Usage)

FIELDS = [f.name for f in dataclasses.fields(Reference)]

_TEXT = st.text(max_size=8)
_CALLS = st.tuples(
    st.none() | _TEXT,
    _TEXT,
    st.none() | st.dictionaries(_TEXT, st.integers() | _TEXT, max_size=3),
    _TEXT,
    st.sampled_from(["complete", "repaired", "truncated", "invalid"]),
    st.lists(_TEXT, max_size=2).map(tuple),
    st.lists(_TEXT, max_size=2).map(tuple),
    st.none() | st.integers() | _TEXT,
    st.none() | _TEXT,
    st.integers(0, 5),
)


def test_the_same_fields_and_signature() -> None:
    """The written-out __init__ takes the fields in their order, with their defaults
    (a field added to the class and not to __init__ fails here)."""
    params = inspect.signature(ToolCall).parameters
    assert list(params) == FIELDS
    for f in dataclasses.fields(ToolCall):
        default = params[f.name].default
        assert default == (
            inspect.Parameter.empty if f.default is dataclasses.MISSING else f.default
        )
        assert f.default_factory is dataclasses.MISSING  # the __init__ knows no factory
    assert ToolCall.__match_args__ == tuple(FIELDS)
    assert dataclasses.is_dataclass(ToolCall)
    assert ToolCall.__dataclass_params__.frozen  # type: ignore[attr-defined]
    # still slots: no __dict__ for vars() to change, the reference's size, and a pickle
    # made by the reference's class loads (the state is the slots')
    assert ToolCall.__slots__ == Reference.__slots__ == tuple(FIELDS)
    call = ToolCall("c1", "f", {"a": 1}, '{"a": 1}', "complete")
    with pytest.raises(TypeError):
        vars(call)
    ref = Reference("c1", "f", {"a": 1}, '{"a": 1}', "complete")
    assert sys.getsizeof(call) == sys.getsizeof(ref)
    assert call.__getstate__() == ref.__getstate__()


@given(_CALLS)
def test_behaves_as_the_frozen_dataclass(values: tuple[Any, ...]) -> None:
    call, ref = ToolCall(*values), Reference(*values)
    by_keyword = ToolCall(**dict(zip(FIELDS, values, strict=True)))
    assert call == by_keyword
    assert repr(call) == repr(ref).replace("Reference(", "ToolCall(", 1)
    assert dataclasses.astuple(call) == dataclasses.astuple(ref)
    assert dataclasses.asdict(call) == dataclasses.asdict(ref)
    assert call != cast(object, ref)  # equality is within the class, as for any dataclass
    same = ToolCall(*values)
    assert call == same
    assert not call != same  # noqa: SIM202 - __ne__ too
    # hashing: of the fields' tuple, so a call holding a dict is unhashable, as before
    try:
        expected = hash(ref)
    except TypeError:
        with pytest.raises(TypeError):
            hash(call)
    else:
        assert hash(call) == expected
    for other in (pickle.loads(pickle.dumps(call)), copy.copy(call), copy.deepcopy(call)):
        assert type(other) is ToolCall and other == call


@given(_CALLS, _CALLS)
def test_replace(values: tuple[Any, ...], changes: tuple[Any, ...]) -> None:
    call = ToolCall(*values)
    for name, value in zip(FIELDS, changes, strict=True):
        changed = dataclasses.replace(call, **{name: value})
        expected = dataclasses.replace(Reference(*values), **{name: value})
        assert dataclasses.astuple(changed) == dataclasses.astuple(expected)
        assert type(changed) is ToolCall
    assert call == ToolCall(*values)  # replace made new calls


def test_frozen() -> None:
    """As ``test_usage_frozen``: FrozenInstanceError for a field, for another name the
    slots dataclass's own TypeError."""
    call = ToolCall("c1", "f", {"a": 1}, '{"a": 1}', "complete")
    ref = Reference("c1", "f", {"a": 1}, '{"a": 1}', "complete")
    for name in (*FIELDS, "other"):
        for action, args in ((setattr, (name, None)), (delattr, (name,))):
            expected = raised(action, ref, *args)
            assert expected is not None
            assert raised(action, call, *args) is expected
    for name in FIELDS:
        assert raised(setattr, call, name, None) is dataclasses.FrozenInstanceError
    assert call == ToolCall("c1", "f", {"a": 1}, '{"a": 1}', "complete", (), (), None, None, 0)


def test_too_few_or_unknown_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        ToolCall("c1", "f", None, "")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ToolCall("c1", "f", None, "", "complete", other=1)  # type: ignore[call-arg]


_COUNT = st.none() | st.integers(0, 10**9)
_USAGES = st.tuples(_COUNT, _COUNT, _COUNT, _COUNT, _COUNT)
USAGE_FIELDS = [f.name for f in dataclasses.fields(UsageReference)]


def test_usage_the_same_fields_and_signature() -> None:
    params = inspect.signature(Usage).parameters
    assert list(params) == USAGE_FIELDS
    for f in dataclasses.fields(Usage):
        assert params[f.name].default == f.default
        assert f.default_factory is dataclasses.MISSING
    assert Usage.__match_args__ == tuple(USAGE_FIELDS)
    assert Usage.__dataclass_params__.frozen  # type: ignore[attr-defined]
    # still slots: no __dict__ for vars() to change, the reference's size
    assert Usage.__slots__ == UsageReference.__slots__ == tuple(USAGE_FIELDS)
    usage = Usage(1, 2)
    with pytest.raises(TypeError):
        vars(usage)
    assert sys.getsizeof(usage) == sys.getsizeof(UsageReference(1, 2))


@given(_USAGES, st.integers(0, 5))
def test_usage_behaves_as_the_frozen_dataclass(values: tuple[Any, ...], given_: int) -> None:
    # the first ``given_`` counts positionally, the others left to their defaults
    usage, ref = Usage(*values[:given_]), UsageReference(*values[:given_])
    assert dataclasses.astuple(usage) == dataclasses.astuple(ref)
    usage, ref = Usage(*values), UsageReference(*values)
    assert usage == Usage(**dict(zip(USAGE_FIELDS, values, strict=True)))
    assert repr(usage) == repr(ref).replace("Reference(", "Usage(", 1)
    assert dataclasses.asdict(usage) == dataclasses.asdict(ref)
    assert usage != cast(object, ref)
    assert usage == Usage(*values) and not usage != Usage(*values)  # noqa: SIM202
    assert hash(usage) == hash(ref)
    for other in (pickle.loads(pickle.dumps(usage)), copy.copy(usage), copy.deepcopy(usage)):
        assert type(other) is Usage and other == usage
    for name, value in zip(USAGE_FIELDS, reversed(values), strict=True):
        changed = dataclasses.replace(usage, **{name: value})
        expected = dataclasses.replace(ref, **{name: value})
        assert type(changed) is Usage
        assert dataclasses.astuple(changed) == dataclasses.astuple(expected)
    assert dataclasses.astuple(usage) == values  # replace made new ones


def raised(action: Any, *args: Any) -> type[BaseException] | None:
    try:
        action(*args)
    except Exception as error:
        return type(error)
    return None


def test_usage_frozen() -> None:
    """Assignment and ``del`` raise what they raised (FrozenInstanceError for a field;
    for another name the slots dataclass's own TypeError)."""
    usage, ref = Usage(1, 2, 3, 4, 5), UsageReference(1, 2, 3, 4, 5)
    for name in (*USAGE_FIELDS, "other"):
        for action, args in ((setattr, (name, None)), (delattr, (name,))):
            expected = raised(action, ref, *args)
            assert expected is not None
            assert raised(action, usage, *args) is expected
    assert raised(setattr, usage, "input_tokens", 0) is dataclasses.FrozenInstanceError
    assert usage == Usage(1, 2, 3, 4, 5)
    with pytest.raises(TypeError):
        Usage(1, 2, 3, 4, 5, 6)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Usage(other=1)  # type: ignore[call-arg]
