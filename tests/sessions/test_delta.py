"""Indexing transcripts as upstream does (spec §4.5): a transcript being appended to is indexed
again by searches, :meth:`Memory.refresh` and the watcher only once it has grown by
``sessions.delta_bytes`` or ``sessions.delta_messages``, or after ``sessions.debounce_ms`` of
quiet; ``Memory.sync()`` and ``memdir index`` index every change. Session hits name the session
and its messages, ``memory_get`` reads them, and Claude Code transcripts are indexed too."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memdir import Memory
from memdir.cli import cli
from memdir.index import SessionDelta
from memdir.index.store import FileRow
from memdir.tools import MemoryTools
from memdir.workspace import SourceFile

from .conftest import MakeMemory
from .test_transcript import CLAUDE_CODE, SESSION

SESSIONS = {"sources": ["memory", "sessions"]}
KEY = "sk-proj-4f9Qx7LmZ2pR8tVb3nKc6WdYhJ1sA0eU"


def _line(role: str, text: str) -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": text}}) + "\n"


def _append(path: Path, *texts: str, age_s: float = 0.0) -> None:
    """Append one user message per text; ``age_s`` dates the file's mtime that far back."""
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(_line("user", t) for t in texts)
    if age_s:
        past = time.time() - age_s
        os.utime(path, (past, past))


def _found(mem: Memory, word: str, **kwargs: Any) -> list[str]:
    return [h.citation for h in mem.search(word, min_score=0.0, **kwargs).results]


@pytest.fixture
def transcript(ws: Path) -> Path:
    path = ws / "sessions" / "abc.jsonl"
    path.parent.mkdir()
    path.write_text(_line("user", "first gecko") + _line("assistant", "noted gecko"), "utf-8")
    return path


# -- the decision ------------------------------------------------------------------------------
def _row(size: int) -> FileRow:
    return FileRow("sessions/a.jsonl", "sessions", "h", size, 0, 1, 0)


def _file(tmp_path: Path, data: bytes, *, source: str = "sessions", age_ms: int = 0) -> SourceFile:
    path = tmp_path / "a.jsonl"
    path.write_bytes(data)
    mtime = time.time_ns() - age_ms * 1_000_000
    return SourceFile("sessions/a.jsonl", str(path), source, len(data), mtime)


def test_delta_thresholds_bytes_messages_and_quiet(tmp_path: Path) -> None:
    base = b"x" * 100 + b"\n"
    delta = SessionDelta(bytes=1000, messages=3, debounce_ms=5000)
    grown = _file(tmp_path, base + b"a\nb\n")  # 4 bytes, 2 lines since: below both
    assert delta.defers(_row(len(base)), grown)
    assert not delta.defers(_row(len(base)), _file(tmp_path, base + b"a\nb\nc\n"))  # 3 lines
    assert not delta.defers(_row(len(base)), _file(tmp_path, base + b"y" * 1000))  # 1000 bytes
    assert not delta.defers(_row(len(base)), _file(tmp_path, base + b"a\n", age_ms=5000))  # quiet
    # Not a transcript growing: indexed as any file is.
    assert not delta.defers(None, grown)  # not indexed yet
    assert not delta.defers(_row(len(base) + 50), grown)  # shrank: rewritten or rotated
    assert not delta.defers(_row(grown.size), grown)  # same size, other content
    assert not delta.defers(_row(len(base)), _file(tmp_path, base + b"a\n", source="memory"))
    # The lines are counted in the bytes past what was indexed, not in the whole file.
    assert delta.defers(_row(len(base)), _file(tmp_path, b"\n" * 100 + b"\n" + b"a\n"))


def test_thresholds_of_zero(tmp_path: Path) -> None:
    base = b"x\n"
    grown = _file(tmp_path, base + b"a\nb\nc\nd\n")
    assert not SessionDelta(bytes=0, messages=50).defers(_row(len(base)), grown)  # any growth
    # 0 messages turns the count off: only bytes (or quiet) decide.
    assert SessionDelta(bytes=1000, messages=0).defers(_row(len(base)), grown)
    assert not SessionDelta(bytes=1000, messages=0, debounce_ms=0).defers(_row(len(base)), grown)


# -- incremental syncs, explicit syncs, restarts -----------------------------------------------
def test_a_growing_transcript_waits_for_the_thresholds(
    make_memory: MakeMemory, transcript: Path
) -> None:
    mem = make_memory(**SESSIONS, **{"sessions.delta_messages": 3})
    assert _found(mem, "gecko") == ["sessions/abc.jsonl#L1-L2"]
    _append(transcript, "iguana one", "iguana two")  # 2 lines: below 3 and just written
    assert _found(mem, "iguana") == []
    report = mem._last_report
    assert report is not None and report.files_deferred == 1
    assert report.deferred == ["sessions/abc.jsonl"] and not report.changed
    assert _found(mem, "gecko") == ["sessions/abc.jsonl#L1-L2"]  # as it was indexed
    _append(transcript, "iguana three")  # 3 lines since it was indexed
    assert _found(mem, "iguana") == ["sessions/abc.jsonl#L1-L5"]
    assert mem._last_report is not None and mem._last_report.files_deferred == 0


def test_bytes_threshold(make_memory: MakeMemory, transcript: Path) -> None:
    mem = make_memory(**SESSIONS, **{"sessions.delta_bytes": "1kb"})
    mem.sync()
    _append(transcript, "short wombat")
    assert _found(mem, "wombat") == []
    _append(transcript, "long wombat " + "w" * 1100)
    assert _found(mem, "wombat") == ["sessions/abc.jsonl#L1-L4"]


def test_refresh_after_each_message_defers_too(make_memory: MakeMemory, transcript: Path) -> None:
    """What :class:`memdir.Session` does after writing: a targeted refresh of the file."""
    mem = make_memory(**SESSIONS)
    mem.sync()
    _append(transcript, "targeted axolotl")
    assert mem.refresh(paths=[transcript]) == []
    assert mem._last_report is not None and mem._last_report.deferred == ["sessions/abc.jsonl"]
    assert _found(mem, "axolotl", refresh=False) == []


def test_quiet_for_debounce_ms_indexes_it(make_memory: MakeMemory, transcript: Path) -> None:
    mem = make_memory(**SESSIONS, **{"sessions.debounce_ms": 2000})
    mem.sync()
    _append(transcript, "quiet narwhal", age_s=1.0)
    assert _found(mem, "narwhal") == []
    os.utime(transcript, (time.time() - 2.5, time.time() - 2.5))
    assert _found(mem, "narwhal") == ["sessions/abc.jsonl#L1-L3"]


def test_explicit_sync_always_indexes(make_memory: MakeMemory, transcript: Path, ws: Path) -> None:
    mem = make_memory(**SESSIONS)
    mem.sync()
    _append(transcript, "explicit okapi")
    assert _found(mem, "okapi") == []
    report = mem.sync()
    assert report.files_indexed == 1 and report.files_deferred == 0
    assert _found(mem, "okapi", refresh=False) == ["sessions/abc.jsonl#L1-L3"]
    _append(transcript, "cli tapir")
    result = CliRunner().invoke(
        cli,
        [
            *("-w", str(ws), "--set", 'sources=["memory","sessions"]'),
            *("--set", "embedding.provider=none", "index", "--json"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["files_indexed"] == 1
    assert _found(mem, "tapir", refresh=False) == ["sessions/abc.jsonl#L1-L4"]


def test_the_decision_survives_a_restart(make_memory: MakeMemory, transcript: Path) -> None:
    overrides = {**SESSIONS, "sessions.delta_messages": 3}
    make_memory(**overrides).sync()
    _append(transcript, "restart ibis one", "restart ibis two")
    later = make_memory(**overrides)  # a new process: what was indexed is in the files table
    assert _found(later, "ibis") == []
    assert later.index.file_rows()["sessions/abc.jsonl"].size < transcript.stat().st_size
    _append(transcript, "restart ibis three")
    assert _found(make_memory(**overrides), "ibis") == ["sessions/abc.jsonl#L1-L5"]


def test_a_rebuild_indexes_a_deferred_transcript(make_memory: MakeMemory, transcript: Path) -> None:
    mem = make_memory(**SESSIONS)
    mem.sync()
    _append(transcript, "rebuilt dugong")
    assert _found(mem, "dugong") == []
    assert make_memory(**SESSIONS, **{"chunking.tokens": 300}).search("dugong", min_score=0.0)


def test_memory_files_are_not_held_back(make_memory: MakeMemory, ws: Path) -> None:
    mem = make_memory(**SESSIONS, **{"sessions.delta_bytes": 10**9})
    (ws / "sessions").mkdir()
    mem.sync()
    note = ws / "memory" / "notes.md"
    note.write_text("first capybara\n", encoding="utf-8")
    assert _found(mem, "capybara") == ["memory/notes.md#L1"]
    note.write_text("first capybara\nsecond marmot\n", encoding="utf-8")
    assert _found(mem, "marmot") == ["memory/notes.md#L1-L2"]


# -- the watcher -------------------------------------------------------------------------------
def test_the_watcher_defers_then_indexes_after_the_quiet_time(
    make_memory: MakeMemory, transcript: Path
) -> None:
    mem = make_memory(
        **SESSIONS,
        **{"sessions.debounce_ms": 1500, "sync.watch_debounce_ms": 50, "sync.rescan_interval_s": 0},
    )
    mem.sync()
    synced: list[tuple[float, list[str], int]] = []
    seen = threading.Condition()

    def on_sync(report: Any) -> None:
        with seen:
            synced.append((time.monotonic(), list(report.deferred), report.files_indexed))
            seen.notify_all()

    mem.start_watching(on_sync=on_sync)
    with seen:  # the first (full) sync of a started watcher
        assert seen.wait_for(lambda: synced, timeout=5)
    _append(transcript, "watched pelican")
    written = time.monotonic()
    with seen:
        assert seen.wait_for(lambda: any(s[1] for s in synced), timeout=5)
    assert _found(mem, "pelican", refresh=False) == []  # the watcher saw it and deferred it
    with seen:
        assert seen.wait_for(lambda: synced[-1][2] == 1, timeout=6)
    assert synced[-1][0] - written >= 1.4  # only once the file had been quiet long enough
    assert _found(mem, "pelican", refresh=False) == ["sessions/abc.jsonl#L1-L3"]
    mem.stop_watching()


# -- what a session hit says, and memory_get -----------------------------------------------------
def test_a_session_hit_names_the_session_and_its_messages(
    make_memory: MakeMemory, transcript: Path
) -> None:
    _append(transcript, "the heron nests by the weir", "heron count is 12")
    # Chunks of 20 tokens: messages 1-3 in one (JSONL lines 1-3), message 4 in the next.
    mem = make_memory(**SESSIONS, **{"chunking.tokens": 20, "chunking.overlap": 0})
    hits = mem.search("heron", min_score=0.0).results
    assert {(h.citation, h.heading) for h in hits} == {
        ("sessions/abc.jsonl#L1-L3", "session abc › messages 1–3"),
        ("sessions/abc.jsonl#L4", "session abc › message 4"),
    }
    first = next(h for h in hits if h.start_line == 1)
    got = mem.get(first.citation)
    assert got.text == (
        "User: first gecko\nAssistant: noted gecko\nUser: the heron nests by the weir"
    )
    assert (got.from_line, got.to_line) == (1, 3)
    tools = MemoryTools(mem)
    found = tools.call("memory_search", {"query": "heron", "minScore": 0}).payload["results"]
    assert {(r["citation"], r["heading"]) for r in found} == {(h.citation, h.heading) for h in hits}
    result = tools.call("memory_get", {"path": "sessions/abc.jsonl", "from": 1, "lines": 3})
    assert not result.is_error, result.payload
    assert result.payload["text"] == got.text
    result = tools.call("memory_get", {"path": "sessions/abc.jsonl", "from": 4})
    assert result.payload["text"] == "User: heron count is 12"


# -- Claude Code transcripts in the sessions folder ----------------------------------------------
def test_a_claude_code_transcript_in_sessions_is_searchable(
    make_memory: MakeMemory, ws: Path
) -> None:
    folder = ws / "sessions"
    folder.mkdir()
    secret = CLAUDE_CODE.replace("deploy is on Tuesday.", f"deploy key is {KEY} on Tuesday.")
    (folder / f"{SESSION}.jsonl").write_text(secret, encoding="utf-8")
    mem = make_memory(**SESSIONS)
    report = mem.sync()
    assert report.files_indexed == 1 and report.problems == []
    [hit] = mem.search("PostgreSQL billing", min_score=0.0).results
    assert hit.path == f"sessions/{SESSION}.jsonl" and hit.source == "sessions"
    assert hit.heading == f"session {SESSION} › messages 1–5"
    lines = secret.split("\n")
    assert hit.start_line == 3 and "Which database" in lines[2]
    assert hit.end_line == len(lines) - 1 and "Tuesday" in lines[-2]
    got = mem.get(hit.citation).text.split("\n")
    assert got == [
        "User: Which database did we pick for billing?",
        "Assistant: Let me check the notes.",
        "Assistant: You chose PostgreSQL.",
        "User: /model opus",
        "User: Thanks, and the deploy key is [REDACTED:openai_api_key] on Tuesday.",
    ]
    # Tool results, notes Claude Code adds, sub-agents and the compaction summary stay out.
    for word in ("Caveat", "Sub-agent", "continued", "notes.md"):
        assert mem.search(word, min_score=0.0).results == (), word
    assert mem.search(KEY, min_score=0.0).results == ()
