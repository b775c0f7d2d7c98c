"""Which text format a model writes, by model name (used by the gateway).

Patterns are matched in order, case-insensitively, against the model name with any
organisation prefix (``Qwen/``) removed; the first match wins, so the specific come
before the general.
"""

from __future__ import annotations

import fnmatch

MODEL_FAMILIES: tuple[tuple[str, str], ...] = (
    ("qwen3-coder*", "qwen3_coder"),
    ("qwen3.5*", "qwen3_coder"),
    ("qwen3_5*", "qwen3_coder"),
    ("step-3.5*", "qwen3_coder"),
    ("step3.5*", "qwen3_coder"),
    ("step-3*", "step3"),
    ("step3*", "step3"),
    ("qwen*", "hermes"),
    ("qwq*", "hermes"),
    ("*hermes*", "hermes"),
    ("devstral*", "mistral"),
    ("*mistral*", "mistral"),
    ("mixtral*", "mistral"),
    ("magistral*", "mistral"),
    ("codestral*", "mistral"),
    ("llama-3.2-1b*", "pythonic"),
    ("llama-3.2-3b*", "pythonic"),
    ("llama-4*", "pythonic"),
    ("llama4*", "pythonic"),
    ("*llama-3*", "llama3_json"),
    ("*llama3*", "llama3_json"),
    ("olmo-3*", "pythonic"),
    ("lfm2*", "pythonic"),
    ("deepseek-v3.1*", "deepseek_v31"),
    ("deepseek-v3.2*", "deepseek_dsml"),
    ("deepseek-v4*", "deepseek_dsml"),
    ("deepseek-v3*", "deepseek_v3"),
    ("deepseek-r1*", "deepseek_v3"),
    ("kimi-k2*", "kimi_k2"),
    ("glm-4.5*", "glm45"),
    ("glm-4.6*", "glm45"),
    ("glm-4.7*", "glm47"),
    ("glm-5*", "glm47"),
    ("minimax-m2*", "minimax_m2"),
    ("gpt-oss*", "harmony"),
    ("granite*", "granite"),
    ("seed-oss*", "seed_oss"),
    ("*xlam*", "xlam"),
    ("functiongemma*", "functiongemma"),
    ("*jamba*", "jamba"),
    ("hunyuan*", "hunyuan"),
    ("internlm*", "internlm"),
    ("phi-4-mini*", "phi4_mini"),
)


def family_for_model(model: str) -> str | None:
    """``Qwen/Qwen3-Coder-30B-A3B-Instruct`` → ``qwen3_coder``; None when unknown."""
    name = model.strip().rsplit("/", 1)[-1].lower()
    for pattern, family in MODEL_FAMILIES:
        if fnmatch.fnmatchcase(name, pattern):
            return family
    return None
