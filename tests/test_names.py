"""Tool-name normalization only toward declared tools (F18, F21)."""

from __future__ import annotations

import pytest

from toolwire.names import resolve_tool_name, unknown_tool_message

DECLARED = {"read_file", "get_weather", "list_dir", "TodoWrite"}


@pytest.mark.parametrize(
    "sent",
    [
        "functions.read_file",
        "functions.read_file:0",
        "read_file:3",
        "call_functionsread_file9",
        "functions:read_file",
        "default_api.read_file",
        "ReadFile",
        "read-file",
        "READ_FILE",
        " read_file ",
        "<|read_file|>",
        "FUNCTIONSread_file",
        "Functions.read_file:1",
    ],
)
def test_decorated_names_resolve_F18(sent: str) -> None:
    match = resolve_tool_name(sent, DECLARED)
    assert match.name == "read_file"
    assert match.repair == f"name:{sent}->read_file"


def test_exact_name_needs_no_repair() -> None:
    assert resolve_tool_name("read_file", DECLARED).repair is None


def test_camel_case_tool_matches_snake_case_call() -> None:
    assert resolve_tool_name("todo_write", DECLARED).name == "TodoWrite"


def test_no_normalization_toward_an_undeclared_name_F21() -> None:
    match = resolve_tool_name("functions.delete_everything", DECLARED)
    assert match.name is None


def test_ambiguous_fold_does_not_guess() -> None:
    match = resolve_tool_name("readfile", {"read_file", "read-file"})
    assert match.name is None


def test_unknown_name_error_lists_closest_declared_tools_F21() -> None:
    match = resolve_tool_name("read_fil", {"read_file", "write_file", "get_weather"})
    assert match.name is None
    message = unknown_tool_message("read_fil", match, {"read_file", "write_file", "get_weather"})
    assert "read_fil" in message and "read_file" in message
    assert "get_weather" not in message


def test_unknown_name_with_nothing_close_lists_available_tools() -> None:
    match = resolve_tool_name("zzz", DECLARED)
    assert "available tools: TodoWrite, get_weather, list_dir, read_file" in unknown_tool_message(
        "zzz", match, DECLARED
    )


@pytest.mark.parametrize(
    ("sent", "declared"),
    [
        ("sha256", "sha"),  # a bare trailing number is part of the name
        ("log10", "log"),
        ("python3", "python"),
        ("rm_rf2", "rm_rf"),
        ("rm_rf_2", "rm_rf"),
        ("do not call delete_all", "delete_all"),  # not a word out of a phrase
        ("please read_file", "read_file"),
        ("\u212aill", "kill"),  # KELVIN SIGN: a compatibility character
        ("\uff4bill", "kill"),  # FULLWIDTH k
        ("\u00a0kill", "kill"),  # NO-BREAK SPACE
        ("functions.\u212aill", "kill"),
        ("call_delete_all", "delete_all"),  # not a documented decoration
        ("tool_search", "search"),
    ],
)
def test_undeclared_names_never_map_onto_a_different_tool_F18_F21(sent: str, declared: str) -> None:
    tools = {declared, "get_weather"}
    match = resolve_tool_name(sent, tools)
    assert match.name is None
    # F21: still an invalid call whose error names the closest declared tools
    assert declared in unknown_tool_message(sent, match, tools)


@pytest.mark.parametrize(
    ("sent", "declared", "expected"),
    [
        ("sha256", {"sha256", "sha"}, "sha256"),
        ("functions.sha256:0", {"sha256", "sha"}, "sha256"),
        ("call_functionssha2561", {"sha256", "sha"}, "sha256"),  # Kimi counter 1
        ("call_functionssha3", {"sha256", "sha"}, "sha"),
        ("functionslist_directory", {"list_directory"}, "list_directory"),
        ("FUNCTIONSlist_directory:0", {"list_directory"}, "list_directory"),
        ("call_functionslist_directory12", {"list_directory"}, "list_directory"),
        ("tools.read_file", {"read_file"}, "read_file"),
    ],
)
def test_documented_decorations_still_strip_F18(
    sent: str, declared: set[str], expected: str
) -> None:
    match = resolve_tool_name(sent, declared)
    repair = None if sent == expected else f"name:{sent}->{expected}"
    assert (match.name, match.repair) == (expected, repair)
