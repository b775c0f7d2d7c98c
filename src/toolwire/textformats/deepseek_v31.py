"""DeepSeek V3.1: ``<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>N<｜tool▁sep｜>{args}
<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>``. The V3 grammar reads this body too."""

from __future__ import annotations

from toolwire.textformats.deepseek_v3 import DeepSeekV3Extractor


class DeepSeekV31Extractor(DeepSeekV3Extractor):
    pass
