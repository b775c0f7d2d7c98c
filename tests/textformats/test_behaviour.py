# ruff: noqa: E501  (test data: long literal model outputs; DeepSeek markers use U+FF5C)
"""Cross-family behaviour: the corpus's text cases, reasoning (F16), markers split
across deltas (F14), look-alike markers, ids, auto detection, the model table, and
provider streams whose text carries markup."""

from __future__ import annotations

import json
from typing import Any

import pytest
from corpus import stream_cases
from tf_harness import TOOLS, check_split_invariance, parse_chunks

from toolwire.assemble import CallAssembler
from toolwire.events import CallFinished, CallStarted, TextDelta
from toolwire.parser import StreamParser, parse_stream
from toolwire.spec import ToolSpec
from toolwire.textformats import FAMILIES, UnknownFamilyError, family_for_model, make_extractor


def _corpus_text_cases() -> list[dict[str, Any]]:
    return [c for c in stream_cases() if c["format"].startswith("text:")]


@pytest.mark.parametrize("case", _corpus_text_cases(), ids=lambda c: c["id"])
def test_corpus_text_case_F15(case: dict[str, Any]) -> None:
    result = parse_stream(case["input"], case["format"], case["tools"])
    want = case["expect"]
    assert len(result.calls) == len(want["calls"])
    for got, exp in zip(result.calls, want["calls"], strict=True):
        for key, value in exp.items():
            assert getattr(got, key) == value, (key, got)
    if "text" in want:
        assert result.text == want["text"]
    if "finish_reason" in want:
        assert result.finish_reason == want["finish_reason"]
    family = case["format"].split(":", 1)[1]
    check_split_invariance(family, case["input"], case["tools"], case["id"])


# -- reasoning (F16) -------------------------------------------------------------

THINK_CALL = (
    '<think>I could call <tool_call>{"name": "ping", "arguments": {}}</tool_call> here'
    '</think>Answer.<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
)


def test_calls_inside_think_are_reasoning_by_default_F16() -> None:
    result = parse_stream(THINK_CALL, "text:hermes", TOOLS)
    assert [c.name for c in result.calls] == ["get_weather"]
    assert (
        result.reasoning
        == 'I could call <tool_call>{"name": "ping", "arguments": {}}</tool_call> here'
    )
    assert result.text == "Answer."
    check_split_invariance("hermes", THINK_CALL, TOOLS, "think-F16")


def test_calls_inside_think_kept_when_asked_F16() -> None:
    sink = CallAssembler([ToolSpec.from_dict(t) for t in TOOLS])
    ex = make_extractor(
        "hermes", sink, [ToolSpec.from_dict(t) for t in TOOLS], calls_in_reasoning=True
    )
    for ch in THINK_CALL:
        ex.feed(ch)
    ex.close()
    sink.end()
    names = [e.call.name for e in sink.drain() if isinstance(e, CallFinished)]
    assert names == ["ping", "get_weather"]


def test_close_think_without_open_is_not_text_F14() -> None:
    result = parse_stream("plan</think>Hello", "text:hermes", TOOLS)
    assert result.text == "planHello"


def test_seed_think_and_harmony_analysis_are_reasoning_F16() -> None:
    seed = (
        "<seed:think>hmm <seed:tool_call><function=ping></function></seed:tool_call></seed:think>ok"
    )
    r = parse_stream(seed, "text:seed_oss", TOOLS)
    assert (r.reasoning, r.text, r.calls) == (
        "hmm <seed:tool_call><function=ping></function></seed:tool_call>",
        "ok",
        [],
    )
    harmony = (
        "<|channel|>analysis<|message|>Need weather.<|end|>"
        "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
        '<|message|>{"city": "Oslo"}<|call|>'
    )
    r = parse_stream(harmony, "text:harmony", TOOLS)
    assert r.reasoning == "Need weather."
    assert [(c.name, c.arguments) for c in r.calls] == [("get_weather", {"city": "Oslo"})]
    check_split_invariance("harmony", harmony, TOOLS, "harmony-F16")


def test_harmony_final_channel_is_text_and_call_without_call_token() -> None:
    text = (
        "<|channel|>final<|message|>Sure.<|return|>"
        "<|start|>assistant to=functions.ping<|channel|>commentary json<|message|>{}"
    )
    r = parse_stream(text, "text:harmony", TOOLS)
    assert r.text == "Sure."
    # servers drop <|call|> as a stop token: whole JSON is a complete call
    assert [(c.name, c.status) for c in r.calls] == [("ping", "complete")]


# -- markers split across deltas, look-alikes (F14) ---------------------------------


@pytest.mark.parametrize("family", ["hermes", "qwen3_coder", "glm45", "granite"])
def test_tool_call_tag_in_prose_stays_text_F14(family: str) -> None:
    text = "Use the <tool_call> tag, like <tool_call>, in prose."
    r = parse_stream(text, f"text:{family}", TOOLS)
    assert (r.text, r.calls) == (text, [])
    check_split_invariance(family, text, TOOLS, f"lookalike-{family}")


def test_partial_marker_is_held_back_not_emitted_F14() -> None:
    parser = StreamParser("text:hermes", TOOLS)
    seen = parser.feed("Hi <tool_")
    assert [e.text for e in seen if isinstance(e, TextDelta)] == ["Hi "]
    seen = parser.feed('call>{"name": "ping"}</tool_call>')
    assert not any(isinstance(e, TextDelta) and "<" in e.text for e in seen)
    # a held-back prefix that never became a marker is text at the end
    r = parse_stream("a <tool_", "text:hermes", TOOLS)
    assert r.text == "a <tool_"


def test_call_is_reported_when_it_closes_not_at_end() -> None:
    parser = StreamParser("text:kimi_k2", TOOLS)
    events = parser.feed(
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": '
    )
    assert any(isinstance(e, CallStarted) for e in events)
    events = parser.feed('"Oslo"}<|tool_call_end|>')
    assert [e.call.arguments for e in events if isinstance(e, CallFinished)] == [{"city": "Oslo"}]


def test_kimi_ids_round_trip_F18() -> None:
    text = (
        "<|tool_calls_section_begin|>"
        '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_call_end|>'
        "<|tool_call_begin|>functions.ping:1<|tool_call_argument_begin|>{}<|tool_call_end|>"
        "<|tool_calls_section_end|>"
    )
    r = parse_stream(text, "text:kimi_k2", TOOLS)
    assert [(c.id, c.name) for c in r.calls] == [
        ("functions.get_weather:0", "get_weather"),
        ("functions.ping:1", "ping"),
    ]
    r = parse_stream(text, "text:kimi_k2", [])
    assert [c.name for c in r.calls] == ["get_weather", "ping"]


# -- schema typing ------------------------------------------------------------------


def test_values_that_do_not_fit_the_schema_stay_strings_and_mark_the_call_F11() -> None:
    text = "<tool_call>\n<function=search>\n<parameter=query>\nx\n</parameter>\n<parameter=limit>\nmany\n</parameter>\n</function>\n</tool_call>"
    r = parse_stream(text, "text:qwen3_coder", TOOLS)
    (call,) = r.calls
    assert call.status == "invalid"
    assert json.loads(call.raw_arguments) == {"query": "x", "limit": "many"}


def test_dsml_string_true_keeps_text_and_false_is_typed() -> None:
    d = "｜DSML｜"
    text = (
        f'<{d}function_calls><{d}invoke name="search">'
        f'<{d}parameter name="query" string="true">42</{d}parameter>'
        f'<{d}parameter name="limit" string="false">42</{d}parameter>'
        f"</{d}invoke></{d}function_calls>"
    )
    r = parse_stream(text, "text:deepseek_dsml", TOOLS)
    assert r.calls[0].arguments == {"query": "42", "limit": 42}
    r = parse_stream(text.replace("V4", ""), "text:deepseek_dsml", [])
    assert r.calls[0].arguments == {"query": "42", "limit": 42}


def test_qwen3_coder_missing_parameter_close() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n<parameter=days>\n2\n</function>\n</tool_call>"
    r = parse_stream(text, "text:qwen3_coder", TOOLS)
    assert r.calls[0].arguments == {"city": "Oslo", "days": 2}


def test_truncated_xml_call_keeps_whole_parameters_as_partial_F1() -> None:
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n2"
    (call,) = parse_stream(text, "text:qwen3_coder", TOOLS).calls
    assert (call.status, call.arguments, call.partial_arguments) == (
        "truncated",
        None,
        {"city": "Oslo"},
    )


def test_llama3_bare_json_only_when_it_names_a_call() -> None:
    r = parse_stream(
        '{"name": "ping", "parameters": {}}; {"name": "get_weather", "parameters": {"city": "Oslo"}}',
        "text:llama3_json",
        TOOLS,
    )
    assert [c.name for c in r.calls] == ["ping", "get_weather"]
    r = parse_stream('{"answer": 42}', "text:llama3_json", TOOLS)
    assert (r.calls, r.text) == ([], '{"answer": 42}')
    # after prose: a call only when it names a declared tool (F31, F35)
    r = parse_stream('Result: {"name": "ping", "parameters": {}}', "text:llama3_json", [])
    assert (r.calls, r.text) == ([], 'Result: {"name": "ping", "parameters": {}}')


def test_hermes_envelope_in_other_key_order_and_string_arguments_F9() -> None:
    text = '<tool_call>{"arguments": "{\\"city\\": \\"Oslo\\"}", "name": "get_weather"}</tool_call>'
    r = parse_stream(text, "text:hermes", TOOLS)
    assert [(c.name, c.arguments) for c in r.calls] == [("get_weather", {"city": "Oslo"})]
    check_split_invariance("hermes", text, TOOLS, "hermes-key-order")


def test_end_of_stream_right_after_the_marker_is_truncated_F1() -> None:
    for family, text in [
        ("hermes", "x <tool_call>\n"),
        ("kimi_k2", "<|tool_calls_section_begin|>"),
        ("mistral", "[TOOL_CALLS]"),
    ]:
        r = parse_stream(text, f"text:{family}", TOOLS)
        assert [c.status for c in r.calls] == ["truncated"], family


# -- auto and the model table -----------------------------------------------------

AUTO = [
    ('Hi <tool_call>\n{"name": "ping", "arguments": {}}\n</tool_call>', "hermes"),
    ("<tool_call>\n<function=ping>\n</function>\n</tool_call>", "qwen3_coder"),
    ("<tool_call>ping\n</tool_call>", "glm47"),
    ("[TOOL_CALLS]ping[ARGS]{}", "mistral"),
    ("[ping()]", "pythonic"),
    ('{"name": "ping", "parameters": {}}', "llama3_json"),
    (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.ping:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
        "kimi_k2",
    ),
    ('<minimax:tool_call><invoke name="ping"></invoke></minimax:tool_call>', "minimax_m2"),
    ("<start_function_call>call:ping{}<end_function_call>", "functiongemma"),
    ('<think>hmm</think><tool_calls>[{"name": "ping", "arguments": {}}]</tool_calls>', "jamba"),
]


@pytest.mark.parametrize(("text", "family"), AUTO)
def test_auto_detects_the_family_from_the_first_marker(text: str, family: str) -> None:
    sink = CallAssembler()
    ex = make_extractor("auto", sink, [])
    ex.feed(text)
    ex.close()
    assert getattr(ex, "family", None) == family
    r = parse_stream(text, "text:auto", TOOLS)
    assert [c.name for c in r.calls] == ["ping"]
    check_split_invariance("auto", text, TOOLS, f"auto-{family}", runs=20)


def test_auto_without_markers_is_plain_text() -> None:
    r = parse_stream("just <b>text</b> and {braces}", "text:auto", TOOLS)
    assert (r.text, r.calls) == ("just <b>text</b> and {braces}", [])


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "qwen3_coder"),
        ("Qwen/Qwen2.5-7B-Instruct", "hermes"),
        ("mistralai/Devstral-Small-2505", "mistral"),
        ("meta-llama/Llama-3.1-8B-Instruct", "llama3_json"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "pythonic"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
        ("deepseek-ai/DeepSeek-V3.2-Exp", "deepseek_dsml"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek_v3"),
        ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
        ("zai-org/GLM-4.5-Air", "glm45"),
        ("zai-org/GLM-4.7", "glm47"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
        ("openai/gpt-oss-20b", "harmony"),
        ("ibm-granite/granite-3.1-8b-instruct", "granite"),
        ("ByteDance-Seed/Seed-OSS-36B-Instruct", "seed_oss"),
        ("Salesforce/Llama-xLAM-2-8b-fc-r", "xlam"),
        ("google/functiongemma-270m-it", "functiongemma"),
        ("microsoft/Phi-4-mini-instruct", "phi4_mini"),
        ("stepfun-ai/step3", "step3"),
        ("stepfun-ai/Step-3.5-Flash", "qwen3_coder"),
        ("some/unknown-model", None),
    ],
)
def test_model_table(model: str, family: str | None) -> None:
    assert family_for_model(model) == family
    assert family is None or family in FAMILIES


def test_unknown_family_is_a_clear_error() -> None:
    with pytest.raises(UnknownFamilyError, match="known"):
        make_extractor("nope", CallAssembler(), [])


# -- provider stream whose content carries markup ------------------------------------


def _sse(contents: list[str], finish: str = "stop") -> str:
    frames = [
        {"choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]}
        for c in contents
    ]
    frames.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    return "".join(f"data: {json.dumps(f)}\n\n" for f in frames) + "data: [DONE]\n\n"


def test_openai_chat_with_text_format_extracts_calls_from_content() -> None:
    body = (
        'Checking.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
    )
    pieces = [body[i : i + 5] for i in range(0, len(body), 5)]
    r = parse_stream(_sse(pieces), "openai-chat", TOOLS, text_format="hermes")
    assert r.text == "Checking."
    assert [(c.name, c.arguments, c.status) for c in r.calls] == [
        ("get_weather", {"city": "Oslo"}, "complete")
    ]
    assert r.finish_reason == "tool_calls"


def test_every_family_passes_plain_text_through_unchanged() -> None:
    text = "Nothing to call here: a < b, [x] and {y}; ü ✓"
    for family in FAMILIES:
        r = parse_chunks(family, [text.encode()], TOOLS)
        assert (r.text, r.calls) == (text, []), family


def test_openai_chat_finish_reason_does_not_complete_an_open_text_call_F1() -> None:
    body = "<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n2"
    r = parse_stream(_sse([body[:20], body[20:]]), "openai-chat", TOOLS, text_format="qwen3_coder")
    alone = parse_stream(body, "text:qwen3_coder", TOOLS)
    assert [c.to_dict() for c in r.calls] == [c.to_dict() for c in alone.calls]
    assert [(c.status, c.partial_arguments) for c in r.calls] == [("truncated", {"city": "Oslo"})]


def test_python_style_arguments_are_repaired_by_the_shared_ladder_F12() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {\'city\': "Val d\'Isère", \'days\': \'3\'}}</tool_call>'
    (call,) = parse_stream(text, "text:hermes", TOOLS).calls
    assert (call.arguments, call.status) == ({"city": "Val d'Isère", "days": 3}, "repaired")
    check_split_invariance("hermes", text, TOOLS, "hermes-F12")


def test_cut_off_json_arguments_stay_partial_not_invented_F1() -> None:
    text = '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Oslo", "days": 2'
    (call,) = parse_stream(text, "text:kimi_k2", TOOLS).calls
    assert (call.status, call.arguments, call.partial_arguments) == (
        "truncated",
        None,
        {"city": "Oslo", "days": 2},
    )
