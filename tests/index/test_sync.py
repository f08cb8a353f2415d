"""Incremental sync and full rebuild (spec §4.3–§4.4, cases 55, 61–63, 79–81).

An unchanged file is never re-chunked (its chunk rows keep their ids), an edited file is
re-indexed and its old text disappears, a deleted file loses every row, and a change of the
chunking settings rebuilds the index and says why. A search first brings the index up to date.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memdir import Memory
from memdir.chunking import chunk_text, sha256_hex
from memdir.errors import ConfigError
from memdir.index import Chunking, WriterLock

pytestmark = pytest.mark.usefixtures("no_embedder")

WriteFile = Callable[..., Path]
HOUR_NS = 3600 * 10**9


@pytest.fixture
def mem(workspace: Path) -> Iterator[Memory]:
    with Memory(workspace) as m:
        yield m


def _chunk_ids(m: Memory, path: str) -> list[int]:
    return [r[0] for r in m.index.read("SELECT id FROM chunks WHERE path = ? ORDER BY id", (path,))]


def _paths(m: Memory, query: str, **kwargs: Any) -> list[str]:
    return [h.path for h in m.search(query, min_score=0.0, max_results=50, **kwargs)]


def _fts_hits(m: Memory, word: str) -> int:
    """Rows of the FTS index itself matching ``word`` (catches FTS rows left behind)."""
    return int(
        m.index.read("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (word,))[0][0]
    )


def _age(path: Path, seconds: float = 3600) -> None:
    """Backdate a file, as if it was written long before it was indexed."""
    ns = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(ns, ns))


def _consistent(m: Memory) -> None:
    """files.chunks matches the chunk rows, every chunk has an FTS row, and the FTS index is sound."""
    per_file = dict(m.index.read("SELECT path, chunks FROM files"))
    actual = dict(m.index.read("SELECT path, count(*) FROM chunks GROUP BY path"))
    assert {p: n for p, n in per_file.items() if n} == actual
    total = m.index.read("SELECT count(*) FROM chunks")[0][0]
    assert m.index.read("SELECT count(*) FROM chunks_fts")[0][0] == total
    with m.index.transaction() as conn:
        conn.execute("INSERT INTO chunks_fts(chunks_fts) VALUES('integrity-check')")


# -- incremental -------------------------------------------------------------------------------


def test_first_sync_indexes_everything_then_nothing(mem: Memory) -> None:
    first = mem.sync()
    assert (first.files_total, first.files_indexed, first.files_unchanged) == (4, 4, 0)
    assert first.full_rebuild is True
    assert first.rebuild_reason == "no index yet"
    assert first.chunks_written == 4
    ids = {p: _chunk_ids(mem, p) for p in mem.index.file_rows()}
    second = mem.sync()
    assert (second.files_indexed, second.files_unchanged, second.chunks_written) == (0, 4, 0)
    assert second.full_rebuild is False
    assert second.changed is False
    assert {p: _chunk_ids(mem, p) for p in mem.index.file_rows()} == ids
    _consistent(mem)


def test_old_unchanged_files_are_trusted_by_size_and_mtime(mem: Memory, workspace: Path) -> None:
    for path in workspace.rglob("*.md"):
        _age(path)
    mem.sync()
    before = mem.index.file_rows()
    report = mem.sync()
    assert report.files_unchanged == 4
    # Not even hashed: the rows were not touched (indexed_ns is rewritten when a file is hashed).
    assert mem.index.file_rows() == before


def test_edited_file_is_reindexed_and_old_text_gone(mem: Memory, workspace: Path) -> None:
    mem.sync()
    other_ids = _chunk_ids(mem, "MEMORY.md")
    target = workspace / "memory" / "2026-01-12.md"
    target.write_text("# 2026-01-12\n\n- Met Bob about the wombat rollout.\n", encoding="utf-8")
    report = mem.sync()
    assert (report.files_indexed, report.files_unchanged, report.files_removed) == (1, 3, 0)
    assert _paths(mem, "wombat") == ["memory/2026-01-12.md"]
    assert _paths(mem, "quokka") == []
    assert _fts_hits(mem, "quokka") == 0
    assert _chunk_ids(mem, "MEMORY.md") == other_ids
    _consistent(mem)


def test_deleted_file_rows_are_removed(mem: Memory, workspace: Path) -> None:
    mem.sync()
    assert _paths(mem, "narwhal") == ["memory/projects/billing.md"]
    (workspace / "memory" / "projects" / "billing.md").unlink()
    report = mem.sync()
    assert report.files_removed == 1
    assert "memory/projects/billing.md" not in mem.index.file_rows()
    assert _chunk_ids(mem, "memory/projects/billing.md") == []
    assert _fts_hits(mem, "narwhal") == 0
    assert _paths(mem, "narwhal") == []
    _consistent(mem)


def test_deleted_folder_removes_all_its_files(mem: Memory, workspace: Path) -> None:
    mem.sync()
    (workspace / "memory" / "projects" / "billing.md").unlink()
    (workspace / "memory" / "projects").rmdir()
    (workspace / "memory" / "2026-01-12.md").unlink()
    (workspace / "memory" / "2026-01-13.md").unlink()
    (workspace / "memory").rmdir()
    assert mem.sync().files_removed == 3
    assert sorted(mem.index.file_rows()) == ["MEMORY.md"]


def test_touched_file_is_not_rechunked(mem: Memory, workspace: Path) -> None:
    target = workspace / "MEMORY.md"
    _age(target)
    mem.sync()
    ids = _chunk_ids(mem, "MEMORY.md")
    os.utime(target)  # new mtime, same bytes
    new_mtime = target.stat().st_mtime_ns
    report = mem.sync()
    assert (report.files_indexed, report.chunks_written) == (0, 0)
    assert _chunk_ids(mem, "MEMORY.md") == ids
    # The new mtime is recorded, so the next sync can trust the stat again.
    assert mem.index.file_rows()["MEMORY.md"].mtime_ns == new_mtime


def test_same_size_rewrite_within_the_same_second_is_detected(mem: Memory, workspace: Path) -> None:
    target = workspace / "memory" / "racy.md"
    target.write_text("racy version one apple\n", encoding="utf-8")
    mem.sync()
    stamp = target.stat()
    target.write_text("racy version two mango\n", encoding="utf-8")  # same size
    os.utime(target, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))  # same mtime, as a coarse clock
    assert target.stat().st_size == stamp.st_size
    report = mem.sync()
    assert report.files_indexed == 1
    assert _paths(mem, "mango") == ["memory/racy.md"]
    assert _paths(mem, "apple") == []


def test_emptied_file_keeps_a_row_with_no_chunks(mem: Memory, workspace: Path) -> None:
    mem.sync()
    (workspace / "MEMORY.md").write_text("   \n\n", encoding="utf-8")
    mem.sync()
    assert mem.index.file_rows()["MEMORY.md"].chunks == 0
    assert _paths(mem, "PostgreSQL") == []
    _consistent(mem)


def test_search_brings_the_index_up_to_date_first(mem: Memory, workspace: Path) -> None:
    mem.sync()
    (workspace / "memory" / "new.md").write_text("fresh capybara note\n", encoding="utf-8")
    (workspace / "memory" / "2026-01-13.md").unlink()
    assert _paths(mem, "capybara") == ["memory/new.md"]
    assert _paths(mem, "zebrafish") == []


def test_search_says_so_when_it_cannot_refresh(mem: Memory, workspace: Path) -> None:
    mem.sync()
    (workspace / "memory" / "new.md").write_text("blocked axolotl note\n", encoding="utf-8")
    other = WriterLock(mem.index.lock.path)  # another writer holds the index
    assert other.acquire(timeout=0)
    try:
        response = mem.search("axolotl", min_score=0.0)
    finally:
        other.release()
    assert response.results == ()
    assert any("another process is updating the index" in w for w in response.warnings)
    assert _paths(mem, "axolotl") == ["memory/new.md"]


def test_search_without_refresh_uses_the_index_as_is(mem: Memory, workspace: Path) -> None:
    mem.sync()
    (workspace / "memory" / "new.md").write_text("lazy ocelot note\n", encoding="utf-8")
    assert _paths(mem, "ocelot", refresh=False) == []
    assert _paths(mem, "ocelot") == ["memory/new.md"]


# -- full rebuild ------------------------------------------------------------------------------


def test_chunking_change_triggers_a_full_rebuild_with_a_reason(workspace: Path) -> None:
    with Memory(workspace) as m:
        m.sync()
        assert m.sync().full_rebuild is False
    with Memory(workspace, overrides={"chunking.tokens": 160}) as m:
        report = m.sync()
        assert report.full_rebuild is True
        assert report.rebuild_reason == "chunk_tokens changed from 400 to 160"
        assert m.status()["shape"]["chunk_tokens"] == 160
        assert m.sync().full_rebuild is False
    with Memory(workspace, overrides={"chunking.tokens": 160, "chunking.overlap": 0}) as m:
        report = m.sync()
        assert report.full_rebuild is True
        assert report.rebuild_reason == "chunk_overlap changed from 80 to 0"


def test_chunking_strategy_change_rebuilds_the_index(workspace: Path) -> None:
    with Memory(workspace) as m:
        m.sync()
        assert m.status()["shape"]["chunk_strategy"] == "structure"
    with Memory(workspace, overrides={"chunking.strategy": "window"}) as m:
        report = m.sync()
        assert report.full_rebuild is True
        assert report.rebuild_reason == "chunk_strategy changed from 'structure' to 'window'"
        assert m.index.read("SELECT DISTINCT context FROM chunks") == [("",)]
        assert m.sync().full_rebuild is False
    with Memory(workspace) as m:
        assert m.sync().rebuild_reason == "chunk_strategy changed from 'window' to 'structure'"
        assert ("2026-01-12",) in m.index.read("SELECT DISTINCT context FROM chunks")


def test_an_unknown_strategy_is_refused_by_the_library_too() -> None:
    with pytest.raises(ConfigError, match="must be one of structure, window"):
        Chunking(strategy="headings")


def test_timezone_change_rebuilds_a_structure_index_only(workspace: Path) -> None:
    with Memory(workspace, overrides={"timezone": "Europe/Paris"}) as m:
        m.sync()
    with Memory(workspace, overrides={"timezone": "Asia/Tokyo"}) as m:
        assert m.sync().rebuild_reason == "timezone changed from 'Europe/Paris' to 'Asia/Tokyo'"
    window = {"chunking.strategy": "window"}
    with Memory(workspace, overrides={**window, "timezone": "Asia/Tokyo"}) as m:
        m.sync()
    with Memory(workspace, overrides={**window, "timezone": "Europe/Paris"}) as m:
        assert m.sync().full_rebuild is False  # window chunks carry no date


def test_window_strategy_keeps_the_old_chunks_exactly(tmp_path: Path, write: WriteFile) -> None:
    log = "# 2026-08-04\n\n" + "\n\n".join(
        f"### {h:02d}:00 - entry {h}\n" + "word " * 30 for h in range(8, 20)
    )
    texts = {"memory/2026-08-04.md": log + "\n", "MEMORY.md": "# Memory\n\nAlpha.\n"}
    for rel, text in texts.items():
        write(tmp_path, rel, text)
    with Memory(tmp_path, overrides={"chunking.strategy": "window"}) as m:
        m.sync()
        for rel, text in texts.items():
            rows = m.index.read(
                "SELECT start_line, end_line, text, hash, context, date FROM chunks"
                " WHERE path = ? ORDER BY id",
                (rel,),
            )
            assert rows == [
                (c.start_line, c.end_line, c.text, sha256_hex(c.text), "", None)
                for c in chunk_text(text)
            ]
    with Memory(tmp_path) as m:  # structure: one chunk per entry instead
        m.sync()
        assert len(_chunk_ids(m, "memory/2026-08-04.md")) == 12


def test_context_and_date_are_stored_and_the_context_is_searchable(
    tmp_path: Path, write: WriteFile
) -> None:
    body = "\n\n".join(f"Paragraph {i} " + "filler " * 40 for i in range(15)) + "\n\nokapi"
    path = write(tmp_path, "memory/2026-08-04.md", f"# Pangolin log\n\n## Broker\n{body}\n")
    _other_notes(tmp_path, write)
    with Memory(tmp_path) as m:
        m.sync()
        rows = m.index.read(
            "SELECT context, date FROM chunks WHERE path = ? ORDER BY id", ("memory/2026-08-04.md",)
        )
        assert rows[0] == ("2026-08-04 Pangolin log", "2026-08-04")
        assert set(rows[1:]) == {("2026-08-04 Pangolin log › Broker", "2026-08-04")}
        # The title is in the text of the first chunk only, yet every chunk matches it.
        assert _fts_hits(m, "pangolin") == len(rows) > 2
        (hit,) = m.search("pangolin okapi", min_score=0.0, max_results=1)
        assert (hit.heading, hit.date) == ("2026-08-04 Pangolin log › Broker", "2026-08-04")
        assert hit.end_line == 34 and hit.start_line > 3  # a later piece, without the title
        # The FTS rows are deleted with the body they were inserted with (context + text).
        path.write_text("# Armadillo log\n\n## Broker\nOther text.\n", encoding="utf-8")
        m.sync()
        assert _fts_hits(m, "pangolin") == 0
        assert _fts_hits(m, "armadillo") == 1
        _consistent(m)


def test_an_index_of_the_previous_schema_is_rebuilt(workspace: Path) -> None:
    with Memory(workspace) as m:
        m.sync()
        shape = m.index.shape()
        assert shape is not None and shape["schema"] == 2
        with m.index.transaction() as conn:  # as schema 1 left it: no context, no date
            conn.execute("DROP INDEX idx_chunks_date")
            conn.execute("ALTER TABLE chunks DROP COLUMN context")
            conn.execute("ALTER TABLE chunks DROP COLUMN date")
            m.index.write_shape({**shape, "schema": 1}, conn)
    with Memory(workspace) as m:
        report = m.sync()
        assert report.rebuild_reason == "schema changed from 1 to 2"
        assert [h.heading for h in m.search("quokka", min_score=0.0)] == ["2026-01-12"]
        _consistent(m)


def test_an_index_made_before_the_date_index_gets_it_when_opened(workspace: Path) -> None:
    """Days named in a question are looked up through ``idx_chunks_date``; an index made
    before it had none, and is given it (not rebuilt) by the first process to open it."""
    with Memory(workspace) as m:
        m.sync()
        with m.index.transaction() as conn:
            conn.execute("DROP INDEX idx_chunks_date")
    with Memory(workspace) as m:
        names = {row[0] for row in m.index.read("SELECT name FROM sqlite_master", [])}
        assert "idx_chunks_date" in names
        assert not m.sync().full_rebuild
        plan = " ".join(
            str(row[-1])
            for row in m.index.read(
                "EXPLAIN QUERY PLAN SELECT count(*) FROM chunks WHERE date IN (?)", ["2026-01-12"]
            )
        )
        assert "idx_chunks_date" in plan


def test_an_openclaw_workspace_indexes_with_headings_and_dates(
    tmp_path: Path, write: WriteFile
) -> None:
    """MEMORY.md, daily logs of timed entries, a session-hook note and a transcript."""
    write(tmp_path, "MEMORY.md", "# Long-term memory\n\n## People\n- Bob owns billing.\n")
    write(
        tmp_path,
        "memory/2026-08-04.md",
        "# 2026-08-04\n\n### 09:10 - standup\nRelay rollout planned.\n\n"
        "### 14:05 - relay: broker decision\nWe chose NATS over Kafka for the relay.\n",
    )
    write(
        tmp_path,
        "memory/2026-08-05-vendor-pitch.md",
        "# Session: 2026-08-05 10:00:00 UTC\n\n- **Session Key**: main\n\n"
        "## Conversation Summary\nA vendor pitched a hosted Kafka.\n",
    )
    write(
        tmp_path,
        "sessions/5f1c.jsonl",
        _jsonl(
            [
                {"type": "session", "id": "5f1c"},
                {
                    "type": "message",
                    "timestamp": "2026-08-06T12:00:00Z",
                    "message": {"role": "user", "content": "Is NATS deployed yet?"},
                },
            ]
        ),
    )
    overrides = {**SESSIONS, "timezone": "UTC"}
    with Memory(tmp_path, overrides=overrides) as m:
        report = m.sync()
        assert report.problems == [] and report.files_indexed == 4
        hits = {h.citation: (h.heading, h.date) for h in m.search("NATS", min_score=0.0)}
        assert hits == {
            "memory/2026-08-04.md#L6-L7": ("2026-08-04", "2026-08-04"),
            "sessions/5f1c.jsonl#L2": ("session 5f1c › message 1", "2026-08-06"),
        }
        (pitch,) = m.search("vendor pitched", min_score=0.0)
        assert pitch.heading == "Session: 2026-08-05 10:00:00 UTC"
        assert (pitch.start_line, pitch.date) == (5, "2026-08-05")
        (bob,) = m.search("Bob billing", min_score=0.0)
        assert (bob.citation, bob.heading, bob.date) == (
            "MEMORY.md#L3-L4",
            "Long-term memory",
            None,
        )
        _consistent(m)


def test_smaller_chunks_after_rebuild_have_correct_lines(tmp_path: Path, write: WriteFile) -> None:
    lines = [f"line {i} " + "filler " * 8 + f"marker{i}" for i in range(1, 41)]
    write(tmp_path, "MEMORY.md", "\n".join(lines) + "\n")
    with Memory(tmp_path, overrides={"chunking.tokens": 32, "chunking.overlap": 0}) as m:
        hit = m.search("marker17", min_score=0.0)[0]
        assert hit.start_line <= 17 <= hit.end_line
        assert hit.end_line - hit.start_line < 5
        assert m.get("MEMORY.md", from_line=17, lines=1).text in hit.snippet


def test_case_55_forced_reindex_twice_keeps_chunks_and_picks_up_edits(
    mem: Memory, workspace: Path
) -> None:
    mem.sync()
    count = mem.status()["chunks"]
    assert count > 0
    for _ in range(2):
        report = mem.sync(force=True)
        assert report.full_rebuild is True
        assert report.rebuild_reason == "forced"
        assert mem.status()["chunks"] == count
    (workspace / "MEMORY.md").write_text("# Memory\n\nBeta decision: SQLite it is.\n", "utf-8")
    mem.sync(force=True)
    assert _paths(mem, "Beta", refresh=False) == ["MEMORY.md"]
    assert _paths(mem, "PostgreSQL", refresh=False) == []
    assert _fts_hits(mem, "postgresql") == 0
    _consistent(mem)


def _other_notes(root: Path, write: WriteFile) -> None:
    """A few unrelated notes, as in any real workspace (BM25 needs a corpus to weigh terms)."""
    for i, topic in enumerate(["gardening", "cycling", "baking", "chess", "sailing"]):
        write(root, f"memory/2025-12-0{i + 1}.md", f"# Diary\n\nNotes about {topic} today.\n")


def test_case_61_keyword_search_without_a_provider(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "# Memory\n\nAlpha project kickoff notes.\n")
    _other_notes(tmp_path, write)
    with Memory(tmp_path) as m:
        assert m.settings.min_score == 0.35
        assert m.sync().chunks_written > 0
        assert m.status()["embedding"]["vectors"] == 0
        hits = m.search("Alpha")
        assert len(hits) >= 1
        assert "Alpha" in hits[0].snippet
        assert hits[0].score >= 0.35
        assert len(m.search("nonexistent_xyz_keyword")) == 0


# -- sessions ----------------------------------------------------------------------------------


def _jsonl(records: list[object]) -> str:
    return "\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n"


def _msg(role: str, content: object) -> dict[str, object]:
    return {"type": "message", "message": {"role": role, "content": content}}


SESSIONS = {"sources": ["memory", "sessions"]}


def test_case_79_80_session_transcript_cites_jsonl_lines(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "# Memory\n")
    write(
        tmp_path,
        "sessions/active.jsonl",
        _jsonl(
            [
                {"type": "session", "id": "s1"},
                {"type": "model_change"},
                {"type": "thinking_level_change"},
                _msg("user", "Hello world, remember the pelican"),
                {"type": "custom", "data": {}},
                _msg("assistant", [{"type": "text", "text": "Hi there,\n  noted the pelican"}]),
                _msg("user", [{"type": "text", "text": "Tell me a joke"}]),
            ]
        ),
    )
    archived = _jsonl([_msg("user", "archived heron")])
    write(tmp_path, "sessions/old.jsonl.reset.2026-01-02T03-04-05Z", archived)
    write(tmp_path, "sessions/gone.jsonl.deleted.2026-01-02T03-04-05.123Z", archived)
    write(tmp_path, "sessions/bak.jsonl.bak.2026-01-02T03-04-05Z", archived)
    write(tmp_path, "sessions/sessions.json", "{}")
    write(tmp_path, "sessions/notes.md", "not a transcript heron")
    write(tmp_path, "sessions/nested/deep.jsonl", archived)
    with Memory(tmp_path, overrides=SESSIONS) as m:
        m.sync()
        assert sorted(p for p, r in m.index.file_rows().items() if r.source == "sessions") == [
            "sessions/active.jsonl",
            "sessions/gone.jsonl.deleted.2026-01-02T03-04-05.123Z",
            "sessions/old.jsonl.reset.2026-01-02T03-04-05Z",
        ]
        hit = m.search("pelican", min_score=0.0)[0]
        assert (hit.path, hit.source) == ("sessions/active.jsonl", "sessions")
        assert (hit.start_line, hit.end_line) == (4, 7)
        assert hit.citation == "sessions/active.jsonl#L4-L7"
        assert hit.snippet.splitlines() == [
            "User: Hello world, remember the pelican",
            "Assistant: Hi there, noted the pelican",
            "User: Tell me a joke",
        ]
        assert len(m.search("heron", min_score=0.0)) == 2


def test_case_81_sessions_without_messages_and_with_bad_lines(
    tmp_path: Path, write: WriteFile
) -> None:
    write(tmp_path, "sessions/empty.jsonl", _jsonl([{"type": "session"}, {"type": "custom"}]))
    write(
        tmp_path,
        "sessions/messy.jsonl",
        _jsonl(
            ["", "not json", _msg("user", "flamingo one"), "{", _msg("assistant", "flamingo two")]
        ),
    )
    with Memory(tmp_path, overrides=SESSIONS) as m:
        m.sync()
        rows = m.index.file_rows()
        assert rows["sessions/empty.jsonl"].chunks == 0
        hits = m.search("flamingo", min_score=0.0)
        assert [h.citation for h in hits] == ["sessions/messy.jsonl#L3-L5"]


def test_bad_transcript_lines_are_skipped_with_a_warning_naming_file_and_lines(
    tmp_path: Path, write: WriteFile, caplog: pytest.LogCaptureFixture
) -> None:
    """A NaN timestamp, a line nested too deep and a raw NUL byte (in the first 8 KiB) each
    spoil only their own line: the transcript's other messages and other files are indexed."""
    write(tmp_path, "MEMORY.md", "memory osprey\n")
    good = json.dumps(_msg("user", "the albatross landed"))
    lines = [
        good,
        json.dumps(_msg("assistant", "a petrel too"))[:-2] + '\x00"}',
        '{"type": "message", "timestamp": NaN, "message": {"role": "user", "content": "nan"}}',
        "[" * 50_000 + "]" * 50_000,
        json.dumps({**_msg("assistant", "and a cormorant"), "timestamp": 1e300}),
        '{"type": "message", "timestamp": 1e400, "message": {"role": "user", "content": "tern"}}',
    ]
    write(tmp_path, "sessions/messy.jsonl", ("\n".join(lines) + "\n").encode())
    write(tmp_path, "sessions/clean.jsonl", _jsonl([_msg("user", "a clean puffin")]))
    with Memory(tmp_path, overrides=SESSIONS) as m:
        report = m.sync()
        problems = {p.path: (p.kind, p.message) for p in report.problems}
        assert problems == {
            "sessions/messy.jsonl": ("bad-lines", "lines 2, 3, 4 are not valid JSON; skipped")
        }
        assert any(
            "sessions/messy.jsonl" in r.getMessage() and "lines 2, 3, 4" in r.getMessage()
            for r in caplog.records
        )
        assert [h.citation for h in m.search("albatross", min_score=0.0)] == [
            "sessions/messy.jsonl#L1-L6"
        ]
        assert m.search("cormorant", min_score=0.0)[0].path == "sessions/messy.jsonl"
        assert m.search("tern", min_score=0.0)[0].path == "sessions/messy.jsonl"
        assert m.search("petrel", min_score=0.0).results == ()
        assert _paths(m, "puffin") == ["sessions/clean.jsonl"]
        assert _paths(m, "osprey") == ["MEMORY.md"]
        assert {p.path for p in m.index.problems()} == {"sessions/messy.jsonl"}


def test_session_only_source_and_sessions_dir_outside(tmp_path: Path, write: WriteFile) -> None:
    ws = tmp_path / "ws"
    write(ws, "MEMORY.md", "memorymarker\n")
    write(tmp_path, "transcripts/t.jsonl", _jsonl([_msg("user", "outside toucan")]))
    overrides = {"sources": ["sessions"], "sessions.dir": str(tmp_path / "transcripts")}
    with Memory(ws, overrides=overrides) as m:
        assert [h.citation for h in m.search("toucan", min_score=0.0)] == ["sessions/t.jsonl#L1"]
        assert m.search("memorymarker", min_score=0.0).results == ()
        assert _paths(m, "toucan", sources=["memory"]) == []


def test_session_edit_and_removal_follow_the_file(tmp_path: Path, write: WriteFile) -> None:
    path = write(tmp_path, "sessions/a.jsonl", _jsonl([_msg("user", "first gecko")]))
    # Any growth is indexed at the next search (see tests/sessions/test_delta.py for less).
    with Memory(tmp_path, overrides={**SESSIONS, "sessions.delta_bytes": 0}) as m:
        assert _paths(m, "gecko") == ["sessions/a.jsonl"]
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(_msg("assistant", "second iguana")) + "\n")
        assert [h.citation for h in m.search("iguana", min_score=0.0)] == ["sessions/a.jsonl#L1-L2"]
        path.unlink()
        assert _paths(m, "gecko") == []
        assert m.index.file_rows() == {}


def test_missing_sessions_folder_is_reported(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "x\n")
    with Memory(tmp_path, overrides=SESSIONS) as m:
        problems = {p.path: p.kind for p in m.sync().problems}
        assert problems == {"sessions": "missing"}


def test_case_62_fresher_session_fact_ranks_first(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "MEMORY.md", "# Memory\n\nProject Nebula codename is ORBIT-9.\n")
    _other_notes(tmp_path, write)
    write(
        tmp_path,
        "sessions/s.jsonl",
        _jsonl([_msg("user", "Project Nebula codename is now ORBIT-10 as of today")]),
    )
    with Memory(tmp_path, overrides=SESSIONS) as m:
        top = m.search("current Project Nebula codename ORBIT-10")[0]
        assert top.source == "sessions"
        assert "ORBIT-10" in top.snippet


def test_case_63_empty_index_first_search_bootstraps(tmp_path: Path, write: WriteFile) -> None:
    write(tmp_path, "sessions/s.jsonl", _jsonl([_msg("assistant", "the answer is kookaburra")]))
    _other_notes(tmp_path, write)
    index_path = tmp_path / ".memdir" / "index.sqlite"
    with Memory(tmp_path, overrides=SESSIONS) as m:
        assert m.status()["chunks"] == 0
        hits = m.search("kookaburra")
        assert [(h.path, h.source) for h in hits] == [("sessions/s.jsonl", "sessions")]
    conn = sqlite3.connect(index_path)
    try:
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 6
    finally:
        conn.close()


def test_sync_reports_progress_phases(mem: Memory) -> None:
    seen: list[tuple[str, int, int]] = []
    mem.sync(progress=lambda phase, done, total: seen.append((phase, done, total)))
    assert ("scan", 4, 4) in seen
    assert ("index", 4, 4) in seen
