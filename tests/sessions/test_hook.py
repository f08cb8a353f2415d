"""The session-memory hook (spec §12, cases 101-103): Session.end writes the last 15 messages
to memory/YYYY-MM-DD-<slug>.md, named by the model or by the time; trivial sessions write
nothing, and no earlier file is ever overwritten."""

from __future__ import annotations

import json

import pytest

from embed.fakes import FakeServer, Reply
from llm.conftest import QUICK, TEST_KEY, anthropic_answer, openai_answer, text_block
from memdir import Memory
from memdir.errors import UsageError
from memdir.llm import AnthropicChat, OpenAIChat
from memdir.sessions.hook import SLUG_PROMPT, slugify

from .conftest import MakeMemory, MakeSession, talk


def _long_session(make_session: MakeSession, **kwargs: object):  # type: ignore[no-untyped-def]
    session = make_session(**kwargs)
    for i in range(1, 11):
        session.add({"role": "user", "content": f"Question {i}: what about invoice batch {i}?"})
        if i == 9:
            session.add({"role": "user", "content": "/model gpt-5"})  # a command: left out
            session.add(
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "t9", "type": "function", "function": {"name": "memory_search", "arguments": "{}"}}
                ]}
            )  # fmt: skip
            session.add({"role": "tool", "tool_call_id": "t9", "content": "batch 9 is late"})
        session.add({"role": "assistant", "content": f"Answer {i}:\n  batch {i} ships\tMonday."})
    return session


def test_end_writes_the_last_15_messages_under_the_models_slug(
    mem: Memory, make_session: MakeSession, server: FakeServer
) -> None:
    server.script(anthropic_answer(text_block("Invoice Batches!")))
    with AnthropicChat(
        "claude-test", base_url=server.url, api_key=TEST_KEY, key_env="K", retry=QUICK
    ) as model:
        session = _long_session(make_session, session_id="s-15", llm=model)
        result = session.end(reason="new")
    assert result.written and result.skipped == ""
    assert (result.path, result.slug, result.slug_source) == (
        "memory/2026-02-16-invoice-batches.md",
        "invoice-batches",
        "model",
    )
    assert result.messages == 15
    text = (mem.config.workspace / result.path).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[:8] == [
        "# Session: 2026-02-16 10:00:00 America/New_York",
        "",
        "- **Session ID**: s-15",
        "- **Source**: api",
        "- **Ended by**: /new",
        "",
        "## Conversation Summary",
        "",
    ]
    body = lines[8:]
    assert len(body) == 15
    # 20 user/assistant messages; the command and the tool call are dropped before counting
    assert body[0] == "assistant: Answer 3: batch 3 ships Monday."
    assert body[1] == "user: Question 4: what about invoice batch 4?"
    assert body[-1] == "assistant: Answer 10: batch 10 ships Monday."
    assert not any("/model" in line or "batch 9 is late" in line for line in body)

    [seen] = server.requests
    assert seen.path == "/v1/messages"
    sent = seen.body["messages"][0]["content"]  # type: ignore[index]
    assert sent.startswith(SLUG_PROMPT)
    assert "user: Question 4: what about invoice batch 4?" in sent
    assert len(sent) <= len(SLUG_PROMPT) + 2000
    assert mem.search("invoice batch shipping").results[0].path == result.path


def test_without_a_model_the_slug_is_the_users_time(mem: Memory, make_session: MakeSession) -> None:
    session = make_session()
    talk(session, ("We chose PostgreSQL for billing.", "Noted."))
    result = session.end(reason="reset")
    assert result.written and (result.slug, result.slug_source) == ("1000", "time")
    assert result.path == "memory/2026-02-16-1000.md"
    text = (mem.config.workspace / result.path).read_text(encoding="utf-8")
    assert "- **Ended by**: /reset" in text
    assert text.endswith("user: We chose PostgreSQL for billing.\nassistant: Noted.\n")


@pytest.mark.parametrize(
    "pairs",
    [
        (),
        (("hi", "Hello! How can I help you today?"),),
        (("thanks!", "You're welcome."), ("ok", "Bye.")),
        (("/help", "Commands: /new, /reset …"),),
    ],
)
def test_an_empty_or_trivial_session_writes_nothing(
    mem: Memory, make_session: MakeSession, pairs: tuple[tuple[str, str], ...]
) -> None:
    session = make_session()
    talk(session, *pairs)
    result = session.end()
    assert not result.written and result.skipped == "trivial" and result.path == ""
    assert list((mem.config.workspace / "memory").iterdir()) == []
    assert session.state.ended_at is not None


def test_a_short_but_real_request_is_kept(make_session: MakeSession) -> None:
    session = make_session()
    session.add({"role": "user", "content": "记住：周二部署"})  # 6 CJK characters weigh 24
    assert session.end().written


def test_a_failing_or_useless_slug_falls_back_to_the_time(
    make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    server.script(Reply({"error": "bad request"}, status=400), openai_answer("发票"))
    first = make_session(llm=chat)
    talk(first, ("We chose PostgreSQL for billing.", "Noted."))
    failed = first.end()
    assert failed.written and failed.slug == "1000" and failed.slug_source == "time"
    assert "failed" in failed.warnings[0] and "using the time" in failed.warnings[0]
    second = make_session(llm=chat)
    talk(second, ("Invoices go out on the first.", "OK."))
    useless = second.end()
    assert useless.slug_source == "time" and "no usable slug" in useless.warnings[0]
    # same minute, same slug: a new name, the first file untouched
    assert (failed.path, useless.path) == (
        "memory/2026-02-16-1000.md",
        "memory/2026-02-16-1000-2.md",
    )


def test_the_slug_setting_and_the_switch(
    make_memory: MakeMemory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    no_slug = make_memory(**{"session_memory.llm_slug": False, "session_memory.messages": 1})
    session = make_session(memory=no_slug, llm=chat)
    talk(session, ("We chose PostgreSQL for billing.", "Noted, PostgreSQL it is."))
    result = session.end()
    assert result.slug_source == "time" and result.messages == 1 and server.requests == []
    off = make_memory(**{"session_memory.enabled": False})
    quiet = make_session(memory=off)
    talk(quiet, ("We chose PostgreSQL for billing.", "Noted."))
    assert quiet.end().skipped == "disabled"


def test_a_session_ends_once_even_across_restarts(make_session: MakeSession) -> None:
    session = make_session(session_id="once")
    talk(session, ("We chose PostgreSQL for billing.", "Noted."))
    first = session.end()
    assert first.written
    again = session.end()
    assert not again.written and again.skipped == "already-ended" and again.path == first.path
    with pytest.raises(UsageError, match="has ended"):
        session.add({"role": "user", "content": "one more thing"})
    later = make_session(session_id="once")
    assert later.end().skipped == "already-ended"
    with pytest.raises(UsageError, match="has ended"):
        later.add({"role": "user", "content": "one more thing"})
    state = json.loads(later.store.state_path.read_text(encoding="utf-8"))
    assert state["sessionMemoryFile"] == first.path and state["endReason"] == "new"


@pytest.mark.parametrize(
    ("answer", "slug"),
    [
        ("Vendor Pitch", "vendor-pitch"),
        ("  --Hello__World--  ", "hello-world"),
        ("db_migration.md", "db-migration-md"),
        ("a" * 40, "a" * 30),
        ("twenty-nine-characters-long-x-yz", "twenty-nine-characters-long-x"),
        ("发票", ""),
    ],
)
def test_slugify(answer: str, slug: str) -> None:
    assert slugify(answer) == slug
