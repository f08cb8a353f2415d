"""``memdir lcm``: import a Claude Code or OpenClaw transcript, then status, grep, describe,
expand and compact, each with --session and --json; errors name what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memdir.cli import cli
from sessions.test_claude_code_hook import SESSION, _assistant, _user

SMALL = ["--set", "context.window_tokens=1024", "--set", "context.fresh_messages=8"]


def run(ws: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["lcm", *args, "-w", str(ws), *SMALL])


def data(ws: Path, *args: str) -> Any:
    result = run(ws, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _openclaw(path: Path, session: str, n: int) -> Path:
    lines = [
        json.dumps(
            {
                "type": "session",
                "version": 3,
                "id": session,
                "timestamp": "2026-02-01T09:00:00Z",
                "cwd": "/w",
            }
        )
    ]
    for i in range(n):
        text = f"Turn {i}: the relay deploy ticket is OPS-{4000 + i}; 第{i}次讨论缓存方案。"
        lines.append(json.dumps({
            "type": "message", "id": f"r{i:04d}", "parentId": None,
            "timestamp": "2026-02-01T09:00:00Z",
            "message": {"role": "user" if i % 2 == 0 else "assistant",
                        "content": [{"type": "text", "text": text}],
                        "timestamp": 1769936400000 + i * 60_000},
        }))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path / "ws"


def test_import_grep_describe_expand(tmp_path: Path, ws: Path) -> None:
    file = _openclaw(tmp_path / "t.jsonl", "sess-one", 300)
    report = data(ws, "import", str(file))
    assert (report["session"], report["format"], report["messages_added"]) == (
        "sess-one",
        "openclaw",
        300,
    )
    assert report["summaries_written"] > 0 and report["context_tokens"] < 1024
    assert data(ws, "import", str(file))["messages_added"] == 0  # again: nothing new

    status = data(ws, "status")
    assert status["session"]["id"] == "sess-one" and status["session"]["messages"] == 300
    assert status["session"]["problems"] == [] and status["trigger_tokens"] == 768

    found = data(ws, "grep", "OPS-4007")
    (hit,) = found["results"]
    assert hit["kind"] == "message" and hit["summary"].startswith("sum_")
    zh = data(ws, "grep", "第7次讨论", "--scope", "messages")
    assert [h["id"] for h in zh["results"]] == [hit["id"]]

    described = data(ws, "describe", hit["summary"])
    assert described["depth"] == 0 and described["first_seq"] <= 8 <= described["last_seq"]
    expanded = data(ws, "expand", hit["summary"])
    assert expanded["next_offset"] is None
    assert any("OPS-4007" in m["content"] for m in expanded["messages"])
    assert len(expanded["messages"]) == described["messages"]
    paged = data(ws, "expand", hit["summary"], "--max-tokens", "40")
    assert len(paged["messages"]) < described["messages"] and paged["next_offset"]

    human = run(ws, "grep", "OPS-4007")
    assert human.exit_code == 0 and f"msg {hit['id']}" in human.stdout
    shown = run(ws, "expand", hit["summary"], "--max-tokens", "40")
    assert "OPS-4000" in shown.stdout and "--offset" in shown.stderr
    assert "parent:" in run(ws, "describe", hit["summary"]).stdout
    assert "300 messages" in run(ws, "status").stdout
    forced = data(ws, "compact", "--force")
    assert forced["session"] == "sess-one" and forced["reason"] in ("done", "nothing-to-compact")


def test_json_before_the_group_gives_json_for_every_lcm_command(tmp_path: Path, ws: Path) -> None:
    _openclaw(tmp_path / "t.jsonl", "sess-j", 40)
    assert run(ws, "import", str(tmp_path / "t.jsonl")).exit_code == 0
    for args in (["status"], ["grep", "OPS-4007"]):
        result = CliRunner().invoke(cli, ["--json", "lcm", *args, "-w", str(ws), *SMALL])
        assert result.exit_code == 0, result.output
        assert isinstance(json.loads(result.stdout), dict)


def test_claude_code_transcript_and_sessions(tmp_path: Path, ws: Path) -> None:
    claude = tmp_path / f"{SESSION}.jsonl"
    claude.write_text(
        "\n".join([
            _user("c1", "We decided to move billing to PostgreSQL 16 on 2026-03-02."),
            _assistant("c2", "msg_1", "Noted: Alice prefers e-mail for anything with a price."),
        ]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    report = data(ws, "import", str(claude))
    assert (report["session"], report["format"], report["messages_added"]) == (
        SESSION,
        "claude-code",
        2,
    )
    other = data(ws, "import", str(_openclaw(tmp_path / "b.jsonl", "x", 4)), "--session", "named")
    assert other["session"] == "named"
    # the default is the most recent session; --session picks another
    assert data(ws, "grep", "PostgreSQL")["results"] == []
    got = data(ws, "grep", "PostgreSQL", "--session", SESSION)["results"]
    assert [h["role"] for h in got] == ["user"]
    assert data(ws, "grep", "PostgreSQL", "--all-sessions")["results"][0]["session"] == SESSION
    assert {s["id"] for s in data(ws, "status")["sessions"]} == {SESSION, "named"}


def test_errors(tmp_path: Path, ws: Path) -> None:
    ws.mkdir()
    empty = run(ws, "grep", "x")
    assert empty.exit_code == 4 and "no conversation is stored" in empty.stderr
    assert not (ws / ".memdir").exists()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    result = run(ws, "import", str(bad))
    assert result.exit_code == 2 and "holds no message" in result.stderr
    data(ws, "import", str(_openclaw(tmp_path / "t.jsonl", "s", 6)))
    assert run(ws, "describe", "banana").exit_code == 2
    assert run(ws, "expand", "sum_0123456789abcdef").exit_code == 4
    missing = run(ws, "grep", "x", "--session", "nope")
    assert missing.exit_code == 4 and "known: s" in missing.stderr
    regex = run(ws, "grep", "(", "--mode", "regex")
    assert regex.exit_code == 2 and "regular expression" in regex.stderr


def test_a_damaged_store_is_a_storage_error_naming_it(ws: Path) -> None:
    (ws / ".memdir").mkdir(parents=True)
    (ws / ".memdir" / "lcm.sqlite").write_bytes(b"this is not a database" * 100)
    result = run(ws, "status")
    assert result.exit_code == 6
    assert "lcm.sqlite" in result.stderr and "cannot open the context store" in result.stderr
    assert (ws / ".memdir" / "lcm.sqlite").read_bytes().startswith(b"this is not")  # kept as is


def test_the_agent_commands_offer_the_lcm_tools(tmp_path: Path, ws: Path) -> None:
    data(ws, "import", str(_openclaw(tmp_path / "t.jsonl", "s", 40)))
    listed = CliRunner().invoke(cli, ["tools", "--lcm", "--format", "anthropic"])
    assert [t["name"] for t in json.loads(listed.stdout)][-3:] == [
        "lcm_grep",
        "lcm_describe",
        "lcm_expand",
    ]
    plain = CliRunner().invoke(cli, ["tools"])
    assert "lcm_grep" not in plain.stdout
    called = CliRunner().invoke(
        cli, ["call", "lcm_grep", '{"pattern": "OPS-4003"}', "-w", str(ws), *SMALL]
    )
    assert called.exit_code == 0, called.output
    assert json.loads(called.stdout)["results"][0]["snippet"].startswith("Turn 3:")
    prompt = CliRunner().invoke(cli, ["prompt", "--lcm"])
    assert "## Conversation History" in prompt.stdout and "lcm_expand" in prompt.stdout
