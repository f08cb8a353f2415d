"""The watcher: edits become searchable (and deletions unsearchable) within seconds.

Searches here pass ``refresh=False``, so a hit proves the watcher's own background sync indexed
the change; nothing is re-checked at search time. Every wait polls against a deadline.
"""

from __future__ import annotations

import contextlib
import os
import queue
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from memdir import Memory, SyncReport

pytestmark = pytest.mark.usefixtures("no_embedder")

WriteFile = Callable[..., Path]
DEADLINE_S = 3.0


def _found(mem: Memory, word: str) -> list[str]:
    return sorted({h.path for h in mem.search(word, refresh=False, min_score=0.0)})


def eventually(check: Callable[[], bool], what: str, timeout: float = DEADLINE_S) -> float:
    """Poll ``check`` until it holds; return how long that took, fail after ``timeout``."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            pytest.fail(f"not within {timeout}s: {what}")
        time.sleep(0.05)
    return time.monotonic() - started


@pytest.fixture
def watched(workspace: Path) -> Iterator[Memory]:
    with Memory(workspace) as mem:
        mem.sync()
        mem.start_watching()
        yield mem


def test_new_file_in_a_fresh_nested_folder(watched: Memory, workspace: Path) -> None:
    folder = workspace / "memory" / "projects" / "2026" / "q1"
    os.makedirs(folder)  # mkdir -p, then write at once: the watcher must see inside it
    (folder / "kickoff.md").write_text("nested pangolin kickoff\n", encoding="utf-8")
    (folder / "second.md").write_text("nested tapir kickoff\n", encoding="utf-8")
    eventually(
        lambda: _found(watched, "pangolin") == ["memory/projects/2026/q1/kickoff.md"],
        "first file in a new folder indexed",
    )
    eventually(
        lambda: _found(watched, "tapir") == ["memory/projects/2026/q1/second.md"],
        "second file in a new folder indexed",
    )


def test_edit_replaces_old_text(watched: Memory, workspace: Path) -> None:
    (workspace / "memory" / "2026-01-12.md").write_text("Met Bob about the okapi.\n", "utf-8")
    eventually(lambda: _found(watched, "okapi") == ["memory/2026-01-12.md"], "edit indexed")
    assert _found(watched, "quokka") == []


def test_deleted_file_becomes_unsearchable(watched: Memory, workspace: Path) -> None:
    assert _found(watched, "narwhal") == ["memory/projects/billing.md"]
    (workspace / "memory" / "projects" / "billing.md").unlink()
    eventually(lambda: _found(watched, "narwhal") == [], "deleted file dropped")
    assert "memory/projects/billing.md" not in watched.index.file_rows()


def test_editor_style_atomic_save(watched: Memory, workspace: Path) -> None:
    target = workspace / "memory" / "2026-01-13.md"
    tmp = target.with_name(".2026-01-13.md.swp-4913")
    tmp.write_text("Deploy moved to Wednesday; lemur check.\n", encoding="utf-8")
    os.replace(tmp, target)
    eventually(lambda: _found(watched, "lemur") == ["memory/2026-01-13.md"], "atomic save")
    assert _found(watched, "zebrafish") == []
    assert sorted(watched.index.file_rows()) == [
        "MEMORY.md",
        "memory/2026-01-12.md",
        "memory/2026-01-13.md",
        "memory/projects/billing.md",
    ]


def test_root_file_and_memory_folder_created_later(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "# Memory\n")
    with Memory(tmp_path) as mem:
        mem.sync()
        mem.start_watching()
        write(tmp_path, "MEMORY.md", "# Memory\n\nroot gazelle\n")
        eventually(lambda: _found(mem, "gazelle") == ["MEMORY.md"], "root file edit")
        write(tmp_path, "memory/first.md", "late ibis\n")  # memory/ did not exist at start
        eventually(lambda: _found(mem, "ibis") == ["memory/first.md"], "new memory/ folder")
        write(tmp_path, "memory/second.md", "later jackal\n")
        eventually(lambda: _found(mem, "jackal") == ["memory/second.md"], "file in it later")


def test_memory_folder_deleted_and_recreated(watched: Memory, workspace: Path) -> None:
    shutil.rmtree(workspace / "memory")
    eventually(lambda: _found(watched, "narwhal") == [], "deleted folder dropped")
    (workspace / "memory").mkdir()
    (workspace / "memory" / "back.md").write_text("returned okapi\n", encoding="utf-8")
    eventually(lambda: _found(watched, "okapi") == ["memory/back.md"], "file in new folder")
    # Later files too: the re-created folder itself must be watched again.
    (workspace / "memory" / "later.md").write_text("subsequent wombat\n", encoding="utf-8")
    eventually(lambda: _found(watched, "wombat") == ["memory/later.md"], "later file")


def test_extra_folder_is_watched(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "# Memory\n")
    (tmp_path / "team").mkdir()
    with Memory(ws, overrides={"extra_paths": [str(tmp_path / "team")]}) as mem:
        mem.start_watching()
        write(tmp_path, "team/notes/a.md", "shared koala\n")
        eventually(lambda: _found(mem, "koala") == ["../team/notes/a.md"], "extra folder")


def test_changes_before_watching_started_are_not_trusted_away(
    workspace: Path, write: WriteFile
) -> None:
    with Memory(workspace) as mem:
        mem.sync()
        write(workspace, "memory/gap.md", "gap marmot\n")  # after the sync, before the watcher
        mem.start_watching()
        assert [h.path for h in mem.search("marmot", min_score=0.0)] == ["memory/gap.md"]


def test_on_sync_callback_and_watch_status(workspace: Path, write: WriteFile) -> None:
    reports: list[SyncReport] = []
    with Memory(workspace) as mem:
        mem.sync()
        mem.start_watching(on_sync=reports.append)
        assert mem.status()["watching"] is True
        write(workspace, "memory/cb.md", "callback heron\n")
        eventually(lambda: any(r.files_indexed for r in reports), "on_sync saw the change")
        mem.stop_watching()
        assert mem.status()["watching"] is False
        write(workspace, "memory/after.md", "unwatched bison\n")
        assert _found(mem, "bison") == []  # nobody is watching any more
        assert [h.path for h in mem.search("bison", min_score=0.0)] == ["memory/after.md"]


def test_periodic_rescan_runs_without_any_event(workspace: Path) -> None:
    reports: list[SyncReport] = []
    overrides = {"sync.rescan_interval_s": 1, "sync.watch_debounce_ms": 0}
    with Memory(workspace, overrides=overrides) as mem:
        mem.sync()
        mem.start_watching(on_sync=reports.append)
        eventually(lambda: len(reports) >= 3, "the start sync and two rescans", timeout=6)
        assert not any(r.changed for r in reports)


def test_watch_latency_with_a_burst_of_edits(watched: Memory, workspace: Path) -> None:
    for i in range(20):
        (workspace / "memory" / f"burst-{i}.md").write_text(f"burst{i}word\n", "utf-8")
    took = eventually(
        lambda: all(_found(watched, f"burst{i}word") for i in range(20)), "all 20 files"
    )
    assert took < DEADLINE_S


# -- the real command ------------------------------------------------------------------------


def _pump(stream: object) -> tuple[queue.Queue[str], threading.Thread]:
    """Read a pipe line by line in a thread, so waiting on it never blocks the test."""
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:
        for line in stream:  # type: ignore[attr-defined]
            lines.put(line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return lines, thread


def test_memdir_watch_process_indexes_an_edit_and_stops_on_sigterm(
    workspace: Path, write: WriteFile
) -> None:
    with subprocess.Popen(
        [sys.executable, "-m", "memdir", "watch", "-w", str(workspace)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    ) as proc:
        try:
            _check_watch_process(proc, workspace, write)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _check_watch_process(proc: subprocess.Popen[str], workspace: Path, write: WriteFile) -> None:
    stderr, pump = _pump(proc.stderr)
    seen: list[str] = []

    def drain() -> None:
        while not stderr.empty():
            seen.append(stderr.get())

    def started() -> bool:
        drain()
        return any("Watching" in line for line in seen) or proc.poll() is not None

    eventually(started, "memdir watch to start", timeout=60)
    assert proc.poll() is None, seen
    assert "(4 files)" in "".join(seen)
    write(workspace, "memory/2026-01-12.md", "Met Bob about the wallaby.\n")
    with Memory(workspace) as reader:
        eventually(
            lambda: _found(reader, "wallaby") == ["memory/2026-01-12.md"],
            "the watch process indexed the edit",
        )
        assert _found(reader, "quokka") == []
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=15) == 0
    pump.join(timeout=5)
    drain()
    assert "Traceback" not in "".join(seen), seen
    assert proc.stdout is not None
    assert proc.stdout.read() == ""


# -- stopping on a signal --------------------------------------------------------------------

STOP_TRIALS = 40
STOP_SLOTS = 4  # processes running at once, each on its own copy of the workspace


def _watch_until_signalled(ws: Path, trial: int) -> str | None:
    """Start `memdir watch`, signal it at a moment chosen by ``trial``; None if it stopped well."""
    slot, k = trial % STOP_SLOTS, trial // STOP_SLOTS
    signum = signal.SIGTERM if k % 2 == 0 else signal.SIGINT
    moment = (k // 2 + slot) % 4  # at once; during a re-index; after a while; soon after start
    env = {**os.environ, "COLUMNS": "200", "MEMDIR_SYNC_WATCH_DEBOUNCE_MS": "20"}
    with subprocess.Popen(
        [sys.executable, "-m", "memdir", "watch", "-w", str(ws)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    ) as proc:
        try:
            lines, pump = _pump(proc.stderr)
            seen: list[str] = []
            deadline = time.monotonic() + 60
            while not any("Watching" in line for line in seen):
                if proc.poll() is not None or time.monotonic() > deadline:
                    return f"trial {trial}: did not start: {seen}"
                with contextlib.suppress(queue.Empty):
                    seen.append(lines.get(timeout=0.05))
            if moment == 1:
                (ws / "memory" / "2026-01-12.md").write_text(f"edit {trial} wallaby\n", "utf-8")
                time.sleep(0.01 * (trial % 7))  # around the 20 ms debounce and the sync after it
            elif moment == 2:
                time.sleep(0.1 + 0.05 * (trial % 5))
            elif moment == 3:
                time.sleep(0.002 * (trial % 5))
            proc.send_signal(signum)
            try:
                code = proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                return f"trial {trial}: hung after {signum.name} (moment {moment})"
            pump.join(timeout=5)
            while not lines.empty():
                seen.append(lines.get())
            if code != 0 or any("Traceback" in line for line in seen):
                return f"trial {trial}: {signum.name} (moment {moment}) gave exit {code}: {seen}"
            return None
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_memdir_watch_stops_cleanly_on_sigterm_or_sigint_at_any_moment(
    tmp_path: Path, workspace: Path
) -> None:
    """40 runs, SIGTERM and SIGINT, at once, mid re-index, later: each exits 0 within seconds
    and leaves an intact index (a signal handler that takes a lock can deadlock the process)."""
    slots = []
    for slot in range(STOP_SLOTS):
        copy = tmp_path / f"slot{slot}"
        shutil.copytree(workspace, copy)
        slots.append(copy)
    failures: list[str] = []

    def run_slot(slot: int) -> None:
        for trial in range(slot, STOP_TRIALS, STOP_SLOTS):
            problem = _watch_until_signalled(slots[slot], trial)
            if problem:
                failures.append(problem)

    threads = [threading.Thread(target=run_slot, args=(slot,)) for slot in range(STOP_SLOTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not any(thread.is_alive() for thread in threads), "trials did not finish"
    assert failures == []
    for ws in slots:
        index = ws / ".memdir" / "index.sqlite"
        with contextlib.closing(sqlite3.connect(index)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert not list(index.parent.glob("*.corrupt-*"))
        with Memory(ws) as mem:
            assert mem.status()["files"] == 4
            assert [h.path for h in mem.search("wallaby", min_score=0.0)] == [
                "memory/2026-01-12.md"
            ]
