"""Calls written in prose: JSON call objects anywhere in the text (F35), calls after
prose in formats that usually start the output with them (F31). Every case whole and
in random chunkings (F14, F15)."""

from __future__ import annotations

import json

import pytest
from tf_harness import TOOLS, Case, check_case, check_split_invariance

from toolwire.events import TextDelta
from toolwire.parser import StreamParser, parse_stream
from toolwire.textformats.loose import HOLD_LIMIT

W = ("get_weather", {"city": "Oslo"}, "complete")
P = ("ping", {}, "complete")
CALL_W = json.dumps({"name": "get_weather", "arguments": {"city": "Oslo"}})
CALL_P = json.dumps({"name": "ping", "parameters": {}})

# families whose own markers have nothing to do with a JSON object in prose
FAMILIES = ["auto", "hermes", "mistral", "qwen3_coder", "kimi_k2", "pythonic", "glm45"]


def _cases(family: str) -> list[Case]:
    f = family
    return [
        Case(f"{f}-bare-F35", f, f"Sure. {CALL_W} Done.", [W], text="Sure.  Done."),
        Case(
            f"{f}-fence-F35",
            f,
            f"Calling:\n```json\n{CALL_W}\n```\nok",
            [W],
            text="Calling:\n\nok",
        ),
        Case(f"{f}-json-tag-F35", f, f"x <json>{CALL_W}</json> y", [W], text="x  y"),
        Case(
            f"{f}-function-tag-F35",
            f,
            f"<function>\n{CALL_P}\n</function>",
            [P],
            text="",
        ),
        Case(f"{f}-two-objects-F35", f, f"{CALL_W} and {CALL_P}", [W, P], text=" and "),
        Case(
            f"{f}-undeclared-stays-text-F35",
            f,
            'See {"name": "delete_all", "arguments": {}} and <json>{"name": "x"}</json>.',
            [],
            text='See {"name": "delete_all", "arguments": {}} and <json>{"name": "x"}</json>.',
        ),
        Case(
            f"{f}-not-a-call-stays-text-F35",
            f,
            'Data: {"name": "ping"} {"name": "ping", "arguments": 3} {"city": "Oslo"} '
            "```\ncode {x}\n``` <b>bold</b> a<b",
            [],
            text='Data: {"name": "ping"} {"name": "ping", "arguments": 3} {"city": "Oslo"} '
            "```\ncode {x}\n``` <b>bold</b> a<b",
        ),
    ]


CASES = [case for family in FAMILIES for case in _cases(family)]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_json_call_object_in_prose_F35(case: Case) -> None:
    check_case(case)


def test_json_call_object_needs_declared_tools_F35() -> None:
    """With no tools declared nothing says the object is a call: it stays text."""
    text = f"Sure. {CALL_W}"
    r = parse_stream(text, "text:hermes", [])
    assert (r.calls, r.text) == ([], text)


def test_cut_off_json_call_object_is_truncated_F35_F1() -> None:
    text = 'Sure. {"name": "get_weather", "arguments": {"city": "Os'
    r = parse_stream(text, "text:hermes", TOOLS)
    assert r.text == "Sure. "
    assert [(c.name, c.status) for c in r.calls] == [("get_weather", "truncated")]
    check_split_invariance("hermes", text, TOOLS, "prose-cut-F35")


@pytest.mark.parametrize(
    "tail",
    [
        '{"name": "' + "n" * 600,  # a name longer than any tool's
        "{" + " " * 600,  # whitespace that never ends
        '<json> {"name": "get_weather", "arguments": ' + " " * 600,
    ],
)
def test_text_held_back_for_a_possible_call_is_bounded_F35(tail: str) -> None:
    parser = StreamParser("text:hermes", TOOLS)
    events = parser.feed("Look: " + tail)
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert len("Look: " + tail) - len(shown) <= HOLD_LIMIT
    events += parser.close()
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Look: " + tail


PROSE_CASES = [
    Case(
        "pythonic-after-prose-F31",
        "pythonic",
        'Here\'s the call: [get_weather(city="Oslo"), ping()] ok',
        [W, P],
        text="Here's the call:  ok",
    ),
    Case(
        "auto-pythonic-after-prose-F31",
        "auto",
        'Here\'s the call: [get_weather(city="Oslo")]',
        [W],
        text="Here's the call: ",
    ),
    Case(
        "pythonic-prose-brackets-stay-text-F31",
        "pythonic",
        "See [1], [note(s)] and [x] or [unknown_tool(a=1)] and [ping",
        [],
        text="See [1], [note(s)] and [x] or [unknown_tool(a=1)] and [ping",
    ),
    Case(
        "llama3-after-prose-F31",
        "llama3_json",
        f"Here's the call: {CALL_P}; {CALL_W}",
        [P, W],
        text="Here's the call: ",
    ),
    Case(
        "llama3-newline-separated",
        "llama3_json",
        f"{CALL_P}\n{CALL_W}",
        [P, W],
        text="",
    ),
    Case(
        "llama3-newline-then-plain-json-keeps-its-text",
        "llama3_json",
        f'{CALL_P}\n{{"answer": 42}}',
        [P],
        text='\n{"answer": 42}',
    ),
    Case(
        "llama3-tagged-newline-separated",
        "llama3_json",
        f"<|python_tag|>{CALL_P}\n\n{CALL_W}",
        [P, W],
        text="",
        tools=[],
    ),
]


@pytest.mark.parametrize("case", PROSE_CASES, ids=lambda c: c.id)
def test_call_after_prose_F31(case: Case) -> None:
    check_case(case)


def test_call_after_prose_needs_declared_tools_F31() -> None:
    text = 'Here\'s the call: [get_weather(city="Oslo")]'
    r = parse_stream(text, "text:pythonic", [])
    assert (r.calls, r.text) == ([], text)
