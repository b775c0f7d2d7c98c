"""Ids unique across a conversation, limits that cannot be negative, histories that
are refused in words (found in review)."""

from __future__ import annotations

import pytest

from toolwire.agent import Agent
from toolwire.agent.history import check_history, unique_ids
from toolwire.client import ModelClient
from toolwire.engine import ToolEngine
from toolwire.events import ToolCall


def call(id: str) -> ToolCall:
    return ToolCall(id=id, name="add", arguments={}, raw_arguments="{}", status="complete")


def test_a_renamed_id_never_takes_one_the_model_already_sent() -> None:
    """F32: the model sent ``x`` and ``x_t2_0`` in turn 1, then ``x`` again in turn 2:
    the renamed call must not become a second ``x_t2_0``."""
    taken: set[str] = set()
    first = unique_ids([call("x"), call("x_t2_0")], 1, taken)
    second = unique_ids([call("x")], 2, taken)
    ids = [c.id for c in first + second]
    assert len(set(ids)) == 3 and ids[:2] == ["x", "x_t2_0"]


def test_a_history_with_a_repeated_id_or_odd_calls_is_refused_in_words() -> None:
    twice = [
        {"role": "assistant", "tool_calls": [{"id": "a"}]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "assistant", "tool_calls": [{"id": "a"}]},
        {"role": "tool", "tool_call_id": "a", "content": "2"},
    ]
    with pytest.raises(ValueError, match="call ids used twice: a"):
        check_history(twice)
    with pytest.raises(ValueError, match="call ids used twice"):
        check_history([{"role": "assistant", "tool_calls": [{"id": "a"}, {"id": "a"}]}])
    for odd in (["a"], {"id": "a"}):
        with pytest.raises(ValueError, match="not a list of objects"):
            check_history([{"role": "assistant", "tool_calls": odd}])


@pytest.mark.parametrize(
    "limit", ["max_turns", "max_tool_calls", "max_input_tokens", "max_total_tokens"]
)
def test_a_negative_limit_is_refused(limit: str) -> None:
    """``max_tool_calls=-1`` once declined the last call and ran the others."""
    client = ModelClient("openai-chat", "http://127.0.0.1:9/v1", model="m")
    with pytest.raises(ValueError, match=f"{limit} must not be negative"):
        Agent(client, ToolEngine([]), **{limit: -1})
