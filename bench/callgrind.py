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

_SUMMARY = re.compile(r"^summary: (\d+)", re.M)


def reduce_loops(args: list[str]) -> tuple[list[int], str] | None:
    """Run ``python *args`` under callgrind: the instructions of each
    ``functools.reduce`` call in order, and what the child printed. None where
    valgrind is not installed."""
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
            found = _SUMMARY.search(dump.read_text())
            counts.append(int(found.group(1)) if found else 0)
    return counts, done.stdout
