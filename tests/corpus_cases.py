"""Reading the repair corpus (``tests/corpus/repair``, see corpus.py) for tests."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

import jsonschema
from corpus import REPAIR

from toolwire.coerce import coerce_arguments
from toolwire.repair import repair_json

FILES = ("jsonrepair", "json_repair")


@dataclass(frozen=True)
class Case:
    file: str
    index: int
    row: dict[str, Any]

    @property
    def key(self) -> str:
        """Stable id: file, test name and a hash of input + options."""
        r = self.row
        digest = hashlib.sha1(
            (
                r["test"]
                + "\0"
                + r["input"]
                + "\0"
                + json.dumps(r["options"], sort_keys=True)
                + "\0"
                + json.dumps(r["expected"], sort_keys=True)
            ).encode("utf-8", "surrogatepass")
        ).hexdigest()[:10]
        test = r["test"].split(" > ")[-1][:40].replace(" ", "_")
        return f"{self.file}:{test}:{digest}"


def load_cases() -> list[Case]:
    cases = []
    for name in FILES:
        with open(REPAIR / f"{name}.jsonl", encoding="utf-8") as fh:
            for index, line in enumerate(fh):
                cases.append(Case(name, index, json.loads(line)))
    return cases


def same_json(a: Any, b: Any) -> bool:
    """Deep equality that tells bool from int and int from float."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        if type(a) is not type(b):
            return False
        return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def run_case(case: Case) -> tuple[bool, str]:
    """(passed, what toolwire produced) for one case."""
    row = case.row
    result = repair_json(row["input"])
    schema = row["options"].get("schema")
    if not result.ok:
        return bool(row["expect_fail"]), f"failed: {result.error}"
    value = result.value
    problem = ""
    if isinstance(schema, dict | bool):
        if isinstance(schema, dict):
            coerced = coerce_arguments(value, schema)
            value = coerced.value
            if coerced.errors:
                problem = "; ".join(coerced.errors)
        try:
            cls = jsonschema.validators.validator_for(schema if isinstance(schema, dict) else {})
            errors = list(cls(schema).iter_errors(value))
            if errors and not problem:
                problem = errors[0].message
        except Exception as exc:
            # jsonschema cannot use the schema (bad type name, circular or non-string $ref)
            problem = f"schema error: {type(exc).__name__}"
    shown = json.dumps(value, ensure_ascii=False, default=repr)[:160]
    if row["expect_fail"]:
        # The pipeline (repair -> coerce -> validate) must report a problem.
        return bool(problem), f"{result.status} {shown} {problem}"
    return same_json(value, row["expected"]), f"{result.status} {shown}"
