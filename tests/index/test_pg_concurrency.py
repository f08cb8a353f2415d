"""Many writers, many readers on one PostgreSQL namespace.

Several spawned processes, each with its own workspace and agent id, sync their files and write
notes through ``memory_write`` into one namespace at once, while another process searches: no
row is lost or doubled, and each note is searchable by the other process within 2 s.
"""

from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import psycopg

from ._pg_workers import watcher, writer

WRITERS = 3
NOTES = 12
FILES = 8


def test_writers_in_one_namespace_lose_and_double_nothing(tmp_path: Path, pg_url: str) -> None:
    namespace = f"team-{tmp_path.name}"
    agents = [f"agent{i}" for i in range(WRITERS)]
    words = [f"{a}n{n}word" for a in agents for n in range(NOTES)]
    with ProcessPoolExecutor(WRITERS + 1, mp_context=multiprocessing.get_context("spawn")) as pool:
        seen_job = pool.submit(watcher, pg_url, namespace, str(tmp_path / "reader"), words, 90)
        started = tmp_path / "reader" / "watcher.started"
        deadline = time.monotonic() + 60
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        jobs = [
            pool.submit(writer, str(tmp_path / a), pg_url, namespace, a, NOTES, FILES)
            for a in agents
        ]
        results = [j.result(timeout=180) for j in jobs]
        seen = seen_job.result(timeout=180)
    for result in (*results, seen):
        assert "error" not in result, result.get("error")
    written = {w: t for r in results for w, t in r["written"].items()}  # type: ignore[union-attr]
    assert sorted(written) == sorted(words)

    with psycopg.connect(pg_url) as conn:
        files = dict(
            conn.execute(
                "SELECT path, chunks FROM memdir_files WHERE namespace = %s", (namespace,)
            ).fetchall()
        )
        chunk_counts = dict(
            conn.execute(
                "SELECT path, count(*) FROM memdir_chunks WHERE namespace = %s GROUP BY path",
                (namespace,),
            ).fetchall()
        )
        doubled = conn.execute(
            "SELECT path, start_line, count(*) FROM memdir_chunks WHERE namespace = %s"
            " GROUP BY path, start_line HAVING count(*) > 1",
            (namespace,),
        ).fetchall()
        stats = conn.execute(
            "SELECT chunks FROM memdir_stats WHERE namespace = %s", (namespace,)
        ).fetchone()
        # every lexeme's document frequency, kept by the writers' commits, is the recount's
        dfs = dict(
            conn.execute(
                "SELECT lexeme, df FROM memdir_lexemes WHERE namespace = %s", (namespace,)
            ).fetchall()
        )
        recount = dict(
            conn.execute(
                "SELECT x, count(*) FROM memdir_chunks, unnest(tsvector_to_array(tsv)) AS x"
                " WHERE namespace = %s GROUP BY x",
                (namespace,),
            ).fetchall()
        )
        texts = " ".join(
            r[0]
            for r in conn.execute(
                "SELECT text FROM memdir_chunks WHERE namespace = %s", (namespace,)
            ).fetchall()
        )
    expected_files = {f"memory/{a}-file-{n}.md" for a in agents for n in range(FILES)}
    assert expected_files <= set(files)  # no workspace's sync removed another's files
    agent_files = {p for p in files if p.startswith("memory/agents/")}
    assert {p.split("/")[2] for p in agent_files} == set(agents)
    assert doubled == []
    assert chunk_counts == {p: n for p, n in files.items() if n}  # file rows agree with chunks
    assert stats == (sum(chunk_counts.values()),)
    assert dfs == recount and recount
    assert all(w in texts for w in words) and all(
        f"{a}f{n}word" in texts for a in agents for n in range(FILES)
    )

    lags = {w: seen["seen"][w] - written[w] for w in words if w in seen["seen"]}  # type: ignore[index]
    assert set(lags) == set(words), f"never seen: {sorted(set(words) - set(lags))}"
    assert max(lags.values()) <= 2.0, sorted(lags.items(), key=lambda kv: -kv[1])[:5]
