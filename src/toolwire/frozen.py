"""Frozen slots dataclasses built at the cost of plain attribute stores.

A frozen dataclass's ``__init__`` must go around its own ``__setattr__`` (which refuses
every store) and calls ``object.__setattr__`` once per field: several times the cost of
a plain store. For a record of ~30 fields built on every tool call that was the largest
single cost of a no-op call through the engine.

Both helpers fill in an instance of a twin class (the same fields and slots, not
frozen) and then make that instance a ``cls``: ``__class__`` assignment is allowed
between classes with identical slot layouts. From then on it is an ordinary, frozen
``cls`` instance. ``fast_constructor(cls)`` is a callable with ``cls``'s signature and
defaults; ``Draft(cls)`` is filled in field by field, for classes with so many fields
that matching keyword arguments to parameters becomes the larger cost.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any, Generic, ParamSpec, TypeVar, cast

P = ParamSpec("P")
T = TypeVar("T")


def fast_constructor(cls: Callable[P, T]) -> Callable[P, T]:
    """A cheaper ``cls(...)`` for a frozen slots dataclass without ``__post_init__``."""
    built: Callable[P, T] = _twin(cls)
    return built


class Draft(Generic[T]):
    """Builds instances of a frozen slots dataclass field by field, by name.

    ``new()`` gives an instance of the twin class with no field set; store every field
    (plain attribute stores, no defaults applied), then ``seal(draft)`` makes it a
    frozen ``cls``. A call with ~30 keyword arguments spends more on matching them to
    parameters than on storing them. The stores are not type checked and a field left
    out is only noticed when read: use it where tests read every field.
    """

    __slots__ = ("_cls", "_twin")

    def __init__(self, cls: type[T]) -> None:
        self._cls = cls
        self._twin = _twin(cls)

    def new(self) -> Any:
        return object.__new__(self._twin)

    def seal(self, draft: Any) -> T:
        if draft.__class__ is not self._twin:
            raise TypeError(f"not a draft of {self._cls.__name__}")
        object.__setattr__(draft, "__class__", self._cls)
        return cast(T, draft)


def _twin(cls: Any) -> type:
    if not isinstance(cls, type) or not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is not a dataclass")
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a frozen slots dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__ this constructor would skip")
    target: type = cls

    def seal(self: Any) -> None:
        object.__setattr__(self, "__class__", target)

    specs: list[tuple[str, Any, Any]] = []
    for f in dataclasses.fields(cls):
        spec = dataclasses.field(
            default=f.default, default_factory=f.default_factory, init=f.init, kw_only=f.kw_only
        )
        specs.append((f.name, f.type, spec))
    twin = dataclasses.make_dataclass(
        f"_{cls.__name__}Draft",
        specs,
        namespace={"__post_init__": seal},
        slots=True,
        eq=False,
        repr=False,
    )
    # Same slots in the same order (or __class__ assignment fails), and the same
    # parameters (an InitVar, say, would not be mirrored).
    if twin.__dict__["__slots__"] != cls.__dict__["__slots__"] or inspect.signature(
        twin
    ) != inspect.signature(cls):
        raise TypeError(f"cannot mirror {cls.__name__}")
    return twin
