"""Several processes on one index: readers never fail and never see a torn file.

Readers search in a loop (half of the searches refresh the index themselves) while a writer
keeps rewriting two files and syncing, with a forced rebuild now and then. Every response must
come from some version of each file: a hit's snippet contains the word it matched, one response
never mixes two versions of a file, and no version shows up before it was written. Processes
are started with ``spawn``, so each one opens the index on its own.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from memdir import Memory

from . import _workers

pytestmark = pytest.mark.usefixtures("no_embedder")

READERS = 3
VERSIONS = 40


def _make_workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / ".memdir").mkdir()
    # Small chunks, so each live file spans many chunks; every process reads the same settings.
    (root / ".memdir" / "config.toml").write_text(
        "[chunking]\ntokens = 32\noverlap = 0\n[search]\nmin_score = 0.0\n", encoding="utf-8"
    )
    (root / "MEMORY.md").write_text("# Memory\n\nshared memory\n", encoding="utf-8")
    for i in range(5):
        (root / "memory" / f"static-{i}.md").write_text(f"steadyword note {i}\n", "utf-8")
    for name in ("live-a", "live-b"):
        (root / "memory" / f"{name}.md").write_text(_workers.live_text(name, 1), "utf-8")
    (root / "version").write_text("1")
    with Memory(root) as mem:
        mem.sync()
    return root


def _pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))


def _consistent(mem: Memory) -> None:
    assert mem.index.read("PRAGMA integrity_check") == [("ok",)]
    per_file = dict(mem.index.read("SELECT path, chunks FROM files"))
    actual = dict(mem.index.read("SELECT path, count(*) FROM chunks GROUP BY path"))
    assert {p: n for p, n in per_file.items() if n} == actual
    total = mem.index.read("SELECT count(*) FROM chunks")[0][0]
    assert mem.index.read("SELECT count(*) FROM chunks_fts")[0][0] == total


def test_readers_see_whole_versions_while_a_writer_syncs(tmp_path: Path) -> None:
    ws = _make_workspace(tmp_path / "ws")
    with _pool(READERS + 1) as pool:
        readers = [pool.submit(_workers.reader, str(ws), i) for i in range(READERS)]
        writer = pool.submit(_workers.writer, str(ws), VERSIONS, READERS)
        written = writer.result(timeout=120)
        seen = [r.result(timeout=120) for r in readers]
    assert written["problems"] == []
    for result in seen:
        assert result["problems"] == []
        assert result["searches"] > 0  # each reader searched while the writer was working
    with Memory(ws) as mem:
        _consistent(mem)
        final = mem.search(f"ver{VERSIONS}", max_results=100)
        assert {h.path for h in final} == {"memory/live-a.md", "memory/live-b.md"}
        assert len(final) == 2 * _workers.LINES
        assert mem.search(f"ver{VERSIONS - 1}", max_results=100).results == ()
        parity = mem.search(_workers.WORDS[VERSIONS % 2 == 0], max_results=100)
        assert len(parity) == 2 * _workers.LINES
        assert mem.search(_workers.WORDS[VERSIONS % 2 == 1], max_results=100).results == ()


def test_two_processes_syncing_at_once_keep_the_index_sound(tmp_path: Path) -> None:
    ws = _make_workspace(tmp_path / "ws")
    rounds = 15
    with _pool(2) as pool:
        futures = [pool.submit(_workers.syncer, str(ws), name, rounds) for name in ("p1", "p2")]
        results = [f.result(timeout=120) for f in futures]
    assert [r["problems"] for r in results] == [[], []]
    with Memory(ws) as mem:
        _consistent(mem)
        assert mem.sync().files_indexed == 0  # the index already matched the files
        final = mem.search(f"ver{rounds}", max_results=100)
        assert {h.path for h in final} == {"memory/p1.md", "memory/p2.md"}
        assert len(final) == 2 * _workers.LINES
        assert mem.search(f"ver{rounds - 1}", max_results=100).results == ()
