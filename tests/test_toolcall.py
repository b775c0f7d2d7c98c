"""ToolCall writes its own ``__init__`` (a cheaper build, see ``toolwire.events``): it
must behave as the frozen dataclass the generated one made. The reference below is
ToolCall as it was declared before, a frozen slots dataclass of the same fields with
the generated ``__init__``; every behaviour a caller can see is compared with it."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.events import ToolCall

# ToolCall's fields, declared the way it was before: a frozen slots dataclass with the
# generated __init__
Reference = dataclasses.make_dataclass(
    "Reference",
    [
        (f.name, f.type, dataclasses.field(default=f.default))
        if f.default is not dataclasses.MISSING
        else (f.name, f.type)
        for f in dataclasses.fields(ToolCall)
    ],
    frozen=True,
    slots=True,
)

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
    call = ToolCall("c1", "f", {"a": 1}, '{"a": 1}', "complete")
    for name in (*FIELDS, "other"):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(call, name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(call, name)
    assert call == ToolCall("c1", "f", {"a": 1}, '{"a": 1}', "complete", (), (), None, None, 0)


def test_too_few_or_unknown_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        ToolCall("c1", "f", None, "")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ToolCall("c1", "f", None, "", "complete", other=1)  # type: ignore[call-arg]
