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
from urllib.parse import unquote, urlsplit

from toolwire.identifiers import identifier_words, snake_words
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


# The last word of a key that names a path: path, file_path, files, filename, file_name,
# outfile, workdir, target, … (but not "profile").
_PATH_WORD = re.compile(
    r".*(?:path|dir|file|folder)s?|(?:file|path|dir)names?|director(?:y|ies)|cwd|root"
    r"|dest|destination|source|src|targets?|location"
)
_NOT_A_PATH_WORD = frozenset({"profile", "profiles"})
# A value that is a path whatever its key: one line that starts like a path (absolute but
# not a "/* comment", home, ./ or ../, a file: URL) or climbs with "/../".
_PATH_VALUE = re.compile(r"\s*(?:/(?!\*(?:\s|$)|/\s)|~[\w.\-]*(?:/|$)|\.\.?(?:/|$)|file:)", re.I)
_PATH_MAX = 4096
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*://")


def names_a_path(key: str) -> bool:
    words = identifier_words(key)
    if not words:
        return False
    last = words[-1]
    if last in ("name", "names") and len(words) > 1:
        last = words[-2] + last  # file_name → filename
    return last not in _NOT_A_PATH_WORD and _PATH_WORD.fullmatch(last) is not None


def looks_like_a_path(value: str) -> bool:
    if len(value) > _PATH_MAX or "\n" in value:
        return False
    return _PATH_VALUE.match(value) is not None or "/../" in value or value.endswith("/..")


class PathPolicy:
    """Argument rule for file paths: deny paths under ``deny`` or outside ``allow``.

    Checks every string argument, at any depth, whose key names a path (``path``,
    ``file_path``, ``files``, ``filename``, ``file_name``, ``target``, ``cwd``, …; or
    exactly ``keys`` when given) or whose value is one (a line that starts ``/``, ``~``,
    ``./``, ``../`` or ``file:``, or climbs with ``/../``). A path is read every way a
    tool might: as the OS resolves it (``//etc`` is ``/etc``, ``..`` resolved against
    ``base``, symbolic links followed when ``follow_symlinks``), percent-decoded from a
    ``file:`` URL, cut at a NUL, and without surrounding spaces; each reading must pass.
    URLs of other schemes are not paths.
    """

    def __init__(
        self,
        *,
        allow: Sequence[str] = (),
        deny: Sequence[str] = (),
        keys: Sequence[str] | None = None,
        base: str = "/",
        follow_symlinks: bool = True,
    ) -> None:
        self.base = base
        self.follow_symlinks = follow_symlinks
        self.allow = [self._norm(p) for p in allow]
        self.deny = [self._norm(p) for p in deny]
        # A prefix matches in its written form and, when links are followed, its real one.
        self._allow = self._with_real(self.allow)
        self._deny = self._with_real(self.deny)
        self.keys = set(keys) if keys is not None else None

    def _norm(self, path: str) -> str:
        """The path as the OS reads it, without touching the file system."""
        joined = posixpath.join(self.base, os.path.expanduser(path))
        normal = posixpath.normpath(joined)
        if normal.startswith("//"):  # POSIX leaves a leading "//" open; Linux reads "/"
            normal = "/" + normal.lstrip("/")
        return normal

    def _with_real(self, prefixes: list[str]) -> list[str]:
        if not self.follow_symlinks:
            return prefixes
        return list(dict.fromkeys([*prefixes, *(os.path.realpath(p) for p in prefixes)]))

    def _readings(self, value: str) -> set[str]:
        """Every path ``value`` can stand for (normalized)."""
        texts = {value, value.strip(), value.split("\x00", 1)[0]}
        paths: set[str] = set()
        for text in texts:
            if text[:5].lower() == "file:":
                candidates = self._file_url_paths(text)
            elif _URL.match(text):
                continue
            else:
                candidates = [text]
            for path in candidates:
                if not path:
                    continue
                normal = self._norm(path)
                paths.add(normal)
                if self.follow_symlinks and "\x00" not in normal:  # the cut reading has it
                    paths.add(os.path.realpath(normal))
        return paths

    @staticmethod
    def _file_url_paths(url: str) -> list[str]:
        """``file:///etc/x`` and ``file://localhost/etc/x`` are ``/etc/x``; a host that is
        more likely a mistyped first directory (``file://etc/x``) is read both ways."""
        parts = urlsplit(url)
        path = unquote(parts.path)
        host = parts.netloc.rsplit("@", 1)[-1].lower()
        if host in ("", "localhost"):
            return [path]
        return [path, f"/{unquote(host)}{path}"]

    @staticmethod
    def _under(path: str, prefix: str) -> bool:
        return path == prefix or path.startswith(prefix.rstrip("/") + "/")

    def _is_path_key(self, key: str | None) -> bool:
        if key is None:
            return False
        if self.keys is not None:
            return key in self.keys
        return names_a_path(key)

    def check(self, request: PolicyRequest) -> Decision | None:
        for key, value in _strings(dict(request.arguments)):
            if not value or not (self._is_path_key(key) or looks_like_a_path(value)):
                continue
            for path in self._readings(value):
                for prefix in self._deny:
                    if self._under(path, prefix):
                        return Decision(
                            "deny",
                            f"argument {key}={value!r} is under denied path {prefix}",
                            "path",
                        )
                if self.allow and not any(self._under(path, p) for p in self._allow):
                    return Decision(
                        "deny",
                        f"argument {key}={value!r} is outside the allowed paths "
                        f"({', '.join(self.allow)})",
                        "path",
                    )
        return None


_ARGV_KEYS = frozenset({"args", "argv", "arguments"})


class CommandPolicy:
    """Argument rule for commands: deny when a command string matches a ``deny`` regex.

    Looks at every string, at any depth, under a key that names a command: one of
    ``keys`` (default: command, cmd, cmdline, script, shell, code, argv) in any case
    style, or ending in one (``Command``, ``shell_command``, ``opts.command``). Lists
    (argv) are checked item by item and joined with spaces; a command split over keys
    (``{"command": "rm", "args": ["-rf", "/"]}``) is checked joined too. The rule
    reads text; it is a guard rail, not a shell parser or a sandbox.
    """

    def __init__(
        self,
        *,
        deny: Sequence[str],
        keys: Sequence[str] = ("command", "cmd", "cmdline", "script", "shell", "code", "argv"),
    ) -> None:
        self.deny = [re.compile(p) for p in deny]
        self.keys = {snake_words(k) for k in keys}

    def _is_command_key(self, key: str) -> bool:
        words = snake_words(key)
        return words in self.keys or words.rsplit("_", 1)[-1] in self.keys

    def _texts(self, value: Any, key: str | None) -> Iterator[tuple[str, str]]:
        """``(key, text)`` for every command text inside ``value``; ``key`` is the
        command key ``value`` sits under (None: not under one yet)."""
        if isinstance(value, str):
            if key is not None:
                yield key, value
        elif isinstance(value, Mapping):
            command: str | None = None
            argv: list[Any] | None = None
            for k, v in value.items():
                name = str(k)
                is_command = key is None and self._is_command_key(name)
                yield from self._texts(v, name if is_command else key)
                if is_command and isinstance(v, str):
                    command = v
                elif isinstance(v, list) and snake_words(name) in _ARGV_KEYS:
                    argv = v
            if command is not None and argv is not None:
                yield "command", " ".join([command, *map(str, argv)])
        elif isinstance(value, list | tuple):
            for v in value:
                yield from self._texts(v, key)
            if key is not None and value and all(isinstance(v, str) for v in value):
                yield key, " ".join(value)

    def check(self, request: PolicyRequest) -> Decision | None:
        for key, text in self._texts(request.arguments, None):
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
