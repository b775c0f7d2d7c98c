"""Request translation: OpenAI Responses → OpenAI Chat Completions (a pure function).

``responses_to_openai(body)`` returns a ``RequestTranslation`` like the other
translators (``toolwire.providers.requests``): the Chat Completions body, ``lossy``
(in words, what Chat Completions cannot express) and ``names`` (when a tool name had
to be shortened). Any other target goes through Chat Completions first.

- ``instructions`` and ``system`` / ``developer`` messages → system messages.
- ``input`` items: messages (``input_text`` / ``output_text`` / ``input_image`` /
  ``input_file`` parts), ``function_call`` (grouped into one assistant turn) and
  ``function_call_output`` (tool messages, in call order).
- ``function`` tools pass; a ``namespace`` tool (Codex groups MCP tools so) becomes
  its functions under qualified names (``namespaced_name``), which the encoder splits
  back into ``namespace`` and ``name`` (``namespaces_of``). Hosted tools the upstream
  cannot run (``web_search``, ``file_search``, ``local_shell``, ``custom``, …) are
  dropped and reported, and so are their calls and outputs in the history.
- ``reasoning`` items' text (``reasoning_text`` content, else the summary) goes with
  the tool calls that follow it as the assistant message's ``reasoning_content``
  (DeepSeek requires it back); ``encrypted_content`` (readable only by OpenAI) and
  the reasoning of turns without calls are dropped.
- ``reasoning.effort`` → ``reasoning_effort``; ``max_output_tokens`` → ``max_tokens``;
  ``text.format`` json_schema → ``response_format``.
- ``store: false`` and ``include`` are accepted (the gateway keeps nothing; there is
  no encrypted reasoning to include). ``previous_response_id`` and ``item_reference``
  need server-side state the gateway does not keep: ``RequestTranslationError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolwire.jsontext import dumps, json_type
from toolwire.providers.requests import Notes, RequestTranslation, pass_back_reasoning
from toolwire.providers.tooldefs import (
    RequestTranslationError,
    ToolNameMap,
    read_list,
    read_mapping,
    read_str,
    to_openai_tool,
)
from toolwire.spec import ToolSpec

# fields whose meaning the translation carries (or that need nothing from a stateless
# gateway); anything else is reported
_HANDLED = frozenset(
    {
        "model", "instructions", "input", "tools", "tool_choice", "parallel_tool_calls",
        "max_output_tokens", "temperature", "top_p", "reasoning", "text", "stream", "user",
        "store", "include", "previous_response_id",
    }
)  # fmt: skip
_CALL_ITEMS = frozenset({"function_call"})
_DROPPED_CALL_ITEMS = frozenset(
    {
        "custom_tool_call", "local_shell_call", "web_search_call", "file_search_call",
        "computer_call", "code_interpreter_call", "image_generation_call", "mcp_call",
        "tool_search_call",
    }
)  # fmt: skip
_DROPPED_OUTPUT_ITEMS = frozenset(
    {"custom_tool_call_output", "local_shell_call_output", "computer_call_output",
     "tool_search_output", "mcp_approval_response"}
)  # fmt: skip


def namespaced_name(namespace: str, name: str) -> str:
    """The one name a namespaced function goes upstream under: the two joined by
    ``__`` (once: Codex's ``mcp__server__`` already ends with it)."""
    return f"{namespace}{name}" if namespace.endswith("__") else f"{namespace}__{name}"


def namespaces_of(body: Mapping[str, Any]) -> dict[str, tuple[str, str]]:
    """Qualified name → (namespace, name) for every function inside a ``namespace``
    tool of a Responses request (for the encoder to split calls back)."""
    out: dict[str, tuple[str, str]] = {}
    tools = body.get("tools")
    if not isinstance(tools, list):
        return out
    for tool in tools:
        if not isinstance(tool, Mapping) or tool.get("type") != "namespace":
            continue
        namespace = tool.get("name")
        inner = tool.get("tools")
        if not isinstance(namespace, str) or not isinstance(inner, list):
            continue
        for fn in inner:
            if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
                out[namespaced_name(namespace, fn["name"])] = (namespace, fn["name"])
    return out


def _function_specs(body: Mapping[str, Any], notes: Notes) -> list[ToolSpec]:
    specs: list[ToolSpec] = []
    for i, entry in enumerate(read_list(body.get("tools"), "tools")):
        path = f"tools[{i}]"
        tool = read_mapping(entry, path)
        kind = read_str(tool.get("type"), f"{path}.type")
        if kind == "function":
            specs.append(_spec(tool, path, read_str(tool.get("name"), f"{path}.name")))
        elif kind == "namespace":
            namespace = read_str(tool.get("name"), f"{path}.name")
            for j, inner in enumerate(read_list(tool.get("tools"), f"{path}.tools")):
                where = f"{path}.tools[{j}]"
                fn = read_mapping(inner, where)
                if fn.get("type", "function") != "function":
                    notes.add(f"{fn.get('type')!r} tools inside a namespace were dropped")
                    continue
                name = read_str(fn.get("name"), f"{where}.name")
                specs.append(_spec(fn, where, namespaced_name(namespace, name)))
        else:
            notes.add(f"tool type {kind!r} was dropped (the upstream cannot run it)")
    return specs


def _spec(tool: Mapping[str, Any], path: str, name: str) -> ToolSpec:
    if not name:
        raise RequestTranslationError(f"{path}.name", "a function tool needs a name")
    return ToolSpec(
        name=name,
        parameters=read_mapping(tool.get("parameters"), f"{path}.parameters")
        or {"type": "object", "properties": {}},
        description=read_str(tool.get("description"), f"{path}.description"),
    )


def _user_parts(content: Any, path: str, notes: Notes) -> str | list[dict[str, Any]]:
    """A message's content as Chat Completions content: a string when it is all text."""
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for i, entry in enumerate(read_list(content, path)):
        part = read_mapping(entry, f"{path}[{i}]")
        kind = read_str(part.get("type"), f"{path}[{i}].type")
        if kind in ("input_text", "output_text", "text"):
            parts.append({"type": "text", "text": read_str(part.get("text"), f"{path}[{i}].text")})
        elif kind == "refusal":
            refusal = read_str(part.get("refusal"), f"{path}[{i}].refusal")
            parts.append({"type": "text", "text": refusal})
        elif kind == "input_image" and isinstance(part.get("image_url"), str):
            image: dict[str, Any] = {"url": part["image_url"]}
            if part.get("detail") in ("low", "high"):
                image["detail"] = part["detail"]
            parts.append({"type": "image_url", "image_url": image})
        elif kind == "input_file" and isinstance(part.get("file_data"), str):
            file = {"file_data": part["file_data"]}
            if isinstance(part.get("filename"), str):
                file["filename"] = part["filename"]
            parts.append({"type": "file", "file": file})
        else:
            notes.add(f"{kind} content parts were dropped")
    if all(p["type"] == "text" for p in parts):
        return "".join(p["text"] for p in parts)
    return parts


def _output_text(output: Any, path: str, notes: Notes) -> str:
    """A function_call_output's ``output``: a string, or parts whose text is kept."""
    if isinstance(output, str):
        return output
    texts: list[str] = []
    for i, entry in enumerate(read_list(output, path)):
        part = read_mapping(entry, f"{path}[{i}]")
        if part.get("type") in ("input_text", "output_text", "text"):
            texts.append(read_str(part.get("text"), f"{path}[{i}].text"))
        else:
            notes.add(f"{part.get('type')} parts in tool outputs were dropped")
    return "\n".join(texts)


def _messages(body: Mapping[str, Any], names: ToolNameMap, notes: Notes) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    instructions = body.get("instructions")
    if instructions is not None:
        text = read_str(instructions, "instructions")
        if text:
            messages.append({"role": "system", "content": text})
    raw_input = body.get("input")
    if isinstance(raw_input, str):
        messages.append({"role": "user", "content": raw_input})
        return messages
    if raw_input is None:
        raise RequestTranslationError("input", "a string or an array of items is required")
    reasoning: list[str] = []  # of reasoning items not yet given to a tool-call turn

    def unused_reasoning() -> None:
        if reasoning:
            notes.add("reasoning of assistant turns without tool calls was dropped")
            reasoning.clear()

    for i, entry in enumerate(read_list(raw_input, "input")):
        path = f"input[{i}]"
        item = read_mapping(entry, path)
        kind = read_str(item.get("type"), f"{path}.type") or ("message" if "role" in item else None)
        if kind == "message":
            role = read_str(item.get("role"), f"{path}.role")
            content = _user_parts(item.get("content"), f"{path}.content", notes)
            if role in ("system", "developer"):
                unused_reasoning()
                text = content if isinstance(content, str) else ""
                messages.append({"role": "system", "content": text})
            elif role == "assistant":
                text = content if isinstance(content, str) else ""
                messages.append({"role": "assistant", "content": text or None})
            else:
                unused_reasoning()
                messages.append({"role": "user", "content": content})
        elif kind in _CALL_ITEMS:
            call_id = read_str(item.get("call_id"), f"{path}.call_id")
            if not call_id:
                raise RequestTranslationError(f"{path}.call_id", "a function_call needs one")
            name = read_str(item.get("name"), f"{path}.name")
            namespace = item.get("namespace")
            if isinstance(namespace, str) and namespace:
                name = namespaced_name(namespace, name)
            arguments = item.get("arguments")
            call = {
                "id": call_id,
                "type": "function",
                "function": {
                    "name": names.wire(name),
                    "arguments": arguments if isinstance(arguments, str) else dumps(arguments),
                },
            }
            last = messages[-1] if messages else None
            if last is not None and last["role"] == "assistant":
                last.setdefault("tool_calls", []).append(call)
            else:
                last = {"role": "assistant", "content": None, "tool_calls": [call]}
                messages.append(last)
            if reasoning:
                earlier = last.pop("reasoning_content", "")
                pass_back_reasoning(last, earlier + "".join(reasoning), notes)
                reasoning.clear()
        elif kind == "function_call_output":
            unused_reasoning()
            call_id = read_str(item.get("call_id"), f"{path}.call_id")
            output = _output_text(item.get("output"), f"{path}.output", notes)
            messages.append({"role": "tool", "tool_call_id": call_id, "content": output})
        elif kind == "reasoning":
            text = _reasoning_text(item, path)
            if text:
                reasoning.append(text)
            if item.get("encrypted_content"):
                notes.add("encrypted reasoning was dropped (readable by OpenAI only)")
        elif kind == "item_reference":
            raise RequestTranslationError(
                f"{path}", "item_reference needs stored responses; the gateway keeps none"
            )
        elif kind in _DROPPED_CALL_ITEMS or kind in _DROPPED_OUTPUT_ITEMS:
            notes.add(f"{kind} items in the history were dropped (no such tool upstream)")
        else:
            notes.add(f"{kind} input items were dropped")
    unused_reasoning()
    return messages


def _reasoning_text(item: Mapping[str, Any], path: str) -> str:
    """A reasoning item's text: its ``reasoning_text`` content (what open models'
    servers give), else its summary (what the gateway sends Responses clients)."""
    for field, kind in (("content", "reasoning_text"), ("summary", "summary_text")):
        parts = item.get(field)
        if not isinstance(parts, list):
            continue
        texts = [
            read_str(p.get("text"), f"{path}.{field}[{i}].text") or ""
            for i, p in enumerate(parts)
            if isinstance(p, Mapping) and p.get("type") == kind
        ]
        if any(texts):
            return "".join(texts)
    return ""


def _tool_choice(choice: Any, out: dict[str, Any], names: ToolNameMap, notes: Notes) -> None:
    if choice is None:
        return
    if choice in ("auto", "none", "required"):
        out["tool_choice"] = choice
        return
    if isinstance(choice, Mapping) and choice.get("type") == "function":
        name = read_str(choice.get("name"), "tool_choice.name")
        out["tool_choice"] = {"type": "function", "function": {"name": names.wire(name)}}
        return
    kind = choice.get("type") if isinstance(choice, Mapping) else choice
    notes.add(f"tool_choice {kind!r} was dropped")


def responses_to_openai(
    body: Mapping[str, Any], *, names: ToolNameMap | None = None
) -> RequestTranslation:
    """An OpenAI Responses request as an OpenAI Chat Completions request."""
    if not isinstance(body, Mapping):
        raise RequestTranslationError(
            "request", f"a request must be a JSON object, got {json_type(body)}"
        )
    if body.get("previous_response_id"):
        raise RequestTranslationError(
            "previous_response_id",
            "the gateway keeps no responses; send the whole conversation (store: false)",
        )
    notes = Notes()
    specs = _function_specs(body, notes)
    if names is None:
        names = ToolNameMap((s.name for s in specs), "openai")
    out: dict[str, Any] = {}
    if "model" in body:
        out["model"] = body["model"]
    out["messages"] = _messages(body, names, notes)
    if specs:
        out["tools"] = [to_openai_tool(spec, names) for spec in specs]
        if isinstance(body.get("parallel_tool_calls"), bool):
            out["parallel_tool_calls"] = body["parallel_tool_calls"]
    _tool_choice(body.get("tool_choice"), out, names, notes)
    if isinstance(body.get("max_output_tokens"), int):
        out["max_tokens"] = body["max_output_tokens"]
    for key in ("temperature", "top_p"):
        if body.get(key) is not None:
            out[key] = body[key]
    if isinstance(body.get("user"), str):
        out["user"] = body["user"]
    reasoning = read_mapping(body.get("reasoning"), "reasoning")
    if isinstance(reasoning.get("effort"), str):
        out["reasoning_effort"] = reasoning["effort"]
    if reasoning.get("summary") is not None:
        notes.add("reasoning.summary was dropped (the upstream's reasoning is passed as is)")
    text = read_mapping(body.get("text"), "text")
    fmt = read_mapping(text.get("format"), "text.format")
    if fmt.get("type") == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        out["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif fmt.get("type") == "json_object":
        out["response_format"] = {"type": "json_object"}
    if set(text) - {"format"}:
        notes.add("text options other than format were dropped")
    if body.get("store"):
        notes.add("store was ignored: the gateway keeps no responses")
    if body.get("stream"):
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    for key in body:
        if key not in _HANDLED and body[key] is not None:
            notes.add(f"{key} was dropped (no Chat Completions equivalent)")
    return RequestTranslation(out, tuple(notes.items), names if names.changed else None)
