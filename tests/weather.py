"""The ``get_weather`` tool the tests declare, as users pass a tool (a JSON Schema dict),
in the three shapes the tests need: ``city`` required, ``city`` optional, and with a
``days`` integer beside the required ``city`` (for coercion)."""

from __future__ import annotations

from typing import Any

WEATHER: dict[str, Any] = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
WEATHER_CITY_OPTIONAL: dict[str, Any] = {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
}
WEATHER_WITH_DAYS: dict[str, Any] = {
    "name": "get_weather",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
}
