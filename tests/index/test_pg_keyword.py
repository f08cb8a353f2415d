"""PostgreSQL keyword search at a size where its shortcuts matter: the staged bm25 (rarest terms
first, the rest skipped once they cannot make the result) returns exactly what scoring every
candidate returns, and what SQLite's FTS5 returns; the per-lexeme document frequencies that
search reads stay equal to a recount through edits, removals, rebuilds and the migration from
schema 1.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import psycopg
import pytest

from memdir import Memory
from memdir.index import postgres
from memdir.text import fts_query, fts_query_terms
from pgserver import backend_settings

KEYWORD_ONLY = {"embedding.provider": "none"}
FILLER = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "theta",
    "kappa",
    "lambda",
    "sigma",
    "omega",
]

QUERIES = [
    "walrus common",  # a rare word and one in every note
    "walrus heron common",
    "heron common",  # a middling word and the common one
    "common",  # one word in every note: nothing to skip
    "OPS-77 common heron",  # a phrase among them
    "walrus heron OPS-77 beta gamma delta epsilon common",  # more terms than stages
    "nothing-here-at-all common",
]


def _notes(root: Path, count: int = 160) -> Path:
    rng = random.Random(7)
    for n in range(count):
        words = rng.choices(FILLER, k=rng.randint(8, 40))
        words += ["common"] * rng.randint(1, 4)
        if n % 40 == 3:
            words += ["walrus"] * rng.randint(1, 3)
        if n % 5 == 1:
            words += ["heron"] * rng.randint(1, 2)
        if n % 23 == 0:
            words.append("OPS-77")
        rng.shuffle(words)
        path = root / "memory" / f"note-{n:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {n}\n\n{' '.join(words)}.\n", encoding="utf-8")
    return root


def _ranked(mem: Memory, query: str, limit: int) -> list[tuple[str, int, float]]:
    match = fts_query(query)
    assert match is not None
    return [
        (row.chunk.path, row.chunk.start_line, round(row.rank, 9))
        for row in mem.index.keyword(match, limit)
    ]


def _recount(url: str, namespace: str) -> tuple[dict[str, int], dict[str, int]]:
    with psycopg.connect(url) as conn:
        kept = dict(
            conn.execute(
                "SELECT lexeme, df FROM memdir_lexemes WHERE namespace = %s", (namespace,)
            ).fetchall()
        )
        counted = dict(
            conn.execute(
                "SELECT x, count(*) FROM memdir_chunks, unnest(tsvector_to_array(tsv)) AS x"
                " WHERE namespace = %s GROUP BY x",
                (namespace,),
            ).fetchall()
        )
    return kept, counted


@pytest.mark.parametrize("limit", [1, 3, 24])
def test_staged_bm25_is_the_exact_top_on_both_backends(
    tmp_path: Path, pg_url: str, limit: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _notes(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend_settings("sqlite")}) as mem:
        mem.sync()
        want = {q: _ranked(mem, q, limit) for q in QUERIES}
    pg = {**KEYWORD_ONLY, **backend_settings("postgres", pg_url)}
    with Memory(ws, overrides=pg) as mem:
        mem.sync()
        staged = {q: _ranked(mem, q, limit) for q in QUERIES}
        monkeypatch.setattr(postgres, "MAX_STAGES", 1)  # one stage: every candidate scored
        whole = {q: _ranked(mem, q, limit) for q in QUERIES}
    assert staged == whole
    assert staged == want
    assert all(want[q] for q in QUERIES)
    assert [p for p, *_ in want["walrus common"][: min(limit, 4)]] == [
        p for p, *_ in want["walrus common"][: min(limit, 4)] if int(p[-6:-3]) % 40 == 3
    ]


def test_the_common_terms_candidates_are_not_scanned_when_they_cannot_make_it(
    tmp_path: Path, pg_url: str
) -> None:
    ws = _notes(tmp_path / "ws")
    pg = {**KEYWORD_ONLY, **backend_settings("postgres", pg_url)}
    with Memory(ws, overrides=pg) as mem:
        mem.sync()
        index: Any = mem.index
        plans: list[str] = []
        read = index.read

        def explained(sql: str, params: Any = None) -> list[tuple[Any, ...]]:
            if sql.startswith("WITH a0"):
                plans.append("\n".join(r[0] for r in read("EXPLAIN (ANALYZE) " + sql, params)))
            return read(sql, params)

        index.read = explained
        match = fts_query("walrus common")
        assert match is not None
        rows = index.keyword(match, 2)
        assert len(rows) == 2 and all("walrus" in r.chunk.text for r in rows)
        # the stage of "common" (every note) sat behind a one-time filter that was false
        assert "One-Time Filter" in plans[0] and "never executed" in plans[0]
        index.keyword(fts_query("common"), 2)  # a single stage: nothing to skip
        assert "never executed" not in plans[1]


def test_document_frequencies_follow_edits_removals_and_rebuilds(
    tmp_path: Path, pg_url: str
) -> None:
    ws = _notes(tmp_path / "ws", 40)
    pg = {**KEYWORD_ONLY, **backend_settings("postgres", pg_url)}
    words = sorted({t for q in QUERIES for t in fts_query_terms(q)})
    with Memory(ws, overrides=pg) as mem:
        namespace = mem.index.namespace  # type: ignore[attr-defined]
        mem.sync()
        kept, counted = _recount(pg_url, namespace)
        assert kept == counted and kept["common"] == 40
        (ws / "memory/note-003.md").write_text("# Note 3\n\nthe walrus left.\n")
        (ws / "memory/note-001.md").unlink()
        (ws / "memory/new.md").write_text("# New\n\nheron heron cormorant.\n")
        mem.sync()
        kept, counted = _recount(pg_url, namespace)
        assert kept == counted and kept["common"] == 38 and kept["cormor"] == 1
        mem.sync(force=True)
        assert _recount(pg_url, namespace) == (kept, counted)
        pg_dfs = mem.index.term_dfs(words)
        (ws / "memory/new.md").unlink()
        mem.sync()
        kept, counted = _recount(pg_url, namespace)
        assert kept == counted and "cormor" not in kept  # a lexeme no chunk has is gone
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend_settings("sqlite")}) as mem:
        (ws / "memory/new.md").write_text("# New\n\nheron heron cormorant.\n")
        mem.sync()
        assert mem.index.term_dfs(words) == pg_dfs  # the counts SQLite's FTS5 gives


def test_schema_1_is_migrated_with_its_frequencies_counted(tmp_path: Path, pg_url: str) -> None:
    ws = _notes(tmp_path / "ws", 40)
    pg = {**KEYWORD_ONLY, **backend_settings("postgres", pg_url)}
    with Memory(ws, overrides=pg) as mem:
        mem.sync()
        namespace = mem.index.namespace  # type: ignore[attr-defined]
        before = {q: _ranked(mem, q, 5) for q in QUERIES}
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as schema 1 left it
        conn.execute("DROP TABLE memdir_lexemes")
        conn.execute("ALTER TABLE memdir_chunks ALTER COLUMN tsv SET STORAGE EXTENDED")
        conn.execute("UPDATE memdir_meta SET value = '1' WHERE namespace = '' AND key = 'schema'")
    with Memory(ws, overrides=pg) as mem:
        assert {q: _ranked(mem, q, 5) for q in QUERIES} == before
    kept, counted = _recount(pg_url, namespace)
    assert kept == counted and kept["common"] == 40
    with psycopg.connect(pg_url) as conn:
        storage = conn.execute(
            "SELECT attstorage FROM pg_attribute WHERE attrelid = 'memdir_chunks'::regclass"
            " AND attname = 'tsv'"
        ).fetchone()
        schema = conn.execute(
            "SELECT value FROM memdir_meta WHERE namespace = '' AND key = 'schema'"
        ).fetchone()
    assert storage == ("m",) and schema == (str(postgres.PG_SCHEMA_VERSION),)


def test_own_change_notices_keep_the_statistics_another_writers_drop_them(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    ws = _notes(tmp_path / "ws", 20)
    pg = {**KEYWORD_ONLY, **backend_settings("postgres", pg_url)}
    with Memory(ws, overrides=pg) as mem:
        index: Any = mem.index
        mem.sync()
        heard: list[str] = []  # the bumps the change listener made
        bump = index._bump

        def counted() -> None:
            if threading.current_thread() is index._listener:
                heard.append("notice")
            bump()

        monkeypatch.setattr(index, "_bump", counted)

        def settle(until: Any) -> None:
            deadline = time.monotonic() + 10
            while not until() and time.monotonic() < deadline:
                time.sleep(0.02)

        (ws / "memory/new.md").write_text("# New\n\nheron cormorant.\n")
        mem.sync()
        settle(lambda: not index._own_notices)
        assert not index._own_notices
        # the notices this index sent, heard back, are no other writer's change: its own
        # commits bumped the version already (under load a late notice dropped the statistics
        # a search had cached after the commit)
        assert heard == []
        index.term_dfs(["cormor"])
        assert "cormor" in index._dfs
        with psycopg.connect(pg_url, autocommit=True) as conn:  # another writer's notice
            conn.execute("SELECT pg_notify(%s, %s)", (postgres.CHANNEL, index.namespace))
        settle(lambda: heard)
        assert heard == ["notice"]
        index.term_dfs(["heron"])
        assert "cormor" not in index._dfs  # dropped, counted afresh when asked
