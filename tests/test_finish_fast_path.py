"""The fast paths for calls read whole give exactly what the full paths give.

``CallFinisher.finish`` answers strict JSON that fits its declared tool without the
repair ladder, name resolution or coercion; ``CallAssembler.whole_call`` does in one
step what ``tool`` (name), ``tool`` (argument text) and ``close_call`` do. Both are
checked against the full path on generated schemas, argument texts (duplicate keys,
big integers, tiny floats, wrapper keys, Python quotes, cut-off text) and names
(exact, decorated, unknown): statuses, repairs and errors are the product (F1, F18,
F25, F33), so every field of the answer must match.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolwire.assemble import CallAssembler
from toolwire.events import ToolCall
from toolwire.finish import CallFinisher
from toolwire.repair.strict import UNREAD, strict_json
from toolwire.spec import ToolSpec


class FullPathFinisher(CallFinisher):
    """The finisher with its fast path turned off: the reference."""

    def as_sent(
        self, id: str | None, name: str, raw: str, slot: int, loaded: Any = UNREAD
    ) -> ToolCall | None:
        return None


_LEAF_SCHEMAS = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer"},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "array", "items": {"type": "integer"}},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "integer", "minimum": 0, "maximum": 10},
        {"type": "string", "maxLength": 3},
        {"type": "object"},
        {"type": ["string", "null"]},
        {"anyOf": [{"type": "string"}, {"type": "integer"}]},  # outside the fast check
        {},
    ]
)
_KEYS = st.sampled_from(["path", "n", "x", "arguments", "mode", "tags"])


@st.composite
def schemas(draw: st.DrawFn) -> dict[str, Any]:
    props = draw(st.dictionaries(_KEYS, _LEAF_SCHEMAS, max_size=4))
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if props and draw(st.booleans()):
        schema["required"] = draw(st.lists(st.sampled_from(sorted(props)), unique=True))
    extra = draw(st.sampled_from([None, False, {"type": "string"}]))
    if extra is not None:
        schema["additionalProperties"] = extra
    return schema


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e-320, 0.0, 1.5, 3.0])
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def argument_texts(draw: st.DrawFn) -> str:
    value = draw(st.dictionaries(_KEYS, _JSON, max_size=4) | _JSON)
    text = json.dumps(value)
    shape = draw(st.sampled_from(["as is", "duplicate", "tiny", "python", "cut", "wrapped"]))
    if shape == "duplicate" and isinstance(value, dict) and value:
        key = next(iter(value))  # the same key once more, before the others
        text = "{" + json.dumps(key) + ": " + json.dumps(value[key]) + ", " + text[1:]
    elif shape == "tiny":
        text = text.replace("0.0", "1e-400", 1)
    elif shape == "python":
        text = text.replace('"', "'")
    elif shape == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif shape == "wrapped":
        text = '{"arguments": ' + text + "}"
    return text


# -- JSON text written every way a model writes it -------------------------------------
#
# The texts above come from ``json.dumps``; these are written piece by piece, so they
# hold what ``json.dumps`` never writes: the spellings of numbers (1.0, 1e5, -0, big
# integers, numbers below the smallest double), escapes (\u0061 for a key's letter,
# \u003a for a colon, surrogate pairs and lone surrogates), repeated keys at any depth,
# and, made "near-strict", the slips the repair ladder mends (a trailing comma, Python
# quotes and literals, a missing closer).

_SPELLED_NUMBERS = ["0", "-0", "1", "1.0", "-0.0", "1e5", "1E+2", "2.5e-3", "1e-400", "-1e-999"]
_BIG_NUMBERS = ["18446744073709551616", "-9223372036854775809", "123456789012345678901.5", "1e400"]
_NUMBER_TEXTS = (
    st.sampled_from([*_SPELLED_NUMBERS, "0e0", *_BIG_NUMBERS])
    | st.integers(-(2**70), 2**70).map(str)
    | st.floats(allow_nan=False, allow_infinity=False).map(repr)
)
_STRING_TEXTS = st.sampled_from(
    ['"a:b"', '"\\u003a"', '"x\\u003Ay"', '"\\u0041"', '"\\ud83d\\ude00"', '"\\ud800"', '""']
) | st.text(max_size=6).flatmap(
    lambda s: st.sampled_from([json.dumps(s), json.dumps(s, ensure_ascii=False)])
)
# keys that may repeat, also as escapes of one another ("a" and "\u0061")
_KEY_TEXTS = st.sampled_from(
    ['"path"', '"n"', '"a"', '"\\u0061"', '"mode"', '"arguments"', '"a:b"', '"x\\u003ay"']
)


def _json_texts() -> st.SearchStrategy[str]:
    leaves = _NUMBER_TEXTS | _STRING_TEXTS | st.sampled_from(["true", "false", "null"])

    def containers(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        members = st.lists(st.tuples(_KEY_TEXTS, inner), max_size=4)
        objects = members.map(lambda ms: "{" + ", ".join(f"{k}: {v}" for k, v in ms) + "}")
        arrays = st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
        return objects | arrays

    return st.recursive(leaves, containers, max_leaves=10)


@st.composite
def near_json_texts(draw: st.DrawFn) -> str:
    members = draw(st.lists(st.tuples(_KEY_TEXTS, _json_texts()), max_size=5))
    text = "{" + draw(st.sampled_from([", ", ","])).join(f"{k}: {v}" for k, v in members) + "}"
    slip = draw(st.sampled_from(["none"] * 6 + ["comma", "quotes", "python", "cut", "space"]))
    if slip == "comma" and members:
        text = text[:-1] + ",}"
    elif slip == "quotes":
        text = text.replace('"', "'")
    elif slip == "python":
        text = text.replace("true", "True").replace("null", "None")
    elif slip == "cut":
        text = text[: draw(st.integers(0, len(text)))]
    elif slip == "space":
        text = f" \n{text}\t"
    return text


# mostly the exact name, which the fast path takes
_NAMES = st.sampled_from(["tool"] * 6 + ["functions.tool", "Tool", "tool:0", "other", ""])


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    schema=schemas(),
    raw=argument_texts() | near_json_texts(),
    name=_NAMES,
    declared=st.booleans(),
)
@example(schema={"type": "object"}, raw='{"a": 1, "a": 2}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"a": 1, "\\u0061": 2}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"a:b": 1, "a:b": 2}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"x\\u003ay": 1, "x:y": 2}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"n": 18446744073709551616}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"n": -0, "a": -0.0}', name="tool", declared=False)
@example(
    schema={"type": "object", "properties": {"n": {"type": "integer"}}},
    raw='{"n": 1.0}',
    name="tool",
    declared=True,
)
@example(
    schema={"type": "object", "properties": {"path": {"type": "string"}}},
    raw='{"arguments": {"path": "a"}}',
    name="tool",
    declared=True,
)  # F25: the wrapper is taken off, so the call is not as sent
@example(schema={"type": "object"}, raw='{"a": 1e-400}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"arguments": {"a": 1}}', name="tool", declared=True)
@example(schema={"type": "object"}, raw='{"a": 1', name="tool", declared=True)
@example(schema={"type": "object"}, raw="", name="tool", declared=True)
def test_fast_finish_matches_the_full_path(
    schema: dict[str, Any], raw: str, name: str, declared: bool
) -> None:
    tools = [ToolSpec("tool", schema)] if declared else []
    fast = CallFinisher(tools).finish(id="c", name=name, raw_arguments=raw, slot=1)
    full = FullPathFinisher(tools).finish(id="c", name=name, raw_arguments=raw, slot=1)
    assert repr(fast) == repr(full)  # repr: -0.0 and 0.0 are equal, not the same number
    # a text extractor that read the arguments already hands orjson's reading on
    loaded = _loaded(raw)
    if loaded is not UNREAD:
        given_read = CallFinisher(tools).finish(
            id="c", name=name, raw_arguments=raw, slot=1, loaded=loaded
        )
        assert repr(given_read) == repr(full)


def _loaded(raw: str) -> Any:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return UNREAD


def _events(sink: CallAssembler) -> list[Any]:
    return [repr(e) for e in sink.drain()]


def _prepared(prior: str) -> CallAssembler:
    """An assembler whose index 0 holds nothing, a closed call, or an open one."""
    sink = CallAssembler([ToolSpec("tool", {"type": "object"})])
    if prior != "none":
        sink.tool(0, None, "tool", None, snapshots=False, delimited=True)
        sink.tool(0, None, None, '{"a": 1}')
        if prior == "closed":
            sink.close_call(index=0)
    return sink


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(["tool", "other", "", None]),
    raw=argument_texts(),
    repairs=st.lists(st.sampled_from(["python_literal", "name_guess"]), max_size=2),
    prior=st.sampled_from(["none", "closed", "open"]),
    after=st.sampled_from(["", '{"b": 2}', ' {"b"']),
)
def test_whole_call_matches_tool_tool_close(
    name: str | None, raw: str, repairs: list[str], prior: str, after: str
) -> None:
    """The same events, and the same slots for what follows: a fragment at the same
    index after it (``after``), each slot's value so far."""
    one = _prepared(prior)
    taken = one.whole_call(0, name, raw, repairs, _loaded(raw))
    steps = _prepared(prior)
    if taken:
        steps.tool(0, None, name or None, None, repairs=repairs, snapshots=False, delimited=True)
        steps.tool(0, None, None, raw)
        steps.close_call(index=0)
    assert taken == (prior != "open")  # an open call at the index needs routing
    for sink in (one, steps):
        if after:
            sink.tool(0, None, "tool", after)
    assert [repr(one.partial_arguments(n)) for n in range(len(one._slots))] == [
        repr(steps.partial_arguments(n)) for n in range(len(steps._slots))
    ]
    one.end()
    steps.end()
    assert _events(one) == _events(steps)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    schema=schemas(),
    raw=near_json_texts() | argument_texts(),
    name=_NAMES,
    whole=st.booleans(),
    cut=st.booleans(),
    repairs=st.lists(st.sampled_from(["python_literal", "name_guess"]), max_size=1),
)
def test_assembler_finishing_matches_the_full_path(
    schema: dict[str, Any], raw: str, name: str, whole: bool, cut: bool, repairs: list[str]
) -> None:
    """The assembler takes ``CallFinisher.as_sent`` itself, before the full path: its
    events are those of an assembler whose finisher has no fast path, whether the call
    came whole, in fragments, or cut off by the finish reason (F1), with repairs made
    by its decoder or none."""
    tools = [ToolSpec("tool", schema)]
    sinks = [CallAssembler(tools), CallAssembler(finisher=FullPathFinisher(tools))]
    for sink in sinks:
        if whole and sink.whole_call(0, name, raw, repairs, _loaded(raw)):
            pass
        else:
            sink.tool(0, "c1", name, None, repairs=repairs)
            half = len(raw) // 2
            sink.tool(0, None, None, raw[:half])
            sink.tool(0, None, None, raw[half:])
        sink.set_finish_reason("length" if cut else "tool_calls")
        sink.end()
    fast, full = (_events(sink) for sink in sinks)
    assert fast == full


def _strict_reference(text: str) -> tuple[bool, Any, tuple[str, ...]]:
    """What ``strict_json`` must answer, read the slow way: orjson decides what is
    strict JSON; the json module reads it exactly and sees every repeated key and
    every nonzero number read as zero."""
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False, None, ()
    seen: dict[str, None] = {}

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(items)
        if len(out) < len(items):
            seen["duplicate_key"] = None
        return out

    def number(spelled: str) -> float:
        value = float(spelled)
        if value == 0 and any(c in "123456789" for c in spelled.lower().split("e")[0]):
            seen["float_underflow"] = None
        return value

    value = json.loads(text, object_pairs_hook=pairs, parse_float=number)
    return True, value, tuple(seen)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=near_json_texts() | _json_texts())
@example(text='{"a": 1, "\\u0061": 2}')
@example(text='{"a": {"b": 1, "b": 2}}')
@example(text='{"x\\u003ay": 1, "x:y": 2}')
@example(text='{"a": 1e-400, "a": 0.0}')
@example(text="[18446744073709551616, 1.5]")
def test_strict_json_names_every_change(text: str) -> None:
    ok, value, repairs = strict_json(text)
    want_ok, want, want_repairs = _strict_reference(text)
    assert ok == want_ok
    assert repr(value) == repr(want)
    if "duplicate_key" in want_repairs:
        # a number read as zero in a member that a repeated key dropped may go unnamed
        # (only a float kept in the value opens the exact read); the drop is named
        assert set(repairs) - {"float_underflow"} == set(want_repairs) - {"float_underflow"}
    else:
        assert sorted(repairs) == sorted(want_repairs)
