"""Policies from a JSON file: the rules an operator writes, without Python.

::

    {"allow": ["git_reset"],           # run without approval, even when marked destructive
     "deny": ["git_checkout", "rm_*"], # never run
     "require_approval": ["git_commit"]}

Each entry is a glob pattern over the exposed tool name. ``deny`` wins over everything;
``require_approval`` wins over ``allow``; ``allow`` only lifts the approval that a
tool's own ``destructiveHint`` would ask for. Unknown keys are an error: a misspelt
``deny`` must not be ignored.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from toolwire.engine.policy import (
    Decision,
    DenyTools,
    DestructiveNeedsApproval,
    Policy,
    PolicyRequest,
    RequireApproval,
)

POLICY_KEYS = ("allow", "deny", "require_approval")


class PolicyFileError(ValueError):
    """A policy file that cannot be read or that says something unclear."""


class DestructiveUnlessAllowed:
    """``DestructiveNeedsApproval``, except for tools an operator allowed by name."""

    def __init__(self, allowed: Sequence[str]) -> None:
        self.allowed = tuple(allowed)
        self._inner = DestructiveNeedsApproval()

    def check(self, request: PolicyRequest) -> Decision | None:
        if any(fnmatch.fnmatchcase(request.name, p) for p in self.allowed):
            return None
        return self._inner.check(request)


def _patterns(data: Mapping[str, Any], key: str, where: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise PolicyFileError(f"{where}: {key!r} must be a list of tool-name patterns")
    return value


def parse_policies(data: Any, where: str = "policy") -> list[Policy]:
    """The engine's policies for a policy object (see the module docstring)."""
    if not isinstance(data, Mapping):
        raise PolicyFileError(f"{where}: expected a JSON object")
    unknown = sorted(set(data) - set(POLICY_KEYS))
    if unknown:
        raise PolicyFileError(
            f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"expected {', '.join(POLICY_KEYS)}"
        )
    allow = _patterns(data, "allow", where)
    deny = _patterns(data, "deny", where)
    approve = _patterns(data, "require_approval", where)
    policies: list[Policy] = []
    if deny:
        policies.append(DenyTools(*deny))
    if approve:
        policies.append(RequireApproval(*approve))
    policies.append(DestructiveUnlessAllowed(allow))
    return policies


def load_policy_file(path: str | os.PathLike[str]) -> list[Policy]:
    try:
        data = orjson.loads(Path(path).read_bytes())
    except OSError as exc:
        raise PolicyFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except orjson.JSONDecodeError as exc:
        raise PolicyFileError(f"{path} is not valid JSON: {exc}") from None
    return parse_policies(data, str(path))
