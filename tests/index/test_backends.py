"""The same behaviour on both index backends: SQLite and PostgreSQL + pgvector.

Each parametrised test runs once per backend (the ``backend`` fixture); the PostgreSQL one is a
real server started on loopback for the session (tests/pgserver.py). Where the backends could
differ in the numbers (keyword scores, vector ranks), a test builds both and compares them.
"""

from __future__ import annotations

import shutil
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdir import Memory
from memdir.errors import StorageError
from memdir.index.postgres import PG_SCHEMA_VERSION
from memdir.search import engine, keyword
from memdir.tools import MemoryTools
from pgserver import BACKENDS, backend_settings
from tools.helpers import FILES

KEYWORD_ONLY = {"embedding.provider": "none"}

NOTES = {
    "MEMORY.md": "# Memory\n\nAlpha decision: we chose PostgreSQL for billing.\n"
    "- Deploys run on Fridays; the on-call rotation is in OPS-1234.\n",
    "memory/2026-01-12.md": "# 2026-01-12\n\n## Standup\n\n- Met Bob about the quokka migration.\n"
    "- The invoice renderer keeps failing on max_tokens=8192 requests.\n",
    "memory/2026-01-13.md": "# 2026-01-13\n\n- Deploy moved to Tuesday; zebrafish test.\n"
    "- 周五部署新版本，告警阈值调整为 p99 300ms。\n- Chose Redis over Memcached for caching.\n",
    "memory/projects/billing.md": "# Billing\n\nInvoices use the narwhal exporter.\n"
    "Running the exporter twice deployed duplicate invoices; deploying again fixed it.\n",
    "memory/projects/ops.md": "# Ops\n\n## Alerts\n\nOPS-1243 was a different ticket about disk alerts.\n"
    "告警 and paging go to the on-call channel. Deployment deployment deployment.\n"
    "Staging deploys of relay go through the Argo CD app `relay-staging`.\n",
}

QUERIES = [
    "quokka migration",
    "which database did we choose",
    "OPS-1234",
    "max_tokens=8192",
    "周五部署",
    "告警阈值",
    "deploy",
    "deployment deployed",
    "narwhal exporter invoices",
    "zebrafish",
    "on-call rotation Fridays",
    "something memory never mentions xylophone",
    "what did I do on Jan 12?",  # the day's chunks, by their date
    "1月13日 deploy",
    "`on-call` channel",  # a quoted span: the chunks holding it as written, read unranked
    "what fails on `max_tokens=8192`?",
    "relay staging",  # a hyphenated name typed as words: a phrase, by the index's one word
    "what did I do between Jan 12 and Jan 13?",  # each day's best first
]


def _workspace(root: Path, files: dict[str, str] = NOTES) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _hits(mem: Memory, query: str, **kwargs: Any) -> list[tuple[str, int, int, float]]:
    response = mem.search(query, min_score=0.0, max_results=20, **kwargs)
    return [(r.path, r.start_line, r.end_line, round(r.score, 9)) for r in response]


@pytest.mark.parametrize("telling_lines", [None, 1], ids=["small", "as-if-large"])
def test_keyword_results_and_scores_are_the_same_on_both(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch, telling_lines: int | None
) -> None:
    # Five notes are a small memory, where a lacked word tells a quarter in keyword search
    # alone; counted as one that has written enough for it to tell in full too.
    if telling_lines is not None:
        monkeypatch.setattr(keyword, "TELLING_LINES", telling_lines)
    ws = _workspace(tmp_path / "ws")
    results = {}
    for name in BACKENDS:
        settings = backend_settings(name, pg_url)
        with Memory(ws, overrides={**KEYWORD_ONLY, **settings}) as mem:
            mem.sync()
            results[name] = {q: _hits(mem, q) for q in QUERIES}
            results[name]["sources"] = _hits(mem, "deploy", sources=["memory"])
    assert results["postgres"] == results["sqlite"]
    assert results["sqlite"]["OPS-1234"][0][0] == "MEMORY.md"  # and the answers are real
    assert results["sqlite"]["周五部署"][0][0] == "memory/2026-01-13.md"
    assert results["sqlite"]["relay staging"][0][0] == "memory/projects/ops.md"
    days = [path for path, *_ in results["sqlite"]["what did I do between Jan 12 and Jan 13?"]]
    assert set(days[:2]) == {"memory/2026-01-12.md", "memory/2026-01-13.md"}
    unknown = results["sqlite"]["something memory never mentions xylophone"]
    # (in the small memory the note headed "Memory" answers it at .50, naming the rest lacked)
    assert not unknown or all(s < (0.55 if telling_lines is None else 0.5) for *_, s in unknown)


def test_incremental_sync_edits_and_removals(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        first = mem.sync()
        assert first.files_indexed == len(NOTES)
        assert mem.sync().files_indexed == 0
        (ws / "memory/2026-01-12.md").write_text("# 2026-01-12\n\n- Met Carol about pelicans.\n")
        (ws / "memory/projects/ops.md").unlink()
        report = mem.sync()
        assert (report.files_indexed, report.files_removed) == (1, 1)
        assert _hits(mem, "quokka") == []
        assert [h[0] for h in _hits(mem, "pelicans")] == ["memory/2026-01-12.md"]
        assert _hits(mem, "OPS-1243") == []
        status = mem.status()
        assert status["files"] == len(NOTES) - 1
        assert status["chunks"] == first.chunks_written - 1  # ops.md had one chunk


def test_a_forced_rebuild_gives_the_same_results(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        before = {q: _hits(mem, q) for q in QUERIES}
        report = mem.sync(force=True)
        assert report.full_rebuild and report.rebuild_reason == "forced"
        assert {q: _hits(mem, q) for q in QUERIES} == before
        assert mem.status()["chunks"] == report.chunks_written


def test_a_changed_chunking_rebuilds(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
    with Memory(
        ws, overrides={**KEYWORD_ONLY, **backend, "chunking.tokens": 64, "chunking.overlap": 16}
    ) as mem:
        report = mem.sync()
        assert report.full_rebuild and "chunk_tokens" in (report.rebuild_reason or "")
        assert [h[0] for h in _hits(mem, "zebrafish")] == ["memory/2026-01-13.md"]


class WordEmbedder:
    """A deterministic embedder: one dimension per known word, plus a small constant."""

    provider = "test"
    model = "words-v1"
    max_input_bytes = 10_000
    words = ("database", "postgresql", "deploy", "quokka", "invoice", "redis", "alert", "bob")

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def _vec(self, text: str) -> list[float]:
        low = text.lower()
        v = [float(low.count(w)) for w in self.words] + [0.05]
        n = sum(x * x for x in v) ** 0.5
        return [x / n for x in v]

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.array([self._vec(t) for t in texts], dtype=np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return np.array(self._vec(text), dtype=np.float32)


def test_vector_and_hybrid_search_agree(tmp_path: Path, pg_url: str) -> None:
    ws = _workspace(tmp_path / "ws")
    found = {}
    for name in BACKENDS:
        settings = backend_settings(name, pg_url)
        with Memory(ws, overrides=settings, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
            report = mem.sync()
            assert report.vectors is not None and report.vectors["error"] is None
            assert mem.status()["embedding"]["missing"] == 0
            found[name] = {
                mode: [(p, s0, s1, round(s, 5)) for p, s0, s1, s in _hits(mem, q, mode=mode)]
                for q in ("quokka invoice", "which database", "redis alerts")
                for mode in ("vector", "hybrid")
            }
            assert all(r.mode in ("vector", "hybrid") for r in [mem.search("bob", mode="vector")])
    assert found["postgres"] == found["sqlite"]
    assert found["sqlite"]["vector"]  # vector search really answered


def test_embeddings_are_reused_from_the_cache_after_a_rebuild(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides=backend, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
        first = mem.sync()
        # (on PostgreSQL the cache is shared by every namespace: other tests' texts may be in it)
        assert first.vectors
        assert first.vectors["embedded"] + first.vectors["from_cache"] == first.chunks_written
        again = mem.sync(force=True)
        assert again.vectors and again.vectors["embedded"] == 0
        assert again.vectors["from_cache"] == again.chunks_written
        assert mem.search("quokka", mode="vector", min_score=0.0)[0].path == "memory/2026-01-12.md"


def test_scopes_and_agent_namespaces_through_the_tools(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    ws = _workspace(tmp_path / "ws", FILES)
    overrides = {**KEYWORD_ONLY, **backend}

    def seen(**context: Any) -> set[str]:
        with MemoryTools.open(ws, overrides=overrides, **context) as tools:
            result = tools.call(
                "memory_search", {"query": "quokka", "minScore": 0, "maxResults": 50}
            )
            assert not result.is_error, result.payload
            return {hit["path"] for hit in result.payload["results"]}

    shared = {"memory/2026-01-12.md", "memory/projects/billing.md"}
    assert seen(scope="shared") == shared
    assert seen(scope="shared", agent_id="alice") == shared | {"memory/agents/alice/notes.md"}
    main = seen(scope="main", agent_id="bob")
    assert "memory/agents/bob/notes.md" in main and "MEMORY.md" in main
    assert not any("alice" in p for p in main)


def test_memory_write_is_searchable_at_once(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    with MemoryTools.open(ws, overrides={**KEYWORD_ONLY, **backend}, scope="main") as tools:
        wrote = tools.call("memory_write", {"content": "The capybara rollout is blocked on SSO."})
        assert not wrote.is_error, wrote.payload
        result = tools.call("memory_search", {"query": "capybara rollout", "minScore": 0})
        assert [h["path"] for h in result.payload["results"]] == [wrote.payload["path"]]


def test_status_names_the_engine(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        info = mem.status()["index"]
    assert info["backend"] == backend["index.backend"]
    if info["backend"] == "postgres":
        assert info["server_version"].startswith("18")
        assert info["pgvector"] == "0.8.6" and "vector 0.8.6" in info["extensions"]
        assert info["rows"] == {"files": len(NOTES), "chunks": 5, "vectors": 0}


def test_workspaces_are_namespaces_of_one_database(tmp_path: Path, pg_url: str) -> None:
    a = _workspace(tmp_path / "a", {"memory/a.md": "the walrus plan\n"})
    b = _workspace(tmp_path / "b", {"memory/b.md": "the walrus budget\n"})
    settings = {**KEYWORD_ONLY, "index.backend": "postgres", "index.url": pg_url}
    with Memory(a, overrides=settings) as ma, Memory(b, overrides=settings) as mb:
        ma.sync()
        mb.sync()
        assert [h[0] for h in _hits(ma, "walrus")] == ["memory/a.md"]
        assert [h[0] for h in _hits(mb, "walrus")] == ["memory/b.md"]
    shared = {**settings, "index.namespace": "team"}
    with Memory(a, overrides=shared) as ma, Memory(b, overrides=shared) as mb:
        ma.sync()
        mb.sync()
        ma.sync()  # a's sync must not remove b's file: each removes only what it indexed
        assert {h[0] for h in _hits(ma, "walrus")} == {"memory/a.md", "memory/b.md"}
        (b / "memory/b.md").unlink()
        mb.sync()
        assert [h[0] for h in _hits(ma, "walrus")] == ["memory/a.md"]


def test_an_unreachable_server_is_named_without_its_password(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    url = "postgresql://memdir:s3cret-pw@127.0.0.1:1/memdir"
    with pytest.raises(StorageError) as err:
        Memory(ws, overrides={"index.backend": "postgres", "index.url": url})
    text = str(err.value)
    assert "cannot reach PostgreSQL at postgresql://memdir:***@127.0.0.1:1/memdir" in text
    assert "s3cret" not in text


def test_the_schema_is_versioned_and_reopened_without_migrating(
    tmp_path: Path, pg_url: str
) -> None:
    import psycopg

    ws = _workspace(tmp_path / "ws")
    settings = {**KEYWORD_ONLY, "index.backend": "postgres", "index.url": pg_url}
    with Memory(ws, overrides=settings) as mem:
        mem.sync()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT value FROM memdir_meta WHERE namespace = '' AND key = 'schema'"
        ).fetchone()
        assert row == (str(PG_SCHEMA_VERSION),)
        conn.execute("UPDATE memdir_meta SET value = '99' WHERE namespace = '' AND key = 'schema'")
        try:
            with pytest.raises(StorageError, match="schema 99, newer than this memdir"):
                Memory(ws, overrides=settings)
        finally:
            conn.execute(
                "UPDATE memdir_meta SET value = %s WHERE namespace = '' AND key = 'schema'",
                (str(PG_SCHEMA_VERSION),),
            )
    shutil.rmtree(ws)


def test_vector_scores_of_given_chunks_are_the_same_on_both(tmp_path: Path, pg_url: str) -> None:
    """``scores(query, ids)``: the similarity of chunks the nearest left out, from the query
    vector of the search just made (hybrid search scores its keyword-only candidates so)."""
    from memdir.search.vector import IndexVectorSearch, VectorSearch

    ws = _workspace(tmp_path / "ws")
    found = {}
    for name in BACKENDS:
        settings = backend_settings(name, pg_url)
        with Memory(ws, overrides=settings, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
            mem.sync()
            searcher: Any = mem._vector_searcher()[0]  # type: ignore[attr-defined]
            kind = IndexVectorSearch if name == "postgres" else VectorSearch
            assert isinstance(searcher, kind)
            if name == "sqlite":
                searcher.refresh()
            ids = (
                [int(r[0]) for r in mem.index.read("SELECT id FROM chunks")]
                if name == ("sqlite")
                else [
                    int(r[0])
                    for r in mem.index.read(  # type: ignore[attr-defined]
                        "SELECT id FROM memdir_chunks WHERE namespace = %s",
                        (mem.index.namespace,),  # type: ignore[attr-defined]
                    )
                ]
            )
            assert searcher.scores("quokka invoice", ids) == []  # no search of it yet
            nearest = searcher.search("quokka invoice", 1)
            scores = dict(searcher.scores("quokka invoice", ids))
            assert set(scores) == set(ids) and scores[nearest[0][0]] == nearest[0][1]
            rows = mem.index.chunks_by_ids(ids)
            found[name] = sorted(
                (rows[c].path, rows[c].start_line, round(s, 5)) for c, s in scores.items()
            )
    assert found["postgres"] == found["sqlite"]
    assert len({s for *_, s in found["sqlite"]}) > 2  # the scores really differ by chunk


def test_hybrid_scores_keyword_candidates_outside_the_nearest_on_both(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pools as small as max_results asks (candidates are gathered for 10 results at least)
    monkeypatch.setattr(engine, "POOL_RESULTS", 1)
    ws = _workspace(tmp_path / "ws")
    found = {}
    for name in BACKENDS:
        settings = backend_settings(name, pg_url)
        # two candidates a half: the nearest two chunks leave out the keyword ones
        narrow = {**settings, "search.candidate_multiplier": 1}
        with Memory(ws, overrides=narrow, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
            mem.sync()
            response = mem.search("zebrafish Tuesday exporter", min_score=0.0, max_results=2)
            found[name] = [
                (r.path, r.start_line, round(r.score, 6), r.vector_score is not None)
                for r in response
            ]
            keyword_only = [r for r in response if r.text_score and r.vector_score is None]
            assert keyword_only == [], keyword_only
    assert found["postgres"] == found["sqlite"]
    assert found["sqlite"] and all(has_vector for *_, has_vector in found["sqlite"])


def test_a_hybrid_search_on_postgres_is_five_statements(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the README states: the vector state, the keyword search (its terms' frequencies
    cached) beside the nearest chunks with their rows, the keyword-only candidates'
    similarities, and the candidates' line vectors; the query's new terms' frequencies add one."""
    import psycopg

    ws = _workspace(tmp_path / "ws")
    settings = {"index.backend": "postgres", "index.url": pg_url}
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def counted(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.append(str(query)[:60])
        return execute(self, query, *args, **kwargs)

    narrow = {**settings, "search.candidate_multiplier": 1}
    monkeypatch.setattr(engine, "POOL_RESULTS", 1)  # pools as small as max_results asks
    with Memory(ws, overrides=narrow, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
        mem.sync()
        monkeypatch.setattr(psycopg.Cursor, "execute", counted)
        first = mem.search("zebrafish Tuesday exporter", refresh=False, max_results=2)
        fresh = len(sent)
        sent.clear()
        again = mem.search("zebrafish Tuesday exporter", refresh=False, max_results=2)
    assert [r.path for r in again] == [r.path for r in first] and first.mode == "hybrid"
    assert (fresh, len(sent)) == (6, 5), sent


def test_another_workspaces_file_is_read_from_the_shared_index(tmp_path: Path, pg_url: str) -> None:
    from memdir.errors import PathError

    text = "# Walrus plan\n\nIntro line.\n\n- the walrus budget is 40k\n- owner: Dana\n"
    a = _workspace(tmp_path / "a", {"memory/a.md": "the walrus plan\n"})
    b = _workspace(tmp_path / "b", {"memory/b.md": text})
    shared = {**KEYWORD_ONLY, "index.backend": "postgres", "index.url": pg_url}
    shared["index.namespace"] = f"team-{tmp_path.name}"
    with Memory(b, overrides=shared) as mb:
        mb.sync()
        origin = mb.index.origin  # type: ignore[attr-defined]
    with Memory(a, overrides=shared) as ma:
        ma.sync()
        hit = next(r for r in ma.search("walrus budget", min_score=0.0) if r.path == "memory/b.md")
        piece = ma.get(hit.citation)
        assert piece.origin == origin and str(b.resolve()) in origin
        assert piece.text == "\n".join(text.split("\n")[hit.start_line - 1 : hit.end_line])
        whole = ma.get("memory/b.md")
        assert whole.text == text.rstrip("\n") and whole.total_lines == 6
        assert whole.to_dict()["from_index"] is True
        assert ma.get("memory/b.md", from_line=5, lines=1).text == "- the walrus budget is 40k"
        assert ma.get("memory/a.md").origin is None  # this workspace's own file: from disk
        with pytest.raises(PathError) as missing:
            ma.get("memory/nobody.md")
        assert missing.value.code == "missing"
        with pytest.raises(PathError) as refused:
            ma.get("memory/b.md", shared=False)
        assert refused.value.code == "scope-private" and origin in refused.value.message
    with MemoryTools.open(a, overrides=shared, scope="main") as tools:
        got = tools.call("memory_get", {"path": "memory/b.md", "from": 5, "lines": 2})
        assert not got.is_error, got.payload
        assert got.payload["origin"] == origin and got.payload["from_index"] is True
        assert got.payload["text"] == "- the walrus budget is 40k\n- owner: Dana"
    with MemoryTools.open(a, overrides=shared, scope="shared") as tools:
        got = tools.call("memory_get", {"path": "memory/b.md"})
        assert got.is_error and got.payload["code"] == "scope-private"
    with Memory(b, overrides=shared) as mb:  # b's own copy is read from b's disk
        assert mb.get("memory/b.md").origin is None


def test_an_index_of_an_older_tokenizer_is_rebuilt_and_finds_folded_words(
    tmp_path: Path, backend: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdir.index.sync as sync
    from memdir.text import variants

    ws = _workspace(tmp_path / "ws")
    (ws / "memory" / "2026-01-14.md").write_text(
        "# 2026-01-14\n\n- 佐々木美穂さんと打ち合わせ、発熱のため延期。\n", encoding="utf-8"
    )
    with monkeypatch.context() as old:  # as memdir wrote it before Han variants were folded
        old.setattr(sync, "TOKENIZER_VERSION", "words-v3/unicode-14.0.0")
        old.setattr(variants, "fold", lambda text: text)
        with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
            mem.sync()
            [(_, _, _, before)] = _hits(mem, "佐佐木美穗 发热")  # shared characters only
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        report = mem.sync()
        assert report.full_rebuild and "tokenizer" in (report.rebuild_reason or "")
        [(path, _, _, after)] = _hits(mem, "佐佐木美穗 发热")
        assert path == "memory/2026-01-14.md" and after > before + 0.2


def test_an_index_dated_the_old_way_is_rebuilt_with_heading_dates_without_a_year(
    tmp_path: Path, backend: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    from datetime import datetime

    import memdir.chunking as chunking
    import memdir.index.sync as sync
    from memdir.dates import first_date

    ws = _workspace(tmp_path / "ws", {})
    note = ws / "memory" / "projects" / "hanami.md"
    note.parent.mkdir(parents=True)
    note.write_text(
        "# Hanami\n\n## チケット（11/26 時点）\n- HNM-147 in review\n", encoding="utf-8"
    )
    stamp = datetime(2026, 12, 3, 12).timestamp()
    os.utime(note, (stamp, stamp))
    with monkeypatch.context() as old:  # as memdir dated chunks before: ISO heading dates only
        old.setattr(sync, "CHUNK_DATES", 1)
        old.setattr(chunking, "heading_date", lambda title, reference=None: first_date(title))
        with Memory(ws, overrides={**KEYWORD_ONLY, **backend, "timezone": "UTC"}) as mem:
            mem.sync()
            assert [r.date for r in mem.search("HNM-147", min_score=0)] == [None]
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend, "timezone": "UTC"}) as mem:
        report = mem.sync()
        assert report.full_rebuild and "chunk_dates" in (report.rebuild_reason or "")
        assert [r.date for r in mem.search("HNM-147", min_score=0)] == ["2026-11-26"]


def test_an_index_cut_without_the_section_slack_is_rebuilt(
    tmp_path: Path, backend: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdir.chunking as chunking
    import memdir.index.sync as sync

    item = "- 10:00 " + "word " * 60
    day = "# 2026-11-25\n\n" + "\n".join([item] * 6 + ["- 16:00 hoshimi_weekly ATL-365"])
    ws = _workspace(tmp_path / "ws", {"memory/2026-11-25.md": day + "\n"})
    with monkeypatch.context() as old:  # as memdir cut sections before: at the size exactly
        old.setattr(sync, "SECTION_SLACK", 1.0)
        old.setattr(chunking, "SECTION_SLACK", 1.0)
        with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
            mem.sync()
            assert mem.status()["chunks"] == 2
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        report = mem.sync()
        assert report.full_rebuild and "section_slack" in (report.rebuild_reason or "")
        assert mem.status()["chunks"] == 1
        hit = mem.search("ATL-365", min_score=0).results[0]
        assert (hit.start_line, hit.end_line) == (1, 9)


def test_the_newest_chunks_naming_something_come_by_their_date(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    # 老王 in 450 daily logs over more than a year, the newest written first to the index
    # (a full index goes in path order: the oldest rowids are the oldest logs)
    files = {}
    for n in range(450):
        day = (
            f"2025-{(n // 28) % 12 + 1:02d}-{n % 28 + 1:02d}"
            if n < 336
            else f"2026-{(n - 336) // 28 + 1:02d}-{(n - 336) % 28 + 1:02d}"
        )
        files[f"memory/{day}.md"] = f"# {day}\n\n- 和老王对了第 {n} 个变更\n"
    files["memory/people/wang.md"] = "# 老王\n\n- SRE，undated\n"
    ws = _workspace(tmp_path / "ws", files)
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        rows = mem.index.newest('"老王"', 3)
        assert [r.chunk.date for r in rows] == ["2026-05-02", "2026-05-01", "2026-04-28"]
        assert mem.index.newest('"老王"', 3, sources=["sessions"]) == []
        assert mem.index.newest('"nobody"', 3) == []
        # and a question asking what is new about him is answered by the newest
        found = mem.search("老王最近在忙什么？", today=date(2026, 5, 3))
        assert found.results[0].date == "2026-05-02"


def test_chunks_are_read_by_the_day_they_are_dated(tmp_path: Path, backend: dict[str, str]) -> None:
    ws = _workspace(tmp_path / "ws")
    (ws / "memory" / "2025-01-12.md").write_text("# 2025-01-12\n\n- a year before\n")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        count, rows = mem.index.dated(["2026-01-12"], 10)
        assert count == len(rows) > 0 and {r.chunk.path for r in rows} == {"memory/2026-01-12.md"}
        # a day without a year is that day of every year memory has, newest first
        count, rows = mem.index.dated(["--01-12"], 10)
        assert [r.chunk.date for r in rows] == sorted((r.chunk.date for r in rows), reverse=True)
        assert {r.chunk.date for r in rows} == {"2025-01-12", "2026-01-12"}
        assert (
            mem.index.dated(["--01-12"], 1)[0] == count
            and len(mem.index.dated(["--01-12"], 1)[1]) == 1
        )
        assert mem.index.dated(["--01-12"], 10, sources=["sessions"]) == (0, [])
        assert mem.index.dated(["--02-29", "2026-03-01"], 10) == (0, [])
        # a question naming it means the newest such day memory has
        found = mem.search("what did I do on Jan 12?", min_score=0.0, max_results=20)
        assert found.results and {r.date for r in found.results} == {"2026-01-12"}


def test_an_unranked_keyword_read_gives_matching_chunks_up_to_the_limit(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    # what the loanword probe reads: any chunks holding the phrase, not the best of them
    ws = _workspace(tmp_path / "ws")
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        ranked = mem.index.keyword('"deploy"', 50)
        unranked = mem.index.keyword('"deploy"', 50, ranked=False)
        assert ranked and {r.chunk.id for r in unranked} == {r.chunk.id for r in ranked}
        assert len(mem.index.keyword('"deploy"', 1, ranked=False)) == 1
        assert mem.index.keyword('"xylophonexx"', 5, ranked=False) == []


def test_the_years_a_day_without_one_is_looked_up_in_are_bounded() -> None:
    from memdir.index.store import MAX_DATED_YEARS, dated_keys

    assert dated_keys(["--01-12", "2026-03-01"], "2024-05-01", "2026-02-01") == [
        "2024-01-12",
        "2025-01-12",
        "2026-01-12",
        "2026-03-01",
    ]
    assert dated_keys(["--02-29"], "2023-01-01", "2025-01-01") == ["2024-02-29"]
    assert dated_keys(["--01-12"], None, None) == []
    keys = dated_keys(["--01-12"], "0001-01-01", "2026-01-01")
    assert len(keys) == MAX_DATED_YEARS and keys[-1] == "2026-01-12"


def test_lines_are_counted_per_writing_in_a_sample_of_chunks(
    tmp_path: Path, backend: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import memdir.index.postgres
    import memdir.index.store

    files = {f"memory/en{i:02d}.md": f"tea number {i}\n\nand one more line\n" for i in range(30)}
    files |= {f"memory/zh{i:02d}.md": f"第{i}次开会\n" for i in range(10)}
    ws = _workspace(tmp_path / "ws", files)
    with Memory(ws, overrides={**KEYWORD_ONLY, **backend}) as mem:
        mem.sync()
        assert mem.index.script_lines() == {"latin": 60, "zh": 10}  # every chunk, when few
        # past SCRIPT_SAMPLE chunks, that many spread evenly over the ids
        for module in (memdir.index.store, memdir.index.postgres):
            monkeypatch.setattr(module, "SCRIPT_SAMPLE", 8)
        assert mem.index.script_lines() == {"latin": 60, "zh": 10}  # cached until a change
        (ws / "memory" / "ja.md").write_text("会議は十時から\n", encoding="utf-8")
        mem.sync()
        sample = mem.index.script_lines()
        assert sum(sample.values()) <= 2 * 8
        # spread, not the first eight chunks (all English): the Chinese ones are read too
        assert set(sample) <= {"latin", "zh", "ja"} and sample["latin"] > sample["zh"] >= 1


DAY_LIST = (
    "# 2026-01-14\n\n"
    "- 09:30 standup about the redis cache and the redis alert\n"
    "- 11:00 database review with postgresql and database sizing\n"
    "- 14:00 deploy the invoice service, deploy it again\n"
    "- 16:00 bob asked about the quokka\n"
)
MIXED = "# Notes\n\nredis alert database deploy\n"


class RecordingEmbedder(WordEmbedder):
    """:class:`WordEmbedder`, recording every text it is asked to embed."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.sent += texts
        return super().embed_documents(texts)


def test_a_chunk_is_found_by_its_best_line_on_both(tmp_path: Path, backend: dict[str, str]) -> None:
    """With ``embedding.line_vectors``, each line of a chunk worth a vector is embedded with
    the chunk's heading path and kept beside the chunk's vector: the day's list holding
    "redis alert" in one item comes first for that question, where its one vector, which
    stands for every item, came after a note mixing the question's words with others.
    Line vectors come from the cache after a rebuild, go with their chunk, and are embedded
    for the chunks of an index filled before they were turned on."""
    notes = {
        "memory/2026-01-14.md": DAY_LIST,
        "memory/notes.md": MIXED,
        "memory/one.md": "bob, once\n",
    }
    ws = _workspace(tmp_path / "ws", notes)
    query = "redis alert"
    first = RecordingEmbedder()
    off = {**backend, "embedding.line_vectors": "false"}
    with Memory(ws, overrides=off, embedder=first) as mem:  # type: ignore[arg-type]
        mem.sync()
        written = mem.index.vector_state().vector_seq
        assert mem.search(query, mode="vector", min_score=0.0)[0].path == ("memory/notes.md")
    on = {**backend, "embedding.line_vectors": "true"}
    later = RecordingEmbedder()
    with Memory(ws, overrides=on, embedder=later) as mem:  # type: ignore[arg-type]
        report = mem.sync()
        assert report.vectors is not None and report.vectors["error"] is None
        assert mem.index.vector_state().vector_seq == written  # the chunks' own not rewritten
        # only the lines were embedded (a heading is one too): the chunks' own vectors came
        # from the cache
        assert sorted(later.sent) == sorted(
            [f"2026-01-14\n{line}" for line in DAY_LIST.splitlines() if line]
            + ["Notes\n# Notes", "Notes\nredis alert database deploy"]
        )
        found = mem.search(query, mode="vector", min_score=0.0)
        assert [r.path for r in found][:2] == ["memory/2026-01-14.md", "memory/notes.md"]
        line = WordEmbedder()._vec(
            "2026-01-14\n- 09:30 standup about the redis cache and the redis alert"
        )
        asked = WordEmbedder()._vec(query)
        assert found[0].vector_score == pytest.approx(
            sum(a * b for a, b in zip(line, asked, strict=True)), abs=1e-5
        )
        hybrid = mem.search(query, min_score=0.0)  # the lines read beside the keyword half
        assert hybrid.mode == "hybrid"
        by_path = {r.path: r.vector_score for r in hybrid}
        assert by_path["memory/2026-01-14.md"] == pytest.approx(found[0].vector_score, abs=1e-6)
        rows = mem.index.chunks_by_ids(range(1, 10_000)).values()
        blobs = mem.index.line_vectors([row.id for row in rows])
        assert len(blobs) == len(rows) == 3  # a one-line note has none: an empty blob
        assert [blobs[row.id] for row in rows if row.path == "memory/one.md"] == [b""]
        sent = len(later.sent)
        mem.sync(force=True)
        assert len(later.sent) == sent  # from the cache
        assert mem.search(query, mode="vector", min_score=0.0)[0].path == "memory/2026-01-14.md"
        ids = [row.id for row in mem.index.chunks_by_ids(range(1, 10_000)).values()]
        (ws / "memory" / "2026-01-14.md").unlink()
        mem.sync()
        assert len(mem.index.line_vectors(ids)) == 2  # the day's went with its chunk


def test_an_older_index_gets_its_lines_from_a_watchers_first_sync(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    """An index filled before line vectors (or with them off) gets them from the next full
    fill: ``memdir index``, ``sync()``, or the first sync of a watcher (``memdir serve``,
    ``memdir watch``). A search does not start that fill (a ``memdir search`` process would
    wait for it at exit and lose its batch) and answers from the chunks' own vectors
    meanwhile; ``status()`` counts the chunks still lacking them (None when off)."""
    ws = _workspace(tmp_path / "ws", {"memory/2026-01-14.md": DAY_LIST, "memory/notes.md": MIXED})
    off = {**backend, "embedding.line_vectors": "false"}
    with Memory(ws, overrides=off, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
        mem.sync()
        assert mem.status()["embedding"]["lines_missing"] is None
    on = {**backend, "embedding.line_vectors": "true"}
    with Memory(ws, overrides=on, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
        assert mem.status()["embedding"]["lines_missing"] == 2
        found = mem.search("quokka", mode="vector", min_score=0.0)
        assert not found.warnings and mem._fill_thread is None
        assert found[0].vector_score == pytest.approx(
            _cosine("2026-01-14\n" + DAY_LIST.rstrip("\n"), "quokka"), abs=1e-5
        )  # the chunk's own vector
        mem.start_watching()
        deadline = time.monotonic() + 30
        while mem.status()["embedding"]["lines_missing"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mem.status()["embedding"]["lines_missing"] == 0
        assert len(mem.index.line_vectors([r.id for r in _rows(mem)])) == 2
        assert mem.search("quokka", mode="vector", min_score=0.0)[0].vector_score == (
            pytest.approx(_cosine("2026-01-14\n- 16:00 bob asked about the quokka", "quokka"))
        )  # ranked by its line now


def _rows(mem: Memory) -> list[Any]:
    return list(mem.index.chunks_by_ids(range(1, 100_000)).values())


def _cosine(text: str, query: str) -> float:
    a, b = WordEmbedder()._vec(text), WordEmbedder()._vec(query)
    return float(sum(x * y for x, y in zip(a, b, strict=True)))


def test_whether_to_answer_is_judged_by_the_chunks_own_vectors(
    tmp_path: Path, backend: dict[str, str]
) -> None:
    """A chunk's best line ranks it, but the floor counts only what its own vector earned: the
    best of many lines lies closer to any question than the chunk does (a dialogue's turns),
    and let questions about nothing memory holds clear the floor."""
    ws = _workspace(tmp_path / "ws", {"memory/2026-01-14.md": DAY_LIST})
    with Memory(ws, overrides=backend, embedder=WordEmbedder()) as mem:  # type: ignore[arg-type]
        mem.sync()
        low = mem.search("quokka", mode="vector", min_score=0.2)
        (hit,) = low.results
        line = WordEmbedder()._vec("2026-01-14\n- 16:00 bob asked about the quokka")
        chunk = WordEmbedder()._vec("2026-01-14\n" + DAY_LIST.rstrip("\n"))
        asked = WordEmbedder()._vec("quokka")
        own = sum(a * b for a, b in zip(chunk, asked, strict=True))
        best = sum(a * b for a, b in zip(line, asked, strict=True))
        assert own < 0.5 <= best
        assert hit.vector_score == pytest.approx(best, abs=1e-5)  # ranked and shown by its line
        assert low.best_score == pytest.approx(own, abs=1e-5)  # what the floor was shown
        empty = mem.search("quokka", mode="vector", min_score=0.5)
        assert empty.results == ()
        assert empty.best_score == pytest.approx(own, abs=1e-5)  # how far it fell short
        assert empty.to_dict()["best_score"] == pytest.approx(own, abs=1e-5)
