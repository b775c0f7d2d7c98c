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
from toolwire.repair.strict import UNREAD
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


# mostly the exact name, which the fast path takes
_NAMES = st.sampled_from(["tool"] * 6 + ["functions.tool", "Tool", "tool:0", "other", ""])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas(), raw=argument_texts(), name=_NAMES, declared=st.booleans())
@example(schema={"type": "object"}, raw='{"a": 1, "a": 2}', name="tool", declared=True)
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
    assert fast == full
    # a text extractor that read the arguments already hands orjson's reading on
    loaded = _loaded(raw)
    if loaded is not UNREAD:
        given_read = CallFinisher(tools).finish(
            id="c", name=name, raw_arguments=raw, slot=1, loaded=loaded
        )
        assert given_read == full


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
)
def test_whole_call_matches_tool_tool_close(
    name: str | None, raw: str, repairs: list[str], prior: str
) -> None:
    one = _prepared(prior)
    taken = one.whole_call(0, name, raw, repairs, _loaded(raw))
    steps = _prepared(prior)
    if taken:
        steps.tool(0, None, name or None, None, repairs=repairs, snapshots=False, delimited=True)
        steps.tool(0, None, None, raw)
        steps.close_call(index=0)
    assert taken == (prior != "open")  # an open call at the index needs routing
    one.end()
    steps.end()
    assert _events(one) == _events(steps)
