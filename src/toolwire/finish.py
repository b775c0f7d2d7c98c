"""The finisher: a closed slot's raw arguments → a ToolCall with an honest status.

repair (text → value) → name normalization → schema coercion → validation. Each step
that changed something is named in ``repairs``; problems a model can act on go into
``errors``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import orjson
from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators

from toolwire.coerce import WRAPPER_KEYS, coerce_arguments
from toolwire.events import CallStatus, ToolCall
from toolwire.jsontext import json_cut_short
from toolwire.names import resolve_tool_name, unknown_tool_message
from toolwire.repair import partial_value, repair_json
from toolwire.repair.strict import UNREAD, strict_json
from toolwire.schemacheck import compile_check
from toolwire.spec import ToolSpec
from toolwire.surrogates import LONE_SURROGATE, replace_surrogates_in


class _NotGiven:
    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Final = _NotGiven()

_MAX_ERRORS = 8


def _path(error: jsonschema_exceptions.ValidationError) -> str:
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts)


def describe_violation(error: jsonschema_exceptions.ValidationError) -> str:
    """A validation error phrased for the model that made the call."""
    where = _path(error)
    if error.validator == "required":
        return f"missing required argument: {error.message.split(' is a required')[0]}"
    if error.validator == "additionalProperties":
        return f"unexpected argument: {error.message}"
    return f"argument {where}: {error.message}" if where else f"arguments: {error.message}"


def schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why ``schema`` is not valid JSON Schema (by its own ``$schema`` draft), or None."""
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(dict(schema))
    except jsonschema_exceptions.SchemaError as exc:
        where = exc.json_path.removeprefix("$").removeprefix(".")
        return f"{exc.message} (at {where})" if where else exc.message
    return None


class SchemaValidator:
    """A compiled JSON Schema validator for one tool (built once, reused per call).

    A fast fit check (``toolwire.schemacheck``) answers for the common case of a value
    that is fine; jsonschema gives the answer and the messages otherwise.
    """

    __slots__ = ("_error", "_fits", "_validator", "fit_check")

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self._error: str | None = None
        self._fits = compile_check(schema)
        problem = schema_problem(schema)
        if problem is not None:
            self._error = f"the tool's schema is not valid JSON Schema: {problem}"
        self._validator = validators.validator_for(schema)(schema)
        # What ``fits`` answers, as one callable for callers on a hot path.
        self.fit_check: Callable[[Any], bool] = (
            self._fits if self._error is None and self._fits is not None else _never_sure
        )

    def fits(self, value: Any) -> bool:
        """True when the value certainly satisfies the schema (False: not sure)."""
        return self.fit_check(value)

    def errors(self, value: Any) -> list[str]:
        if self._error is not None:
            return [self._error]
        if self._fits is not None and self._fits(value):
            return []
        try:
            return self._messages(value)
        except Exception as exc:  # e.g. a $ref that resolves nowhere
            return [f"the tool's schema could not be applied: {exc}"]

    def _messages(self, value: Any) -> list[str]:
        found = sorted(
            self._validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path]
        )
        return [describe_violation(e) for e in found[:_MAX_ERRORS]]


_SHARED: dict[bytes, SchemaValidator] = {}
# the same validators, by the schema's JSON as written (its keys in its own order)
_AS_WRITTEN: dict[bytes, SchemaValidator] = {}
_SHARED_MAX = 1024
_SHARED_LOCK = threading.Lock()


def shared_validator(schema: Mapping[str, Any]) -> SchemaValidator:
    """One compiled validator per distinct schema, shared by every stream.

    Checking and compiling a schema costs milliseconds; a gateway sees the same tools
    on every request. A validator is built from its own copy of the schema (the key's
    JSON read back), so it never changes once built and sharing is safe: a caller's
    schema changed in place later has other content, and so another validator.

    Found first by the schema's JSON as written, which tells JSON content apart
    exactly (``true`` from ``1``, ``1`` from ``1.0``) but not key order (orjson writes
    a float that is no JSON number, ``inf`` or ``nan``, as ``null``); a schema met with
    its keys in another order is found by its sorted JSON and then known as written
    too. Writing the keys sorted runs a part of orjson that nothing else in a parse
    runs: a 2 KB Llama 3 JSON text parsed with every cache flushed took ~2-3% less
    without it (``bench_textformats_whole.py --cold-detail``, its ``flushed`` rows)."""
    try:
        written = orjson.dumps(schema)
    except TypeError:  # not JSON (a Python object in the schema): build, don't share
        return SchemaValidator(schema)
    found = _AS_WRITTEN.get(written)
    if found is None:
        key = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
        with _SHARED_LOCK:  # (threads: two evicting at once took the same oldest one)
            found = _SHARED.get(key)
            if found is None:
                found = _SHARED[key] = SchemaValidator(orjson.loads(key))
                if len(_SHARED) > _SHARED_MAX:
                    del _SHARED[next(iter(_SHARED))]  # oldest first
            _AS_WRITTEN[written] = found
            if len(_AS_WRITTEN) > _SHARED_MAX:
                del _AS_WRITTEN[next(iter(_AS_WRITTEN))]
    return found


def _never_sure(value: Any) -> bool:
    return False


def _wrapped(value: dict[str, Any]) -> bool:
    """A lone ``{"arguments": {...}}`` (F25): coercion unwraps it, so it is never the
    value as sent."""
    return len(value) == 1 and next(iter(value)) in WRAPPER_KEYS


class CallFinisher:
    """Turns raw call data into ToolCalls against a set of declared tools.

    With no declared tools, names are kept as sent and nothing is validated.
    """

    def __init__(self, tools: Iterable[ToolSpec] = ()) -> None:
        self.tools: dict[str, ToolSpec] = {t.name: t for t in tools} if tools else {}
        self._validators: dict[str, SchemaValidator] = {}
        # each declared tool's ``SchemaValidator.fit_check``, looked up once per tool
        self._fit_checks: dict[str, Callable[[Any], bool]] = {}

    def validator(self, name: str) -> SchemaValidator:
        found = self._validators.get(name)
        if found is None:
            found = self._validators[name] = shared_validator(self.tools[name].parameters)
        return found

    def _fit_check(self, name: str) -> Callable[[Any], bool] | None:
        """The fit check of the declared tool ``name``; None when it is not declared."""
        found = self._fit_checks.get(name)
        if found is None and name in self.tools:
            found = self._fit_checks[name] = self.validator(name).fit_check
        return found

    def accepts_as_sent(self, name: str, value: Any) -> bool:
        """Whether ``finish`` would hand back ``value`` unchanged as a complete call to
        the declared tool ``name``: an object that already fits its schema. A caller
        that already knows the tool (the engine) then needs no ToolCall."""
        if type(value) is not dict or _wrapped(value):
            return False
        fits = self._fit_checks.get(name) or self._fit_check(name)
        return fits is not None and fits(value)

    def _fits_as_sent(self, name: str, value: Any) -> bool:
        """Coercion never changes a value that already fits its schema, except to unwrap
        a lone ``{"arguments": {...}}`` (F25); skip it for those values."""
        if type(value) is dict and _wrapped(value):
            return False
        return self.validator(name).fits(value)

    def finish(
        self,
        *,
        id: str | None,
        name: str,
        raw_arguments: str,
        value: Any = NOT_GIVEN,
        truncated: bool = False,
        slot: int = 0,
        repairs: Iterable[str] = (),
        errors: Iterable[str] = (),
        unreadable: str = "",
        loaded: Any = UNREAD,
        tried_as_sent: bool = False,
    ) -> ToolCall:
        """Finish one call. ``value`` is given when the wire carried an object (F10).
        ``unreadable``: the decoder already found the arguments unreadable, and why.
        ``loaded``: ``orjson.loads(raw_arguments)``, when the decoder has read it.
        ``tried_as_sent``: the caller has had None from ``as_sent`` for this call (or
        the call has repairs, errors, a cut or a value), so it is not tried again."""
        if (
            not tried_as_sent
            and value is NOT_GIVEN
            and not (truncated or unreadable or repairs or errors)
        ):
            quick = self.as_sent(id, name, raw_arguments, slot, loaded)
            if quick is not None:
                return quick
        done: list[str] = list(repairs)
        problems: list[str] = list(errors)
        final_name = name
        known: ToolSpec | None = None
        if self.tools:
            match = resolve_tool_name(name, self.tools)
            if match.name is not None:
                final_name = match.name
                known = self.tools[match.name]
                if match.repair:
                    done.append(match.repair)
            else:
                problems.append(unknown_tool_message(name, match, self.tools))

        if value is not NOT_GIVEN:
            # an object from the wire (F10) may hold a lone surrogate, as text read by
            # the ladder may: the same named repair
            value, lone = replace_surrogates_in(value)
            if lone:
                done.append(LONE_SURROGATE)
        readable = not unreadable  # text that is not JSON at all never meets the ladder
        if readable and value is NOT_GIVEN:
            if not raw_arguments or raw_arguments.isspace():  # (strip() would copy it)
                value = {}  # F2: a tool with no parameters sends "" or nothing
            else:
                result = repair_json(raw_arguments)
                as_sent = result.ok and not result.repairs
                if not (as_sent or result.truncated) and json_cut_short(raw_arguments):
                    # strict JSON stops only for want of more text: the call was cut off,
                    # whatever finish reason was sent and the ladder made of it (F33)
                    truncated = True
                    value = partial_value(raw_arguments)
                else:
                    done.extend(result.repairs)
                    truncated = truncated or result.truncated
                    value = result.value
                    if not result.ok:
                        readable = False
                        unreadable = f"arguments are not readable JSON: {result.error}"

        # The status, final arguments and best effort, then one ToolCall built at the
        # end (a closure that built it made every variable it reads a cell, on every
        # call: ~2 K instructions a call finished here, callgrind).
        status: CallStatus
        arguments: dict[str, Any] | None = None
        partial: Any = None
        if truncated:
            # F1: never present a cut-off call as final; the best effort stays visible.
            problems.append("arguments were cut off before they closed")
            status, partial = "truncated", value
        elif not readable:
            problems.append(unreadable)
            status = "invalid"
        else:
            if value is None and raw_arguments.strip() == "null":
                value = {}
                done.append("null_arguments")
            fits = known is not None and self._fits_as_sent(known.name, value)
            if known is not None and not fits:
                coerced = coerce_arguments(value, known.parameters)
                value = coerced.value
                done.extend(coerced.repairs)
                problems.extend(coerced.errors)
            if not isinstance(value, dict):
                problems.append(f"arguments must be a JSON object, got {type(value).__name__}")
                status, partial = "invalid", value
            else:
                if known is not None and not fits:
                    problems.extend(self.validator(known.name).errors(value))
                arguments = value
                status = "invalid" if problems else "repaired" if done else "complete"
        # positional, in field order (as in ``as_sent``): ~3,000 instructions less
        return ToolCall(
            id,
            final_name,
            arguments,
            raw_arguments,
            status,
            tuple(done),
            tuple(problems),
            partial,
            name,
            slot,
        )

    def as_sent(
        self, id: str | None, name: str, raw: str, slot: int, loaded: Any = UNREAD
    ) -> ToolCall | None:
        """The usual call, finished without the repair machinery: arguments that are
        strict JSON (nothing renamed, see ``strict_json``) holding an object, which,
        where tools are declared, is for a declared tool's exact name and already fits
        its schema. The answer ``finish`` would give (see
        ``tests/test_finish_fast_path.py``), or None when the call needs the full path.
        Only for a call with nothing known against it yet (no repairs, errors, cut).
        ``loaded``: ``orjson.loads(raw)``, when the caller has read it."""
        fits = None
        if self.tools:
            fits = self._fit_checks.get(name) or self._fit_check(name)
            if fits is None or fits is _never_sure:
                # not a declared tool, or a schema only jsonschema can check: the full
                # path reads the text, once
                return None
        ok, value, changed = strict_json(raw, loaded)
        if not ok or changed or type(value) is not dict:
            return None
        # ``accepts_as_sent`` written out, with the fit check fetched above (callgrind:
        # about 1,500 instructions less per call)
        if fits is not None and (not fits(value) or (len(value) == 1 and _wrapped(value))):
            return None
        # positional, in field order: about 3,000 instructions less than by keyword
        # (callgrind), on every call read as sent
        return ToolCall(id, name, value, raw, "complete", (), (), None, name, slot)
