"""Python functions as tools: ``@tool`` derives the JSON Schema from type hints and docstring."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, get_type_hints, overload

import anyio.to_thread
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from toolwire.spec import ToolSpec
from toolwire.tools.base import (
    ArgumentsRejected,
    Executor,
    ProgressFn,
    ToolExited,
    ToolHints,
    ToolOutput,
)
from toolwire.tools.docstrings import parse_docstring


class ToolDefinitionError(TypeError):
    """A function that cannot be turned into a tool (e.g. ``*args``)."""


@dataclass(frozen=True, slots=True)
class FunctionTool:
    """A typed Python function (sync or async) exposed as a tool."""

    fn: Callable[..., Any]
    spec: ToolSpec
    model: type[BaseModel]
    executor: Executor
    hints: ToolHints = field(default_factory=ToolHints)
    timeout: float | None = None
    max_concurrency: int | None = None
    origin: str = "function"
    plain: bool = False  # every parameter is a plain JSON scalar: see ``bind``

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def target(self) -> tuple[str, str]:
        """Module and qualified name, for re-importing the function in a child process."""
        return self.fn.__module__, self.fn.__qualname__

    def rename(self, name: str) -> FunctionTool:
        return replace(self, spec=replace(self.spec, name=name))

    def bind(self, arguments: Mapping[str, Any], *, validated: bool = False) -> dict[str, Any]:
        """Arguments as the function's own types (nested models, enums, dates…).

        ``validated`` says the arguments already passed this tool's JSON Schema; when
        every parameter is a plain ``str``/``int``/``float``/``bool``, the schema check
        said all there is to say and the pydantic pass is skipped.
        """
        if validated and self.plain:
            return dict(arguments)
        try:
            typed = self.model.model_validate(arguments)
        except ValidationError as exc:
            raise ArgumentsRejected(_messages(exc)) from None
        return {name: getattr(typed, name) for name in type(typed).model_fields}

    async def invoke(
        self,
        arguments: dict[str, Any],
        *,
        progress: ProgressFn | None = None,
        validated: bool = False,
    ) -> ToolOutput:
        kwargs = self.bind(arguments, validated=validated)
        if self.executor == "async":
            value = await self.fn(**kwargs)
        elif self.executor == "inline":
            value = self.fn(**kwargs)
        else:
            # On timeout or cancellation the thread is abandoned: Python cannot kill a
            # thread, so it runs on and its result is dropped. Use executor="process"
            # for tools that must really stop.
            value = await anyio.to_thread.run_sync(
                functools.partial(_call_in_thread, self.fn, kwargs), abandon_on_cancel=True
            )
        return ToolOutput(value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calling the tool calls the function, so decorated functions stay usable."""
        return self.fn(*args, **kwargs)


def _call_in_thread(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    try:
        return fn(**kwargs)
    except (SystemExit, GeneratorExit) as exc:
        raise ToolExited(exc) from exc


def _messages(exc: ValidationError) -> list[str]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(arguments)"
        out.append(f"{loc}: {err['msg']}")
    return out


def _strip_titles(schema: Any) -> Any:
    """pydantic adds a ``title`` to every property; models read them as noise."""
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                out[key] = {
                    name: _strip_titles(
                        {k: v for k, v in sub.items() if k != "title"}
                        if isinstance(sub, dict)
                        else sub
                    )
                    for name, sub in value.items()
                }
            else:
                out[key] = _strip_titles(value)
        return out
    if isinstance(schema, list):
        return [_strip_titles(v) for v in schema]
    return schema


_PLAIN = (str, int, float, bool)


def function_schema(fn: Callable[..., Any]) -> tuple[str, type[BaseModel], dict[str, Any]]:
    """The description, argument model and JSON Schema of ``fn``."""
    summary, model, schema, _ = _function_schema(fn)
    return summary, model, schema


def _function_schema(
    fn: Callable[..., Any],
) -> tuple[str, type[BaseModel], dict[str, Any], bool]:
    sig = inspect.signature(fn)
    doc = parse_docstring(inspect.getdoc(fn))
    try:
        hints = get_type_hints(fn, include_extras=True)
    except Exception as exc:  # unresolvable forward references
        raise ToolDefinitionError(
            f"cannot read the type hints of {fn.__qualname__}: {exc}"
        ) from exc
    fields: dict[str, Any] = {}
    plain = True
    for pname, param in sig.parameters.items():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"{fn.__qualname__}: *args/**kwargs cannot be described by a JSON Schema"
            )
        if param.kind is param.POSITIONAL_ONLY:
            raise ToolDefinitionError(f"{fn.__qualname__}: positional-only parameter {pname!r}")
        annotation = hints.get(pname, Any)
        plain = plain and annotation in _PLAIN
        default = ... if param.default is param.empty else param.default
        fields[pname] = (annotation, Field(default, description=doc.params.get(pname)))
    model = create_model(
        f"{fn.__name__}_arguments",
        __config__=ConfigDict(extra="forbid", arbitrary_types_allowed=False),
        **fields,
    )
    schema = _strip_titles(model.model_json_schema())
    schema.pop("title", None)
    schema.setdefault("properties", {})
    return doc.summary, model, schema, plain


@overload
def tool(fn: Callable[..., Any], /) -> FunctionTool: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    executor: Executor | None = None,
    timeout: float | None = None,
    max_concurrency: int | None = None,
    hints: ToolHints | None = None,
) -> Callable[[Callable[..., Any]], FunctionTool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    executor: Executor | None = None,
    timeout: float | None = None,
    max_concurrency: int | None = None,
    hints: ToolHints | None = None,
) -> FunctionTool | Callable[[Callable[..., Any]], FunctionTool]:
    """Turn a typed function into a tool; use bare (``@tool``) or with options.

    ``executor`` defaults to ``async`` for coroutine functions and ``thread`` otherwise;
    ``inline`` runs a trivial sync function on the event loop; ``process`` runs it in a
    child process that is killed on timeout (the function must be importable by module
    and name, its arguments and result picklable).
    """

    def make(f: Callable[..., Any]) -> FunctionTool:
        return function_tool(
            f,
            name=name,
            description=description,
            executor=executor,
            timeout=timeout,
            max_concurrency=max_concurrency,
            hints=hints,
        )

    return make(fn) if fn is not None else make


def function_tool(
    fn: Callable[..., Any],
    *,
    name: str | None = None,
    description: str | None = None,
    executor: Executor | None = None,
    timeout: float | None = None,
    max_concurrency: int | None = None,
    hints: ToolHints | None = None,
) -> FunctionTool:
    is_async = inspect.iscoroutinefunction(fn)
    chosen: Executor = executor or ("async" if is_async else "thread")
    if chosen == "mcp":
        raise ToolDefinitionError("executor 'mcp' is for MCP tools")
    if is_async and chosen != "async":
        raise ToolDefinitionError(f"{fn.__qualname__} is async: it runs on the event loop")
    if not is_async and chosen == "async":
        raise ToolDefinitionError(f"{fn.__qualname__} is not async: use thread/inline/process")
    summary, model, schema, plain = _function_schema(fn)
    spec = ToolSpec(
        name=name or fn.__name__,
        parameters=schema,
        description=description if description is not None else summary,
    )
    return FunctionTool(
        fn=fn,
        spec=spec,
        model=model,
        executor=chosen,
        hints=hints or ToolHints(),
        timeout=timeout,
        max_concurrency=max_concurrency,
        plain=plain,
    )
