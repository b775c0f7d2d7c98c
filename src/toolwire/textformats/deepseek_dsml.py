"""DeepSeek V3.2 / V4 DSML: ``<｜DSML｜function_calls><｜DSML｜invoke name="N">
<｜DSML｜parameter name="K" string="true|false">V</｜DSML｜parameter></｜DSML｜invoke>
</｜DSML｜function_calls>`` (V4 wraps in ``<｜DSML｜tool_calls>``). ``string="true"``
keeps the text; other values are typed by the schema."""

from __future__ import annotations

from typing import ClassVar

from toolwire.textformats.invoke import InvokeExtractor


class DeepSeekDsmlExtractor(InvokeExtractor):
    PREFIX = "｜DSML｜"
    WRAPPERS: ClassVar[dict[str, str]] = {
        "<｜DSML｜function_calls>": "</｜DSML｜function_calls>",
        "<｜DSML｜tool_calls>": "</｜DSML｜tool_calls>",
    }
    START = tuple(WRAPPERS)
    STRAY = tuple(WRAPPERS.values())
