"""StepFun Step-3: ``<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>
<steptml:invoke name="N"><steptml:parameter name="K">V</steptml:parameter>
</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`` (the ``function<｜tool_sep｜>``
type may be missing); values typed by the schema. (Step-3.5 writes qwen3_coder.)"""

from __future__ import annotations

import re
from typing import ClassVar

from toolwire.textformats.invoke import InvokeExtractor

CALLS_BEGIN = "<｜tool_calls_begin｜>"
CALLS_END = "<｜tool_calls_end｜>"
CALL_BEGIN = "<｜tool_call_begin｜>"
CALL_END = "<｜tool_call_end｜>"
SEP = "<｜tool_sep｜>"


class Step3Extractor(InvokeExtractor):
    PREFIX = "steptml:"
    WRAPPERS: ClassVar[dict[str, str]] = {CALLS_BEGIN: CALLS_END}
    LEADS = (CALL_BEGIN,)  # each invoke sits in its own call markers, skipped between
    START = (CALLS_BEGIN,)
    STRAY = (CALLS_END, CALL_BEGIN, CALL_END, SEP)
    GAP_MARKUP = re.compile(f"{CALL_BEGIN}|{CALL_END}|(?:function)?[ \t\r\n]*{SEP}")
