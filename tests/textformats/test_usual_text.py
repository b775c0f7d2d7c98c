"""Llama 3 JSON text fed whole in its usual shape is read in one pass
(``jsoncalls.read_usual_text``) before ``_whole_text`` and the grammar's requests would
read it: it must report exactly what they report, the same events in the same order,
and take nothing it cannot read as they do (F15, F22)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from tf_harness import TOOLS, feed_steps, reading

from toolwire.assemble import CallAssembler
from toolwire.events import CallFinished, Event
from toolwire.spec import ToolSpec
from toolwire.textformats.llama3_json import Llama3JsonExtractor

_SPECS = [ToolSpec.from_dict(t) for t in TOOLS]
_PROSE = [
    "Some prose, long enough for the whole text to be read at once, and more of it.\n",
    "Some prose.",
    "",
    "\n",
    "  \u2003",
    "a < b",
    "a { b",
    "a ` b",
    "<think>x</think>",
    "<|python_tag|",
    "<|eom_id|>",
    '{"name": "search", "parameters": {}}',
]
_HEADERS = [
    '{"name": "search", "parameters": ',
    '{"name": "search", "arguments": ',
    '{"name": "nowhere", "parameters": ',
    '{"name": "", "parameters": ',
    '{ "name": "search", "parameters": ',
    ' {"name": "search", "parameters": ',
    '{"name": "search",  "parameters": ',
    '{"name": "search", "parameters":  ',
    '{"name": "se\\"a", "parameters": ',
    '{"name": "search", "args": ',
    '{"name": "search", "parameters": "',
    '{"name": "a<|eom_id|>}", "parameters": ',
]
_ARGUMENTS = [
    '{"query": "a"}',
    '{"query": "a", "limit": 3}',
    '{"query": "a", "limit": "3"}',
    "{}",
    "[1]",
    '{"query": "a<|eom_id|>b"}',
    '{"query": "a"} ',
    '{"query": "a"}\u2003',
    "{'query': 'a'}",
    '{"query": "a"',
    '{"query": "a"}}',
    '{"query": "\\ud800"}',
]
_ENDS = ["}<|eom_id|>", "}<|eot_id|>", "} <|eom_id|>", "}\n<|eom_id|>", "}", "<|eom_id|>", ""]
_TAGS = ["<|python_tag|>", "<|python_tag|>", "<|python_tag|> ", "<|python_", ""]


def _read(steps: list[str | None], *, tools: bool, usual: bool, whole: bool) -> list[Event]:
    """The events for ``steps`` (text fed, or None: ``close``), with the one-pass reading
    or without it, and with text fed whole read without the requests or not."""
    specs = _SPECS if tools else []
    sink = CallAssembler(specs)
    extractor = Llama3JsonExtractor(sink, specs)
    with reading(Llama3JsonExtractor, whole=whole, usual=usual):
        feed_steps(extractor, steps)
    sink.end()
    return sink.events


# a call in the usual shape after prose without markup (the one pass reads it), or a
# unit of any of the pieces above (it mostly does not)
_USUAL = st.tuples(
    st.sampled_from(["Some prose.", "", "\n", "  \u2003", "a } b", "é"]),
    st.just("<|python_tag|>"),
    st.sampled_from(_HEADERS[:4]),
    st.sampled_from(_ARGUMENTS[:8]),
    st.sampled_from(_ENDS[:2]),
).map("".join)
_ANY = st.tuples(
    st.sampled_from(_PROSE),
    st.sampled_from(_TAGS),
    st.sampled_from(_HEADERS),
    st.sampled_from(_ARGUMENTS),
    st.sampled_from(_ENDS),
).map("".join)
_UNITS = st.one_of(_USUAL, _USUAL, _USUAL, _ANY)


@settings(max_examples=500, deadline=None)
@given(
    units=st.lists(_UNITS, min_size=1, max_size=5),
    tail=st.sampled_from(_PROSE),
    tools=st.booleans(),
    data=st.data(),
)
def test_the_one_pass_reads_what_the_other_readings_read_F15(
    units: list[str], tail: str, tools: bool, data: st.DataObject
) -> None:
    text = "".join(units) + tail
    split = data.draw(st.sampled_from([len(text), len(text), data.draw(st.integers(0, len(text)))]))
    for steps in ([text, None], [text[:split], text[split:], None], [text, None, text, None]):
        usual = _read(steps, tools=tools, usual=True, whole=True)
        assert usual == _read(steps, tools=tools, usual=False, whole=True)
        assert usual == _read(steps, tools=tools, usual=False, whole=False)


def _spied(text: str, *, tools: bool) -> tuple[list[object], list[str], list[Event]]:
    """What ``usual_text`` answered and which markers ``whole_calls`` was asked about,
    for ``text`` fed whole and closed."""
    specs = _SPECS if tools else []
    sink = CallAssembler(specs)
    answers: list[object] = []
    asked: list[str] = []

    class Spied(Llama3JsonExtractor):
        def usual_text(self):  # type: ignore[no-untyped-def]
            answers.append(super().usual_text())
            return answers[-1]

        def whole_calls(self, marker: str):  # type: ignore[no-untyped-def]
            asked.append(marker)
            return super().whole_calls(marker)

    extractor = Spied(sink, specs)
    extractor.feed(text)
    extractor.close()
    sink.end()
    return answers, asked, sink.events


_CALL = '<|python_tag|>{"name": "search", "parameters": {"query": "a"}}<|eom_id|>'


def test_the_usual_shape_is_read_in_one_pass() -> None:
    """The bench's shape (prose, then a call, four times), with tools declared or not,
    is read by the one pass alone, so the property test above compares it."""
    text = f"{_PROSE[0]}{_CALL}\n" * 4
    for tools in (True, False):
        answers, asked, events = _spied(text, tools=tools)
        assert len(answers) == 1 and answers[0] is not None
        assert asked == []
        finished = [e.call for e in events if isinstance(e, CallFinished)]
        assert [c.status for c in finished] == ["complete"] * 4


def test_text_the_one_pass_does_not_read_is_left_whole_to_the_others() -> None:
    """Prose with what may be markup (with tools declared, a brace may open a call in
    prose, F35), an envelope with another member, an end tag inside a string or in
    the name, a tail that may become a marker: the one pass answers None and the text
    is read as before."""
    other_member = _CALL.replace('"parameters"', '"args"')
    tag_in_string = _CALL.replace('"a"}', '"a<|eom_id|>"}')
    tag_in_name = _CALL.replace('"search"', '"a}<|eom_id|>"')
    for text, tools in [
        (f"{_PROSE[0]}a {{ b\n{_CALL}", True),
        (f"{_PROSE[0]}{other_member}", False),
        (f"{_PROSE[0]}{tag_in_string}", False),
        (f"{_PROSE[0]}{tag_in_name}", False),
        (f"{_PROSE[0]}{_CALL}<|python_", False),
    ]:
        answers, _, events = _spied(text, tools=tools)
        assert answers == [None]
        steps: list[str | None] = [text, None]
        assert events == _read(steps, tools=tools, usual=False, whole=False)
    # without tools a brace in prose is text: read in one pass
    answers, _, _ = _spied(f"{_PROSE[0]}a {{ b\n{_CALL}", tools=False)
    assert answers[0] is not None
