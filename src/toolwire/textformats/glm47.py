"""GLM-4.7: as GLM-4.5 without the newline after the name; ``<tool_call>N</tool_call>``
for a call without arguments. The GLM-4.5 grammar reads both."""

from __future__ import annotations

from toolwire.textformats.glm45 import Glm45Extractor


class Glm47Extractor(Glm45Extractor):
    pass
