# ruff: noqa: E501  (test data: long literal model outputs; DeepSeek markers use U+FF5C)
"""Every family: single call, parallel calls, surrounding text, no arguments (F2),
nested and escaped values, cut off at the end (F1); each case whole and in 50+
random chunkings (F14, F15)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tf_harness import Case, check_case

W = ("get_weather", {"city": "Oslo"}, "complete")
W2 = ("get_weather", {"city": "Bern", "days": 3}, "complete")
S = ("search", {"query": "rust", "limit": 5}, "complete")
P = ("ping", {}, "complete")
NESTED: dict[str, Any] = {
    "query": 'say "hi"\n<tool_call> ok \\ {',
    "filters": {"a": [1, {"b": "}]"}], "ü": None},
    "tags": ["x", "y"],
}
N = ("search", NESTED, "complete")
CUT = ("get_weather", None, "truncated")


def env(name: str, args: dict[str, Any] | None = None, key: str = "arguments") -> str:
    body: dict[str, Any] = {"name": name}
    if args is not None:
        body[key] = args
    return json.dumps(body, ensure_ascii=False)


def js(args: dict[str, Any]) -> str:
    return json.dumps(args, ensure_ascii=False)


def cases_json_wrapped(family: str, open_: str, close: str, key: str = "arguments") -> list[Case]:
    """Families whose every call is ``open_ + envelope + close``."""

    def c(name: str, args: dict[str, Any] | None) -> str:
        return f"{open_}{env(name, args, key)}{close}"

    return [
        Case(f"{family}-single", family, c("get_weather", W[1]), [W], text=""),
        Case(f"{family}-parallel", family, c(*W2[:2]) + "\n" + c(*S[:2]), [W2, S], text=""),
        Case(
            f"{family}-text",
            family,
            "Let me look ü.\n" + c(*W[:2]) + "\nDone.",
            [W],
            text="Let me look ü.\n\nDone.",
        ),
        Case(f"{family}-no-args-F2", family, c("ping", None), [P], text=""),
        Case(f"{family}-nested-escaped", family, c("search", NESTED), [N], text=""),
        Case(
            f"{family}-truncated-F1",
            family,
            "ok " + open_ + '{"name": "get_weather", "arguments": {"city": "Os',
            [CUT],
            text="ok ",
        ),
    ]


def cases_json_list(family: str, open_: str, close: str) -> list[Case]:
    """Families that write ``open_ + [envelope, …] + close``."""

    def c(*calls: tuple[str, dict[str, Any] | None]) -> str:
        return open_ + "[" + ", ".join(env(n, a) for n, a in calls) + "]" + close

    return [
        Case(f"{family}-single", family, c(W[:2]), [W], text=""),
        Case(f"{family}-parallel", family, c(W2[:2], S[:2]), [W2, S], text=""),
        Case(
            f"{family}-text",
            family,
            "Let me look ü.\n" + c(W[:2]) + "\nDone.",
            [W],
            text="Let me look ü.\n\nDone.",
        ),
        Case(f"{family}-no-args-F2", family, c(("ping", None)), [P], text=""),
        Case(f"{family}-nested-escaped", family, c(("search", NESTED)), [N], text=""),
        Case(
            f"{family}-truncated-F1",
            family,
            "ok "
            + open_
            + '[{"name": "ping", "arguments": {}}, {"name": "get_weather", "arguments": {"city": "Os',
            [P, CUT],
            text="ok ",
        ),
    ]


def xml_value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def cases_schema_typed(family: str, render: Any, cut: str, text_ok: bool = True) -> list[Case]:
    """Schema-typed families: ``render(name, args)`` writes one call region."""
    typed = {"query": "02134", "limit": 7, "score": 1.5, "exact": True, "tags": ["a", "b"]}
    return [
        Case(f"{family}-single", family, render("get_weather", W[1]), [W], text=""),
        Case(
            f"{family}-parallel", family, render(*W2[:2]) + "\n" + render(*S[:2]), [W2, S], text=""
        ),
        Case(
            f"{family}-text",
            family,
            "Let me look ü.\n" + render(*W[:2]) + "\nDone.",
            [W],
            text="Let me look ü.\n\nDone.",
        ),
        Case(f"{family}-no-args-F2", family, render("ping", {}), [P], text=""),
        Case(f"{family}-nested-escaped", family, render("search", NESTED), [N], text=""),
        Case(
            f"{family}-typed-F11", family, render("search", typed), [("search", typed, "complete")]
        ),
        Case(f"{family}-truncated-F1", family, "ok " + cut, [CUT], text="ok "),
    ]


def qwen(
    name: str, args: dict[str, Any], wrap: tuple[str, str] = ("<tool_call>", "</tool_call>")
) -> str:
    params = "".join(f"<parameter={k}>\n{xml_value(v)}\n</parameter>\n" for k, v in args.items())
    return f"{wrap[0]}\n<function={name}>\n{params}</function>\n{wrap[1]}"


def invoke(name: str, args: dict[str, Any], p: str = "", string_attr: bool = False) -> str:
    def param(k: str, v: Any) -> str:
        flag = f' string="{"true" if isinstance(v, str) else "false"}"' if string_attr else ""
        return f'<{p}parameter name="{k}"{flag}>{xml_value(v)}</{p}parameter>'

    return (
        f'<{p}invoke name="{name}">'
        + "".join(param(k, v) for k, v in args.items())
        + f"</{p}invoke>"
    )


def minimax(name: str, args: dict[str, Any]) -> str:
    return "<minimax:tool_call>\n" + invoke(name, args) + "\n</minimax:tool_call>"


DSML = "｜DSML｜"


def dsml(name: str, args: dict[str, Any]) -> str:
    return (
        f"<{DSML}function_calls>\n" + invoke(name, args, DSML, True) + f"\n</{DSML}function_calls>"
    )


def glm(name: str, args: dict[str, Any], newline: str = "\n") -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>\n<arg_value>{xml_value(v)}</arg_value>\n" for k, v in args.items()
    )
    if not args and not newline:
        return f"<tool_call>{name}</tool_call>"
    return f"<tool_call>{name}{newline}{pairs}</tool_call>"


def seed(name: str, args: dict[str, Any]) -> str:
    return qwen(name, args, ("<seed:tool_call>", "</seed:tool_call>"))


DS_CALLS_BEGIN, DS_CALLS_END = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
DS_CALL_BEGIN, DS_CALL_END, DS_SEP = (
    "<｜tool▁call▁begin｜>",
    "<｜tool▁call▁end｜>",
    "<｜tool▁sep｜>",
)


def ds_v3_call(name: str, args: dict[str, Any]) -> str:
    return f"{DS_CALL_BEGIN}function{DS_SEP}{name}\n```json\n{js(args)}\n```{DS_CALL_END}"


def ds_v31_call(name: str, args: dict[str, Any]) -> str:
    return f"{DS_CALL_BEGIN}{name}{DS_SEP}{js(args)}{DS_CALL_END}"


def ds(calls: list[str]) -> str:
    return DS_CALLS_BEGIN + "".join(calls) + DS_CALLS_END


def cases_sectioned(family: str, one: Any, section: Any, cut: str, lead: str = "ok ") -> list[Case]:
    return [
        Case(f"{family}-single", family, section([one(*W[:2])]), [W], text=""),
        Case(f"{family}-parallel", family, section([one(*W2[:2]), one(*S[:2])]), [W2, S], text=""),
        Case(
            f"{family}-text",
            family,
            "Let me look ü.\n" + section([one(*W[:2])]) + "\nDone.",
            [W],
            text="Let me look ü.\n\nDone.",
        ),
        Case(f"{family}-no-args-F2", family, section([one("ping", {})]), [P], text=""),
        Case(f"{family}-nested-escaped", family, section([one("search", NESTED)]), [N], text=""),
        Case(f"{family}-truncated-F1", family, lead + cut, [CUT], text=lead),
    ]


KIMI_BEGIN, KIMI_END = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"


def kimi_call(name: str, args: dict[str, Any], idx: int = 0) -> str:
    return f"<|tool_call_begin|>functions.{name}:{idx}<|tool_call_argument_begin|>{js(args)}<|tool_call_end|>"


def kimi(calls: list[str]) -> str:
    return KIMI_BEGIN + "".join(calls) + KIMI_END


def harmony_call(name: str, args: dict[str, Any]) -> str:
    return f"<|start|>assistant<|channel|>commentary to=functions.{name} <|constrain|>json<|message|>{js(args)}<|call|>"


def mistral_v11(name: str, args: dict[str, Any]) -> str:
    return f"[TOOL_CALLS]{name}[ARGS]{js(args)}"


def fg_value(v: Any) -> str:
    if isinstance(v, str):
        return f"<escape>{v}<escape>"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{fg_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(fg_value(x) for x in v) + "]"
    return json.dumps(v)


def fgemma(name: str, args: dict[str, Any]) -> str:
    return f"<start_function_call>call:{name}{fg_value(args)}<end_function_call>"


def py_call(name: str, args: dict[str, Any]) -> str:
    return name + "(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"


def step3(name: str, args: dict[str, Any]) -> str:
    params = "".join(
        f'<steptml:parameter name="{k}">{xml_value(v)}</steptml:parameter>' for k, v in args.items()
    )
    return (
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        f'<steptml:invoke name="{name}">{params}</steptml:invoke>'
        "<｜tool_call_end｜><｜tool_calls_end｜>"
    )


def one_each(family: str, render: Any, cut: str) -> list[Case]:
    return cases_sectioned(family, render, lambda calls: "".join(calls), cut)


CASES: list[Case] = [
    *cases_json_wrapped("hermes", "<tool_call>\n", "\n</tool_call>"),
    *cases_json_wrapped(
        "internlm", "<|action_start|><|plugin|>\n", "<|action_end|>", key="parameters"
    ),
    *cases_json_list("jamba", "<tool_calls>", "</tool_calls>"),
    *cases_json_list("hunyuan", "<tool_calls>\n", "\n</tool_calls>"),
    *cases_json_list("granite", "<|tool_call|>", ""),
    *cases_json_list("phi4_mini", "functools", ""),
    *cases_json_list("xlam", "```json\n", "\n```"),
    *cases_json_list("mistral", "[TOOL_CALLS]", ""),
    *cases_schema_typed(
        "qwen3_coder", qwen, "<tool_call>\n<function=get_weather>\n<parameter=city>\nOs"
    ),
    *cases_schema_typed(
        "seed_oss", seed, "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nOs"
    ),
    *cases_schema_typed(
        "minimax_m2",
        minimax,
        '<minimax:tool_call>\n<invoke name="get_weather"><parameter name="city">Os',
    ),
    *cases_schema_typed(
        "deepseek_dsml", dsml, f'<{DSML}function_calls>\n<{DSML}invoke name="get_weather">'
    ),
    *cases_schema_typed(
        "glm45", glm, "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Os"
    ),
    *cases_schema_typed(
        "glm47",
        lambda n, a: glm(n, a, ""),
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Os",
    ),
    *cases_schema_typed("agent", invoke, '<invoke name="get_weather">\n<parameter name="city">Os'),
    *cases_schema_typed(
        "step3",
        step3,
        '<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">'
        '<steptml:parameter name="city">Os',
    ),
    *one_each(
        "agent",
        lambda n, a: f"[TOOL_REQUEST] {n} {js(a)} [END_TOOL_REQUEST]",
        '[TOOL_REQUEST] get_weather {"city": "Os',
    ),
    *cases_sectioned(
        "deepseek_v3",
        ds_v3_call,
        ds,
        DS_CALLS_BEGIN + DS_CALL_BEGIN + "function" + DS_SEP + 'get_weather\n```json\n{"city": "Os',
    ),
    *cases_sectioned(
        "deepseek_v31",
        ds_v31_call,
        ds,
        DS_CALLS_BEGIN + DS_CALL_BEGIN + "get_weather" + DS_SEP + '{"city": "Os',
    ),
    *cases_sectioned(
        "kimi_k2",
        kimi_call,
        kimi,
        KIMI_BEGIN
        + '<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Os',
    ),
    *one_each(
        "harmony",
        harmony_call,
        '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Os',
    ),
    *one_each("mistral", mistral_v11, '[TOOL_CALLS]get_weather[ARGS]{"city": "Os'),
    *one_each("functiongemma", fgemma, "<start_function_call>call:get_weather{city:<escape>Os"),
    *cases_sectioned(
        "pythonic",
        py_call,
        lambda calls: "[" + ", ".join(calls) + "]",
        "[get_weather(city='Os",
        lead="",
    ),
    *cases_sectioned(
        "pythonic",
        py_call,
        lambda calls: "<|python_start|>[" + ", ".join(calls) + "]<|python_end|>",
        "<|python_start|>[get_weather(city='Os",
    ),
    *cases_sectioned(
        "pythonic",
        py_call,
        lambda calls: "<|tool_call_start|>[" + ", ".join(calls) + "]<|tool_call_end|>",
        "<|tool_call_start|>[get_weather(city='Os",
    ),
    *one_each(
        "llama3_json",
        lambda n, a: "<|python_tag|>" + env(n, a or None, "parameters"),
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Os',
    ),
    *one_each(
        "agent",
        lambda n, a: f"[TOOL_REQUEST] {n} {js(a)} [TOOL_REQUEST_END]",
        '[TOOL_REQUEST] get_weather {"city": "Os',
    ),
    *one_each(
        "agent",
        lambda n, a: f"<tool><name>{n}</name><arguments>{js(a)}</arguments></tool>",
        '<tool><name>get_weather</name><arguments>{"city": "Os',
    ),
    *one_each(
        "agent",
        lambda n, a: f"```json\n{env(n, a)}\n```",
        '```json\n{"name": "get_weather", "arguments": {"city": "Os',
    ),
]


def _unique(cases: list[Case]) -> list[Case]:
    seen: dict[str, int] = {}
    for case in cases:
        n = seen.get(case.id, 0)
        seen[case.id] = n + 1
        if n:
            case.id = f"{case.id}-{n}"
    return cases


@pytest.mark.parametrize("case", _unique(CASES), ids=lambda c: c.id)
def test_family_case_F1_F2_F14_F15(case: Case) -> None:
    check_case(case)
