"""Helpers for search tests: workspaces of a few notes; single-chunk notes in an index; worker
pools made ready to fork."""

from __future__ import annotations

import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from memdir.chunking import Chunk
from memdir.embed.fill import encode_vector
from memdir.index import Index


def write_notes(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (workspace-relative path → text, UTF-8) under ``root``; ``root``."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def add_note(
    index: Index,
    path: str,
    text: str,
    vector: np.ndarray | None = None,
    *,
    conn: sqlite3.Connection | None = None,
    date: str | None = None,
) -> int:
    """Index ``text`` as the one chunk of ``path`` (with ``vector``, if given; dated ``date``);
    its chunk id.

    Pass ``conn`` to add many notes in one transaction."""
    if conn is None:
        with index.transaction() as own:
            return add_note(index, path, text, vector, conn=own, date=date)
    (chunk_id,) = index.replace_file(
        conn,
        path=path,
        source="memory",
        file_hash=path,
        size=1,
        mtime_ns=1,
        chunks=[Chunk(1, 1, text, path, "", date)],
    )
    if vector is not None:
        index.write_vectors(conn, [(chunk_id, encode_vector(vector))])
    return int(chunk_id)


def fill_pool(pool: ThreadPoolExecutor) -> None:
    """Start every thread ``pool`` may have and let them go idle: a child forked now inherits an
    executor that believes it needs no new thread."""
    workers = pool._max_workers
    barrier = threading.Barrier(workers)
    for job in [pool.submit(barrier.wait, 10) for _ in range(workers)]:
        job.result()
    time.sleep(0.2)
