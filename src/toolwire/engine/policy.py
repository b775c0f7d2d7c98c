"""Pluggable call policies: allow/deny rules, argument rules, approval, call limits.

A policy looks at a call that resolved and validated, and returns a ``Decision`` or
None (no opinion). The engine combines them: any ``deny`` denies; otherwise any
``approve`` makes the call wait for approval; otherwise the call runs. Every deny and
approval reason is recorded as a violation or a decision on the call's record.

Policies that keep counts (``CallLimits``) also implement ``admitted``, which the engine
calls only for calls that go on to execute, so denied or pending calls don't use up a
limit.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from toolwire.tools.base import Tool

Action = Literal["allow", "deny", "approve"]


@dataclass(frozen=True, slots=True)
class Decision:
    action: Action
    reason: str = ""
    policy: str = ""


@dataclass(frozen=True, slots=True)
class PolicyRequest:
    """A call as policies see it: the resolved tool and its validated arguments."""

    tool: Tool
    name: str
    arguments: Mapping[str, Any]
    call_id: str | None = None
    task_id: str | None = None
    session_id: str | None = None


@runtime_checkable
class Policy(Protocol):
    def check(self, request: PolicyRequest) -> Decision | None: ...


def _matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


class AllowTools:
    """Only tools whose name matches one of the glob patterns may run."""

    def __init__(self, *patterns: str) -> None:
        self.patterns = patterns

    def check(self, request: PolicyRequest) -> Decision | None:
        if _matches(request.name, self.patterns):
            return None
        return Decision("deny", f"tool {request.name!r} is not in the allow list", "allow_tools")


class DenyTools:
    """Tools whose name matches one of the glob patterns never run."""

    def __init__(self, *patterns: str) -> None:
        self.patterns = patterns

    def check(self, request: PolicyRequest) -> Decision | None:
        if _matches(request.name, self.patterns):
            return Decision("deny", f"tool {request.name!r} is denied", "deny_tools")
        return None


class RequireApproval:
    """Tools whose name matches one of the glob patterns wait for approval."""

    def __init__(self, *patterns: str) -> None:
        self.patterns = patterns

    def check(self, request: PolicyRequest) -> Decision | None:
        if _matches(request.name, self.patterns):
            return Decision(
                "approve", f"tool {request.name!r} requires approval", "require_approval"
            )
        return None


class DestructiveNeedsApproval:
    """Tools that declare themselves destructive wait for approval (on by default).

    The hint only ever makes the engine stricter: a server that omits or lies about it
    gains nothing, since other policies still apply.
    """

    def check(self, request: PolicyRequest) -> Decision | None:
        if request.tool.hints.destructive is True:
            return Decision(
                "approve",
                f"tool {request.name!r} is marked destructive",
                "destructive_needs_approval",
            )
        return None


def _strings(value: Any, key: str | None = None) -> Iterator[tuple[str | None, str]]:
    """Every string inside ``value``, with the nearest dict key it sits under."""
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _strings(v, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from _strings(v, key)


_PATH_KEY = re.compile(
    r"(path|file|dir|directory|folder|cwd|root|dest|destination|source|src)s?$", re.I
)


class PathPolicy:
    """Argument rule for file paths: deny paths under ``deny`` or outside ``allow``.

    Checks string arguments under keys that name a path (``path``, ``file_path``,
    ``files``, ``cwd``, ``directory``, …; or exactly ``keys`` when given). Paths are
    normalized first (``..`` resolved against ``base``), so ``/work/../etc`` is ``/etc``.
    """

    def __init__(
        self,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        keys: Sequence[str] | None = None,
        base: str = "/",
    ) -> None:
        self.allow = [self._norm(p, base) for p in allow]
        self.deny = [self._norm(p, base) for p in deny]
        self.keys = set(keys) if keys is not None else None
        self.base = base

    @staticmethod
    def _norm(path: str, base: str) -> str:
        expanded = os.path.expanduser(path)
        return posixpath.normpath(posixpath.join(base, expanded))

    @staticmethod
    def _under(path: str, prefix: str) -> bool:
        return path == prefix or path.startswith(prefix.rstrip("/") + "/")

    def _is_path_key(self, key: str | None) -> bool:
        if key is None:
            return False
        if self.keys is not None:
            return key in self.keys
        return _PATH_KEY.search(key) is not None

    def check(self, request: PolicyRequest) -> Decision | None:
        for key, value in _strings(dict(request.arguments)):
            if not self._is_path_key(key) or not value:
                continue
            path = self._norm(value, self.base)
            for prefix in self.deny:
                if self._under(path, prefix):
                    return Decision(
                        "deny", f"argument {key}={value!r} is under denied path {prefix}", "path"
                    )
            if self.allow and not any(self._under(path, p) for p in self.allow):
                return Decision(
                    "deny",
                    f"argument {key}={value!r} is outside the allowed paths "
                    f"({', '.join(self.allow)})",
                    "path",
                )
        return None


class CommandPolicy:
    """Argument rule for commands: deny when a command string matches a ``deny`` regex.

    Looks at string arguments under ``keys`` (default: command, cmd, script, shell,
    code); list values (argv) are joined with spaces first.
    """

    def __init__(
        self,
        *,
        deny: Sequence[str],
        keys: Sequence[str] = ("command", "cmd", "script", "shell", "code"),
    ) -> None:
        self.deny = [re.compile(p) for p in deny]
        self.keys = set(keys)

    def check(self, request: PolicyRequest) -> Decision | None:
        for key, value in request.arguments.items():
            if key not in self.keys:
                continue
            text = " ".join(map(str, value)) if isinstance(value, list) else str(value)
            for pattern in self.deny:
                if pattern.search(text):
                    return Decision(
                        "deny",
                        f"argument {key} matches the denied pattern {pattern.pattern!r}",
                        "command",
                    )
        return None


class CallLimits:
    """At most ``per_tool[name]`` calls of a tool and ``per_task`` calls in all, per task.

    Calls without a task id share one budget. Only calls that execute are counted.
    """

    def __init__(self, *, per_tool: Mapping[str, int] | None = None, per_task: int | None = None):
        self.per_tool = dict(per_tool or {})
        self.per_task = per_task
        self._tool_counts: dict[tuple[str | None, str], int] = {}
        self._task_counts: dict[str | None, int] = {}

    def check(self, request: PolicyRequest) -> Decision | None:
        limit = self.per_tool.get(request.name)
        if limit is not None and self._tool_counts.get((request.task_id, request.name), 0) >= limit:
            return Decision(
                "deny", f"tool {request.name!r} reached its limit of {limit} calls", "call_limits"
            )
        if self.per_task is not None and self._task_counts.get(request.task_id, 0) >= self.per_task:
            return Decision(
                "deny", f"the task reached its limit of {self.per_task} tool calls", "call_limits"
            )
        return None

    def admitted(self, request: PolicyRequest) -> None:
        key = (request.task_id, request.name)
        self._tool_counts[key] = self._tool_counts.get(key, 0) + 1
        self._task_counts[request.task_id] = self._task_counts.get(request.task_id, 0) + 1


def default_policies() -> list[Policy]:
    """What an engine uses when given no policies: destructive tools need approval."""
    return [DestructiveNeedsApproval()]
