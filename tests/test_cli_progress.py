"""Watching and interrupting a long `memdir index` (issue #10, item 3).

A real loopback server speaking the OpenAI embeddings protocol stands in for the provider; it
is slowed down per request so the embedding pass takes several visible batches. `memdir` runs
in subprocesses: Ctrl-C is a real SIGINT, and `status` and `search` really run beside a fill.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import suppress
from pathlib import Path

import pytest
from click.testing import CliRunner

import memdir.cli as cli_module
from embed.fakes import FakeServer, Reply, Seen, openai_reply
from memdir import Memory
from memdir.cli import cli
from memdir.index.lock import WriterLock

WriteFile = Callable[..., Path]
BATCH = 64  # fill_vectors' batch size: one request per batch for these short chunks
WAIT_S = 120  # bounds a hang only


@pytest.fixture
def big_ws(tmp_path: Path, write: WriteFile) -> Path:
    """150 notes of one short paragraph each (one chunk each), every one distinct."""
    ws = tmp_path / "big"
    for i in range(150):
        write(ws, f"memory/note-{i:03d}.md", f"Note {i}: the word of the day is token{i}x.\n")
    return ws


def _sets(url: str) -> list[str]:
    sets = {
        "embedding.provider": "openai-compatible",
        "embedding.base_url": url,
        "embedding.model": "fake-4",
        "embedding.timeout_s": 60,
    }
    return [arg for key, value in sets.items() for arg in ("--set", f"{key}={value}")]


def _memdir(args: Sequence[str]) -> list[str]:
    return [sys.executable, "-m", "memdir", *args]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONIOENCODING": "utf-8"}


def _start_index(ws: Path, server: FakeServer) -> subprocess.Popen[str]:
    """``memdir index`` on ``ws`` against ``server``, as a process the test can signal."""
    return subprocess.Popen(
        _memdir(["index", "-w", str(ws), *_sets(server.url)]),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        # A job started in the background (`.ci/run &`) inherits SIGINT ignored, and Python
        # then installs no Ctrl-C handler: give the child the terminal's default back.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _slow(delay_s: float) -> Callable[[Seen], Reply]:
    return lambda seen: Reply(openai_reply(seen).body, delay_s=delay_s)


def _held(release: threading.Event) -> Callable[[Seen], Reply]:
    """A reply that waits until the test releases it (or a hang bound passes)."""

    def answer(seen: Seen) -> Reply:
        release.wait(WAIT_S)
        return openai_reply(seen)

    return answer


def _texts(requests: Sequence[Seen]) -> int:
    """How many texts these embedding requests carried."""
    return sum(len(r.body["input"]) for r in requests if isinstance(r.body, dict))


def _wait_for_requests(server: FakeServer, n: int, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT_S
    while len(server.requests) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the fill never got that far"
        time.sleep(0.02)


def _status(ws: Path, url: str) -> dict:
    proc = subprocess.run(
        _memdir(["status", "--json", "-w", str(ws), *_sets(url)]),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        env=_env(),
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_ctrl_c_keeps_what_was_embedded_and_the_next_run_embeds_only_the_rest(
    big_ws: Path, server: FakeServer
) -> None:
    # Two batches are answered at once, the third hangs: Ctrl-C lands while it is in flight.
    release = threading.Event()
    server.script(openai_reply, openai_reply, _held(release))
    proc = _start_index(big_ws, server)
    try:
        _wait_for_requests(server, 3, proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=WAIT_S)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (out, err)
    kept = _texts(server.requests[:2])
    assert kept == 2 * BATCH
    assert f"Interrupted: {kept} of 150 chunks embedded; run `memdir index` again to continue" in (
        err.splitlines()
    ), err
    assert "Traceback" not in err and "Aborted" not in err
    assert out == ""
    info = _status(big_ws, server.url)
    assert info["embedding"]["vectors"] == kept
    assert info["embedding"]["missing"] == 150 - kept
    assert info["embedding"]["fill"]["running"] is False

    sent_before = len(server.requests)
    server.handler = openai_reply
    again = subprocess.run(
        _memdir(["index", "--json", "-w", str(big_ws), *_sets(server.url)]),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        env=_env(),
    )
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["vectors"]["embedded"] == 150 - kept
    assert _texts(server.requests[sent_before:]) == 150 - kept  # only the rest was sent
    assert _status(big_ws, server.url)["embedding"]["vectors"] == 150


def test_status_and_keyword_search_answer_during_a_fill_in_another_process(
    big_ws: Path, server: FakeServer, write: WriteFile
) -> None:
    # The first batch lands, the second hangs until the test has looked.
    release = threading.Event()
    server.script(openai_reply, _held(release))
    server.handler = openai_reply
    proc = _start_index(big_ws, server)
    try:
        _wait_for_requests(server, 2, proc)
        info = _status(big_ws, server.url)  # used to wait on the fill's writer lock
        fill = info["embedding"]["fill"]
        assert fill["running"] is True, fill
        assert (fill["done"], fill["total"], fill["pid"]) == (BATCH, 150, proc.pid)
        assert fill["rate"] > 0
        assert fill["eta_s"] == math.ceil((150 - BATCH) / fill["rate"])
        assert info["embedding"]["vectors"] == BATCH
        assert info["busy"] is None

        # A note written now is found by a keyword search while the fill goes on: the search's
        # own text sync gets the writer lock between batches.
        write(big_ws, "memory/fresh.md", "The quokka arrived during the fill.\n")
        found = subprocess.run(
            _memdir(["search", "quokka", "--json", "--mode", "keyword", "-w", str(big_ws)])
            + _sets(server.url),
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            env=_env(),
        )
        assert found.returncode == 0, found.stderr
        assert [hit["path"] for hit in json.loads(found.stdout)["results"]] == ["memory/fresh.md"]
        assert "another process" not in found.stderr
        # A hybrid search too: it neither waits on the running fill nor starts a second one.
        hybrid = subprocess.run(
            _memdir(["search", "quokka", "--json", "-w", str(big_ws), *_sets(server.url)]),
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            env=_env(),
        )
        assert hybrid.returncode == 0, hybrid.stderr
        assert json.loads(hybrid.stdout)["results"][0]["path"] == "memory/fresh.md"
        assert proc.poll() is None  # the fill was still running all along
        release.set()
        _, err = proc.communicate(timeout=WAIT_S)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    done = _status(big_ws, server.url)
    fill = done["embedding"]["fill"]
    assert fill["running"] is False
    assert fill["done"] == fill["total"] == 151  # the fresh note was embedded too
    assert fill["eta_s"] is None
    assert done["embedding"]["vectors"] == 151


def test_a_fill_whose_process_died_shows_as_not_running(big_ws: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    with Memory(big_ws, overrides={"embedding.provider": "none"}) as mem:
        mem.sync()
        record = {"running": True, "pid": dead.pid, "done": 10, "total": 150, "rate": 2.0}
        with mem.index.lock, mem.index.transaction() as conn:
            record["updated_at"] = record["started_at"] = time.time()
            mem.index.set_fill_record(conn, record)
        fill = mem.status()["embedding"]["fill"]
        assert (fill["running"], fill["done"], fill["total"], fill["eta_s"]) == (
            False,
            10,
            150,
            None,
        )
        with mem.index.lock, mem.index.transaction() as conn:
            record.update(pid=os.getpid(), updated_at=time.time() - 3600)  # alive but silent
            mem.index.set_fill_record(conn, record)
        assert mem.status()["embedding"]["fill"]["running"] is False
        with mem.index.lock, mem.index.transaction() as conn:
            record.update(updated_at=time.time())
            mem.index.set_fill_record(conn, record)
        live = mem.status()["embedding"]["fill"]
        assert (live["running"], live["eta_s"]) == (True, 70)  # (150 - 10) / 2.0


def test_progress_lines_show_chunks_per_second_and_time_left(
    big_ws: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli_module, "_PROGRESS_EVERY_S", 0.0)
    server.handler = _slow(0.2)
    result = CliRunner().invoke(
        cli, ["index", "-w", str(big_ws), *_sets(server.url)], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    lines = [x for x in result.stderr.splitlines() if x.startswith("embedding ")]
    pattern = r"embedding (\d+)/150 chunks \(\d+%\), [\d.]+ chunks/s(, about \d+ (s|min) left)?"
    assert all(re.fullmatch(pattern, x) for x in lines), lines
    assert [re.fullmatch(pattern, x)[1] for x in lines] == ["0", "64", "128", "150"]  # type: ignore[index]
    assert all(", about " in x for x in lines[1:-1]) and "left" not in lines[-1], lines


def test_status_reports_the_index_as_it_is_while_another_process_writes(
    big_ws: Path, server: FakeServer
) -> None:
    server.handler = openai_reply
    assert _status(big_ws, server.url)["busy"] is None
    lock = WriterLock(big_ws / ".memdir" / "index.sqlite.lock")
    assert lock.acquire(timeout=0)
    try:
        info = _status(big_ws, server.url)  # used to wait up to 600 s for the lock
    finally:
        lock.release()
    assert info["busy"] == "another process is writing the index; counts are as of its last commit"
    assert info["files"] == 150 and info["dirty"] is True


def test_index_on_a_terminal_shows_the_bar_and_ends_cleanly(
    big_ws: Path, server: FakeServer
) -> None:
    # The bar was given the lazy console wrapper, which rich cannot enter: `memdir index` on a
    # real terminal died ("lost sys.stderr", exit 1).
    server.handler = _slow(0.1)
    master, slave = os.openpty()
    seen: list[bytes] = []

    def drain() -> None:
        with suppress(OSError):
            while chunk := os.read(master, 65536):
                seen.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        proc = subprocess.run(
            _memdir(["index", "-w", str(big_ws), *_sets(server.url)]),
            stdout=subprocess.PIPE,
            stderr=slave,
            text=True,
            timeout=WAIT_S,
            env={**_env(), "TERM": "xterm", "COLUMNS": "160"},
        )
    finally:
        os.close(slave)
        reader.join(5)
        os.close(master)
    shown = b"".join(seen).decode("utf-8", "replace")
    assert proc.returncode == 0, shown
    assert proc.stdout.startswith("Index rebuilt: 150 files"), proc.stdout
    assert "Embedding chunks" in shown and "chunks/s, about " in shown, shown
