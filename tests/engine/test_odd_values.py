"""Odd arguments, odd tool results and large texts: every call that reaches the engine leaves
exactly one record, and no exception escapes ``call`` or ``execute_many`` (issue 11)."""

from __future__ import annotations

import math
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.audit import JSONLSink, MemorySink, SQLiteSink
from toolwire.audit.sinks import read_jsonl
from toolwire.audit.sqlite import read_sqlite
from toolwire.engine import CallRequest, RequireApproval, ToolEngine, normalize
from toolwire.engine import engine as engine_module
from toolwire.engine.engine import OFF_LOOP_CHARS
from toolwire.tokens import estimate_tokens
from toolwire.tools import tool

pytestmark = pytest.mark.anyio


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


class UnprintableError(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


def _recursive_list() -> list[Any]:
    loop: list[Any] = []
    loop.append(loop)
    return loop


def _recursive_dict() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


ODD_RESULTS: dict[str, Any] = {
    "lone_surrogate": "a\ud800b",
    "surrogate_in_dict": {"k\ud800": ["\udc00"]},
    "tuple_keys": {(1, 2): 3},
    "huge_int": 10**5000,
    "big_int": 2**70,
    "recursive_list": _recursive_list(),
    "recursive_dict": _recursive_dict(),
    "bytes": b"\xff\x00ok",
    "set": {3, 1, 2},
    "object": object(),
    "unprintable": Unprintable(),
    "nan": [math.nan, math.inf],
}

_returned: dict[str, Any] = {}


@tool
def give(kind: str) -> Any:
    """Return one of the odd values."""
    return ODD_RESULTS[kind]


@tool
def anything(value: Any = None) -> Any:
    """Return the given value, or whatever the test put in ``_returned``."""
    return _returned.get("value", value)


@tool
def raise_unprintable() -> None:
    raise UnprintableError()


@tool
def echo(text: str) -> str:
    return text


@tool
async def sleeper(text: str) -> str:
    await anyio.sleep(10)
    return text


def engine_with(*sinks: Any) -> ToolEngine:
    return ToolEngine([give, anything, raise_unprintable, echo], sinks=list(sinks))


@pytest.mark.parametrize(
    ("kind", "status", "says"),
    [
        ("lone_surrogate", "ok", "a\ufffdb"),
        ("surrogate_in_dict", "ok", '{"k\\ud800":["\\udc00"]}'),
        ("tuple_keys", "tool_error", "an object key is a tuple, not a string or a number"),
        ("huge_int", "tool_error", "an integer of more than 4300 digits"),
        ("recursive_list", "tool_error", "a container holds itself"),
        ("recursive_dict", "tool_error", "a container holds itself"),
        ("big_int", "ok", str(2**70)),
        ("bytes", "ok", '"\ufffd\\u0000ok"'),
        ("set", "ok", "[1,2,3]"),
        ("object", "ok", "<object object at"),
        ("unprintable", "ok", '"<Unprintable>"'),
        ("nan", "ok", "[null,null]"),
    ],
)
async def test_odd_result_leaves_one_record(
    tmp_path: Path, kind: str, status: str, says: str
) -> None:
    memory = MemorySink()
    engine = engine_with(memory, SQLiteSink(tmp_path / "a.db"), JSONLSink(tmp_path / "a.jsonl"))
    r = await engine.call("give", {"kind": kind})
    engine.close()
    assert r.status == status, r.content
    assert says in r.content
    r.content.encode("utf-8")  # the model's text is always writable
    assert len(memory.records) == 1 and engine.sink_errors == 0
    assert [x.record_id for x in read_sqlite(tmp_path / "a.db")[0]] == [r.record.record_id]
    assert [x.record_id for x in read_jsonl(tmp_path / "a.jsonl")[0]] == [r.record.record_id]
    if status == "tool_error":
        assert r.record.error_type == "unrepresentable_result"
        assert r.value is None


async def test_a_lone_surrogate_in_a_text_result_is_named_in_the_record() -> None:
    memory = MemorySink()
    r = await engine_with(memory).call("give", {"kind": "lone_surrogate"})
    assert r.record.extra["result_repairs"] == ["lone_surrogate"]


async def test_lone_surrogate_in_arguments_is_repaired_before_the_tool_runs() -> None:
    memory = MemorySink()
    engine = engine_with(memory)
    as_value = await engine.call("echo", {"text": "x\ud800"})
    as_text = await engine.call("echo", '{"text": "x\\ud800"}')
    for r in (as_value, as_text):
        assert r.status == "ok" and r.content == "x\ufffd"
        assert r.record.repairs == ("lone_surrogate",)
        assert r.record.arguments_sha256 is not None
    assert len(memory.records) == 2


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"value": _recursive_list()}, "a container holds itself"),
        ({"value": {(1,): "a"}}, "an object key is a tuple"),
        ({"value": 10**5000}, "more than 4300 digits"),
    ],
    ids=["recursive", "tuple_key", "huge_int"],
)
async def test_arguments_json_cannot_hold_are_invalid(
    tmp_path: Path, arguments: dict[str, Any], reason: str
) -> None:
    memory = MemorySink()
    engine = engine_with(memory, SQLiteSink(tmp_path / "a.db"))
    r = await engine.call("anything", arguments)
    assert r.status == "invalid_args" and reason in r.content
    assert r.record.arguments_sha256 is None
    assert len(memory.records) == 1 and engine.sink_errors == 0
    assert len(read_sqlite(tmp_path / "a.db")[0]) == 1


async def test_names_and_messages_with_surrogates_reach_every_sink(tmp_path: Path) -> None:
    memory = MemorySink()
    engine = engine_with(memory, SQLiteSink(tmp_path / "a.db"), JSONLSink(tmp_path / "a.jsonl"))
    unknown = await engine.call("no\ud800such", {"a": "\ud800"}, session_id="s\udc00")
    broken = await engine.call("raise_unprintable", {})
    engine.close()
    assert unknown.status == "invalid_args" and broken.status == "tool_error"
    assert broken.content == "Error: UnprintableError: <UnprintableError>"
    assert engine.sink_errors == 0
    assert len(read_sqlite(tmp_path / "a.db")[0]) == 2
    assert len(read_jsonl(tmp_path / "a.jsonl")[0]) == 2


async def test_execute_many_keeps_every_call_when_one_result_is_odd() -> None:
    memory = MemorySink()
    engine = engine_with(memory)
    kinds = list(ODD_RESULTS)
    results = await engine.execute_many([CallRequest("give", {"kind": k}) for k in kinds])
    assert len(results) == len(kinds) == len(memory.records)
    assert {r.status for r in results} == {"ok", "tool_error"}


# ------------------------------------------------------------------ property test

_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=8)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.builds(lambda: 10**5000),  # repr() of it raises, so no st.just
    st.floats(allow_nan=True, allow_infinity=True),
    _text,
    st.binary(max_size=6),
    st.sampled_from([object(), Unprintable(), frozenset({1}), {2, 3}]),
)
_keys = st.one_of(_text, st.integers(), st.tuples(st.integers()))
_odd = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.tuples(inner, inner),
        st.dictionaries(_keys, inner, max_size=3),
    ),
    max_leaves=8,
)
_recursive = st.sampled_from(["list", "dict"]).map(
    lambda kind: _recursive_list() if kind == "list" else _recursive_dict()
)
_values = st.one_of(_odd, _recursive)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    arguments=st.lists(st.one_of(_values, _text), min_size=1, max_size=4),
    results=st.lists(_values, min_size=1, max_size=4),
)
def test_property_one_record_per_call_and_nothing_escapes(
    tmp_path_factory: pytest.TempPathFactory, arguments: list[Any], results: list[Any]
) -> None:
    db = tmp_path_factory.mktemp("odd") / "a.db"

    async def run() -> tuple[int, int, int]:
        memory = MemorySink()
        engine = engine_with(memory, SQLiteSink(db))
        calls = 0
        for value in arguments:
            # as a value, and as JSON-ish text (a surrogate, a stray quote...)
            for args in ({"value": value}, value if isinstance(value, str) else None):
                await engine.call("anything", args)
                calls += 1
        for value in results:
            _returned["value"] = value
            try:
                await engine.call("anything", {})
                batch = await engine.execute_many(
                    [CallRequest("anything", {}), CallRequest("echo", {"text": "\ud800"})]
                )
            finally:
                _returned.clear()
            assert len(batch) == 2
            calls += 3
        engine.close()
        return calls, len(memory.records), engine.sink_errors

    calls, recorded, sink_errors = anyio.run(run)
    assert recorded == calls and sink_errors == 0
    assert len(read_sqlite(db)[0]) == calls


# ------------------------------------------------------- large texts, off the loop


async def test_a_repetition_loop_argument_does_not_outlast_the_timeout() -> None:
    # Before: 32 KB of "aaaa…" made engine.call take 15 s with timeout=1 (the record's
    # token count was quadratic and ran on the loop after the call).
    engine = ToolEngine([echo], sinks=[MemorySink()], timeout=1)
    t0 = time.perf_counter()
    r = await engine.call("echo", '{"text": "' + "a" * 32_000 + '"}')
    assert r.status == "ok" and time.perf_counter() - t0 < 1
    assert r.record.result_tokens == 4000  # "aaaaaaaa" is one token
    assert 4000 < r.record.arguments_tokens < 4010  # and a few for {"text": "…"}


async def test_large_texts_are_counted_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    counted: list[tuple[int, bool]] = []
    loop_thread = threading.current_thread()

    def spy(text: str) -> int:
        counted.append((len(text), threading.current_thread() is loop_thread))
        return estimate_tokens(text)

    monkeypatch.setattr(engine_module, "estimate_tokens", spy)
    monkeypatch.setattr(normalize, "estimate_tokens", spy)
    engine = ToolEngine([echo], sinks=[MemorySink()], result_token_budget=None)
    await engine.call("echo", {"text": "x" * 50_000})  # 50 KB in, 50 KB out
    await engine.call("echo", {"text": "small"})
    big = [on_loop for size, on_loop in counted if size > OFF_LOOP_CHARS]
    small = [on_loop for size, on_loop in counted if size <= OFF_LOOP_CHARS]
    assert big == [False, False]  # the result and the arguments, in a worker thread
    assert small and all(small)  # small ones stay on the loop: no thread hop per call


async def test_a_cancelled_call_with_large_arguments_is_recorded() -> None:
    memory = MemorySink()
    engine = ToolEngine([sleeper], sinks=[memory])
    with anyio.move_on_after(0.2):
        await engine.call("sleeper", {"text": "ab" * 100_000})
    assert [r.status for r in memory.records] == ["cancelled"]
    assert memory.records[0].arguments_tokens > 0


# --------------------------------------------- exits raised by a tool, rejects of big calls


def _raising(exc: type[BaseException], executor: str) -> Any:
    if executor == "async":

        async def exits_async() -> None:
            raise exc()

        return tool(name="exits")(exits_async)

    def exits() -> None:
        raise exc()

    return tool(name="exits", executor=executor)(exits)  # type: ignore[arg-type]


@pytest.mark.parametrize("executor", ["async", "inline", "thread"])
@pytest.mark.parametrize("exc", [SystemExit, GeneratorExit])
async def test_an_exit_raised_by_a_tool_is_its_error(
    exc: type[BaseException], executor: str
) -> None:
    """``SystemExit`` or ``GeneratorExit`` from a tool's body ends that call as
    ``tool_error`` with its record; before, it escaped the engine and ended the caller."""
    memory = MemorySink()
    engine = ToolEngine([_raising(exc, executor)], sinks=[memory])
    result = await engine.call("exits", {})
    assert result.status == "tool_error"
    assert exc.__name__ in result.content
    assert [(r.status, r.error_type) for r in memory.records] == [("tool_error", exc.__name__)]
    # and in a batch, the other call is not cancelled
    batch = await engine.execute_many([CallRequest("exits", {}), CallRequest("exits", {})])
    assert [r.status for r in batch] == ["tool_error", "tool_error"]


@pytest.mark.parametrize("executor", ["async", "inline"])
async def test_keyboard_interrupt_from_a_tool_propagates_after_its_record(executor: str) -> None:
    """Ctrl-C is the user's, not the tool's: it goes on to the caller, and the call
    still leaves its one record (``cancelled``)."""
    memory = MemorySink()
    engine = ToolEngine([_raising(KeyboardInterrupt, executor)], sinks=[memory])
    with pytest.raises(KeyboardInterrupt):
        await engine.call("exits", {})
    assert [(r.status, r.error_type) for r in memory.records] == [
        ("cancelled", "KeyboardInterrupt")
    ]


@tool
def wipe(note: str) -> str:
    return "wiped"


async def test_rejecting_a_huge_pending_call_counts_nothing_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``reject`` is synchronous: the arguments of the waiting call were counted (off
    the loop) when it was recorded as pending, and the rejection reuses that count
    instead of counting them again on the caller's thread (before: 4.8 s for 1 MB of
    words, with the event loop blocked)."""
    counted: list[int] = []
    loop_thread = threading.current_thread()

    def spy(text: str) -> int:
        if threading.current_thread() is loop_thread:
            counted.append(len(text))
        return estimate_tokens(text)

    memory = MemorySink()
    engine = ToolEngine([wipe], sinks=[memory], policies=[RequireApproval("wipe")])
    pending = await engine.call("wipe", {"note": "some words " * 20_000})
    assert pending.status == "pending_approval" and pending.approval_id
    monkeypatch.setattr(engine_module, "estimate_tokens", spy)
    monkeypatch.setattr(normalize, "estimate_tokens", spy)
    rejected = engine.reject(pending.approval_id, "not now")
    assert rejected.status == "denied"
    assert all(size <= OFF_LOOP_CHARS for size in counted), counted
    first, second = memory.records
    assert second.arguments_tokens == first.arguments_tokens > 40_000
    assert second.arguments_sha256 == first.arguments_sha256
