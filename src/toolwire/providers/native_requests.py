"""Request translation: OpenAI Chat Completions → Ollama, Gemini and OpenAI Responses.

Chat Completions is the hub: every client request the gateway takes (Messages,
Responses, Chat) is first a Chat request, then goes out in the upstream's own API.

- ``openai_to_ollama``: Ollama ``/api/chat`` (arguments as objects, images as base64,
  ``options`` for sampling and ``num_predict``, ``think``, ``format``).
- ``openai_to_gemini``: Gemini ``generateContent`` (``systemInstruction``,
  ``contents`` with ``functionCall`` / ``functionResponse`` parts, function
  declarations in Gemini's schema subset, ``toolConfig``, ``generationConfig``). The
  model goes in the URL: it is left out of the body.
- ``openai_to_responses``: a Responses request (``instructions``, ``input`` items,
  flat function tools, ``reasoning``, ``text.format``), ``store: false``.

Each returns a ``RequestTranslation``; what the target cannot express is in ``lossy``.
A field of the wrong type raises ``RequestTranslationError`` (``path`` names it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolwire.jsontext import dumps
from toolwire.providers.openai_chat import gemini_thought_signature
from toolwire.providers.requests import (
    _EFFORT_BUDGET,
    Notes,
    RequestTranslation,
    _arguments_object,
    _body,
    _content,
    _entries,
    _parse_data_url,
    _text_of,
)
from toolwire.providers.tooldefs import (
    ToolNameMap,
    read_mapping,
    read_str,
    spec_from_definition,
    to_gemini_declaration,
)
from toolwire.spec import ToolSpec


@dataclass(slots=True)
class _Call:
    id: str
    name: str
    arguments: dict[str, Any]  # the object (repaired when it had to be)
    text: str  # the arguments as sent
    thought_signature: str | None = None  # Gemini's, kept as its Chat API keeps it


@dataclass(slots=True)
class _Turn:
    """One Chat message, read: ``role`` user / assistant / tool."""

    role: str
    text: str = ""
    images: list[str] = field(default_factory=list)  # data: URLs or http(s) URLs
    calls: list[_Call] = field(default_factory=list)
    call_id: str | None = None  # a tool result's call
    name: str = ""  # a tool result's function
    reasoning: str = ""  # an assistant turn's reasoning_content


@dataclass(slots=True)
class _Chat:
    system: list[str]
    turns: list[_Turn]
    tools: list[ToolSpec]


def _read(body: Mapping[str, Any], notes: Notes) -> _Chat:
    """The parts of a Chat request every target needs, read once."""
    system: list[str] = []
    turns: list[_Turn] = []
    names_by_id: dict[str, str] = {}
    for path, message in _entries(body.get("messages"), "messages"):
        role = read_str(message.get("role"), f"{path}.role")
        content = _content(message, path)
        if role in ("system", "developer"):
            system.append(_text_of(content))
            continue
        turn = _Turn(role if role in ("assistant", "tool") else "user", _text_of(content))
        if isinstance(content, list):
            for where, part in _entries(content, f"{path}.content"):
                if part.get("type") == "image_url":
                    image = part.get("image_url")
                    url = image.get("url") if isinstance(image, Mapping) else image
                    turn.images.append(read_str(url, f"{where}.image_url.url"))
                elif part.get("type") not in ("text", "input_text", "output_text"):
                    notes.add(f"{part.get('type')} content parts were dropped")
        for where, call in _entries(message.get("tool_calls"), f"{path}.tool_calls"):
            fn = read_mapping(call.get("function"), f"{where}.function")
            call_id = str(call.get("id") or f"call_{len(names_by_id)}")
            name = read_str(fn.get("name"), f"{where}.function.name")
            raw = fn.get("arguments")
            text = raw if isinstance(raw, str) else dumps(raw if raw is not None else {})
            arguments = _arguments_object(raw, call_id, notes)
            signature = gemini_thought_signature(call.get("extra_content"))
            turn.calls.append(_Call(call_id, name, arguments, text, signature))
            names_by_id[call_id] = name
        reasoning = message.get("reasoning_content")
        if turn.role == "assistant" and isinstance(reasoning, str):
            turn.reasoning = reasoning
        if turn.role == "tool":
            turn.call_id = read_str(message.get("tool_call_id"), f"{path}.tool_call_id")
            turn.name = names_by_id.get(turn.call_id, str(message.get("name") or ""))
        turns.append(turn)
    tools: list[ToolSpec] = []
    for path, tool in _entries(body.get("tools"), "tools"):
        if tool.get("type") != "function":
            notes.add(f"{tool.get('type')} tools were dropped")
            continue
        tools.append(spec_from_definition(read_mapping(tool.get("function"), f"{path}.function")))
    return _Chat(system, turns, tools)


def _forced_name(body: Mapping[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, Mapping):
        fn = choice.get("function")
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return str(fn["name"])
    return None


def _max_tokens(body: Mapping[str, Any]) -> Any:
    return body.get("max_completion_tokens", body.get("max_tokens"))


def _response_schema(body: Mapping[str, Any]) -> tuple[str, Any] | None:
    """("json", None) for JSON mode, ("schema", the schema) for a JSON schema."""
    fmt = body.get("response_format")
    if not isinstance(fmt, Mapping):
        return None
    if fmt.get("type") == "json_object":
        return "json", None
    if fmt.get("type") == "json_schema":
        spec = fmt.get("json_schema")
        if isinstance(spec, Mapping) and isinstance(spec.get("schema"), Mapping):
            return "schema", spec["schema"]
    return None


# -- Ollama -----------------------------------------------------------------------------


def openai_to_ollama(body: Mapping[str, Any]) -> RequestTranslation:
    """A Chat Completions request as an Ollama ``/api/chat`` request."""
    body = _body(body)
    notes = Notes()
    chat = _read(body, notes)
    messages: list[dict[str, Any]] = []
    if chat.system:
        messages.append({"role": "system", "content": "\n\n".join(chat.system)})
    for turn in chat.turns:
        message: dict[str, Any] = {"role": turn.role, "content": turn.text}
        images = []
        for url in turn.images:
            parsed = _parse_data_url(url)
            if parsed is None:
                notes.add("images by URL were dropped (Ollama takes base64 only)")
            else:
                images.append(parsed[1])
        if images:
            message["images"] = images
        if turn.calls:
            message["tool_calls"] = [
                {"function": {"name": c.name, "arguments": c.arguments}} for c in turn.calls
            ]
            if turn.reasoning:  # the thinking of a tool-call turn goes back (pass-back rule)
                message["thinking"] = turn.reasoning
        if turn.role == "tool" and turn.name:
            message["tool_name"] = turn.name
        messages.append(message)
    out: dict[str, Any] = {"messages": messages}
    if "model" in body:
        out["model"] = body["model"]
    choice = body.get("tool_choice")
    if chat.tools and choice != "none":
        out["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": spec.name,
                    "description": spec.description or "",
                    "parameters": spec.parameters,
                },
            }
            for spec in chat.tools
        ]
    if choice == "required" or _forced_name(body):
        notes.add("tool_choice was dropped (Ollama has no forced tool choice)")
    options: dict[str, Any] = {}
    for source, target in (
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("seed", "seed"),
        ("stop", "stop"),
    ):
        if body.get(source) is not None:
            value = body[source]
            options[target] = [value] if target == "stop" and isinstance(value, str) else value
    if _max_tokens(body) is not None:
        options["num_predict"] = _max_tokens(body)
    if options:
        out["options"] = options
    effort = body.get("reasoning_effort")
    if isinstance(effort, str):
        out["think"] = effort != "none"
        if effort not in ("none", "medium"):
            notes.add(f"reasoning_effort={effort!r} is sent as think={out['think']}")
    schema = _response_schema(body)
    if schema is not None:
        out["format"] = "json" if schema[0] == "json" else schema[1]
    return RequestTranslation(out, tuple(notes.items))


# -- Gemini -----------------------------------------------------------------------------


def _gemini_part(url: str, notes: Notes) -> dict[str, Any] | None:
    parsed = _parse_data_url(url)
    if parsed is not None:
        return {"inlineData": {"mimeType": parsed[0], "data": parsed[1]}}
    if url.startswith(("http://", "https://", "gs://")):
        return {"fileData": {"fileUri": url}}
    notes.add("an image that is neither a data: URL nor a URL was dropped")
    return None


def openai_to_gemini(body: Mapping[str, Any]) -> RequestTranslation:
    """A Chat Completions request as a Gemini ``generateContent`` body (the model
    name is not in it: it goes in the URL)."""
    body = _body(body)
    notes = Notes()
    chat = _read(body, notes)
    names = ToolNameMap((spec.name for spec in chat.tools), "gemini")
    contents: list[dict[str, Any]] = []

    def push(role: str, parts: list[dict[str, Any]]) -> None:
        if not parts:
            return
        if contents and contents[-1]["role"] == role:
            contents[-1]["parts"].extend(parts)  # results of parallel calls: one turn
        else:
            contents.append({"role": role, "parts": parts})

    for turn in chat.turns:
        parts: list[dict[str, Any]] = []
        if turn.role == "tool":
            name = names.wire(turn.name or "tool")
            response = {"name": name, "response": {"result": turn.text}}
            parts.append({"functionResponse": {**response, "id": turn.call_id}})
            push("user", parts)
            continue
        if turn.text:
            parts.append({"text": turn.text})
        for url in turn.images:
            part = _gemini_part(url, notes)
            if part is not None:
                parts.append(part)
        for call in turn.calls:
            call_part: dict[str, Any] = {
                "functionCall": {
                    "name": names.wire(call.name),
                    "args": call.arguments,
                    "id": call.id,
                }
            }
            if call.thought_signature is not None:  # Gemini 3 refuses a call without it
                call_part["thoughtSignature"] = call.thought_signature
            parts.append(call_part)
        push("model" if turn.role == "assistant" else "user", parts)
    out: dict[str, Any] = {"contents": contents}
    if chat.system:
        out["systemInstruction"] = {"parts": [{"text": "\n\n".join(chat.system)}]}
    if chat.tools:
        declarations = []
        for spec in chat.tools:
            translated = to_gemini_declaration(spec, names)
            declarations.append(translated.value)
            for note in translated.lossy:
                notes.add(note)
        out["tools"] = [{"functionDeclarations": declarations}]
    choice = body.get("tool_choice")
    forced = _forced_name(body)
    modes = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
    if forced is not None:
        out["toolConfig"] = {
            "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [names.wire(forced)]}
        }
    elif isinstance(choice, str) and choice in modes:
        out["toolConfig"] = {"functionCallingConfig": {"mode": modes[choice]}}
    if body.get("parallel_tool_calls") is False:
        notes.add("parallel_tool_calls=false was dropped (Gemini has no such switch)")
    config: dict[str, Any] = {}
    for source, target in (
        ("temperature", "temperature"),
        ("top_p", "topP"),
        ("seed", "seed"),
        ("stop", "stopSequences"),
    ):
        if body.get(source) is not None:
            value = body[source]
            config[target] = (
                [value] if target == "stopSequences" and isinstance(value, str) else value
            )
    if _max_tokens(body) is not None:
        config["maxOutputTokens"] = _max_tokens(body)
    effort = body.get("reasoning_effort")
    if isinstance(effort, str):
        budget = 0 if effort == "none" else _EFFORT_BUDGET.get(effort, _EFFORT_BUDGET["high"])
        config["thinkingConfig"] = {"thinkingBudget": budget, "includeThoughts": budget > 0}
        notes.add(f"reasoning_effort={effort!r} is approximated as thinkingBudget={budget}")
    schema = _response_schema(body)
    if schema is not None:
        config["responseMimeType"] = "application/json"
        if schema[0] == "schema":
            config["responseJsonSchema"] = schema[1]
    if config:
        out["generationConfig"] = config
    return RequestTranslation(
        out,
        tuple(notes.items),
        names if names.changed else None,
        tuple(names.wire_specs(chat.tools)),
    )


# -- OpenAI Responses -------------------------------------------------------------------


def openai_to_responses(body: Mapping[str, Any]) -> RequestTranslation:
    """A Chat Completions request as a Responses request (``store: false``: the
    gateway keeps no conversation; the whole history is sent each time)."""
    body = _body(body)
    notes = Notes()
    chat = _read(body, notes)
    items: list[dict[str, Any]] = []
    for turn in chat.turns:
        if turn.role == "tool":
            items.append(
                {"type": "function_call_output", "call_id": turn.call_id, "output": turn.text}
            )
            continue
        if turn.role == "assistant":
            if turn.text:
                items.append({"role": "assistant", "content": turn.text})
            for call in turn.calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": call.text,
                    }
                )
            continue
        content: list[dict[str, Any]] = []
        if turn.text:
            content.append({"type": "input_text", "text": turn.text})
        content += [{"type": "input_image", "image_url": url} for url in turn.images]
        items.append({"role": "user", "content": content})
    out: dict[str, Any] = {"input": items, "store": False}
    if "model" in body:
        out["model"] = body["model"]
    if chat.system:
        out["instructions"] = "\n\n".join(chat.system)
    if chat.tools:
        out["tools"] = [
            {
                "type": "function",
                "name": spec.name,
                "description": spec.description or "",
                "parameters": spec.parameters,
                "strict": False,
            }
            for spec in chat.tools
        ]
    choice = body.get("tool_choice")
    forced = _forced_name(body)
    if forced is not None:
        out["tool_choice"] = {"type": "function", "name": forced}
    elif choice in ("auto", "required", "none"):
        out["tool_choice"] = choice
    if isinstance(body.get("parallel_tool_calls"), bool):
        out["parallel_tool_calls"] = body["parallel_tool_calls"]
    for key in ("temperature", "top_p"):
        if body.get(key) is not None:
            out[key] = body[key]
    if _max_tokens(body) is not None:
        out["max_output_tokens"] = _max_tokens(body)
    if body.get("stop") is not None:
        notes.add("stop sequences were dropped (the Responses API has none)")
    effort = body.get("reasoning_effort")
    if isinstance(effort, str):
        out["reasoning"] = {"effort": effort}
    fmt = body.get("response_format")
    schema = _response_schema(body)
    if schema is not None and isinstance(fmt, Mapping):
        if schema[0] == "json":
            out["text"] = {"format": {"type": "json_object"}}
        else:
            spec = read_mapping(fmt.get("json_schema"), "response_format.json_schema")
            out["text"] = {"format": {"type": "json_schema", **spec}}
    return RequestTranslation(out, tuple(notes.items))
