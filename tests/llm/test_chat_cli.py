"""``memdir chat`` against a real loopback chat server scripted to call memory_search, then
answer; the CLI is driven through stdin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from embed.fakes import FakeServer, Reply
from llm.conftest import anthropic_answer, openai_answer, text_block
from memdir.cli import cli


def _tool_call(name: str, arguments: dict[str, object], call_id: str = "call_1") -> Reply:
    body = {
        "id": "chatcmpl-2",
        "model": "gpt-test",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 300, "completion_tokens": 12},
    }
    return Reply(body)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# Memory\n\n- The staging database password rotates every 30 days.\n"
        "- Alice's favourite editor is Helix.\n",
        encoding="utf-8",
    )
    return root


def _chat(
    ws: Path, server: FakeServer, stdin: str, provider: str = "openai", *extra: str
) -> Result:
    base = server.url + ("/v1" if provider == "openai" else "")
    return CliRunner().invoke(
        cli,
        [
            "chat",
            "-w",
            str(ws),
            "--set",
            "embedding.provider=none",
            "--set",
            f"llm.provider={provider}",
            "--set",
            "llm.model=test-model",
            "--set",
            f"llm.base_url={base}",
            "--set",
            "llm.max_retries=0",
            "--set",
            "timezone=UTC",
            *extra,
        ],
        input=stdin,
        env={"ANTHROPIC_API_KEY": "sk-test"},
        catch_exceptions=False,
    )


def test_chat_calls_memory_search_then_answers_and_records(ws: Path, server: FakeServer) -> None:
    server.script(
        _tool_call("memory_search", {"query": "Alice favourite editor"}),
        openai_answer("Alice's favourite editor is Helix (MEMORY.md#L4)."),
        openai_answer("Noted: the offsite is in Lisbon on 2026-05-04."),
        openai_answer("team-offsite"),  # the session-memory hook's slug
    )
    long = "I decided that the team offsite happens in Lisbon on 2026-05-04."
    result = _chat(ws, server, f"Which editor does Alice like?\n{long}\n/new\n/quit\n")
    assert result.exit_code == 0, result.output
    assert "favourite editor is Helix" in result.stdout
    assert "[memory_search]" in result.stderr
    first, second = server.requests[0].body, server.requests[1].body
    assert isinstance(first, dict) and isinstance(second, dict)
    assert {t["function"]["name"] for t in first["tools"]} == {
        "memory_search",
        "memory_get",
        "memory_write",
        "lcm_grep",
        "lcm_describe",
        "lcm_expand",
    }
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    found = json.loads(tool_message["content"])
    assert "Helix" in json.dumps(found)
    assert second["messages"][-2]["tool_calls"][0]["function"]["name"] == "memory_search"
    # the transcript holds the user turn, the tool call, the tool's answer and the reply
    (transcript,) = (ws / "sessions").glob("*.jsonl")  # the new session has no message yet
    text = transcript.read_text(encoding="utf-8")
    assert "toolCall" in text and "toolResult" in text and "Which editor does Alice like?" in text
    # /new ran the session-memory hook, its slug from the model
    (note,) = (ws / "memory").glob("*.md")
    assert note.name.endswith("-team-offsite.md") and "Lisbon" in note.read_text(encoding="utf-8")
    assert "session memory written to memory/" in result.stderr


def test_chat_over_anthropic_tool_use(ws: Path, server: FakeServer) -> None:
    server.script(
        anthropic_answer(
            text_block("Let me look."),
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "memory_search",
                "input": {"query": "password"},
            },
            stop="tool_use",
        ),
        anthropic_answer(text_block("It rotates every 30 days.")),
    )
    result = _chat(ws, server, "How often does the staging password rotate?\n", "anthropic")
    assert result.exit_code == 0, result.output
    assert "Let me look." in result.stdout and "every 30 days" in result.stdout
    second = server.requests[1].body
    assert isinstance(second, dict)
    assert second["tools"][0]["input_schema"]
    answer = second["messages"][-1]
    assert answer["role"] == "user" and answer["content"][0]["type"] == "tool_result"
    assert answer["content"][0]["tool_use_id"] == "toolu_1"
    assert "30 days" in answer["content"][0]["content"]


def test_chat_without_a_model_exits_2(ws: Path) -> None:
    result = CliRunner().invoke(
        cli, ["chat", "-w", str(ws), "--set", "embedding.provider=none"], input="hi\n"
    )
    assert result.exit_code == 2
    assert "needs a chat model" in result.stderr and "memdir replay" in result.stderr
    assert not (ws / "sessions").exists()


def test_chat_flushes_before_the_context_fills_up(ws: Path, server: FakeServer) -> None:
    server.script(
        openai_answer("Noted.", usage=(500, 10)),
        openai_answer("- The team offsite is in Lisbon on 2026-05-04."),  # the flush
        openai_answer("Sure."),
    )
    stdin = "The team offsite is in Lisbon on 2026-05-04.\nAnything else?\n"
    # a 256-token window: due at 256 - 64 - 96 = 96 tokens, and the last prompt had 500
    result = _chat(ws, server, stdin, "openai", "--context-tokens", "256")
    assert result.exit_code == 0, result.output
    assert "flushed to memory/" in result.stderr
    flush_request = server.requests[1].body
    assert isinstance(flush_request, dict) and "memory flush" in json.dumps(flush_request)
    (daily,) = (ws / "memory").glob("????-??-??.md")
    assert "Lisbon on 2026-05-04" in daily.read_text(encoding="utf-8")
    # after the compaction the context restarts from the last turns, and the chat goes on
    last = server.requests[2].body
    assert isinstance(last, dict) and last["messages"][-1]["content"] == "Anything else?"
    assert "Sure." in result.stdout


def test_a_tool_call_without_a_name_is_an_llm_error(server: FakeServer) -> None:
    from memdir.errors import LLMError
    from memdir.llm import OpenAIChat

    bad = _tool_call("memory_search", {})
    bad.body["choices"][0]["message"]["tool_calls"][0]["function"] = {"arguments": "{}"}  # type: ignore[index]
    server.script(bad)
    with OpenAIChat("m", base_url=server.url + "/v1", max_retries=0) as model:
        with pytest.raises(LLMError, match="no function name"):
            model.complete_with_tools([model.user_turn("hi")], tools=[])
        server.script(_tool_call("memory_get", {"path": "MEMORY.md"}))
        (call,) = model.complete_with_tools([model.user_turn("hi")]).tool_calls
    assert (call.id, call.name, call.arguments) == ("call_1", "memory_get", {"path": "MEMORY.md"})
    from memdir.llm import ChatResult

    turn = model.assistant_turn(ChatResult("", "m", "openai", tool_calls=(call,)))
    assert turn["content"] is None
    assert turn["tool_calls"] == [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "memory_get", "arguments": '{"path": "MEMORY.md"}'},
        }
    ]


def test_chat_keeps_its_context_in_the_lossless_store(ws: Path, server: FakeServer) -> None:
    from embed.fakes import Seen

    def answer(seen: Seen) -> Reply:
        body = seen.body
        assert isinstance(body, dict)
        system = json.dumps(body["messages"][0])
        if "compress part of a conversation" in system or "Merge them" in system:
            return openai_answer("- the user listed facts about project turns", usage=None)
        if "memory flush" in system:
            return openai_answer("NO_REPLY", usage=None)
        return openai_answer("Got it.", usage=(100, 5))

    server.handler = answer
    lines = [
        f"Fact {i}: the relay ticket OPS-{500 + i} ships in sprint {i}. " * 4 for i in range(30)
    ]
    result = _chat(ws, server, "\n".join(lines) + "\n", "openai", "--context-tokens", "1024")
    assert result.exit_code == 0, result.output
    assert "compacted" in result.stderr
    chats = [
        r.body for r in server.requests
        if isinstance(r.body, dict) and "tools" in r.body
    ]  # fmt: skip
    assert len(chats) == 30
    last_system = chats[-1]["messages"][0]["content"]
    assert '<summary id="sum_' in last_system and "lcm_grep" in last_system
    assert chats[-1]["messages"][-1]["content"] == lines[-1].strip()
    # the first facts are no longer sent raw, but the store holds every one of them
    sent = json.dumps(chats[-1]["messages"][1:])
    assert "OPS-500 " not in sent
    from memdir.config import load_config
    from memdir.context.lcm import LosslessContext

    with LosslessContext(load_config(ws)) as lcm:
        found = lcm.grep("OPS-500", scope="messages")["results"]
        assert found and found[0]["summary"] is not None
