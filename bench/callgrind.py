"""Instruction counts of marked loops, for benchmarks whose figures are too small (or
the machine too noisy) for wall time: ``valgrind --tool=callgrind`` counts are
repeatable within about 1%.

The child process drives each loop to be counted with ``functools.reduce``; callgrind
collects only inside that function and writes one dump after each call, so imports,
warm-up and set-up are not counted.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

_SUMMARY = re.compile(r"^summary: ([\d ]+)$", re.M)
_EVENTS = re.compile(r"^events: (.+)$", re.M)


def reduce_loops(args: list[str]) -> tuple[list[int], str] | None:
    """Run ``python *args`` under callgrind: the instructions of each
    ``functools.reduce`` call in order, and what the child printed. None where
    valgrind is not installed."""
    found = reduce_loop_events(args)
    if found is None:
        return None
    events, stdout = found
    return [each.get("Ir", 0) for each in events], stdout


def reduce_loop_events(
    args: list[str], options: tuple[str, ...] = ()
) -> tuple[list[dict[str, int]], str] | None:
    """``reduce_loops`` with more of callgrind's ``options`` (``--cache-sim=yes``):
    every event callgrind counted in each ``functools.reduce`` call, by name."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        done = subprocess.run(
            [
                valgrind,
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                "--collect-atstart=no",
                "--toggle-collect=functools_reduce",
                "--dump-after=functools_reduce",
                *options,
                sys.executable,
                *args,
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        counts = []
        for dump in dumps:
            text = dump.read_text()
            names = _EVENTS.search(text)
            found = _SUMMARY.search(text)
            values = [int(v) for v in found.group(1).split()] if found else []
            counts.append(dict(zip(names.group(1).split() if names else [], values, strict=False)))
    return counts, done.stdout
