"""``@tool``: schema from hints and docstrings; sync/async; typed arguments."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Literal

import anyio
import pytest
from pydantic import Field

from toolwire.tools import ArgumentsRejected, ToolDefinitionError, tool
from toolwire.tools.docstrings import parse_docstring


class Color(Enum):
    RED = "red"
    BLUE = "blue"


def test_schema_from_hints_and_google_docstring() -> None:
    @tool
    def paint(wall: str, color: Color, coats: int = 2, note: str | None = None) -> str:
        """Paint a wall.

        Longer text.

        Args:
            wall: Which wall.
            color: The color,
                on two lines.
            coats: How many coats.
        """
        return wall

    schema = paint.spec.parameters
    assert paint.name == "paint"
    assert paint.spec.description == "Paint a wall.\n\nLonger text."
    assert schema["required"] == ["wall", "color"]
    assert schema["properties"]["wall"] == {"type": "string", "description": "Which wall."}
    assert schema["properties"]["coats"]["default"] == 2
    assert schema["properties"]["color"]["description"] == "The color, on two lines."
    assert schema["additionalProperties"] is False
    assert paint.executor == "thread"


def test_sphinx_and_numpy_docstrings() -> None:
    sphinx = parse_docstring("Do it.\n\n:param x: the x\n:param int y: the y\n:returns: z")
    assert sphinx.summary == "Do it." and sphinx.params == {"x": "the x", "y": "the y"}
    numpy = parse_docstring("Do it.\n\nParameters\n----------\nx : int\n    the x\n")
    assert numpy.params == {"x": "the x"}


def test_options_and_annotated_constraints() -> None:
    @tool(name="pick", description="Choose.", timeout=3, max_concurrency=2)
    async def choose(
        mode: Literal["a", "b"], n: Annotated[int, Field(ge=1, le=5)] = 1
    ) -> list[str]:
        return [mode] * n

    props = choose.spec.parameters["properties"]
    assert choose.name == "pick" and choose.spec.description == "Choose."
    assert props["mode"]["enum"] == ["a", "b"]
    assert props["n"]["minimum"] == 1 and props["n"]["maximum"] == 5
    assert (choose.executor, choose.timeout, choose.max_concurrency) == ("async", 3, 2)
    assert anyio.run(choose.invoke, {"mode": "b", "n": 2}).value == ["b", "b"]


def test_bind_types_arguments_and_rejects_bad_ones() -> None:
    @tool
    def f(color: Color, n: int) -> str:
        return f"{color.name}{n}"

    assert anyio.run(f.invoke, {"color": "red", "n": 3}).value == "RED3"
    with pytest.raises(ArgumentsRejected) as info:
        f.bind({"color": "green", "n": 1})
    assert info.value.errors[0].startswith("color:")


def test_decorated_function_stays_callable() -> None:
    @tool
    def double(x: int) -> int:
        return 2 * x

    assert double(4) == 8


def test_functions_that_cannot_be_tools() -> None:
    with pytest.raises(ToolDefinitionError):

        @tool
        def star(*args: int) -> None: ...

    with pytest.raises(ToolDefinitionError):

        @tool(executor="async")
        def not_async() -> None: ...
