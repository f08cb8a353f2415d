"""memory_write: targets, time zone, limits, scopes, symlinks, searchable at once, concurrency."""

from __future__ import annotations

import json
import multiprocessing
import multiprocessing.process
import os
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memdir.config import load_config
from memdir.tools import MemoryTools
from memdir.tools.write import today

from .helpers import Call


def _today(ws: Path) -> str:
    return today(load_config(ws)).isoformat()


def test_daily_is_the_default(ws: Path, call: Call) -> None:
    day = _today(ws)
    payload, is_error = call("memory_write", {"content": "- Alice moved the standup to 10:30"})
    assert not is_error, payload
    assert payload == {
        "path": f"memory/{day}.md",
        "target": "daily",
        "created": True,
        "bytes_written": len(f"# {day}\n\n- Alice moved the standup to 10:30\n"),
        "start_line": 3,
        "end_line": 3,
        "citation": f"memory/{day}.md#L3",
        "warnings": [],
    }
    text = (ws / "memory" / f"{day}.md").read_text()
    assert text == f"# {day}\n\n- Alice moved the standup to 10:30\n"


@pytest.mark.parametrize(
    ("zone", "instant", "day"),
    [
        ("America/New_York", datetime(2026, 2, 16, 15, 0, tzinfo=UTC), "2026-02-16"),
        ("America/New_York", datetime(2026, 2, 16, 3, 0, tzinfo=UTC), "2026-02-15"),
        ("Asia/Tokyo", datetime(2026, 2, 16, 20, 0, tzinfo=UTC), "2026-02-17"),
        ("UTC", datetime(2026, 2, 16, 23, 59, tzinfo=UTC), "2026-02-16"),
    ],
)
def test_the_date_is_taken_in_the_configured_time_zone(
    ws: Path, zone: str, instant: datetime, day: str
) -> None:
    config = load_config(ws, overrides={"timezone": zone})
    assert today(config, now=instant).isoformat() == day


def test_the_tool_uses_the_time_zone(ws: Path, open_tools: Callable[..., MemoryTools]) -> None:
    for zone in ("Pacific/Kiritimati", "Etc/GMT+12"):  # 26 hours apart: never the same day
        tools = open_tools(overrides={"timezone": zone})
        payload = tools.call("memory_write", {"content": f"- from {zone}"}).payload
        assert payload["path"] == f"memory/{today(tools.memory.config).isoformat()}.md"
    assert len(list((ws / "memory").glob("20*.md"))) == 3  # 2026-01-12 plus two new days


def test_long_term_appends_to_memory_md(ws: Path, call: Call) -> None:
    before = (ws / "MEMORY.md").read_text()
    payload, _ = call("memory_write", {"content": "- Prefers tea", "target": "long_term"})
    assert payload["path"] == "MEMORY.md" and payload["start_line"] == 5
    assert (ws / "MEMORY.md").read_text() == before + "\n- Prefers tea\n"


def test_long_term_uses_a_lowercase_memory_md_when_that_is_the_one(
    ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    (ws / "MEMORY.md").rename(ws / "memory.md")
    payload = open_tools().call("memory_write", {"content": "- x", "target": "long_term"}).payload
    assert payload["path"] == "memory.md"
    assert not (ws / "MEMORY.md").exists()


def test_an_agent_writes_in_its_own_folder(ws: Path, call: Call) -> None:
    day = _today(ws)
    daily, _ = call("memory_write", {"content": "- daily"}, agent_id="alice")
    assert daily["path"] == f"memory/agents/alice/{day}.md"
    long_term, _ = call(
        "memory_write", {"content": "- lt", "target": "long_term"}, agent_id="alice"
    )
    assert long_term["path"] == "memory/agents/alice/MEMORY.md"
    assert (ws / "memory/agents/alice/MEMORY.md").read_text().endswith("fact\n\n- lt\n")
    assert daily["path"] in _found(call, "daily", agent_id="alice")
    assert daily["path"] not in _found(call, "daily", agent_id="bob")


def test_group_scope_cannot_write_long_term(ws: Path, call: Call) -> None:
    before = (ws / "MEMORY.md").read_text()
    payload, is_error = call(
        "memory_write", {"content": "- leak", "target": "long_term"}, scope="group"
    )
    assert is_error and payload["code"] == "scope-long-term"
    assert (ws / "MEMORY.md").read_text() == before
    payload, is_error = call("memory_write", {"content": "- fine"}, scope="group")
    assert not is_error and payload["target"] == "daily"


def _found(call: Call, query: str, **context: object) -> set[str]:
    payload, _ = call("memory_search", {"query": query, "minScore": 0}, **context)
    return {hit["path"] for hit in payload["results"]}


def test_searchable_at_once_even_with_a_watcher(call: Call, tools: MemoryTools) -> None:
    tools.memory.start_watching()
    assert _found(call, "capybara") == set()  # the watcher now vouches nothing changed
    payload, _ = call("memory_write", {"content": "- The capybara budget was approved"})
    assert _found(call, "capybara") == {payload["path"]}
    # Another process reading the index without syncing sees it too.
    from memdir import Memory

    with Memory(tools.memory.config.workspace) as other:
        assert other.search("capybara", refresh=False, min_score=0).results


@pytest.mark.parametrize(
    ("arguments", "code", "fragment"),
    [
        ({}, "invalid_arguments", "content is required"),
        ({"content": ""}, "invalid_arguments", "content is required"),
        ({"content": " \n\t\n"}, "invalid_arguments", "content is required"),
        ({"content": ["a"]}, "invalid_arguments", "content must be a string"),
        ({"content": "a\x00b"}, "invalid_arguments", "NUL"),
        ({"content": "\ud800"}, "invalid_arguments", "not valid Unicode"),
        ({"content": "x", "target": "MEMORY.md"}, "invalid_arguments", "daily, long_term"),
        ({"content": "x", "path": "a.md"}, "invalid_arguments", "unknown argument(s) path"),
        ({"content": "é" * 9000}, "too_large", "18000 bytes; the limit is 16384"),
    ],
)
def test_bad_notes_are_refused_and_nothing_is_written(
    ws: Path, call: Call, arguments: dict[str, object], code: str, fragment: str
) -> None:
    payload, is_error = call("memory_write", arguments)
    assert is_error and payload["code"] == code
    assert fragment in payload["error"]
    assert not (ws / "memory" / f"{_today(ws)}.md").exists()


def test_the_size_limit_is_a_setting(open_tools: Callable[..., MemoryTools]) -> None:
    tools = open_tools(overrides={"tools.write_max_bytes": 10})
    assert tools.call("memory_write", {"content": "0123456789"}).is_error is False
    assert tools.call("memory_write", {"content": "0123456789a"}).payload["code"] == "too_large"


def test_symlinks_on_the_way_are_refused(ws: Path, tmp_path: Path, call: Call) -> None:
    day = _today(ws)
    (ws / "memory" / f"{day}.md").symlink_to(ws / "MEMORY.md")
    before = (ws / "MEMORY.md").read_text()
    payload, is_error = call("memory_write", {"content": "- x"}, scope="group")
    assert is_error and payload["code"] == "symlink"
    assert (ws / "MEMORY.md").read_text() == before
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (ws / "memory" / "agents" / "eve").symlink_to(elsewhere, target_is_directory=True)
    payload, is_error = call("memory_write", {"content": "- x"}, agent_id="eve")
    assert is_error and payload["code"] == "symlink"
    assert list(elsewhere.iterdir()) == []


def test_a_hard_link_to_a_file_outside_is_not_written(ws: Path, tmp_path: Path, call: Call) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret\n")
    os.link(outside, ws / "memory" / f"{_today(ws)}.md")
    payload, is_error = call("memory_write", {"content": "- x"})
    assert is_error and payload["code"] == "write_failed"
    assert "hard links" in payload["error"]
    assert outside.read_text() == "secret\n"


def test_a_file_over_the_index_limit_gets_a_warning(
    ws: Path, open_tools: Callable[..., MemoryTools]
) -> None:
    tools = open_tools(overrides={"limits.max_file_bytes": 100})
    payload = tools.call("memory_write", {"content": "- " + "x" * 120}).payload
    assert any("will not be indexed" in w for w in payload["warnings"])


def _write_notes(ws: str, writer: int, count: int) -> None:
    """In a child process: its own MemoryTools, ``count`` memory_write calls."""
    with MemoryTools.open(ws, overrides={"embedding.provider": "none"}) as tools:
        for n in range(count):
            result = tools.call("memory_write", {"content": f"- writer {writer} note {n:03d} end"})
            if result.is_error:
                raise SystemExit(json.dumps(result.payload))


def _start(ws: Path, writer: int, count: int) -> multiprocessing.process.BaseProcess:
    # fork starts each writer with memdir already imported (a fresh interpreter spends seconds
    # importing on a small machine); spawn when fork is unavailable or threads are running.
    args = (str(ws), writer, count)
    if "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1:
        proc: multiprocessing.process.BaseProcess = multiprocessing.get_context("fork").Process(
            target=_write_notes, args=args
        )
    else:
        proc = multiprocessing.get_context("spawn").Process(target=_write_notes, args=args)
    proc.start()
    return proc


@pytest.mark.timeout(120)
def test_concurrent_writers_lose_and_interleave_nothing(ws: Path, call: Call) -> None:
    writers, count = 6, 50
    procs = [_start(ws, w, count) for w in range(writers)]
    for proc in procs:
        proc.join(timeout=110)
    assert [proc.exitcode for proc in procs] == [0] * writers
    text = (ws / "memory" / f"{_today(ws)}.md").read_text()
    notes = [line for line in text.split("\n") if line.startswith("- ")]
    expected = {f"- writer {w} note {n:03d} end" for w in range(writers) for n in range(count)}
    assert len(notes) == writers * count and set(notes) == expected
    assert text.startswith(f"# {_today(ws)}\n\n") and text.count("\n\n\n") == 0
    # The last note is searchable at once: a result covers its line. (With minScore 0 other
    # chunks and a short file that happens to contain "5" are legitimate, weaker matches.)
    payload, _ = call("memory_search", {"query": "writer 5 note 049", "minScore": 0})
    line = text.split("\n").index("- writer 5 note 049 end") + 1
    assert any(
        hit["path"] == f"memory/{_today(ws)}.md" and hit["start_line"] <= line <= hit["end_line"]
        for hit in payload["results"]
    )
