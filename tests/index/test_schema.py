"""Opening an index: the connection's settings (memdir.index.schema)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memdir.index import schema


class _Switching:
    """A connection whose switch to WAL another process holds ``locked`` times first."""

    def __init__(self, locked: int, message: str = "database is locked") -> None:
        self.locked, self.message, self.tries = locked, message, 0

    def execute(self, sql: str) -> None:
        assert sql == "PRAGMA journal_mode = WAL"
        self.tries += 1
        if self.tries <= self.locked:
            raise sqlite3.OperationalError(self.message)


def test_switching_to_wal_waits_for_another_process() -> None:
    # SQLite answers "database is locked" at once, whatever the busy timeout, to the second of
    # two processes switching a new file to WAL
    conn = _Switching(locked=3)
    schema.wal(conn)  # type: ignore[arg-type]
    assert conn.tries == 4
    # not for ever: past the wait the error is the caller's, as any other
    started = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        schema.wal(_Switching(locked=10**6), wait=0.2)  # type: ignore[arg-type]
    assert time.monotonic() - started < 1.0
    # another error is not waited for
    other = _Switching(locked=1, message="disk I/O error")
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        schema.wal(other)  # type: ignore[arg-type]
    assert other.tries == 1


OPEN = """
import sys, time
from pathlib import Path
from memdir import Memory
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.0005)
with Memory(sys.argv[1], overrides={"embedding.provider": "none"}) as mem:
    assert mem.status()["chunks"] == 0
"""


def test_processes_opening_a_new_index_at_once_all_get_it(tmp_path: Path) -> None:
    import memdir

    env_path = str(Path(memdir.__file__).resolve().parents[1])
    for round_ in range(3):
        ws = tmp_path / f"ws{round_}"
        ws.mkdir()
        go = tmp_path / f"go{round_}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(ws), str(go)],
                env={**os.environ, "PYTHONPATH": env_path},
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(6)
        ]
        time.sleep(1.0)  # each has imported memdir and waits
        go.touch()
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
