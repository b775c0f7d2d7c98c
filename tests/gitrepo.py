"""A throwaway git repository with one commit, for the ``mcp-server-git`` tests."""

from __future__ import annotations

import subprocess
from pathlib import Path


def make_git_repo(repo: Path, message: str = "first") -> Path:
    """``repo`` made a git repository holding ``a.txt`` in one commit."""
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "a.txt").write_text("one\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", message], check=True)
    return repo
