"""``memdir hook claude-code``, run as Claude Code runs it: the installed command as a
subprocess, the hook's JSON on stdin, a transcript in Claude Code's own format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from embed.fakes import SilentServer
from sessions.test_transcript import _answer, _cc

SESSION = "0b6e8a52-3c1d-4f7e-9a2b-5d4c3b2a1f0e"
MEMDIR = Path(sys.executable).with_name("memdir")


def _user(uuid: str, text: str) -> str:
    return _cc("user", uuid, {"role": "user", "content": text}, sessionId=SESSION)


def _assistant(uuid: str, msg_id: str, text: str) -> str:
    return _cc(
        "assistant", uuid, _answer(msg_id, {"type": "text", "text": text}), sessionId=SESSION
    )


FIRST = [
    _cc(
        "user",
        "m0",
        {"role": "user", "content": "Caveat: generated while running local commands."},
        isMeta=True,
        sessionId=SESSION,
    ),
    _user("m1", "We decided to move the billing service to PostgreSQL 16 on 2026-03-02."),
    _cc(
        "assistant",
        "m2",
        _answer(
            "msg_a",
            {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "db.md"}},
        ),
        sessionId=SESSION,
    ),
    _cc(
        "user",
        "m3",
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "db: mysql"}],
        },
        sessionId=SESSION,
    ),
    _assistant("m4", "msg_b", "Noted. Alice prefers e-mail for anything with a price in it."),
]
LATER = [
    _cc(
        "system",
        "m5",
        None,
        subtype="compact_boundary",
        content="Conversation compacted",
        compactMetadata={"trigger": "auto", "preTokens": 160000},
        sessionId=SESSION,
    ),
    _user("m6", "Remember that the release freeze starts on Friday 2026-03-06."),
    _assistant("m7", "msg_c", "I will keep the release freeze on Friday 2026-03-06 in mind."),
]


def _transcript(tmp_path: Path, records: list[str]) -> Path:
    path = tmp_path / ".claude" / "projects" / "-home-me-billing" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    return path


def _payload(path: Path, event: str = "PreCompact", **extra: str) -> str:
    data = {
        "session_id": SESSION,
        "transcript_path": str(path),
        "cwd": "/home/me/billing",
        "hook_event_name": event,
        **extra,
    }
    if event == "PreCompact":
        data.setdefault("trigger", "auto")
        data.setdefault("custom_instructions", "")
    return json.dumps(data)


def hook(ws: Path, stdin: str, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The installed ``memdir`` command, as Claude Code starts it."""
    assert MEMDIR.is_file(), f"the memdir script is not installed next to {sys.executable}"
    return subprocess.run(
        [str(MEMDIR), "-w", str(ws), "hook", "claude-code", "--set", "timezone=UTC", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "MEMDIR_EMBEDDING_PROVIDER": "none"},
    )


@pytest.fixture
def workspace(ws: Path) -> Path:
    (ws / ".memdir").mkdir()
    return ws


def _daily(ws: Path) -> list[Path]:
    return sorted(p for p in _notes(ws) if len(p.stem) == 10)


def _notes(ws: Path) -> list[Path]:
    """The Markdown files under memory/ (the writer's lock file aside)."""
    return sorted((ws / "memory").glob("*.md"))


def _log(ws: Path) -> str:
    return (ws / ".memdir" / "hooks.log").read_text(encoding="utf-8")


def test_pre_compact_flushes_through_the_fallback_once_per_compaction(
    workspace: Path, tmp_path: Path
) -> None:
    path = _transcript(tmp_path, FIRST)
    first = hook(workspace, _payload(path), "--json")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["ok"] and out["action"] == "flush"
    flush = out["flush"]
    assert (
        flush["written"] and flush["fallback"] and "no model configured" in flush["fallback_reason"]
    )
    [daily] = _daily(workspace)
    text = daily.read_text(encoding="utf-8")
    assert flush["path"] == f"memory/{daily.name}" and text.startswith(f"# {daily.stem}\n")
    assert "PostgreSQL 16" in text and "Alice prefers e-mail" in text
    assert "Caveat" not in text and "db: mysql" not in text  # meta notes and tool output left out

    again = hook(workspace, _payload(path))
    assert again.returncode == 0 and "already-flushed" in again.stdout
    assert daily.read_text(encoding="utf-8") == text

    # Claude Code compacted, the conversation went on: the next PreCompact reads only what is new.
    _transcript(tmp_path, FIRST + LATER)
    later = json.loads(hook(workspace, _payload(path, trigger="manual"), "--json").stdout)
    assert later["flush"]["written"] and later["flush"]["reason"] == "pre-compact (manual)"
    added = daily.read_text(encoding="utf-8")[len(text) :]
    assert "release freeze" in added and "PostgreSQL" not in added
    state = json.loads(
        (workspace / ".memdir" / "claude-code" / f"{SESSION}.meta.json").read_text("utf-8")
    )
    assert state["memoryFlushCount"] == 2 and state["memoryFlushedThrough"] == "m7"
    assert "PreCompact" in _log(workspace) and "flush: wrote" in _log(workspace)


def test_session_end_writes_the_session_memory_file_once(workspace: Path, tmp_path: Path) -> None:
    path = _transcript(tmp_path, FIRST + LATER)
    proc = hook(workspace, _payload(path, "SessionEnd", reason="prompt_input_exit"), "--json")
    assert proc.returncode == 0, proc.stderr
    memory = json.loads(proc.stdout)["session_memory"]
    assert memory["written"] and memory["slug_source"] == "time"
    written = workspace / memory["path"]
    text = written.read_text(encoding="utf-8")
    assert written.name.startswith(f"{_daily_stem(written)}-") and len(written.stem) == 15
    assert f"- **Session ID**: {SESSION}" in text and "- **Source**: claude-code" in text
    assert "- **Ended by**: prompt_input_exit" in text
    assert "user: We decided to move the billing service to PostgreSQL 16" in text
    assert "assistant: I will keep the release freeze" in text
    assert _daily(workspace) == []  # SessionEnd does not flush

    again = json.loads(
        hook(workspace, _payload(path, "SessionEnd", reason="other"), "--json").stdout
    )
    assert again["session_memory"]["skipped"] == "already-ended"
    assert _notes(workspace) == [written]


def _daily_stem(path: Path) -> str:
    return path.stem[:10]


def test_a_trivial_session_writes_nothing(workspace: Path, tmp_path: Path) -> None:
    path = _transcript(tmp_path, [_user("m1", "hi"), _assistant("m2", "msg_a", "Hello!")])
    proc = hook(workspace, _payload(path, "SessionEnd", reason="clear"))
    assert proc.returncode == 0 and "trivial" in proc.stdout
    assert _notes(workspace) == []


@pytest.mark.parametrize(
    "stdin",
    ["not json at all", "[1, 2]", json.dumps({"hook_event_name": "PreCompact"}), ""],
    ids=["text", "array", "no-session", "empty"],
)
def test_malformed_input_exits_0_and_is_logged(workspace: Path, stdin: str) -> None:
    proc = hook(workspace, stdin)
    assert proc.returncode == 0
    assert "hook failed" in proc.stderr and str(workspace / ".memdir" / "hooks.log") in proc.stderr
    log = _log(workspace)
    assert " ERROR claude-code" in log and "hook input" in log
    assert _notes(workspace) == []


def test_a_missing_transcript_or_workspace_exits_0_and_is_logged(
    workspace: Path, tmp_path: Path
) -> None:
    proc = hook(workspace, _payload(tmp_path / "gone.jsonl"))
    assert proc.returncode == 0
    assert "gone.jsonl does not exist" in _log(workspace)
    # No workspace at all: the log goes to memdir's cache folder.
    nowhere = tmp_path / "nowhere"
    proc = hook(nowhere, _payload(_transcript(tmp_path, FIRST)))
    assert proc.returncode == 0 and not nowhere.exists()
    cache_log = Path(os.environ["MEMDIR_CACHE_DIR"]) / "hooks.log"
    assert f"workspace {nowhere} is not a folder" in cache_log.read_text(encoding="utf-8")


def test_other_events_are_ignored(workspace: Path, tmp_path: Path) -> None:
    path = _transcript(tmp_path, FIRST)
    proc = hook(workspace, _payload(path, "Stop"), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["action"] == "ignored"
    assert _notes(workspace) == []


def test_a_hung_model_does_not_hold_the_agent(
    workspace: Path, tmp_path: Path, silent_server: SilentServer
) -> None:
    path = _transcript(tmp_path, FIRST)
    started = time.monotonic()
    proc = hook(
        workspace,
        _payload(path),
        "--set",
        "llm.provider=openai",
        "--set",
        f"llm.base_url={silent_server.url}/v1",
        "--set",
        "llm.model=stuck",
        "--set",
        "llm.timeout_s=120",
        "--timeout",
        "6",  # the hook must reach the model first: a whole suite on 2 cores may take seconds
    )
    assert proc.returncode == 0
    assert time.monotonic() - started < 30
    assert silent_server.connections >= 1
    assert "gave up after 6 s" in _log(workspace) and "gave up" in proc.stderr
