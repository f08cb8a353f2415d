"""``memdir replay FILE``: a LoCoMo conversation and a Claude Code transcript through Session
(flush and hook) offline; the files carry the conversation's dates and search finds them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memdir import Memory
from memdir.cli import cli
from memdir.errors import UsageError
from memdir.sessions.replay import load_recording, replay
from sessions.test_claude_code_hook import SESSION
from sessions.test_transcript import _answer, _cc

LOCOMO = {
    "sample_id": "conv-test",
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! How have you been?"},
            {
                "speaker": "Melanie",
                "dia_id": "D1:2",
                "text": "Busy! I signed up for a pottery class on 2 May 2023 at the studio.",
            },
            {
                "speaker": "Caroline",
                "dia_id": "D1:3",
                "text": "I decided to adopt a greyhound named Biscuit next month.",
                "blip_caption": "a photo of a dog",
            },
            {"speaker": "Melanie", "dia_id": "D1:4", "text": "That is wonderful news."},
        ],
        "session_2_date_time": "10:37 am on 27 June, 2023",
        "session_2": [
            {
                "speaker": "Caroline",
                "dia_id": "D2:1",
                "text": "Biscuit loves the beach; we go to Santa Cruz every Saturday now.",
            },
            {
                "speaker": "Melanie",
                "dia_id": "D2:2",
                "text": "I prefer hiking, and my pottery bowl won 2nd prize at the fair.",
            },
        ],
    },
    "qa": [],
}


def _run(ws: Path, *args: str) -> Result:
    return CliRunner().invoke(
        cli,
        [
            "replay",
            *args,
            "-w",
            str(ws),
            "--set",
            "embedding.provider=none",
            "--set",
            "timezone=UTC",
        ],
        catch_exceptions=False,
    )


@pytest.fixture
def locomo(tmp_path: Path) -> Path:
    path = tmp_path / "conv.json"
    path.write_text(json.dumps([LOCOMO]), encoding="utf-8")
    return path


def test_locomo_replay_writes_dated_daily_and_session_files(tmp_path: Path, locomo: Path) -> None:
    ws = tmp_path / "ws"
    result = _run(ws, str(locomo), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["format"], report["sessions"], report["messages"]) == ("locomo", 2, 6)
    assert report["fallback"] is True
    names = sorted(p.name for p in (ws / "memory").glob("*.md"))
    # the conversation's dates, not today's; the hook's slug is the session's time
    assert names == ["2023-05-08-1356.md", "2023-05-08.md", "2023-06-27-1037.md", "2023-06-27.md"]
    daily = (ws / "memory" / "2023-05-08.md").read_text(encoding="utf-8")
    assert "pottery class on 2 May 2023" in daily
    second = (ws / "memory" / "2023-06-27-1037.md").read_text(encoding="utf-8")
    assert "Santa Cruz every Saturday" in second and "pottery class" not in second
    flushes = [w for w in report["written"] if w["kind"] == "flush"]
    assert {w["date"] for w in flushes} == {"2023-05-08", "2023-06-27"}
    assert flushes[0]["sources"] == ["D1:1", "D1:2", "D1:3", "D1:4"]
    lines = daily.splitlines()
    first = flushes[0]
    assert any("pottery" in x for x in lines[first["start_line"] - 1 : first["end_line"]])
    transcripts = list((ws / "sessions").glob("*.jsonl"))
    assert len(transcripts) == 2

    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        hits = mem.search("greyhound Biscuit adopt").results
    assert hits and hits[0].path.startswith("memory/2023-05-08")


def test_a_small_context_window_flushes_within_a_session(tmp_path: Path, locomo: Path) -> None:
    ws = tmp_path / "ws"
    result = _run(ws, str(locomo), "--json", "--context-tokens", "64", "--no-final-flush")
    report = json.loads(result.stdout)
    # 64 tokens: threshold 64 - 16 - 24 = 24 tokens, crossed inside each session
    reasons = [w for w in report["written"] if w["kind"] == "flush"]
    assert reasons and report["flushes"] >= 2
    assert all(w["sources"] for w in reasons)
    # without the final flush, nothing after the last in-window flush reaches a daily file
    window = _run(
        tmp_path / "big", str(locomo), "--json", "--context-tokens", "100000", "--no-final-flush"
    )
    big = json.loads(window.stdout)
    assert big["flushes"] == 0 and big["hooks"] == 2
    assert sorted(p.name for p in (tmp_path / "big" / "memory").glob("*.md")) == [
        "2023-05-08-1356.md",
        "2023-06-27-1037.md",
    ]


def test_claude_code_transcript_replays_with_its_own_timestamps(tmp_path: Path) -> None:
    when = {"timestamp": "2025-11-03T09:15:00.000Z", "sessionId": SESSION}
    records = [
        _cc(
            "user",
            "u1",
            {
                "role": "user",
                "content": "We decided to move billing to PostgreSQL 16 on 2025-12-01.",
            },
            **when,
        ),
        _cc(
            "assistant",
            "u2",
            _answer(
                "msg_1",
                {"type": "text", "text": "Noted: Alice prefers e-mail for anything with a price."},
            ),
            parentUuid="u1",
            **when,
        ),
    ]
    path = tmp_path / f"{SESSION}.jsonl"
    path.write_text("\n".join(records) + "\n", encoding="utf-8")
    ws = tmp_path / "ws"
    result = _run(ws, str(path))
    assert result.exit_code == 0, result.output
    assert "memory/2025-11-03.md" in result.stdout
    assert "replayed 2 message(s) in 1 session(s) (claude-code)" in result.stderr
    names = sorted(p.name for p in (ws / "memory").glob("*.md"))
    assert names == ["2025-11-03-0915.md", "2025-11-03.md"]
    assert "PostgreSQL 16" in (ws / "memory" / "2025-11-03.md").read_text(encoding="utf-8")
    with Memory(ws, overrides={"embedding.provider": "none"}) as mem:
        assert mem.search("PostgreSQL billing").results


def test_conversation_selection_and_bad_files(tmp_path: Path, locomo: Path) -> None:
    ws = tmp_path / "ws"
    result = _run(ws, str(locomo), "--conversation", "conv-nope")
    assert result.exit_code == 2 and "no conversation 'conv-nope'" in result.stderr
    assert _run(ws, str(locomo), "--conversation", "0", "--json").exit_code == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}), encoding="utf-8")
    assert _run(ws, str(bad)).exit_code == 2
    with pytest.raises(UsageError):
        load_recording(bad)


def test_replay_api_counts_and_times(tmp_path: Path, locomo: Path) -> None:
    fmt, sessions = load_recording(locomo)
    assert fmt == "locomo" and [s.label for s in sessions] == ["session_1", "session_2"]
    assert sessions[0].messages[2].text.endswith("[shares a photo of a dog]")
    assert sessions[0].messages[0].role == "user" and sessions[0].messages[1].role == "assistant"
    ws = tmp_path / "ws"
    ws.mkdir()
    seen: list[int] = []
    with Memory(ws, overrides={"embedding.provider": "none", "timezone": "UTC"}) as mem:
        report = replay(mem, sessions, progress=lambda done, total: seen.append(done))
    assert seen == [1, 2, 3, 4, 5, 6]
    assert len(report.hook_seconds) == 2 and len(report.flush_seconds) == report.flushes == 2
    data = report.to_dict()
    assert data["lines_written"] > 0 and "memory/2023-05-08.md" in data["files"]


def test_our_own_transcript_replays_into_another_workspace(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from memdir import Session

    source = tmp_path / "source"
    source.mkdir()
    when = datetime(2024, 3, 9, 18, 30, tzinfo=UTC)
    mem = Memory(source, overrides={"embedding.provider": "none"})
    with mem, Session(mem, clock=lambda: when, fsync=False) as session:
        session.add({"role": "user", "content": "Remember: the boat is moored at pier 7."})
        session.add({"role": "assistant", "content": "Noted, pier 7 in Sausalito."})
        path = session.path
    ws = tmp_path / "ws"
    result = _run(ws, str(path), "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["format"] == "openclaw" and report["messages"] == 2
    assert sorted(p.name for p in (ws / "memory").glob("*.md")) == [
        "2024-03-09-1830.md",
        "2024-03-09.md",
    ]
    assert "pier 7" in (ws / "memory" / "2024-03-09.md").read_text(encoding="utf-8")
