#!/usr/bin/env python3
"""Developer entry point that works on a fresh machine with only Python 3.11+.

    python3 dev.py demo     # set up .venv from the lock file, run `toolwire demo`
    python3 dev.py test     # set up .venv, run ruff, mypy --strict and the test suite
    python3 dev.py bench    # run every benchmark in bench/
    python3 dev.py lock     # re-resolve requirements.lock from pyproject.toml (needs uv)

The virtualenv is rebuilt only when pyproject.toml or requirements.lock change.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".toolwire-installed"


def run(*cmd: str | Path, check: bool = True) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    try:
        return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=check).returncode
    except FileNotFoundError:
        raise SystemExit(f"dev.py: {cmd[0]} is not installed (needed for this command)") from None
    except subprocess.CalledProcessError as exc:  # (its own output said why)
        raise SystemExit(f"dev.py: {cmd[0]} failed with exit status {exc.returncode}") from None


def ensure_env() -> None:
    # ruff (target 3.11) calls this check dead; it is for whoever runs this file with
    # an older python3, who must be told so clearly
    if sys.version_info < (3, 11):  # noqa: UP036
        sys.exit(f"toolwire needs Python 3.11 or newer (this is {sys.version.split()[0]})")
    digest = hashlib.sha256(
        (ROOT / "pyproject.toml").read_bytes() + (ROOT / "requirements.lock").read_bytes()
    ).hexdigest()
    if STAMP.exists() and STAMP.read_text() == digest and PY.exists():
        return
    if not PY.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(VENV)
    pip = (PY, "-m", "pip", "install", "--disable-pip-version-check", "-q")
    run(*pip, "-r", "requirements.lock")
    run(*pip, "--no-deps", "-e", ".")
    STAMP.write_text(digest)


# Programs the tests drive that come from the system, not PyPI: command -> Debian package.
SYSTEM_PROGRAMS = {"chromium": "chromium"}


def ensure_system_programs() -> None:
    """Install the missing ones with apt-get when this is Debian and we are root;
    otherwise the tests that need them fail and say how to install them."""
    import shutil

    missing = sorted({pkg for cmd, pkg in SYSTEM_PROGRAMS.items() if shutil.which(cmd) is None})
    if not missing or shutil.which("apt-get") is None or getattr(os, "geteuid", lambda: 1)() != 0:
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-q"], ["apt-get", "install", "-y", "-q", *missing]):
        print("+", " ".join(cmd), flush=True)
        if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode != 0:
            print(f"dev.py: could not install {' '.join(missing)}", file=sys.stderr)
            return


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "help"
    rest = argv[1:]
    if command == "demo":
        ensure_env()
        return run(BIN / "toolwire", "demo", *rest, check=False)
    if command == "test":
        ensure_env()
        ensure_system_programs()
        failed = run(BIN / "ruff", "check", "src", "tests", "bench", "dev.py", check=False)
        failed |= run(BIN / "mypy", "--strict", "src/toolwire", check=False)
        failed |= run(PY, "-m", "pytest", *rest, check=False)
        return 1 if failed else 0
    if command == "bench":
        ensure_env()
        failed = 0
        for script in sorted((ROOT / "bench").glob("bench_*.py")):
            failed |= run(PY, script, *rest, check=False)
        return 1 if failed else 0
    if command == "lock":
        extras = ("dev", "bench", "mcp", "otel", "demo")
        compile_ = ("uv", "pip", "compile", "pyproject.toml", "--universal", "--python-version")
        each = [arg for name in extras for arg in ("--extra", name)]
        return run(*compile_, "3.11", *each, "-o", "requirements.lock", "-q")
    print(__doc__)
    return 0 if command in ("help", "-h", "--help") else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
