"""A provider that accepts connections and never answers must not stall search (issue #9).

Search answers from keyword search within about ``embedding.timeout_s``; once the provider
failed, its circuit breaker keeps the next searches from waiting on it at all; neither closing a
Memory nor the ``memdir search`` process waits for a background fill stuck on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdir import Memory
from memdir.embed.breaker import STATE_FILENAME
from memdir.tools import MemoryTools

from .fakes import FakeServer, Reply, SilentServer, openai_reply

TIMEOUT_S = 1.0
# Generous, for a busy machine (5 s was once exceeded with the tests and a benchmark sharing
# two cores): a hang would take 2 x 120 s on the old code.
BOUND_S = 15 * TIMEOUT_S


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "memory").mkdir()
    (tmp_path / "MEMORY.md").write_text("# Memory\n\nThe team prefers PostgreSQL for billing.\n")
    (tmp_path / "memory" / "2026-11-28.md").write_text("Deploys are never on Friday.\n")
    return tmp_path


def settings(url: str, **extra: object) -> dict[str, object]:
    return {
        "embedding.provider": "openai-compatible",
        "embedding.base_url": url,
        "embedding.model": "hung",
        "embedding.timeout_s": TIMEOUT_S,
        **extra,
    }


def timed_search(mem: Memory, query: str) -> tuple[float, list[str], list[str], str]:
    started = time.monotonic()
    response = mem.search(query)
    return (
        time.monotonic() - started,
        [hit.path for hit in response],
        list(response.warnings),
        response.mode,
    )


def test_search_answers_from_keywords_then_stops_calling_the_provider(
    ws: Path, silent_server: SilentServer
) -> None:
    with Memory(ws, overrides=settings(silent_server.url)) as mem:
        elapsed, paths, warnings, mode = timed_search(mem, "Friday deploys")
        assert elapsed < BOUND_S
        assert mode == "keyword" and paths[0] == "memory/2026-11-28.md"
        assert any("paused until" in w and "timed out" in w for w in warnings), warnings
        contacted = silent_server.connections
        assert contacted >= 1

        elapsed, paths, warnings, mode = timed_search(mem, "PostgreSQL billing")
        assert silent_server.connections == contacted  # the breaker is open: not even a connection
        assert elapsed < TIMEOUT_S
        assert mode == "keyword" and paths[0] == "MEMORY.md"
        assert any("openai-compatible is paused until" in w for w in warnings), warnings

        info = mem.status()["embedding"]
        assert info["breaker"]["state"] == "open"
        assert info["breaker"]["failures"] == 1
        assert "timed out after 1s" in info["breaker"]["last_error"]
        assert info["breaker"]["next_retry_at"]
        assert "paused until" in info["degraded"]
        assert info["missing"] == 2


def test_a_provider_that_goes_silent_after_indexing_costs_one_timeout(ws: Path) -> None:
    # The MCP case of issue #9: every memory_search waited 2 x 60 s on the query's embedding.
    server = FakeServer()
    server.handler = openai_reply
    try:
        with Memory(ws, overrides=settings(server.url)) as mem:
            vectors = mem.sync().vectors
            assert vectors is not None and vectors["error"] is None
            assert mem.search("Friday deploys").mode == "hybrid"
            server.handler = lambda seen: Reply({}, delay_s=30)  # accepts, then never answers
            sent = len(server.requests)
            elapsed, paths, warnings, mode = timed_search(mem, "Friday deploys")
            assert elapsed < BOUND_S
            assert mode == "keyword" and paths[0] == "memory/2026-11-28.md"
            assert any("vector search failed" in w and "timed out" in w for w in warnings)
            assert len(server.requests) == sent + 1  # one query request, not retried
            elapsed, paths, warnings, mode = timed_search(mem, "Friday deploys")
            assert elapsed < TIMEOUT_S and len(server.requests) == sent + 1
            assert any("paused until" in w for w in warnings), warnings
    finally:
        server.close()


def test_close_does_not_wait_for_a_background_fill_stuck_on_the_provider(
    ws: Path, silent_server: SilentServer
) -> None:
    # sync_limit 0: every new chunk is embedded in the background, beside the query.
    mem = Memory(ws, overrides=settings(silent_server.url, **{"embedding.sync_limit": 0}))
    try:
        elapsed, paths, warnings, _ = timed_search(mem, "Friday deploys")
        assert elapsed < BOUND_S
        assert paths[0] == "memory/2026-11-28.md"
        assert any("embedding in the background" in w for w in warnings), warnings
    finally:
        started = time.monotonic()
        mem.close()
        assert time.monotonic() - started < TIMEOUT_S
    # The fill thread closes the index once its request gives up; nothing is left running.
    thread = mem._fill_thread
    assert thread is not None and thread.daemon
    thread.join(BOUND_S)
    assert not thread.is_alive()


def test_memory_search_tool_answers_within_the_timeout_then_at_once(
    ws: Path, silent_server: SilentServer
) -> None:
    # The MCP server's memory_search goes through this dispatcher on the same Memory.
    with Memory(ws, overrides=settings(silent_server.url)) as mem:
        tools = MemoryTools(mem)
        for bound in (BOUND_S, TIMEOUT_S):
            started = time.monotonic()
            result = tools.call("memory_search", {"query": "Friday deploys"})
            assert time.monotonic() - started < bound
            assert not result.is_error, result.payload
            assert result.payload["results"][0]["path"] == "memory/2026-11-28.md"
            assert any("paused until" in w for w in result.payload["warnings"])
        assert silent_server.connections == 1


def test_memdir_search_process_exits_promptly(ws: Path, silent_server: SilentServer) -> None:
    # The search leaves both chunks to a background fill, which hangs on the provider.
    sets = settings(silent_server.url, **{"embedding.sync_limit": 0})
    args = [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "memdir", "search", "Friday deploys", "-w", str(ws), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    elapsed = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert "memory/2026-11-28.md" in proc.stdout
    assert "used keyword search" in " ".join(proc.stderr.split())
    assert elapsed < BOUND_S + 5  # plus the interpreter's start-up on a busy machine


def test_close_stops_a_background_fill_after_its_batch(tmp_path: Path) -> None:
    # A slow but healthy provider: close() lets the batch in progress finish and no other start.
    (tmp_path / "memory").mkdir()
    for i in range(150):  # 150 one-chunk files: three batches of 64
        (tmp_path / "memory" / f"note-{i:03}.md").write_text(f"Note {i} about topic {i}.\n")
    server = FakeServer()
    server.handler = lambda seen: Reply(openai_reply(seen).body, delay_s=1.0)
    try:
        sets = {"embedding.sync_limit": 0, "embedding.timeout_s": 10}
        mem = Memory(tmp_path, overrides=settings(server.url, **sets))
        mem.search("topic")  # starts the background fill
        deadline = time.monotonic() + BOUND_S
        while not server.requests and time.monotonic() < deadline:
            time.sleep(0.01)  # until its first request is on its way
        mem.close()
        thread = mem._fill_thread
        assert thread is not None
        thread.join(BOUND_S)
        assert not thread.is_alive()
        assert len(server.requests) == 1
    finally:
        server.close()
    with Memory(tmp_path, overrides={"embedding.provider": "none"}) as again:
        again.sync(embed=False)
        assert again.index.vector_count() == 64


# -- across processes: the pause is remembered, status never waits ---------------------------
SLOW_S = 4.0  # a timeout long enough that answering "far below it" means not waiting at all


def memdir(
    ws: Path, sets: dict[str, object], *args: str
) -> tuple[float, subprocess.CompletedProcess[str]]:
    flags = [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "memdir", *args, "-w", str(ws), *flags],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    assert proc.returncode == 0, proc.stderr
    return time.monotonic() - started, proc


def test_the_next_process_does_not_wait_on_a_provider_that_just_failed(
    ws: Path, silent_server: SilentServer
) -> None:
    sets = settings(silent_server.url, **{"embedding.timeout_s": SLOW_S})
    with Memory(ws, overrides=sets) as first:
        elapsed, _, warnings, _ = timed_search(first, "Friday deploys")
        assert SLOW_S <= elapsed < 3 * SLOW_S  # this one waited out the timeout
        assert any("paused until" in w for w in warnings), warnings
    contacted = silent_server.connections

    with Memory(ws, overrides=sets) as second:  # a new breaker, as in a new process
        elapsed, paths, warnings, mode = timed_search(second, "PostgreSQL billing")
        assert elapsed < SLOW_S / 2
        assert mode == "keyword" and paths[0] == "MEMORY.md"
        assert any("openai-compatible is paused until" in w for w in warnings), warnings

    elapsed, proc = memdir(ws, sets, "search", "Friday deploys")
    assert "memory/2026-11-28.md" in proc.stdout
    assert "paused until" in " ".join(proc.stderr.split())
    assert elapsed < SLOW_S  # the interpreter's start-up included; waiting would take longer

    elapsed, proc = memdir(ws, sets, "status", "--json")
    breaker = json.loads(proc.stdout)["embedding"]["breaker"]
    assert breaker["state"] == "open" and breaker["failures"] == 1
    assert "timed out" in breaker["last_error"] and breaker["next_retry_at"]
    assert silent_server.connections == contacted  # neither process even connected
    saved = json.loads((ws / ".memdir" / STATE_FILENAME).read_text())
    assert list(saved) == [f"openai-compatible hung {silent_server.url}"]  # no key, nothing else
    assert saved[f"openai-compatible hung {silent_server.url}"]["state"] == "open"


def test_after_the_back_off_a_provider_that_works_again_closes_it_for_good(ws: Path) -> None:
    server = FakeServer()
    server.handler = lambda seen: Reply({}, delay_s=30)  # accepts, then never answers
    try:
        with Memory(ws, overrides=settings(server.url)) as first:
            embedder = first.embedder()
            assert embedder is not None
            embedder.breaker.base_s = 0.5  # a short back-off instead of 30 s
            assert timed_search(first, "Friday deploys")[3] == "keyword"
        state_file = ws / ".memdir" / STATE_FILENAME
        assert (
            json.loads(state_file.read_text())[f"openai-compatible hung {server.url}"]["state"]
            == "open"
        )
        time.sleep(0.6)
        server.handler = openai_reply
        with Memory(ws, overrides=settings(server.url)) as second:
            assert second.status()["embedding"]["breaker"]["state"] == "half-open"
            _, paths, warnings, mode = timed_search(second, "Friday deploys")
            assert mode == "hybrid" and paths[0] == "memory/2026-11-28.md", warnings
            assert second.status()["embedding"]["breaker"]["state"] == "closed"
        saved = json.loads(state_file.read_text())[f"openai-compatible hung {server.url}"]
        assert saved["state"] == "closed" and saved["failures"] == 0
    finally:
        server.close()


def test_status_does_not_wait_on_the_provider_and_counts_the_missing_vectors(
    ws: Path, silent_server: SilentServer
) -> None:
    sets = settings(silent_server.url, **{"embedding.timeout_s": SLOW_S})
    elapsed, proc = memdir(ws, sets, "status", "--json")
    info = json.loads(proc.stdout)
    assert info["chunks"] == 2 and info["embedding"]["missing"] == 2
    assert info["embedding"]["vectors"] == 0
    assert info["embedding"]["breaker"]["state"] == "closed"  # nothing was tried
    assert silent_server.connections == 0
    assert elapsed < SLOW_S  # embedding first took about 2 x timeout_s
