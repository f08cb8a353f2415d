"""memdir.writer: append-only, one note per write, safe with concurrent writers and crashes."""

from __future__ import annotations

import multiprocessing
import multiprocessing.process
import os
import signal
import time
from pathlib import Path

import pytest

from memdir.errors import StorageError, UsageError
from memdir.writer import LOCK_NAME, append_note, exclusive_lock, replace_text

_PAD = "x" * 200  # long enough that an interleaved write would show


def _write_notes(target: Path, writer: str, count: int) -> None:
    """In a child process: append ``count`` numbered notes, one write each."""
    for n in range(count):
        append_note(target, f"- writer {writer} note {n:04d} {_PAD} end")


def _process(target: Path, writer: str, count: int) -> multiprocessing.process.BaseProcess:
    # fork where available: the child starts with memdir imported (a fresh interpreter per
    # writer spends seconds importing on a small machine); still one OS process per writer.
    args = (target, writer, count)
    if "fork" in multiprocessing.get_all_start_methods():
        proc: multiprocessing.process.BaseProcess = multiprocessing.get_context("fork").Process(
            target=_write_notes, args=args
        )
    else:
        proc = multiprocessing.get_context("spawn").Process(target=_write_notes, args=args)
    proc.start()
    return proc


def test_new_file_gets_header_then_notes_separated_by_a_blank_line(tmp_path: Path) -> None:
    target = tmp_path / "memory" / "2026-01-12.md"
    first = append_note(target, "- first", header="# 2026-01-12\n\n")
    second = append_note(target, "- second\n- and more\n")
    assert target.read_text() == "# 2026-01-12\n\n- first\n\n- second\n- and more\n"
    assert (first.created, first.start_line, first.end_line) == (True, 3, 3)
    assert (second.created, second.start_line, second.end_line) == (False, 5, 6)
    assert second.size == target.stat().st_size
    assert (tmp_path / "memory" / LOCK_NAME).exists()


def test_never_rewrites_existing_text(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    original = "# Notes\n\nhand-written line\n\n\n"
    target.write_text(original)
    append_note(target, "- appended")
    assert target.read_text() == original + "- appended\n"


def test_a_cut_short_last_line_is_never_glued_to_the_next_note(tmp_path: Path) -> None:
    target = tmp_path / "notes.md"
    target.write_bytes(b"- complete note\n\n- a note cut short by a cra")  # no final newline
    result = append_note(target, "- next note")
    assert target.read_text() == "- complete note\n\n- a note cut short by a cra\n\n- next note\n"
    assert result.start_line == 5


def test_leading_indentation_is_kept_and_trailing_blank_lines_dropped(tmp_path: Path) -> None:
    target = tmp_path / "n.md"
    append_note(target, "\n\n    indented code\n\n\n")
    assert target.read_text() == "    indented code\n"


@pytest.mark.parametrize("text", ["", "\n\n", "   \n\t"])
def test_empty_notes_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(UsageError):
        append_note(tmp_path / "n.md", text)
    assert not (tmp_path / "n.md").exists()


def test_refuses_to_follow_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("keep me\n")
    link = tmp_path / "memory" / "2026-01-12.md"
    link.parent.mkdir()
    link.symlink_to(victim)
    with pytest.raises(StorageError):
        append_note(link, "- injected")
    assert victim.read_text() == "keep me\n"


def test_refuses_a_hard_link_unless_allowed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    target = tmp_path / "memory" / "2026-01-12.md"
    target.parent.mkdir()
    os.link(outside, target)
    with pytest.raises(StorageError, match="2 hard links"):
        append_note(target, "- injected")
    assert outside.read_text() == "keep me\n"
    append_note(target, "- allowed", allow_hardlinks=True)
    assert outside.read_text().endswith("- allowed\n")


def test_refuses_a_folder_or_fifo(tmp_path: Path) -> None:
    (tmp_path / "dir.md").mkdir()
    with pytest.raises(StorageError):
        append_note(tmp_path / "dir.md", "- x")
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(StorageError, match="not a regular file"):
        append_note(fifo, "- x")


def test_waits_for_the_lock_then_gives_up_with_a_clear_error(tmp_path: Path) -> None:
    from memdir.index.lock import WriterLock

    holder = WriterLock(tmp_path / LOCK_NAME)
    assert holder.acquire(timeout=1)
    try:
        started = time.monotonic()
        with pytest.raises(StorageError, match="locked by another writer"):
            append_note(tmp_path / "n.md", "- x", lock_wait_s=0.3)
        assert time.monotonic() - started >= 0.3
    finally:
        holder.release()
    assert append_note(tmp_path / "n.md", "- x").created


def test_concurrent_processes_lose_and_interleave_nothing(tmp_path: Path) -> None:
    target = tmp_path / "memory" / "2026-01-12.md"
    writers, count = 6, 50
    procs = [_process(target, str(w), count) for w in range(writers)]
    for proc in procs:
        proc.join(timeout=60)
    assert [proc.exitcode for proc in procs] == [0] * writers
    lines = [line for line in target.read_text().split("\n") if line]
    assert len(lines) == writers * count
    expected = {
        f"- writer {w} note {n:04d} {_PAD} end" for w in range(writers) for n in range(count)
    }
    assert set(lines) == expected
    for w in range(writers):  # each writer's notes stay in its own order
        mine = [line for line in lines if line.startswith(f"- writer {w} ")]
        assert mine == sorted(mine)


def test_a_killed_writer_leaves_earlier_notes_intact(tmp_path: Path) -> None:
    target = tmp_path / "n.md"
    append_note(target, "- before the crash")
    proc = _process(target, "k", 100_000)
    deadline = time.monotonic() + 10
    while target.stat().st_size < 20_000 and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.kill()
    proc.join(timeout=10)
    assert proc.exitcode == -signal.SIGKILL
    append_note(target, "- after the crash")
    lines = target.read_text().split("\n")
    assert lines[0] == "- before the crash"
    assert lines[-2:] == ["- after the crash", ""]
    body = [line for line in lines[1:-2] if line]
    # Every note but possibly the last one is whole (a SIGKILL lands between writes).
    assert all(line.endswith(" end") for line in body[:-1])


# -- replace_text: the one rewrite (consolidation) ----------------------------------------------
def test_replace_text_swaps_the_whole_file_and_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("# Memory\n- old\n", encoding="utf-8")
    target.chmod(0o600)
    before = target.stat().st_ino
    replace_text(target, "# Memory\n- old\n- new\n", expected="# Memory\n- old\n")
    assert target.read_text(encoding="utf-8") == "# Memory\n- old\n- new\n"
    assert target.stat().st_mode & 0o777 == 0o600
    assert target.stat().st_ino != before  # a new file renamed over the old one
    assert sorted(p.name for p in tmp_path.iterdir()) == [LOCK_NAME, "MEMORY.md"]  # no temp left


def test_replace_text_refuses_a_file_that_changed_since_it_was_read(tmp_path: Path) -> None:
    target = tmp_path / "MEMORY.md"
    target.write_text("- edited meanwhile\n", encoding="utf-8")
    with pytest.raises(StorageError, match="changed since it was read"):
        replace_text(target, "- mine\n", expected="- what I read\n")
    with pytest.raises(StorageError, match="changed since it was read"):
        replace_text(target, "- mine\n", expected=None)  # expected no file at all
    assert target.read_text(encoding="utf-8") == "- edited meanwhile\n"
    replace_text(tmp_path / "new.md", "- first\n", expected=None)
    assert (tmp_path / "new.md").read_text(encoding="utf-8") == "- first\n"


def test_replace_text_refuses_symlinks_and_hard_links_and_waits_for_the_lock(
    tmp_path: Path,
) -> None:
    real = tmp_path / "real.md"
    real.write_text("- a\n", encoding="utf-8")
    link = tmp_path / "MEMORY.md"
    link.symlink_to(real)
    with pytest.raises(StorageError, match="cannot open"):
        replace_text(link, "- b\n", expected="- a\n")
    hard = tmp_path / "hard.md"
    os.link(real, hard)
    with pytest.raises(StorageError, match="hard links"):
        replace_text(hard, "- b\n", expected="- a\n")
    with exclusive_lock(tmp_path / LOCK_NAME), pytest.raises(StorageError, match="locked"):
        replace_text(real, "- b\n", expected="- a\n", lock_wait_s=0.05)
    assert real.read_text(encoding="utf-8") == "- a\n"
