"""A crash never costs the index: rebuilds and syncs killed at random points, and corrupt files.

Real processes run ``Memory(ws).sync(...)`` and are SIGKILLed after seeded random delays spread
over the measured duration of the work. After each kill a fresh :class:`Memory` must answer
from the index that was left behind, pass ``PRAGMA integrity_check``, hold consistent rows and
leave no temporary build files behind.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from memdir import Memory

pytestmark = [
    pytest.mark.usefixtures("no_embedder"),
    pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals"),
]

WriteFile = Callable[..., Path]
FILES = 300
KILLS = 8

CHILD = """
import sys
from memdir import Memory
mem = Memory(sys.argv[1])
print("ready", flush=True)
mem.sync(force=sys.argv[2] == "force")
print("done", flush=True)
"""


def _note(i: int, version: int) -> str:
    filler = "\n".join(
        f"line {n} of note {i}: " + "lorem ipsum dolor sit amet " * 3 for n in range(30)
    )
    return f"# Note {i}\n\nuniq{i}x marker v{version}\n{filler}\nver{version}tag note{i}end\n"


def _build(root: Path, write: WriteFile, version: int = 1) -> Path:
    write(root, "MEMORY.md", "# Memory\n\nrootmarker lives here\n")
    for i in range(FILES):
        write(root, f"memory/n{i:03d}.md", _note(i, version))
    return root


def _index_files(mem: Memory) -> list[Path]:
    return sorted(mem.index.path.parent.iterdir())


def _temp_files(index_path: Path) -> list[Path]:
    return sorted(index_path.parent.glob(index_path.name + ".tmp-*"))


def _spawn(ws: Path, mode: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(ws), mode],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if line.strip() != "ready":
        proc.kill()
        _, err = proc.communicate()
        pytest.fail(f"child did not start: {line!r} {err}")
    return proc


def _timed_sync(ws: Path, *, force: bool) -> float:
    """Seconds one sync takes in a child, from its 'ready' to its 'done': the span the kills
    are spread over. Timed in the test's own process instead, late in a full run (a large
    heap, many threads), it took longer than the children, and kills meant to land mid-way
    landed after the child was done."""
    proc = _spawn(ws, "force" if force else "incremental")
    started = time.perf_counter()
    assert proc.stdout is not None
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - started
    proc.communicate(timeout=60)
    assert line.strip() == "done" and proc.returncode == 0, (line, proc.returncode)
    return elapsed


def _kill_after(ws: Path, mode: str, delay: float) -> bool:
    """Start a sync, SIGKILL it after ``delay`` s; True if it was killed before finishing."""
    proc = _spawn(ws, mode)
    time.sleep(delay)
    os.kill(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=60)
    return "done" not in out and proc.returncode == -signal.SIGKILL


def _check_consistent(mem: Memory) -> None:
    assert mem.index.read("PRAGMA integrity_check") == [("ok",)]
    per_file = dict(mem.index.read("SELECT path, chunks FROM files"))
    actual = dict(mem.index.read("SELECT path, count(*) FROM chunks GROUP BY path"))
    assert {p: n for p, n in per_file.items() if n} == actual
    total = mem.index.read("SELECT count(*) FROM chunks")[0][0]
    assert mem.index.read("SELECT count(*) FROM chunks_fts")[0][0] == total


def test_killed_rebuilds_leave_a_working_index(tmp_path: Path, write: WriteFile) -> None:
    ws = _build(tmp_path / "ws", write)
    with Memory(ws) as mem:
        report = mem.sync()
        assert report.files_total == FILES + 1
        chunks = mem.status()["chunks"]
    duration = _timed_sync(ws, force=True)
    rng = random.Random(20261130)
    killed_mid_way = 0
    for k in range(KILLS):
        delay = duration * (k + rng.random()) / KILLS  # one kill point in each eighth
        killed_mid_way += _kill_after(ws, "force", delay)
        with Memory(ws) as mem:
            assert _temp_files(mem.index.path) == [], f"kill {k} at {delay:.3f}s"
            # The index left behind answers as it is, without being repaired first.
            probe = rng.randrange(FILES)
            hits = mem.search(f"uniq{probe}x", refresh=False)
            assert [h.path for h in hits] == [f"memory/n{probe:03d}.md"], f"kill {k}"
            assert mem.status()["chunks"] == chunks
            _check_consistent(mem)
    # Most kill points fall inside the rebuild (the last eighth may finish first).
    assert killed_mid_way >= KILLS // 2 - 1, (killed_mid_way, duration)
    with Memory(ws) as mem:
        assert mem.sync(force=True).files_indexed == FILES + 1
        assert mem.search("rootmarker")[0].path == "MEMORY.md"
        _check_consistent(mem)


def test_killed_incremental_syncs_leave_every_file_whole(tmp_path: Path, write: WriteFile) -> None:
    ws = _build(tmp_path / "ws", write)
    with Memory(ws) as mem:
        mem.sync()
    _write_version(ws, write, 2)
    duration = _timed_sync(ws, force=False)
    rng = random.Random(7)
    killed_mid_way = mixed = 0
    for version in range(3, 6):
        _write_version(ws, write, version)
        killed_mid_way += _kill_after(ws, "incremental", duration * rng.uniform(0.2, 0.8))
        with Memory(ws) as mem:
            _check_consistent(mem)
            assert _temp_files(mem.index.path) == []
            versions = {
                path: {v for v in range(1, 6) if f"ver{v}tag" in text}
                for path, text in _texts_by_path(mem).items()
                if path.startswith("memory/")
            }
            # One transaction per file: each file is wholly one version, the old or the new.
            assert len(versions) == FILES
            assert all(v in ({version - 1}, {version}) for v in versions.values()), versions
            mixed += len({frozenset(v) for v in versions.values()}) == 2
            # A search brings the rest up to date.
            probe = rng.randrange(FILES)
            hit = mem.search(f"uniq{probe}x")[0]
            assert f"marker v{version}" in hit.snippet
    assert killed_mid_way >= 2, (killed_mid_way, duration)
    assert mixed >= 1  # at least one kill landed between two files, as intended


def _write_version(ws: Path, write: WriteFile, version: int) -> None:
    for i in range(FILES):
        write(ws, f"memory/n{i:03d}.md", _note(i, version))


def _texts_by_path(mem: Memory) -> dict[str, str]:
    out: dict[str, str] = {}
    for path, text in mem.index.read("SELECT path, text FROM chunks ORDER BY path, start_line"):
        out[path] = out.get(path, "") + "\n" + text
    return out


# -- corrupt index files -------------------------------------------------------------------------


def _corrupt(index_path: Path, data: bytes) -> None:
    for suffix in ("-wal", "-shm"):
        Path(str(index_path) + suffix).unlink(missing_ok=True)
    index_path.write_bytes(data)


@pytest.mark.parametrize(
    "damage",
    ["garbage", "truncated-half", "truncated-header", "zeroed-after-header"],
)
def test_corrupt_index_is_moved_aside_and_rebuilt(workspace: Path, damage: str) -> None:
    with Memory(workspace) as mem:
        mem.sync()
        index_path = mem.index.path
    with Memory(workspace) as mem:  # a clean close leaves everything in the main file
        pass
    good = index_path.read_bytes()
    data = {
        "garbage": random.Random(1).randbytes(64 * 1024),
        "truncated-half": good[: len(good) // 2],
        "truncated-header": good[:100],
        "zeroed-after-header": good[:4096] + b"\x00" * (len(good) - 4096),
    }[damage]
    _corrupt(index_path, data)
    with Memory(workspace) as mem:
        moved = mem.status()["recovered_from"]
        assert moved is not None
        assert Path(moved).read_bytes() == data  # kept for inspection, not deleted
        assert Path(moved).parent == index_path.parent
        hits = mem.search("narwhal")
        assert [h.path for h in hits] == ["memory/projects/billing.md"]
        assert mem.status()["files"] == 4
        assert mem.index.read("PRAGMA integrity_check") == [("ok",)]
    with Memory(workspace) as mem:
        assert mem.status()["recovered_from"] is None
        assert mem.sync().full_rebuild is False


def test_corrupt_index_is_rebuilt_by_sync_too(workspace: Path) -> None:
    index_path = workspace / ".memdir" / "index.sqlite"
    index_path.parent.mkdir(parents=True)
    index_path.write_bytes(b"this is not a database" * 100)
    with Memory(workspace) as mem:
        report = mem.sync()
        assert report.full_rebuild is True
        assert report.files_indexed == 4
        assert mem.status()["recovered_from"] is not None


def test_empty_index_file_is_simply_built(workspace: Path) -> None:
    index_path = workspace / ".memdir" / "index.sqlite"
    index_path.parent.mkdir(parents=True)
    index_path.write_bytes(b"")
    with Memory(workspace) as mem:
        assert mem.search("quokka")[0].path == "memory/2026-01-12.md"
        assert mem.status()["recovered_from"] is None


def test_stale_temp_files_are_removed_on_open(workspace: Path) -> None:
    with Memory(workspace) as mem:
        mem.sync()
        index_path = mem.index.path
    stale = [
        Path(f"{index_path}.tmp-0123456789ab"),
        Path(f"{index_path}.tmp-0123456789ab-journal"),
    ]
    for path in stale:
        path.write_bytes(b"half-built")
    with Memory(workspace) as mem:
        assert _temp_files(index_path) == []
        assert mem.search("zebrafish")[0].path == "memory/2026-01-13.md"
