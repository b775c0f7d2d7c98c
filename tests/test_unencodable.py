"""Values that UTF-8 or JSON text cannot hold: lone surrogates, non-string keys,
containers that hold themselves, integers of more digits than Python prints.

Reading one is a named repair (``lone_surrogate``) or a failure; writing one is an
escape or a clear error, never a traceback (issue 11).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolwire.cli import app
from toolwire.jsontext import NotJSONError, dumps
from toolwire.parser import StreamParser
from toolwire.repair import repair_json
from toolwire.spec import ToolSpec
from toolwire.surrogates import escape_surrogates, replace_surrogates, replace_surrogates_in

runner = CliRunner()


@pytest.mark.parametrize(
    ("text", "readers"),
    [
        ('{"a": "x\\ud800y"}', ()),  # JSON escape: orjson refuses it, the lenient reader keeps it
        ('{"a": "x\\udc00y",}', ("trailing_comma",)),
        ("{'a': 'x\\ud800y'}", ("python_literal",)),
        ("{'a': 'x\\U0000d800y'}", ("python_literal",)),
        ('{"a": "x\ud800y"}', ()),  # the character itself, in a Python str
    ],
)
def test_lone_surrogate_in_a_string_is_a_named_repair(text: str, readers: tuple[str, ...]) -> None:
    result = repair_json(text)
    assert result.value == {"a": "x\ufffdy"}
    assert result.status == "repaired"
    assert result.repairs == (*readers, "lone_surrogate")


def test_lone_surrogate_in_a_key_and_a_cut_off_value() -> None:
    result = repair_json('{"\\udc00k": ["\\ud800')
    assert result.value == {"\ufffdk": ["\ufffd"]}
    assert result.status == "truncated"
    assert "lone_surrogate" in result.repairs


def test_a_surrogate_pair_is_one_character_not_a_repair() -> None:
    assert repair_json('{"a": "\\ud83d\\ude00"}').status == "complete"
    # A Python literal spells the pair as two code points; read as the one character.
    result = repair_json("{'a': '\\ud83d\\ude00'}")
    assert result.value == {"a": "\U0001f600"}
    assert result.repairs == ("python_literal",)


def test_an_escaped_backslash_before_u_is_text_not_a_surrogate() -> None:
    result = repair_json('{"a": "\\\\ud800"}')
    assert result.value == {"a": "\\ud800"} and result.status == "complete"


def test_surrogate_helpers() -> None:
    assert replace_surrogates("a\ud800\ud83d\ude00\udc00") == "a\ufffd\U0001f600\ufffd"
    assert escape_surrogates('"a\ud800"') == '"a\\ud800"'
    same = {"a": ["b"]}
    assert replace_surrogates_in(same) == (same, False)
    assert replace_surrogates_in(same)[0] is same
    assert replace_surrogates_in(["\ud83d\ude00"]) == (["\U0001f600"], False)


def test_finished_call_with_lone_surrogate_is_repaired_not_complete() -> None:
    tools = [ToolSpec(name="f", parameters={"type": "object"})]
    parser = StreamParser("openai-chat", tools)
    chunk = (
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a",'
        '"function":{"name":"f","arguments":"{\\"x\\": \\"\\\\ud800\\"}"}}]}}]}\n\n'
        "data: [DONE]\n\n"
    )
    events = parser.feed(chunk.encode())
    events.extend(parser.close())
    calls = [e.call for e in events if hasattr(e, "call")]
    assert [(c.status, c.arguments, c.repairs) for c in calls] == [
        ("repaired", {"x": "\ufffd"}, ("lone_surrogate",))
    ]


# --------------------------------------------------------------------- writing JSON


def test_dumps_escapes_lone_surrogates_and_reads_back() -> None:
    import json

    text = dumps({"k\ud800": ["\udc00", 2**70]})
    text.encode("utf-8")  # writable
    assert json.loads(text) == {"k\ud800": ["\udc00", 2**70]}


def _recursive() -> list[object]:
    loop: list[object] = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({(1, 2): 3}, "an object key is a tuple, not a string or a number"),
        (10**5000, "it holds an integer of more than 4300 digits"),
        (_recursive(), "a container holds itself"),
    ],
    ids=["tuple_key", "huge_int", "recursive"],
)
def test_dumps_names_what_json_cannot_hold(value: object, reason: str) -> None:
    with pytest.raises(NotJSONError) as info:
        dumps(value)
    assert str(info.value) == reason


# ----------------------------------------------------------------- the command line


def test_repair_cli_prints_a_lone_surrogate_repaired() -> None:
    out = runner.invoke(app, ["repair", "--json", '{"a": "\\ud800"}'])
    assert out.exit_code == 0, out.output
    assert '"\ufffd"' in out.stdout and '"lone_surrogate"' in out.stdout


def test_parse_cli_prints_surrogates_escaped(tmp_path: Path) -> None:
    # A call cut off inside a string: its partial value keeps what was sent, escaped.
    stream = tmp_path / "s.sse"
    stream.write_text(
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a",'
        '"function":{"name":"f","arguments":"{\\"x\\": \\"\\\\ud800"}}]}}]}\n\n'
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}\n\n'
    )
    out = runner.invoke(app, ["parse", str(stream)])
    assert out.exit_code == 0, out.output
    assert "Traceback" not in out.output
    assert '"truncated"' in out.stdout


def test_print_json_fails_in_one_line_for_what_json_cannot_hold() -> None:
    import typer

    from toolwire.cli.io import print_json

    with pytest.raises(typer.Exit) as info:
        print_json({(1,): 2})
    assert info.value.exit_code == 2
