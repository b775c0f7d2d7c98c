"""Tool calls written into model text: one streaming extractor per format family.

    extractor = make_extractor("hermes", assembler, tools)
    for delta in text_deltas:
        extractor.feed(delta)
    extractor.close()

Every extractor turns text deltas into the same assembler calls as the provider
decoders (visible text, reasoning, call fragments, call closes), so repair, schema
coercion, name normalization and validation are shared. ``auto`` detects the family
from the first marker seen; ``family_for_model`` maps model names to families.
"""

from __future__ import annotations

from typing import Any

from toolwire.assemble import CallAssembler
from toolwire.spec import ToolSpec
from toolwire.textformats.agent import AgentExtractor
from toolwire.textformats.auto import AutoExtractor
from toolwire.textformats.deepseek_dsml import DeepSeekDsmlExtractor
from toolwire.textformats.deepseek_v3 import DeepSeekV3Extractor
from toolwire.textformats.deepseek_v31 import DeepSeekV31Extractor
from toolwire.textformats.functiongemma import FunctionGemmaExtractor
from toolwire.textformats.glm45 import Glm45Extractor
from toolwire.textformats.glm47 import Glm47Extractor
from toolwire.textformats.granite import GraniteExtractor
from toolwire.textformats.harmony import HarmonyExtractor
from toolwire.textformats.hermes import HermesExtractor
from toolwire.textformats.internlm import InternLMExtractor
from toolwire.textformats.jamba import JambaExtractor
from toolwire.textformats.kimi_k2 import KimiK2Extractor
from toolwire.textformats.llama3_json import Llama3JsonExtractor
from toolwire.textformats.minimax_m2 import MiniMaxM2Extractor
from toolwire.textformats.mistral import MistralExtractor
from toolwire.textformats.models import MODEL_FAMILIES, family_for_model
from toolwire.textformats.phi4_mini import Phi4MiniExtractor
from toolwire.textformats.pythonic import PythonicExtractor
from toolwire.textformats.qwen3_coder import Qwen3CoderExtractor
from toolwire.textformats.scanner import TextScanner
from toolwire.textformats.seed_oss import SeedOssExtractor
from toolwire.textformats.step3 import Step3Extractor
from toolwire.textformats.xlam import XlamExtractor

EXTRACTORS: dict[str, type[TextScanner]] = {
    "hermes": HermesExtractor,
    "qwen3_coder": Qwen3CoderExtractor,
    "mistral": MistralExtractor,
    "llama3_json": Llama3JsonExtractor,
    "pythonic": PythonicExtractor,
    "deepseek_v3": DeepSeekV3Extractor,
    "deepseek_v31": DeepSeekV31Extractor,
    "deepseek_dsml": DeepSeekDsmlExtractor,
    "kimi_k2": KimiK2Extractor,
    "glm45": Glm45Extractor,
    "glm47": Glm47Extractor,
    "minimax_m2": MiniMaxM2Extractor,
    "harmony": HarmonyExtractor,
    "granite": GraniteExtractor,
    "seed_oss": SeedOssExtractor,
    "xlam": XlamExtractor,
    "functiongemma": FunctionGemmaExtractor,
    "jamba": JambaExtractor,
    "hunyuan": JambaExtractor,
    "internlm": InternLMExtractor,
    "phi4_mini": Phi4MiniExtractor,
    "step3": Step3Extractor,
    "agent": AgentExtractor,
}
# other names the same families go by
ALIASES: dict[str, str] = {
    "qwen3_xml": "qwen3_coder",
    "qwen25": "hermes",
    "llama4_json": "llama3_json",
    "llama4_pythonic": "pythonic",
    "lfm2": "pythonic",
    "olmo3": "pythonic",
    "deepseek_r1": "deepseek_v3",
    "deepseek_v32": "deepseek_dsml",
    "deepseek_v4": "deepseek_dsml",
    "glm4_moe": "glm45",
    "openai": "harmony",
    "gpt_oss": "harmony",
    "hunyuan_a13b": "hunyuan",
    "internlm2": "internlm",
    "phi4_mini_json": "phi4_mini",
    "plain": "agent",
}
FAMILIES: tuple[str, ...] = (*EXTRACTORS, "auto")


class UnknownFamilyError(ValueError):
    """A text-format family toolwire does not know."""


def _build(family: str, *args: Any, **kwargs: Any) -> TextScanner:
    return EXTRACTORS[family](*args, **kwargs)


def make_extractor(
    family: str,
    sink: CallAssembler,
    tools: list[ToolSpec],
    *,
    calls_in_reasoning: bool = False,
) -> TextScanner:
    """A streaming extractor for ``family`` that reports into ``sink``."""
    # a family given by its own name (the usual case: a parser is set up for every
    # response) is found without normalizing the name first
    cls = EXTRACTORS.get(family)
    if cls is not None:
        if not calls_in_reasoning:
            # without keywords: a class called with them has them packed in a dict
            # for ``__init__`` (C code and a dict a parse touches cold: see
            # ``scanner._FAMILY_MARKERS``)
            return cls(sink, tools)
        return cls(sink, tools, calls_in_reasoning=calls_in_reasoning)
    name = family.strip().lower().replace("-", "_")
    name = ALIASES.get(name, name)
    if name == "auto":
        return AutoExtractor(sink, tools, calls_in_reasoning=calls_in_reasoning, factory=_build)
    cls = EXTRACTORS.get(name)
    if cls is None:
        known = ", ".join(FAMILIES)
        raise UnknownFamilyError(f"unknown text format {family!r}; known: {known}")
    return cls(sink, tools, calls_in_reasoning=calls_in_reasoning)


__all__ = [
    "ALIASES",
    "EXTRACTORS",
    "FAMILIES",
    "MODEL_FAMILIES",
    "TextScanner",
    "UnknownFamilyError",
    "family_for_model",
    "make_extractor",
]
