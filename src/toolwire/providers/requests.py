"""Request translation: Anthropic Messages ⇄ OpenAI Chat Completions (pure functions).

``anthropic_to_openai(body)`` and ``openai_to_anthropic(body)`` return a
``RequestTranslation``: the translated body, ``lossy`` (in words, every field or block
the target cannot express, never dropped silently) and ``names`` (the tool-name map
when names had to be shortened; restore calls with ``names.restore``).

Rules both ways: tool-call arguments are a JSON *string* on the OpenAI side and an
object on the Anthropic side; tool results follow their calls in the calls' order,
one result per id (duplicates dropped and reported), before the user's own content;
``tool_choice`` auto/any/tool/none ⇄ auto/required/named/none; ``stop_sequences`` ⇄
``stop``; Anthropic ``thinking`` ⇄ ``reasoning_effort`` (approximate, reported).
Thinking blocks of a tool-call turn in the history go to OpenAI as the assistant
message's ``reasoning_content`` (DeepSeek requires it back); their signatures cannot
go anywhere and are dropped (reported). The other way, an assistant message's
``thinking_blocks`` (Anthropic's blocks kept whole in Chat shape, as LiteLLM and
``toolwire.agent`` keep them) go back verbatim, first in the turn; bare
``reasoning_content`` has no signature Anthropic would accept and is dropped
(reported). A Chat request's ``thinking`` object is Anthropic's own and is sent as given.

A field the translators read that holds a value of the wrong type (``"messages": 5``, a
``function`` that is an array) raises ``RequestTranslationError``, whose ``path`` names
the field; no other exception comes out of a translator.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from toolwire.jsontext import dumps, json_type
from toolwire.providers.tooldefs import (
    RequestTranslationError,
    ToolNameMap,
    read_list,
    read_mapping,
    read_str,
    to_anthropic_tool,
    to_openai_tool,
)
from toolwire.repair import repair_json, strict_json
from toolwire.spec import ToolSpec


@dataclass(frozen=True, slots=True)
class RequestTranslation:
    request: dict[str, Any]
    lossy: tuple[str, ...] = ()
    names: ToolNameMap | None = None  # set when some tool name had to change
    # the function tools under their wire names, where the target's tool shape is not
    # JSON Schema (Gemini's subset): what the answer's calls are checked against
    tools: tuple[ToolSpec, ...] = ()


class Notes:
    """What a translation dropped or changed, in words, each said once."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, message: str) -> None:
        if message not in self.items:
            self.items.append(message)


# budget_tokens ⇄ reasoning_effort: the thresholds are a convention, not a standard
_EFFORT_BUDGET = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}


def effort_for_budget(budget: int) -> str:
    if budget < 4096:
        return "low"
    if budget < 16384:
        return "medium"
    return "high"


def _data_url(media_type: str, data: str) -> str:
    return f"data:{media_type};base64,{data}"


def _parse_data_url(url: str) -> tuple[str, str] | None:
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[5:].split(";base64,", 1)
    return head or "application/octet-stream", data


def _text_of(content: Any) -> str:
    """The text of a string or a list of text blocks / parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and "text" in p
        )
    return ""


def _content(message: Mapping[str, Any], path: str) -> str | list[Any] | None:
    """A message's content: a string, an array of blocks or parts, or nothing."""
    content = message.get("content")
    if content is None or isinstance(content, str | list):
        return content
    raise RequestTranslationError(
        f"{path}.content", f"expected a string or an array, got {json_type(content)}"
    )


def _entries(value: Any, path: str) -> list[tuple[str, Mapping[str, Any]]]:
    """The objects of an array field, each with its path."""
    return [
        (f"{path}[{i}]", read_mapping(entry, f"{path}[{i}]"))
        for i, entry in enumerate(read_list(value, path))
    ]


def _body(body: Any) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise RequestTranslationError(
            "request", f"a request must be a JSON object, got {json_type(body)}"
        )
    return body


# -- Anthropic → OpenAI -------------------------------------------------------------

_ANTHROPIC_HANDLED = frozenset(
    {
        "model", "messages", "system", "tools", "tool_choice", "stop_sequences", "max_tokens",
        "temperature", "top_p", "top_k", "thinking", "stream", "metadata", "output_config",
    }
)  # fmt: skip


def anthropic_to_openai(
    body: Mapping[str, Any],
    *,
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens",
    names: ToolNameMap | None = None,
) -> RequestTranslation:
    """An Anthropic Messages request as an OpenAI Chat Completions request.

    ``max_tokens_field``: ``max_tokens`` suits most OpenAI-compatible servers;
    OpenAI's reasoning models want ``max_completion_tokens``.
    """
    body = _body(body)
    notes = Notes()
    out: dict[str, Any] = {}
    if "model" in body:
        out["model"] = body["model"]
    tools = _entries(body.get("tools"), "tools")
    custom = [(p, t) for p, t in tools if t.get("type") in (None, "custom") and "name" in t]
    for path, tool in tools:
        if (path, tool) not in custom:
            notes.add(f"server tool {tool.get('type') or tool.get('name')!r} was dropped")
        if "cache_control" in tool:
            notes.add("cache_control was dropped")
    if names is None:
        names = ToolNameMap((read_str(t["name"], f"{p}.name") for p, t in custom), "openai")

    messages: list[dict[str, Any]] = []
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        raise RequestTranslationError(
            "system", f"expected a string or an array, got {json_type(system)}"
        )
    if system:
        if isinstance(system, list):
            if any(isinstance(b, Mapping) and "cache_control" in b for b in system):
                notes.add("cache_control was dropped")
            if any(isinstance(b, Mapping) and b.get("type") != "text" for b in system):
                notes.add("non-text system blocks were dropped")
        messages.append({"role": "system", "content": _text_of(system)})

    seen_calls: set[str] = set()
    seen_results: set[str] = set()
    last_calls: list[str] = []  # ids of the previous assistant turn's calls, in order
    for path, message in _entries(body.get("messages"), "messages"):
        role = read_str(message.get("role"), f"{path}.role")
        content = _content(message, path)
        if isinstance(content, str):
            messages.append({"role": role, "content": content})
            continue
        blocks = [b for _, b in _entries(content, f"{path}.content")]
        if any("cache_control" in b for b in blocks):
            notes.add("cache_control was dropped")
        if role == "assistant":
            text: list[str] = []
            thinking: list[str] = []
            calls: list[dict[str, Any]] = []
            for block in blocks:
                btype = block.get("type")
                if btype == "text":
                    text.append(str(block.get("text", "")))
                elif btype == "tool_use":
                    call_id = read_str(block.get("id"), f"{path}.content.id")
                    if call_id in seen_calls:
                        notes.add(f"a repeated tool_use id {call_id!r} was dropped")
                        continue
                    seen_calls.add(call_id)
                    arguments = block.get("input")
                    calls.append(
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": names.wire(
                                    read_str(block.get("name"), f"{path}.content.name")
                                ),
                                # always a JSON string, never an object
                                "arguments": dumps(arguments if arguments is not None else {}),
                            },
                        }
                    )
                elif btype == "thinking":
                    thought = block.get("thinking")
                    if isinstance(thought, str) and thought:
                        thinking.append(thought)
                    if block.get("signature"):
                        notes.add("thinking signatures were dropped (only Anthropic checks them)")
                elif btype == "redacted_thinking":
                    notes.add("redacted thinking blocks were dropped (encrypted for Anthropic)")
                else:
                    notes.add(f"assistant {btype} blocks were dropped")
            entry: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
            if calls:
                entry["tool_calls"] = calls
            pass_back_reasoning(entry, "".join(thinking), notes)
            messages.append(entry)
            last_calls = [c["id"] for c in calls]
            continue
        results: list[dict[str, Any]] = []
        parts: list[dict[str, Any]] = []
        for block in blocks:
            btype = block.get("type")
            if btype == "tool_result":
                call_id = read_str(block.get("tool_use_id"), f"{path}.content.tool_use_id")
                if call_id in seen_results:
                    notes.add(f"a repeated tool_result for {call_id!r} was dropped")
                    continue
                seen_results.add(call_id)
                result_text, images = _anthropic_result(
                    block.get("content"), f"{path}.content.content", notes
                )
                if block.get("is_error"):
                    result_text = f"Error: {result_text}"
                    notes.add("tool_result is_error is carried as an 'Error: ' prefix")
                results.append({"role": "tool", "tool_call_id": call_id, "content": result_text})
                if images:
                    notes.add("images in tool results were moved to a user message")
                    parts.extend(images)
            else:
                part = _anthropic_part(block, notes)
                if part is not None:
                    parts.append(part)
        order = {call_id: i for i, call_id in enumerate(last_calls)}
        results.sort(key=lambda r: order.get(r["tool_call_id"], len(order)))
        missing = [c for c in last_calls if c not in {r["tool_call_id"] for r in results}]
        if results and missing:
            notes.add(f"tool calls without a result: {', '.join(missing)}")
        messages.extend(results)
        last_calls = []
        if parts:
            if all(p["type"] == "text" for p in parts):
                messages.append({"role": role, "content": "".join(p["text"] for p in parts)})
            else:
                messages.append({"role": role, "content": parts})
    out["messages"] = messages

    if custom:
        out["tools"] = [
            to_openai_tool(
                ToolSpec(
                    name=read_str(t["name"], f"{p}.name"),
                    parameters=read_mapping(t.get("input_schema"), f"{p}.input_schema")
                    or {"type": "object", "properties": {}},
                    description=str(t.get("description") or ""),
                ),
                names,
            )
            for p, t in custom
        ]
    _anthropic_tool_choice(body.get("tool_choice"), out, names, notes)
    stops = read_list(body.get("stop_sequences"), "stop_sequences")
    if stops:
        if len(stops) > 4:
            notes.add("OpenAI takes at most 4 stop sequences; the rest were dropped")
        out["stop"] = stops[:4]
    if "max_tokens" in body:
        out[max_tokens_field] = body["max_tokens"]
    for key in ("temperature", "top_p"):
        if key in body:
            out[key] = body[key]
    if "top_k" in body:
        notes.add("top_k was dropped (no OpenAI equivalent)")
    metadata = body.get("metadata")
    if isinstance(metadata, Mapping) and metadata.get("user_id"):
        out["user"] = metadata["user_id"]
    _anthropic_thinking(body, out, notes)
    if body.get("stream"):
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    for key in body:
        if key not in _ANTHROPIC_HANDLED:
            notes.add(f"{key} was dropped (no OpenAI equivalent)")
    return RequestTranslation(out, tuple(notes.items), names if names.changed else None)


def pass_back_reasoning(entry: dict[str, Any], reasoning: str, notes: Notes) -> None:
    """Give an assistant turn its reasoning back as ``reasoning_content`` when the turn
    made tool calls: DeepSeek refuses (400) a tool-call turn whose reasoning is not
    passed back, and Qwen-style chat templates render it for the turns after the last
    user message. A turn without calls is finished; its reasoning is dropped (those
    servers ignore it there)."""
    if not reasoning:
        return
    if entry.get("tool_calls"):
        entry["reasoning_content"] = reasoning
    else:
        notes.add("reasoning of assistant turns without tool calls was dropped")


def _anthropic_result(content: Any, path: str, notes: Notes) -> tuple[str, list[dict[str, Any]]]:
    if isinstance(content, str) or content is None:
        return content or "", []
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for _, block in _entries(content, path):
        if block.get("type") == "text":
            texts.append(str(block.get("text", "")))
        elif block.get("type") == "image":
            part = _anthropic_part(block, notes)
            if part is not None:
                images.append(part)
        else:
            notes.add(f"{block.get('type')} blocks in tool results were dropped")
    return "\n".join(texts), images


def _anthropic_part(block: Mapping[str, Any], notes: Notes) -> dict[str, Any] | None:
    btype = block.get("type")
    if btype == "text":
        return {"type": "text", "text": str(block.get("text", ""))}
    source = block.get("source")
    if btype in ("image", "document") and isinstance(source, Mapping):
        stype = source.get("type")
        if btype == "image" and stype == "base64":
            url = _data_url(str(source.get("media_type")), str(source.get("data")))
            return {"type": "image_url", "image_url": {"url": url}}
        if btype == "image" and stype == "url":
            return {"type": "image_url", "image_url": {"url": str(source.get("url"))}}
        if btype == "document" and stype == "base64":
            data = _data_url(str(source.get("media_type")), str(source.get("data")))
            name = str(block.get("title") or "document.pdf")
            return {"type": "file", "file": {"filename": name, "file_data": data}}
        if btype == "document" and stype == "text":
            return {"type": "text", "text": str(source.get("data", ""))}
    notes.add(f"user {btype} blocks of this kind were dropped")
    return None


def _anthropic_tool_choice(
    choice: Any, out: dict[str, Any], names: ToolNameMap, notes: Notes
) -> None:
    if choice is None:
        return
    choice = read_mapping(choice, "tool_choice")
    kind = choice.get("type")
    if kind == "auto":
        out["tool_choice"] = "auto"
    elif kind == "any":
        out["tool_choice"] = "required"
    elif kind == "none":
        out["tool_choice"] = "none"
    elif kind == "tool":
        name = names.wire(str(choice.get("name", "")))
        out["tool_choice"] = {"type": "function", "function": {"name": name}}
    else:
        notes.add(f"tool_choice {kind!r} was dropped")
    if choice.get("disable_parallel_tool_use") and "tools" in out:
        out["parallel_tool_calls"] = False


def _anthropic_thinking(body: Mapping[str, Any], out: dict[str, Any], notes: Notes) -> None:
    thinking = body.get("thinking")
    if isinstance(thinking, Mapping):
        kind = thinking.get("type")
        budget = thinking.get("budget_tokens")
        if kind == "enabled" and isinstance(budget, int):
            out["reasoning_effort"] = effort_for_budget(budget)
            notes.add(
                f"thinking budget_tokens={budget} is approximated as "
                f"reasoning_effort={out['reasoning_effort']!r}"
            )
        elif kind in ("adaptive", "enabled"):
            out["reasoning_effort"] = "medium"
            notes.add(f"thinking {kind!r} is approximated as reasoning_effort='medium'")
    config = body.get("output_config")
    if isinstance(config, Mapping):
        effort = config.get("effort")
        if isinstance(effort, str):
            out["reasoning_effort"] = effort if effort in _EFFORT_BUDGET else "high"
            if effort not in _EFFORT_BUDGET:
                notes.add(f"effort {effort!r} is sent as reasoning_effort='high'")
        if set(config) - {"effort"}:
            notes.add("output_config fields other than effort were dropped")


# -- OpenAI → Anthropic -------------------------------------------------------------

_OPENAI_HANDLED = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "stop",
        "max_tokens", "max_completion_tokens", "temperature", "top_p", "reasoning_effort",
        "stream", "stream_options", "user", "metadata", "thinking",
    }
)  # fmt: skip


def openai_to_anthropic(
    body: Mapping[str, Any],
    *,
    default_max_tokens: int = 4096,
    names: ToolNameMap | None = None,
) -> RequestTranslation:
    """An OpenAI Chat Completions request as an Anthropic Messages request.

    Anthropic requires ``max_tokens``; ``default_max_tokens`` is used when the
    request has neither ``max_tokens`` nor ``max_completion_tokens``.
    """
    body = _body(body)
    notes = Notes()
    out: dict[str, Any] = {}
    if "model" in body:
        out["model"] = body["model"]
    tools = _entries(body.get("tools"), "tools")
    functions = [
        (f"{p}.function", read_mapping(t["function"], f"{p}.function"))
        for p, t in tools
        if t.get("type") == "function" and "function" in t
    ]
    if len(functions) != len(tools):
        notes.add("non-function tools were dropped")
    if names is None:
        wire_names = (read_str(f.get("name"), f"{p}.name") for p, f in functions)
        names = ToolNameMap(wire_names, "anthropic")

    system: list[str] = []
    messages: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []  # tool_result blocks waiting for the next user turn
    seen_calls: set[str] = set()
    seen_results: set[str] = set()
    last_calls: list[str] = []

    def push(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"].extend(blocks)  # Anthropic turns alternate
        else:
            messages.append({"role": role, "content": blocks})

    def flush_results() -> None:
        nonlocal pending, last_calls
        if not pending:
            return
        order = {call_id: i for i, call_id in enumerate(last_calls)}
        pending.sort(key=lambda b: order.get(b["tool_use_id"], len(order)))
        missing = [c for c in last_calls if c not in {b["tool_use_id"] for b in pending}]
        if missing:
            notes.add(f"tool calls without a result: {', '.join(missing)}")
        push("user", pending)
        pending, last_calls = [], []

    for position, (path, message) in enumerate(_entries(body.get("messages"), "messages")):
        role = read_str(message.get("role"), f"{path}.role")
        content = _content(message, path)
        if role in ("system", "developer"):
            if messages or pending:
                notes.add("a system message after the first turn was moved to the system prompt")
            system.append(_text_of(content))
        elif role == "tool":
            call_id = read_str(message.get("tool_call_id"), f"{path}.tool_call_id")
            if call_id in seen_results:
                notes.add(f"a repeated tool result for {call_id!r} was dropped")
                continue
            seen_results.add(call_id)
            if isinstance(content, list) and any(
                isinstance(p, Mapping) and p.get("type") != "text" for p in content
            ):
                notes.add("non-text tool result parts were dropped")
            pending.append(
                {"type": "tool_result", "tool_use_id": call_id, "content": _text_of(content)}
            )
        elif role == "function":
            notes.add("legacy function-role messages were dropped (they carry no call id)")
        elif role == "assistant":
            flush_results()
            blocks: list[dict[str, Any]] = []
            text = _text_of(content)
            refusal = message.get("refusal")
            if isinstance(refusal, str) and refusal:
                text += refusal
            thinking = _thinking_blocks(message.get("thinking_blocks"), f"{path}.thinking_blocks")
            blocks.extend(thinking)  # first: Anthropic wants a turn's thinking before the rest
            if text:
                blocks.append({"type": "text", "text": text})
            if not thinking and (message.get("reasoning_content") or message.get("reasoning")):
                notes.add("assistant reasoning in the history was dropped (no signature)")
            calls = _entries(message.get("tool_calls"), f"{path}.tool_calls")
            legacy = message.get("function_call")
            if legacy is not None:
                where = f"{path}.function_call"
                calls.append((where, {"function": read_mapping(legacy, where)}))
            last_calls = []
            for i, (where, call) in enumerate(calls):
                fn = read_mapping(call.get("function"), f"{where}.function")
                call_id = read_str(call.get("id"), f"{where}.id") or _stable_id(position, i)
                if call_id in seen_calls:
                    notes.add(f"a repeated tool call id {call_id!r} was dropped")
                    continue
                seen_calls.add(call_id)
                last_calls.append(call_id)
                blocks.append(
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": names.wire(read_str(fn.get("name"), f"{where}.function.name")),
                        "input": _arguments_object(fn.get("arguments"), call_id, notes),
                    }
                )
            push("assistant", blocks)
        else:  # user: pending tool results come first in the same turn
            flush_results()
            push("user", _openai_blocks(content, f"{path}.content", notes))
    flush_results()
    if system:
        out["system"] = "\n\n".join(s for s in system if s)
    out["messages"] = messages

    if functions:
        out["tools"] = []
        for where, fn in functions:
            spec = ToolSpec(
                name=read_str(fn.get("name"), f"{where}.name"),
                parameters=read_mapping(fn.get("parameters"), f"{where}.parameters")
                or {"type": "object", "properties": {}},
                description=str(fn.get("description") or ""),
            )
            tool = to_anthropic_tool(spec, names)
            if "strict" in fn:
                tool["strict"] = bool(fn["strict"])
            out["tools"].append(tool)
    _openai_tool_choice(body, out, names, notes)
    stop = body.get("stop")
    if stop:
        out["stop_sequences"] = [stop] if isinstance(stop, str) else read_list(stop, "stop")
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    out["max_tokens"] = max_tokens if isinstance(max_tokens, int) else default_max_tokens
    temperature = body.get("temperature")
    if isinstance(temperature, int | float):
        if temperature > 1:
            notes.add(f"temperature {temperature} was clamped to 1 (Anthropic's range is 0–1)")
        out["temperature"] = min(temperature, 1)
    if "top_p" in body:
        out["top_p"] = body["top_p"]
    requested = body.get("thinking")
    if isinstance(requested, Mapping):  # Anthropic's own field: sent as it is
        _thinking_on(dict(requested), out, notes)
        if body.get("reasoning_effort") is not None:
            notes.add("reasoning_effort was dropped (thinking was given)")
    else:
        _openai_reasoning(body.get("reasoning_effort"), out, notes)
    if body.get("stream"):
        out["stream"] = True  # Anthropic streams always carry usage
    user = body.get("user")
    if isinstance(user, str) and user:
        out["metadata"] = {"user_id": user}
    if body.get("metadata"):
        notes.add("metadata was dropped (Anthropic only takes user_id)")
    for key in body:
        if key not in _OPENAI_HANDLED and body[key] is not None:
            notes.add(f"{key} was dropped (no Anthropic equivalent)")
    return RequestTranslation(out, tuple(notes.items), names if names.changed else None)


def _thinking_blocks(value: Any, path: str) -> list[dict[str, Any]]:
    """An assistant message's ``thinking_blocks`` (LiteLLM's name for them in Chat
    shape; ``toolwire.agent`` keeps them so): Anthropic's thinking and redacted_thinking
    blocks, which go back verbatim (their signatures are checked)."""
    if value is None:
        return []
    kinds = ("thinking", "redacted_thinking")
    return [dict(block) for _, block in _entries(value, path) if block.get("type") in kinds]


def _stable_id(position: int, index: int) -> str:
    digest = hashlib.sha256(f"{position}:{index}".encode()).hexdigest()
    return f"toolu_{digest[:24]}"


def _arguments_object(arguments: Any, call_id: str, notes: Notes) -> dict[str, Any]:
    if isinstance(arguments, Mapping):
        return dict(arguments)
    if not isinstance(arguments, str) or not arguments.strip():
        return {}
    # strict JSON as sent: integers beyond 64 bits exact, a repeated key named
    ok, value, changed = strict_json(arguments)
    if changed:
        notes.add(f"arguments of call {call_id!r} were repaired ({', '.join(changed)})")
    if not ok:
        result = repair_json(arguments)
        value = result.value if result.ok and not result.truncated else None
        if value is None:
            notes.add(f"unreadable arguments of call {call_id!r} were sent as {{}}")
            return {}
        notes.add(f"arguments of call {call_id!r} were repaired")
    if not isinstance(value, dict):
        notes.add(f"non-object arguments of call {call_id!r} were sent as {{}}")
        return {}
    return value


def _openai_blocks(content: Any, path: str, notes: Notes) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for where, part in _entries(content, path):
        ptype = part.get("type")
        if ptype == "text":
            if part.get("text"):
                blocks.append({"type": "text", "text": str(part["text"])})
        elif ptype == "image_url":
            image = part.get("image_url")
            url = str(image.get("url", "")) if isinstance(image, Mapping) else str(image)
            parsed = _parse_data_url(url)
            if parsed is not None:
                source = {"type": "base64", "media_type": parsed[0], "data": parsed[1]}
            else:
                source = {"type": "url", "url": url}
            if isinstance(image, Mapping) and image.get("detail"):
                notes.add("image detail was dropped")
            blocks.append({"type": "image", "source": source})
        elif ptype == "file":
            file = read_mapping(part.get("file"), f"{where}.file")
            parsed = _parse_data_url(str(file.get("file_data", "")))
            if parsed is None:
                notes.add("file parts by file_id were dropped")
                continue
            doc: dict[str, Any] = {
                "type": "document",
                "source": {"type": "base64", "media_type": parsed[0], "data": parsed[1]},
            }
            if file.get("filename"):
                doc["title"] = str(file["filename"])
            blocks.append(doc)
        else:
            notes.add(f"{ptype} content parts were dropped")
    return blocks


def _openai_tool_choice(
    body: Mapping[str, Any], out: dict[str, Any], names: ToolNameMap, notes: Notes
) -> None:
    choice = body.get("tool_choice")
    result: dict[str, Any] | None = None
    if choice == "auto":
        result = {"type": "auto"}
    elif choice == "required":
        result = {"type": "any"}
    elif choice == "none":
        result = {"type": "none"}
    elif isinstance(choice, Mapping):
        fn = choice.get("function")
        if isinstance(fn, Mapping) and fn.get("name"):
            result = {"type": "tool", "name": names.wire(str(fn["name"]))}
        else:
            notes.add(f"tool_choice {choice.get('type')!r} was dropped")
    if body.get("parallel_tool_calls") is False and "tools" in out:
        result = result or {"type": "auto"}
        if result["type"] != "none":
            result["disable_parallel_tool_use"] = True
    if result is not None:
        out["tool_choice"] = result


def _openai_reasoning(effort: Any, out: dict[str, Any], notes: Notes) -> None:
    if not isinstance(effort, str):
        return
    if effort == "none":
        out["thinking"] = {"type": "disabled"}
        return
    budget = _EFFORT_BUDGET.get(effort, _EFFORT_BUDGET["high"])
    notes.add(f"reasoning_effort={effort!r} is approximated as thinking budget_tokens={budget}")
    _thinking_on({"type": "enabled", "budget_tokens": budget}, out, notes)


def _thinking_on(thinking: dict[str, Any], out: dict[str, Any], notes: Notes) -> None:
    """``thinking`` into the request, with what Anthropic requires along with it."""
    out["thinking"] = thinking
    if thinking.get("type") == "disabled":
        return
    budget = thinking.get("budget_tokens")
    if isinstance(budget, int) and out["max_tokens"] <= budget:
        out["max_tokens"] = budget + out["max_tokens"]
        notes.add("max_tokens was raised above the thinking budget (Anthropic requires it)")
    if "temperature" in out and out["temperature"] != 1:
        del out["temperature"]
        notes.add("temperature was dropped (Anthropic requires 1 with thinking)")
