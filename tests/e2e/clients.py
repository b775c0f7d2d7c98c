"""The real coding-agent clients, installed by npm from ``tests/e2e/package.json`` and
its lock into ``tests/e2e/node_modules`` (git-ignored) the first time a test needs
them, and again whenever the lock changes. An install that fails fails the test that
needed it, with npm's reason: these tests never skip."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
STAMP = MODULES / ".toolwire-lock"


def npm_client(command: str) -> Path:
    """The path of ``command`` from the pinned npm packages (installing them first)."""
    lock = (HERE / "package-lock.json").read_bytes()
    digest = hashlib.sha256((HERE / "package.json").read_bytes() + lock).hexdigest()
    binary = MODULES / ".bin" / command
    if not (STAMP.exists() and STAMP.read_text() == digest and binary.exists()):
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"npm is not installed: the end-to-end tests need it to install {command}")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--prefix", str(HERE)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        if done.returncode != 0:
            reason = (done.stderr or done.stdout).strip().splitlines()[-5:]
            pytest.fail(f"npm ci in {HERE} failed: " + " | ".join(reason))
        STAMP.write_text(digest)
    if not binary.exists():
        pytest.fail(f"npm ci succeeded but {binary} is missing")
    return binary
