"""Transcripts: what a Session writes (OpenClaw's JSONL, which the indexer flattens), reading it
back, damage tolerated and reported, and Claude Code transcripts read in their real format."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from memdir import Memory, Session
from memdir.chunking import flatten_session
from memdir.errors import UsageError
from memdir.llm import ChatResult, Message
from memdir.sessions import ToolCall, Usage, parse_transcript, read_transcript

from .conftest import MakeSession, talk


def _records(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_session_writes_openclaw_records(make_session: MakeSession) -> None:
    session = make_session(session_id="s-1")
    assert not session.path.exists()  # nothing is written before the first message
    session.add({"role": "system", "content": "You are terse."})
    session.add({"role": "user", "content": "Which database did we pick?"})
    session.add(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "memory_search", "arguments": '{"query": "database"}'},
                }
            ],
        },
        usage={
            "prompt_tokens": 1200,
            "completion_tokens": 20,
            "prompt_tokens_details": {"cached_tokens": 1000},
        },
    )
    session.add({"role": "tool", "tool_call_id": "call_1", "content": "MEMORY.md#L3: PostgreSQL"})
    session.add(ChatResult("PostgreSQL, for billing.", "gpt-x", "openai", 1300, 9))

    header, user, call, result, answer = _records(session.path)
    assert header["type"] == "session" and header["version"] == 3 and header["id"] == "s-1"
    assert header["cwd"] == str(session.config.workspace)
    assert user["type"] == "message" and user["parentId"] is None
    assert user["message"] == {
        "role": "user",
        "content": [{"type": "text", "text": "Which database did we pick?"}],
        "timestamp": 1771254000000,
    }
    assert user["timestamp"] == "2026-02-16T15:00:00.000Z"
    assert call["parentId"] == user["id"] and result["parentId"] == call["id"]
    assert call["message"]["content"] == [
        {
            "type": "toolCall",
            "id": "call_1",
            "name": "memory_search",
            "arguments": {"query": "database"},
        }
    ]
    assert call["message"]["stopReason"] == "toolUse"
    assert call["message"]["usage"] == {
        "input": 200,
        "output": 20,
        "cacheRead": 1000,
        "cacheWrite": 0,
        "totalTokens": 1220,
    }
    assert result["message"]["role"] == "toolResult"
    assert result["message"]["toolCallId"] == "call_1"
    assert result["message"]["toolName"] == "memory_search"  # looked up from the call
    assert answer["message"]["model"] == "gpt-x" and answer["message"]["provider"] == "openai"
    assert answer["message"]["usage"]["input"] == 1300

    # the indexer's reader (spec §1.5) flattens it, line numbers pointing into the file
    flat = flatten_session(session.path.read_text(encoding="utf-8"))
    assert flat.text.split("\n") == [
        "User: Which database did we pick?",
        "Assistant: PostgreSQL, for billing.",
    ]
    assert flat.line_map == (2, 5) and flat.bad_lines == ()


def test_anthropic_blocks_and_usage(make_session: MakeSession) -> None:
    session = make_session()
    session.add(
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "memory_get",
                    "input": {"path": "MEMORY.md"},
                },
            ],
            "usage": {"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 300},
        }
    )
    made = session.add(
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_1",
                    "content": "# Memory",
                    "is_error": False,
                },
                {"type": "text", "text": "And the deploy day?"},
            ],
        }
    )
    assert [m.role for m in made] == ["tool", "user"]
    assert made[0].tool_name == "memory_get" and made[0].text == "# Memory"
    back = read_transcript(session.path)
    assert back.messages[0].tool_calls == (
        ToolCall("toolu_1", "memory_get", {"path": "MEMORY.md"}),
    )
    assert back.messages[0].usage == Usage(10, 5, 300, 0)
    assert back.last_usage() == Usage(10, 5, 300, 0)


def test_reading_back_gives_the_same_messages(make_session: MakeSession) -> None:
    session = make_session()
    talk(session, ("We chose PostgreSQL.", "Noted."), ("Deploy on Tuesday.", "OK, Tuesday."))
    session.add(Message("user", "多谢，下周见。"))
    back = read_transcript(session.path)
    assert back.format == "openclaw" and back.session_id == session.session_id
    assert back.problems == [] and back.size == session.path.stat().st_size
    assert [replace(m, line=0) for m in back.messages] == list(session.messages)
    assert [m.line for m in back.messages] == [2, 3, 4, 5, 6]
    assert back.last_id == session.messages[-1].id


def test_a_resumed_session_continues_the_chain(make_session: MakeSession) -> None:
    first = make_session(session_id="resume-me")
    talk(first, ("Remember: the invoice renderer is called narwhal.", "Got it."))
    again = make_session(session_id="resume-me")
    assert [m.text for m in again.messages] == [m.text for m in first.messages]
    again.add({"role": "user", "content": "What was it called?"})
    records = _records(again.path)
    assert [r["type"] for r in records] == ["session", "message", "message", "message"]
    assert records[-1]["parentId"] == first.messages[-1].id


def test_a_torn_last_line_is_tolerated_reported_and_closed(
    make_session: MakeSession, caplog: pytest.LogCaptureFixture
) -> None:
    session = make_session(session_id="torn")
    talk(session, ("We moved the deploy to Tuesday.", "Noted."))
    with session.path.open("ab") as handle:  # a crash in the middle of writing a record
        handle.write(b'{"type":"message","id":"dead","message":{"role":"user","content":"We als')

    torn = read_transcript(session.path)
    assert torn.torn_line == 4 and torn.bad_lines == ()
    assert [m.text for m in torn.messages] == ["We moved the deploy to Tuesday.", "Noted."]
    assert torn.problems == [
        "torn.jsonl: the last line (4) was cut short, probably by a crash while it was written; skipped"
    ]

    resumed = make_session(session_id="torn")
    assert any("cut short" in w for w in resumed.warnings)
    assert any("cut short" in r.getMessage() for r in caplog.records)
    resumed.add({"role": "user", "content": "Is Tuesday still fine?"})

    after = read_transcript(resumed.path)
    assert after.torn_line is None and after.bad_lines == (4,)  # now an ordinary bad line
    assert [m.text for m in after.messages][-1] == "Is Tuesday still fine?"
    assert after.messages[-1].line == 5
    assert flatten_session(resumed.path.read_text(encoding="utf-8")).bad_lines == (4,)


def test_a_complete_last_line_without_newline_is_not_torn() -> None:
    line = json.dumps({"type": "message", "message": {"role": "user", "content": "hi there"}})
    read = parse_transcript(line)
    assert read.torn_line is None and [m.text for m in read.messages] == ["hi there"]


def test_a_bad_line_in_the_middle_is_skipped_and_listed() -> None:
    good = json.dumps({"type": "message", "message": {"role": "user", "content": "one"}})
    read = parse_transcript(f"{good}\nnot json at all\n\n{good}\n")
    assert read.bad_lines == (2,) and read.torn_line is None
    assert [m.line for m in read.messages] == [1, 4]
    assert read.problems == ["transcript: line 2 not valid JSON; skipped"]


def test_text_that_is_not_valid_unicode_is_still_written(make_session: MakeSession) -> None:
    session = make_session()
    session.add({"role": "user", "content": "broken \udcff surrogate and ok"})
    back = read_transcript(session.path)
    assert back.problems == []
    assert back.messages[0].text.endswith("surrogate and ok")


def test_bad_messages_are_usage_errors(make_session: MakeSession) -> None:
    session = make_session()
    with pytest.raises(UsageError, match="role 'narrator'"):
        session.add({"role": "narrator", "content": "Once upon a time"})
    with pytest.raises(UsageError, match="mapping, a Message or a ChatResult"):
        session.add("just text")
    with pytest.raises(UsageError, match="timestamp"):
        session.add({"role": "user", "content": "hi"}, timestamp="yesterday-ish")
    with pytest.raises(UsageError, match="session id"):
        make_session(session_id="../escape")
    assert not session.path.exists()


def test_system_messages_are_not_recorded(make_session: MakeSession) -> None:
    session = make_session()
    assert session.add({"role": "system", "content": "rules"}) == ()
    assert session.add(Message("system", "more rules")) == ()
    assert not session.path.exists()


# -- Claude Code --------------------------------------------------------------------------------
SESSION = "6f1c2d3e-0a1b-4c5d-9e8f-7a6b5c4d3e2f"
_BASE = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/me/billing",
    "sessionId": SESSION,
    "version": "2.0.14",
    "gitBranch": "main",
}
_USAGE = {
    "input_tokens": 4,
    "cache_creation_input_tokens": 1200,
    "cache_read_input_tokens": 15000,
    "output_tokens": 60,
    "service_tier": "standard",
}


def _cc(kind: str, uuid: str, message: dict[str, object] | None = None, **extra: object) -> str:
    record: dict[str, object] = {"parentUuid": None, **_BASE, "type": kind, "uuid": uuid}
    record["timestamp"] = "2026-02-16T15:00:00.000Z"
    if message is not None:
        record["message"] = message
    record.update(extra)
    return json.dumps(record)


def _answer(msg_id: str, *content: dict[str, object]) -> dict[str, object]:
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": list(content),
        "stop_reason": None,
        "stop_sequence": None,
        "usage": _USAGE,
    }


CLAUDE_CODE = (
    "\n".join(
        [
            json.dumps({"type": "summary", "summary": "Billing database", "leafUuid": "u6"}),
            _cc(
                "user",
                "u0",
                {
                    "role": "user",
                    "content": "Caveat: The messages below were generated by the user while running local commands.",
                },
                isMeta=True,
            ),
            _cc(
                "user", "u1", {"role": "user", "content": "Which database did we pick for billing?"}
            ),
            _cc(
                "assistant",
                "u2",
                _answer("msg_01", {"type": "thinking", "thinking": "look it up", "signature": "x"}),
            ),
            _cc(
                "assistant",
                "u3",
                _answer("msg_01", {"type": "text", "text": "Let me check the notes."}),
            ),
            _cc(
                "assistant",
                "u4",
                _answer(
                    "msg_01",
                    {
                        "type": "tool_use",
                        "id": "toolu_01",
                        "name": "Grep",
                        "input": {"pattern": "database"},
                    },
                ),
            ),
            _cc(
                "user",
                "u5",
                {
                    "role": "user",
                    "content": [
                        {
                            "tool_use_id": "toolu_01",
                            "type": "tool_result",
                            "content": "notes.md:3: we chose PostgreSQL",
                        }
                    ],
                },
                toolUseResult={"stdout": "notes.md:3: we chose PostgreSQL"},
            ),
            _cc(
                "assistant",
                "u6",
                _answer("msg_02", {"type": "text", "text": "You chose PostgreSQL."}),
            ),
            _cc(
                "user",
                "u7",
                {
                    "role": "user",
                    "content": "<command-name>/model</command-name>\n            <command-message>model</command-message>\n            <command-args>opus</command-args>",
                },
            ),
            _cc(
                "user",
                "u8",
                {
                    "role": "user",
                    "content": "<local-command-stdout>Set model to opus</local-command-stdout>",
                },
            ),
            _cc(
                "system",
                "u9",
                None,
                subtype="compact_boundary",
                content="Conversation compacted",
                compactMetadata={"trigger": "auto", "preTokens": 155000},
            ),
            _cc(
                "user",
                "u10",
                {
                    "role": "user",
                    "content": "This session is being continued from a previous conversation.",
                },
                isCompactSummary=True,
            ),
            _cc(
                "user",
                "u11",
                {"role": "user", "content": "Sub-agent: search the repo"},
                isSidechain=True,
            ),
            _cc(
                "user",
                "u12",
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "[Request interrupted by user]"}],
                },
            ),
            json.dumps({"type": "file-history-snapshot", "messageId": "u6", "snapshot": {}}),
            _cc(
                "user", "u13", {"role": "user", "content": "Thanks, and the deploy is on Tuesday."}
            ),
        ]
    )
    + "\n"
)


def test_claude_code_transcripts_are_read_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "projects" / "-home-me-billing" / f"{SESSION}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text(CLAUDE_CODE, encoding="utf-8")
    read = read_transcript(path)
    assert read.format == "claude-code"
    assert (read.session_id, read.cwd) == (SESSION, "/home/me/billing")
    assert read.problems == [] and read.compactions == 1
    assert [(m.role, m.text) for m in read.messages] == [
        ("user", "Which database did we pick for billing?"),
        ("assistant", "Let me check the notes."),
        ("tool", "notes.md:3: we chose PostgreSQL"),
        ("assistant", "You chose PostgreSQL."),
        ("user", "/model opus"),
        ("user", "Thanks, and the deploy is on Tuesday."),
    ]
    merged = read.messages[1]  # three records of one API answer (msg_01)
    assert merged.tool_calls == (ToolCall("toolu_01", "Grep", {"pattern": "database"}),)
    assert merged.usage == Usage(4, 60, 15000, 1200) and merged.usage.prompt_tokens == 16204
    assert merged.model == "claude-sonnet-4-5-20250929" and merged.id == "u2" and merged.line == 4
    assert read.messages[2].tool_name == "Grep" and read.messages[2].tool_call_id == "toolu_01"
    assert read.messages[0].timestamp_ms == 1771254000000
    assert [m.text for m in read.conversation][-1] == "Thanks, and the deploy is on Tuesday."


def test_a_session_does_not_append_to_a_claude_code_transcript(mem: Memory) -> None:
    sessions = mem.config.path("sessions.dir")
    sessions.mkdir()
    (sessions / f"{SESSION}.jsonl").write_text(CLAUDE_CODE, encoding="utf-8")
    with pytest.raises(UsageError, match="Claude Code transcript"):
        Session(mem, session_id=SESSION)


def test_the_sessions_package_never_imports_the_api_cli_or_mcp() -> None:
    import os
    import subprocess
    import sys

    import memdir

    env = {**os.environ, "PYTHONPATH": str(Path(memdir.__file__).resolve().parents[1])}
    code = (
        "import sys, memdir.sessions.session;"
        "print(sorted(m for m in sys.modules if m in ('memdir.api', 'memdir.cli', 'memdir.mcp')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "[]"
