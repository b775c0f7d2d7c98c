"""The assembler's fast paths give exactly what its general path gives.

``CallAssembler.tool`` takes a new call's header, and argument text alone for an open
call, without routing (``fast_arguments``, which decoders also call first). Each fast
path is taken only while no invalid-UTF-8 marker is set (``invalid_utf8``): with a
marker set that no text holds, the same fragments take the general path (routing,
``_append``) and must give the same events, fragment by fragment. The fragments are
generated to reach the cases routing decides: ids reused at other indexes, fragments
without id or index, names alone, snapshots that repeat the text so far (F7), a
second value after a whole one (F3), closed calls, cut-off and finished streams.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolwire.assemble import CallAssembler
from toolwire.events import Event
from toolwire.spec import ToolSpec

# a character no generated text holds: with it as the marker nothing is unmarked, and
# every fast path is off
_MARK = "\ue000"

_TEXTS = st.text(alphabet='{}[]":, ab1\n', max_size=6) | st.sampled_from(
    ['{"a": 1}', '{"a":', " 1}", "{", '{"', '{"a"', '{"a": "b"}', "[1]", ""]
)
_IDS = st.none() | st.sampled_from(["c1", "c2", "c3"])
_NAMES = st.none() | st.sampled_from(["f", "g", ""])
_INDEXES = st.none() | st.integers(0, 2)

# (an object for arguments: F10)
_FRAGMENT = st.tuples(
    st.just("tool"), _INDEXES, _IDS, _NAMES, st.none() | _TEXTS | st.just({"a": 1})
)
# argument text for a call at an index, as decoders give it: ``fast_arguments`` first
_ARGUMENTS = st.tuples(st.just("fast"), st.integers(0, 2), _TEXTS)
# a repeat of all the text so far of the call at an index and more (a snapshot, F7)
_SNAPSHOT = st.tuples(st.just("snapshot"), st.integers(0, 2), _TEXTS)
# argument text from a source that never repeats text (``snapshots=False``, F7)
_NO_SNAPSHOTS = st.tuples(st.just("no snapshots"), st.integers(0, 2), _TEXTS)
# a name alone after a whole value: the header of a next call, or a name repeated (F15)
_NAME_ALONE = st.tuples(st.just("tool"), st.integers(0, 2), st.none(), _NAMES, st.just(None))
_CLOSE = st.tuples(st.just("close"), st.integers(0, 2), st.booleans())
_STEP = st.one_of(_FRAGMENT, _ARGUMENTS, _ARGUMENTS, _SNAPSHOT, _NO_SNAPSHOTS, _NAME_ALONE, _CLOSE)
_END = st.sampled_from([None, "tool_calls", "stop", "length"])

_TOOLS = [
    ToolSpec("f", {"type": "object", "properties": {"a": {"type": "integer"}}}),
    ToolSpec("g", {"type": "object"}),
]


def _run(sink: CallAssembler, steps: list[tuple[Any, ...]], end: str | None) -> list[list[Event]]:
    """The events after each step. Without a marker, argument text goes to
    ``fast_arguments`` first (as decoders give it); with one, to ``tool`` alone."""
    general = sink.invalid_utf8 is not None
    out: list[list[Event]] = []
    for step in steps:
        kind = step[0]
        if kind == "tool":
            _, index, id, name, arguments = step
            sink.tool(index, id, name, arguments)
        elif kind in ("fast", "snapshot"):
            _, index, text = step
            if kind == "snapshot":
                slot = sink._by_index.get(index)
                # (joined here, not by ``raw()``, which would join the slot's parts)
                text = ("".join(slot.parts) if slot is not None else "") + text
            if general or not sink.fast_arguments(index, text):
                sink.tool(index, None, None, text)
        elif kind == "no snapshots":
            _, index, text = step
            sink.tool(index, None, None, text, snapshots=False)
        else:
            _, index, wait = step
            sink.close_call(index=index, wait_for_finish=wait)
        out.append(sink.drain())
    if end is not None:
        sink.set_finish_reason(end)
    sink.end()
    out.append(sink.drain())
    return out


@settings(max_examples=600, deadline=None)
@example(  # a name alone after a whole value, then text opening a second value (F15)
    steps=[
        ("tool", 0, "c1", "f", ""),
        ("fast", 0, '{"a": 1}'),
        ("tool", 0, None, "f", None),
        ("fast", 0, "{"),
    ],
    end=None,
    tools=False,
)
@example(  # an id that came without index, then with one: the same call
    steps=[("tool", None, "c1", "f", ""), ("tool", 1, "c1", "f", "")], end=None, tools=False
)
@example(  # a source that never repeats text: text that starts as the text so far
    steps=[
        ("tool", 0, "c1", "f", ""),
        ("no snapshots", 0, "{"),
        ("fast", 0, "{1"),
    ],
    end=None,
    tools=False,
)
@example(  # text after arguments that came as an object (F10)
    steps=[("tool", 0, "c1", "f", {"a": 1}), ("fast", 0, "{")], end=None, tools=False
)
@given(steps=st.lists(_STEP, max_size=12), end=_END, tools=st.booleans())
def test_fast_paths_give_the_general_paths_events(
    steps: list[tuple[Any, ...]], end: str | None, tools: bool
) -> None:
    declared = _TOOLS if tools else []
    fast, general = CallAssembler(declared), CallAssembler(declared)
    general.invalid_utf8 = _MARK
    assert _run(fast, steps, end) == _run(general, steps, end)


def test_the_fast_paths_are_taken() -> None:
    """The cases the fast paths are for do take them (the test above compares
    something): a header opens a slot without ``_route``, text appends without it."""
    sink = CallAssembler()
    routed: list[object] = []
    real = sink._route
    sink._route = lambda *args: routed.append(args) or real(*args)  # type: ignore[method-assign]
    sink.tool(0, "c1", "f", "")
    sink.tool(1, "c2", "g", None)
    assert sink.fast_arguments(0, '{"')
    sink.tool(0, None, None, 'a": 1}')  # longer than the text so far, not a repeat of it
    assert sink.fast_arguments(1, "{}")
    assert routed == []
    assert sink._slots[0].raw() == '{"a": 1}'
    sink.tool(1, None, None, "{} ")  # repeats the text so far: routed (F7)
    assert len(routed) == 1


def test_streams_without_tools_share_a_finisher_that_never_changes() -> None:
    """Streams without declared tools share one finisher (no set-up a stream): it
    must hold nothing a stream could change, calls whole, repaired or cut off read."""
    from toolwire.assemble.assembler import _NO_TOOLS

    sinks = [CallAssembler(), CallAssembler([]), CallAssembler(())]
    assert all(sink.finisher is _NO_TOOLS for sink in sinks)
    for sink, text in zip(sinks, ['{"a": 1}', "{'a': 1", '{"a": [1, 2'], strict=True):
        sink.tool(0, "c1", "f", text)
        sink.set_finish_reason("length")
        sink.end()
        assert sink.drain()
    assert (_NO_TOOLS.tools, _NO_TOOLS._validators, _NO_TOOLS._fit_checks) == ({}, {}, {})
    assert not _NO_TOOLS.accepts_as_sent("f", {"a": 1})
    assert CallAssembler(_TOOLS).finisher is not _NO_TOOLS
