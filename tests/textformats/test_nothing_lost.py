# ruff: noqa: E501  (test data: long literal model outputs; DeepSeek markers use U+FF5C)
"""Bad input loses nothing: text in call markup that is not a tag, a call cut off in
its markup, damaged Harmony headers and a reused Kimi id are all accounted for,
whole and in any chunking (G3, F1, F15)."""

from __future__ import annotations

import re
import warnings

import pytest
from tf_harness import TOOLS, check_split_invariance

from toolwire.parser import parse_stream

DS = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
STEP3 = '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">{}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>'

# (family, a call to get_weather(city="Oslo") with JUNK where only markup belongs)
JUNK_IN_MARKUP = [
    (
        "qwen3_coder",
        "<tool_call>\n<function=get_weather>\nJUNK<parameter=city>\nOslo\n</parameter>\n</function>\n</tool_call>",
    ),
    (
        "qwen3_coder",
        "<tool_call><function=get_weather><parameter=city>Oslo</parameter>\n<parameter=JUNK</tool_call>",
    ),
    (
        "seed_oss",
        "<seed:tool_call><function=get_weather><parameter=city>Oslo</parameter>JUNK</function></seed:tool_call>",
    ),
    (
        "glm45",
        "<tool_call>get_weather\n<arg_key>city</arg_key>JUNK<arg_value>Oslo</arg_value>\n</tool_call>",
    ),
    (
        "glm47",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Oslo</arg_value>\nJUNK\n</tool_call>",
    ),
    (
        "glm47",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_key>JUNK</arg_key><arg_value>Oslo</arg_value></tool_call>",
    ),
    (
        "minimax_m2",
        '<minimax:tool_call><invoke name="get_weather"><parameter name="city" JUNK>Oslo</parameter></invoke></minimax:tool_call>',
    ),
    (
        "minimax_m2",
        '<minimax:tool_call><invoke name="get_weather"><parameter JUNK="city">Oslo</parameter><parameter name="city">Oslo</parameter></invoke></minimax:tool_call>',
    ),
    (
        "minimax_m2",
        '<minimax:tool_call><invoke name=JUNK"x name="get_weather"><parameter name="city">Oslo</parameter></invoke></minimax:tool_call>',
    ),
    (
        "deepseek_dsml",
        '<｜DSML｜function_calls><｜DSML｜invoke name="get_weather"><｜DSML｜parameter name="city" string="JUNK">Oslo</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>',
    ),
    ("step3", STEP3.replace("{}", 'JUNK<steptml:parameter name="city">Oslo</steptml:parameter>')),
    ("agent", '<invoke name="get_weather"><parameter name="city">Oslo</parameter>JUNK</invoke>'),
    (
        "agent",
        "<tool><name>get_weather</name><arguments><city>Oslo</city>JUNK</arguments></tool>",
    ),
    (
        "agent",
        "<tool><name>get_weather</name><arguments><city>Oslo</city><city>JUNK</city></arguments></tool>",
    ),
    ("deepseek_v3", DS.replace("{}\n```", '{"city": "Oslo"}\n```JUNK')),
    (
        "deepseek_v31",
        DS.replace(
            "function<｜tool▁sep｜>get_weather\n```json\n{}\n```",
            'get_weather<｜tool▁sep｜>{"city": "Oslo"} JUNK',
        ),
    ),
]


@pytest.mark.parametrize(("family", "text"), JUNK_IN_MARKUP)
def test_text_in_call_markup_makes_the_call_invalid_carrying_it_G3(family: str, text: str) -> None:
    # one rule for every tag family: whitespace between tags is the format's; any
    # other text there was not read, so the call is invalid and carries its markup
    (call,) = parse_stream(text, f"text:{family}", TOOLS).calls
    assert (call.name, call.status, call.arguments) == ("get_weather", "invalid", None)
    assert "JUNK" in call.raw_arguments
    assert call.errors
    check_split_invariance(family, text, TOOLS, f"junk-{family}")


def test_whitespace_between_tags_is_the_formats_own_G3() -> None:
    text = "<tool_call>\n <function=get_weather>\n\t<parameter=city>\nOslo\n</parameter>\r\n</function>\n</tool_call>"
    (call,) = parse_stream(text, "text:qwen3_coder", TOOLS).calls
    assert (call.status, call.arguments) == ("complete", {"city": "Oslo"})


def test_a_parameter_given_twice_drops_neither_value_G3() -> None:
    text = "<tool_call><function=get_weather><parameter=city>Oslo</parameter><parameter=city>Bern</parameter></function></tool_call>"
    (call,) = parse_stream(text, "text:qwen3_coder", TOOLS).calls
    assert call.status == "invalid"
    assert "Oslo" in call.raw_arguments and "Bern" in call.raw_arguments
    assert any("more than once" in e for e in call.errors)


@pytest.mark.parametrize(
    ("family", "wrapper", "markup", "partial"),
    [
        (
            "qwen3_coder",
            "<tool_call>\n",
            "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n2",
            {"city": "Oslo"},
        ),
        ("glm45", "", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Os", {}),
        (
            "minimax_m2",
            "<minimax:tool_call>",
            '<invoke name="get_weather"><parameter name="city">Oslo</parameter><parameter na',
            {"city": "Oslo"},
        ),
        (
            "step3",
            STEP3[: STEP3.index("<steptml")],
            '<steptml:invoke name="get_weather"><steptml:parameter name="city">Os',
            {},
        ),
    ],
)
def test_a_call_cut_off_in_its_markup_keeps_it_as_raw_arguments_F1(
    family: str, wrapper: str, markup: str, partial: dict[str, str]
) -> None:
    text = wrapper + markup
    (call,) = parse_stream(text, f"text:{family}", TOOLS).calls
    assert (call.name, call.status, call.partial_arguments) == ("get_weather", "truncated", partial)
    assert call.raw_arguments == markup  # the cut-off value too
    check_split_invariance(family, text, TOOLS, f"cut-{family}")


def test_a_json_call_cut_off_before_its_arguments_keeps_its_text_F1() -> None:
    # keys in another order: nothing was read as arguments before the cut
    text = '<tool_call>{"arguments": {"city": "Os'
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.status, call.raw_arguments) == ("truncated", '{"arguments": {"city": "Os')
    check_split_invariance("hermes", text, TOOLS, "cut-hermes")


HARMONY_CALL = "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{}<|call|>"


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # cut off in a header that names no recipient: the header stays text
        ("Hi <|start|>assistant<|channel|>fin", "text"),
        # a header that is not what the format writes: text as written, with its message
        ("<|start|>assistant<|channel|>finJUNKal<|message|>Hello<|end|>", "text"),
        # the same with a recipient: an invalid call carrying header and message
        (HARMONY_CALL.replace("json", "jsonJUNK"), "call"),
        # <|message|> damaged: the header must not run on, unread, over the content
        (HARMONY_CALL.replace("<|message|>", "<|messJUNKage|>"), "call"),
    ],
)
def test_a_harmony_header_that_cannot_be_read_is_kept_G3(text: str, kept: str) -> None:
    r = parse_stream(text, "text:harmony", TOOLS)
    if kept == "text":
        assert r.calls == []
        assert r.text == text.replace("<|end|>", "")
    else:
        (call,) = r.calls
        assert (call.name, call.status) == ("get_weather", "invalid")
        assert call.raw_arguments == text.removesuffix("<|call|>")
    check_split_invariance("harmony", text, TOOLS, "harmony-header")


def test_a_harmony_header_cut_off_after_its_recipient_is_a_truncated_call_F1() -> None:
    text = "<|channel|>commentary to=functions.get_weather <|constr"
    (call,) = parse_stream(text, "text:harmony", TOOLS).calls
    assert (call.name, call.status, call.raw_arguments) == ("get_weather", "truncated", text)


@pytest.mark.parametrize(
    "invoke",
    [
        '<steptZq4xml:invoke name="ping"></steptml:invoke>',  # no readable invoke at all
        '<steptml:invokename="ping"></steptml:invoke>',  # a tag run into its attribute
    ],
)
def test_step3_section_text_with_no_readable_invoke_is_an_invalid_call_G3(invoke: str) -> None:
    text = f"<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>{invoke}<｜tool_call_end｜><｜tool_calls_end｜>after"
    r = parse_stream(text, "text:step3", TOOLS)
    (call,) = r.calls
    assert call.status == "invalid"
    assert invoke in call.raw_arguments
    assert r.text == "after"
    check_split_invariance("step3", text, TOOLS, "step3-section")


def test_kimi_id_written_again_after_its_call_closed_starts_a_new_call_F3_F15() -> None:
    one = '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>'
    text = (
        f"<|tool_calls_section_begin|>{one}{one.replace('Oslo', 'Bern')}<|tool_calls_section_end|>"
    )
    r = parse_stream(text, "text:kimi_k2", TOOLS)
    assert [(c.id, c.arguments, c.status) for c in r.calls] == [
        ("functions.get_weather:0", {"city": "Oslo"}, "complete"),
        ("functions.get_weather:0", {"city": "Bern"}, "complete"),
    ]
    assert r.errors == []
    # found by the fuzzer: with JSON to repair in the second call, chunkings differed
    found = text.replace('{"city": "Bern"}', '{{"city" "Oslo"}').replace(
        "<|tool_call_end|><|tool_call_begin|>",
        "<|tool_call_end|><|tool_calls_section_begin|><|tool_call_begin|>",
    )
    check_split_invariance("kimi_k2", found, TOOLS, "kimi-id")


def test_model_text_never_emits_python_warnings() -> None:
    text = r"[search(query='a\d+\Z', exact=True)]"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (call,) = parse_stream(text, "text:pythonic", TOOLS).calls
    assert [str(w.message) for w in caught] == []
    assert call.arguments == {"query": r"a\d+\Z", "exact": True}


# -- JSON envelopes: {"name": N, "arguments": {…}} in every family that writes them --

# (family, the call region with ENV where the envelope object goes)
ENVELOPE_FAMILIES = [
    ("hermes", "<tool_call>ENV</tool_call>"),
    ("granite", "<|tool_call|>[ENV]"),
    ("xlam", "[ENV]"),
    ("jamba", "<tool_calls>[ENV]</tool_calls>"),
    ("internlm", "<|action_start|><|plugin|>ENV<|action_end|>"),
    ("phi4_mini", "functools[ENV]"),
    ("mistral", "[TOOL_CALLS][ENV]"),
    ("llama3_json", "<|python_tag|>ENV"),
    ("agent", "```json\nENV\n```"),
    ("auto", "<tool_call>ENV</tool_call>"),
]
ARGS = '"arguments": {"city": "Oslo"}'
# what is after the arguments is not read: loose calls in prose (F35) too
JUNK_AFTER_ARGUMENTS = [
    '{"name": "get_weather", ' + ARGS + ', "JUNK": 1}',
    '{"name": "get_weather", ' + ARGS + " JUNK}",
    '{"name": "get_weather", ' + ARGS + ', "arguments": {"city": "JUNK"}}',
    '{"name": "get_weather", ' + ARGS + ', "id": "c1", "id": "JUNK"}',
]
JUNK_IN_ENVELOPE = [
    *JUNK_AFTER_ARGUMENTS,
    '{"name": "get_weather", "argumeJUNKnts": {"city": "Oslo"}}',
    '{"JUNK": 1, "name": "get_weather", ' + ARGS + "}",
    '{"name": "get_weather", "type": "JUNK", ' + ARGS + "}",
]


def starts_like_a_call(envelope: str) -> bool:
    """An agent's ```json fence holds a call only when its object starts like one."""
    return re.match(r'\{\s*"(?:name|arguments|parameters)"', envelope) is not None


@pytest.mark.parametrize("envelope", JUNK_IN_ENVELOPE)
@pytest.mark.parametrize(("family", "region"), ENVELOPE_FAMILIES)
def test_a_json_envelope_holding_what_is_not_read_is_an_invalid_call_carrying_it_G3(
    family: str, region: str, envelope: str
) -> None:
    # a damaged key or text after the arguments may be a damaged argument: never a
    # silent {} or a call that closes with its arguments and drops the rest
    text = region.replace("ENV", envelope)
    r = parse_stream(text, f"text:{family}", TOOLS)
    if family == "agent" and not starts_like_a_call(envelope):
        assert (r.calls, r.text) == ([], text)
        return
    (call,) = r.calls
    assert (call.name, call.status, call.arguments) == ("get_weather", "invalid", None)
    assert call.raw_arguments == envelope
    assert call.errors
    check_split_invariance(family, text, TOOLS, f"envelope-{family}")


@pytest.mark.parametrize("envelope", JUNK_AFTER_ARGUMENTS)
def test_a_json_call_in_prose_holding_what_is_not_read_is_an_invalid_call_F35_G3(
    envelope: str,
) -> None:
    for family in ("qwen3_coder", "pythonic", "hermes"):
        text = f"Calling it now: {envelope} done"
        r = parse_stream(text, f"text:{family}", TOOLS)
        (call,) = r.calls
        assert (call.status, call.raw_arguments) == ("invalid", envelope)
        assert r.text == "Calling it now:  done"
        check_split_invariance(family, text, TOOLS, f"loose-{family}")


@pytest.mark.parametrize(
    ("envelope", "call_id"),
    [
        ('{"name": "get_weather", ' + ARGS + ', "id": "call_7"}', "call_7"),
        ('{"type": "function", "name": "get_weather", ' + ARGS + "}", None),
        ('{ "name" : "get_weather" ,\n\t' + ARGS + " \n}", None),
        ('{"id": "call_7", "parameters": {"city": "Oslo"}, "name": "get_weather"}', "call_7"),
    ],
)
@pytest.mark.parametrize(("family", "region"), ENVELOPE_FAMILIES)
def test_an_envelope_id_type_function_and_whitespace_are_read_G3(
    family: str, region: str, envelope: str, call_id: str | None
) -> None:
    text = region.replace("ENV", envelope)
    r = parse_stream(text, f"text:{family}", TOOLS)
    if family == "agent" and not starts_like_a_call(envelope):
        assert (r.calls, r.text) == ([], text)
        return
    (call,) = r.calls
    assert (call.status, call.arguments, call.id) == ("complete", {"city": "Oslo"}, call_id)
    check_split_invariance(family, text, TOOLS, f"envelope-ok-{family}")


def test_a_repaired_envelope_keeps_its_text_as_sent_G3() -> None:
    # what the ladder changed is named, and the text it changed is kept
    envelope = "{'name': 'get_weather', 'arguments': {'city': 'Oslo'},}"
    text = f"<tool_call>{envelope}</tool_call>"
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.status, call.arguments) == ("repaired", {"city": "Oslo"})
    assert call.repairs and call.raw_arguments == envelope
    check_split_invariance("hermes", text, TOOLS, "envelope-repaired")


def test_a_closed_envelope_that_cannot_be_read_is_invalid_not_truncated_G3() -> None:
    envelope = "{'name': 'get_weather', 'arguments': {'city': 'Oslo' JUNK}}"
    text = f"<tool_call>{envelope}</tool_call>"
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.name, call.status, call.raw_arguments) == ("get_weather", "invalid", envelope)
    check_split_invariance("hermes", text, TOOLS, "envelope-unreadable")


def test_an_envelope_cut_off_after_its_arguments_keeps_its_text_F1() -> None:
    envelope = '{"name": "get_weather", ' + ARGS + ', "JU'
    text = f"<tool_call>{envelope}"
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.status, call.partial_arguments) == ("truncated", {"city": "Oslo"})
    assert call.raw_arguments == envelope
    check_split_invariance("hermes", text, TOOLS, "envelope-cut-tail")


def test_an_envelope_cut_off_after_its_arguments_with_only_whitespace_is_whole_F1() -> None:
    text = '<tool_call>{"name": "get_weather", ' + ARGS + "\n"
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.status, call.arguments) == ("complete", {"city": "Oslo"})


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ('Here: <json>{"name": "get_weather", ' + ARGS + "} done", "Here: <json> done"),
        ('Here: ```json\n{"name": "get_weather", ' + ARGS + "}", "Here: ```json\n"),
        ('Here: <json>{"name": "get_weather", "arguments": {"city": "Os', "Here: <json>"),
    ],
)
def test_a_wrapper_opened_around_a_json_call_in_prose_but_not_closed_stays_text_F35(
    text: str, kept: str
) -> None:
    r = parse_stream(text, "text:qwen3_coder", TOOLS)
    assert [c.name for c in r.calls] == ["get_weather"]
    assert r.text == kept
    check_split_invariance("qwen3_coder", text, TOOLS, "loose-wrapper")


def test_two_envelopes_with_the_same_id_are_two_calls_each_with_it_F3_F15() -> None:
    one = '<tool_call>{"name": "get_weather", ' + ARGS + ', "id": "c1"}</tool_call>'
    text = one + one.replace("Oslo", "Bern")
    r = parse_stream(text, "text:hermes", TOOLS)
    assert [(c.id, c.arguments, c.status) for c in r.calls] == [
        ("c1", {"city": "Oslo"}, "complete"),
        ("c1", {"city": "Bern"}, "complete"),
    ]
    check_split_invariance("hermes", text, TOOLS, "envelope-same-id")


def test_a_value_the_repair_ladder_changed_is_named_and_its_markup_kept_F30_G3() -> None:
    markup = '<function=search><parameter=query>a</parameter><parameter=tags>JUNK["x"]</parameter></function>'
    text = f"<tool_call>{markup}</tool_call>"
    (call,) = parse_stream(text, "text:qwen3_coder", TOOLS).calls
    assert (call.status, call.arguments) == ("repaired", {"query": "a", "tags": ["x"]})
    assert call.repairs and call.raw_arguments == markup
    check_split_invariance("qwen3_coder", text, TOOLS, "typed-value-repaired")
