"""Session.flush end to end: a real chat model on a loopback server and the offline fallback,
NO_REPLY, append-only writes deduplicated against the day's file, and the once-per-cycle rule
surviving restarts (including the compaction-during-flush case upstream gets wrong)."""

from __future__ import annotations

from pathlib import Path

import pytest

from embed.fakes import FakeServer, Reply, Seen
from llm.conftest import openai_answer
from memdir import Memory, Session
from memdir.llm import ExtractiveSummarizer, OpenAIChat

from .conftest import NOW, MakeMemory, MakeSession, prompt_of, talk

DAY = "memory/2026-02-16.md"
TURNS = (
    ("We decided to use PostgreSQL for billing on 2026-03-02.", "Noted: PostgreSQL for billing."),
    ("My colleague Anna prefers email invoices.", "I'll remember that Anna wants email."),
)


def _day(mem: Memory) -> Path:
    return mem.config.workspace / DAY


# -- without a model ----------------------------------------------------------------------------
def test_without_a_model_the_extractive_fallback_writes_the_flush_and_says_so(
    mem: Memory, make_session: MakeSession
) -> None:
    session = make_session()
    talk(session, *TURNS)
    result = session.flush()
    assert result.written and result.path == DAY and not result.skipped
    assert result.fallback and result.provider == result.model == "extractive"
    assert result.fallback_reason == "no model configured (llm.provider = none)"
    text = _day(mem).read_text(encoding="utf-8")
    assert text.startswith("# 2026-02-16\n\n")
    assert "- user: We decided to use PostgreSQL for billing on 2026-03-02." in text
    assert "Anna prefers email invoices" in text
    assert (result.start_line, result.end_line) == (3, 2 + len(result.text.splitlines()))
    hits = mem.search("PostgreSQL billing")  # indexed at once
    assert hits.results and hits.results[0].path == DAY


def test_nothing_new_since_the_last_flush_writes_nothing(
    mem: Memory, make_session: MakeSession
) -> None:
    session = make_session()
    talk(session, *TURNS)
    assert session.flush().written
    before = _day(mem).read_bytes()
    again = session.flush()
    assert not again.written and again.skipped == "nothing-new"
    assert _day(mem).read_bytes() == before


# -- with a model -------------------------------------------------------------------------------
def test_the_model_gets_the_conversation_the_prompts_and_the_time(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    server.script(
        openai_answer("- Chose PostgreSQL for billing (2026-03-02).\n- Anna wants email invoices.")
    )
    session = make_session(llm=chat)
    talk(session, *TURNS)
    session.add({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "memory_search", "arguments": '{"query": "invoices"}'}}
    ]})  # fmt: skip
    session.add({"role": "tool", "tool_call_id": "c1", "content": "no results"})
    result = session.flush()

    [seen] = server.requests
    system, user = prompt_of(seen)
    assert system.startswith("Pre-compaction memory flush turn.") and DAY in system
    assert user.startswith("Conversation since the last flush:\nuser: We decided to use PostgreSQL")
    assert "assistant: I'll remember that Anna wants email." in user
    assert '[called memory_search({"query": "invoices"})]' in user
    assert "[tool memory_search: no results]" in user
    assert "APPENDED to it: do not overwrite" in user and DAY in user
    assert user.endswith(
        "Current time: Monday, February 16th, 2026 - 10:00 AM (America/New_York) / 2026-02-16 15:00 UTC"
    )
    assert result.written and not result.fallback
    assert (result.provider, result.model) == ("openai", "gpt-test-2026-01-01")
    assert _day(mem).read_text(encoding="utf-8") == (
        "# 2026-02-16\n\n- Chose PostgreSQL for billing (2026-03-02).\n- Anna wants email invoices.\n"
    )


def test_the_model_named_in_the_settings_is_used(
    make_memory: MakeMemory, make_session: MakeSession, server: FakeServer
) -> None:
    mem = make_memory(
        **{"llm.provider": "openai", "llm.base_url": server.url + "/v1", "llm.model": "llama3.2"}
    )
    server.script(openai_answer("- Billing runs on PostgreSQL."))
    session = make_session(memory=mem)
    talk(session, *TURNS)
    result = session.flush()
    assert result.written and not result.fallback
    assert server.requests[0].path == "/v1/chat/completions"
    assert server.requests[0].body["model"] == "llama3.2"  # type: ignore[index]


@pytest.mark.parametrize(
    "answer",
    ["NO_REPLY", "  no_reply \n", '{"action": "NO_REPLY"}', "NO_REPLY. Nothing durable here."],
)
def test_no_reply_writes_nothing_but_the_cycle_counts_as_flushed(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer, answer: str
) -> None:
    server.script(openai_answer(answer))
    session = make_session(llm=chat)
    talk(session, *TURNS)
    assert session.should_flush(180_000)
    result = session.flush()
    assert not result.written and result.skipped == "silent"
    assert not _day(mem).exists()
    decision = session.flush_decision(180_000)
    assert not decision.due and decision.reason == "already-flushed"


def test_a_failing_model_falls_back_and_says_why(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    server.handler = lambda seen: Reply({"error": {"message": "overloaded"}}, status=500)
    session = make_session(llm=chat)
    talk(session, *TURNS)
    result = session.flush()
    assert len(server.requests) == 4  # the call and its 3 retries
    assert result.written and result.fallback and result.provider == "extractive"
    assert "openai model gpt-test failed" in result.fallback_reason
    assert "extractive fallback" in result.fallback_reason
    assert result.warnings == (result.fallback_reason,)
    assert "PostgreSQL" in _day(mem).read_text(encoding="utf-8")


def test_a_long_conversation_is_cut_to_the_input_budget_and_a_cut_note_is_said(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    server.script(openai_answer("- Batch 9 ships on Mon", finish="length"))
    session = make_session(llm=chat, flush_input_tokens=40, flush_max_tokens=12)
    for i in range(1, 10):
        talk(session, (f"Invoice batch {i} is ready for review.", f"Batch {i} noted."))
    result = session.flush()
    _, user = prompt_of(server.requests[0])
    conversation = user.split("\n\n")[0].splitlines()[1:]
    assert conversation[-1] == "assistant: Batch 9 noted." and len(conversation) < 18
    assert "user: Invoice batch 1 is ready" not in user
    assert server.requests[0].body["max_tokens"] == 12  # type: ignore[index]
    assert result.written and result.messages == 18
    assert result.warnings == (
        f"{18 - len(conversation)} older messages did not fit the flush's input and were left out",
        "the model's note was cut at 12 tokens; its end may be missing",
    )


# -- append-only, deduplicated ------------------------------------------------------------------
def test_the_flush_appends_and_skips_what_the_day_already_says(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    mine = "# 2026-02-16\n\nMy own note, written by hand.\n- Chose **PostgreSQL** for billing (2026-03-02)\n"
    _day(mem).write_text(mine, encoding="utf-8")
    server.script(
        openai_answer(
            "```markdown\n## Decisions\n\n- chose postgresql for billing (2026-03-02).\n"
            "- Anna wants email invoices.\n- Anna wants email invoices.\n"
            "## Older\n- My own note, written by hand.\n```"
        ),
        openai_answer("- Anna wants EMAIL invoices!\n* chose PostgreSQL for billing, 2026-03-02"),
    )
    session = make_session(llm=chat)
    talk(session, *TURNS)
    first = session.flush()
    assert first.written and first.text == "## Decisions\n\n- Anna wants email invoices."
    text = _day(mem).read_text(encoding="utf-8")
    assert text.startswith(mine)  # nothing before was touched
    assert text == mine + "\n## Decisions\n\n- Anna wants email invoices.\n"
    _, user = prompt_of(server.requests[0])
    assert "memory/2026-02-16.md already says:\n# 2026-02-16\n\nMy own note" in user

    session.compacted()
    talk(session, ("Anything else?", "No."))
    second = session.flush()
    assert not second.written and second.skipped == "duplicate"
    assert _day(mem).read_text(encoding="utf-8") == text


# -- once per compaction cycle, across restarts --------------------------------------------------
def test_once_per_cycle_survives_a_restart(mem: Memory, make_session: MakeSession) -> None:
    first = make_session(session_id="cycle")
    talk(first, *TURNS)
    assert first.should_flush(180_000)
    assert first.flush().written
    first.close()

    second = make_session(session_id="cycle")  # a new process, say
    assert second.flush_decision(180_000).reason == "already-flushed"
    second.compacted(summary="Billing decisions so far", tokens_before=180_000)
    assert second.should_flush(180_000)

    third = make_session(session_id="cycle")
    state = third.state
    assert (state.compaction_count, state.flush_cycle, state.flush_count) == (1, 0, 1)
    assert third.should_flush(180_000)
    talk(third, ("The deploy moved to Tuesday 2026-02-24.", "Tuesday it is."))
    assert third.flush().written
    fourth = make_session(session_id="cycle")
    assert not fourth.should_flush(180_000)
    assert (fourth.state.compaction_count, fourth.state.flush_cycle) == (1, 1)
    kinds = [m.role for m in fourth.messages]
    assert kinds.count("user") == 3  # the compaction record is no message
    assert '"type":"compaction"' in fourth.path.read_text(encoding="utf-8")


def test_a_damaged_state_file_is_set_aside_and_rebuilt(make_session: MakeSession) -> None:
    session = make_session(session_id="damaged")
    talk(session, ("We chose PostgreSQL for billing.", "Noted."))
    session.compacted()
    session.compacted()
    session.store.state_path.write_text("{not json", encoding="utf-8")

    resumed = make_session(session_id="damaged")
    assert any("damaged" in w for w in resumed.warnings)
    assert resumed.state.compaction_count == 2  # counted from the transcript's records
    assert resumed.store.state_path.read_text(encoding="utf-8") == "{not json"  # reading alone

    resumed.compacted()
    bad = resumed.store.state_path.with_name("damaged.meta.json.bad")
    assert bad.read_text(encoding="utf-8") == "{not json"
    assert resumed.state.compaction_count == 3
    assert make_session(session_id="damaged").warnings == []


def test_a_compaction_during_the_flush_leaves_the_next_cycle_open(
    mem: Memory, make_session: MakeSession, chat: OpenAIChat, server: FakeServer
) -> None:
    """Spec §15 case 99 persists compactionCount 2 and memoryFlushCompactionCount 2 after a
    compaction that ends during the flush, so the next cycle gets no flush (upstream #12590).
    The flush belongs to the cycle it started in: here 2 and 1."""
    session = make_session(session_id="busy", llm=chat)
    talk(session, *TURNS)
    session.compacted()
    talk(session, ("Also: invoices go out on the 1st.", "OK."))
    other = make_session(session_id="busy")  # the runtime compacting meanwhile

    def compact_then_answer(seen: Seen) -> Reply:
        other.compacted()
        return openai_answer("- Invoices go out on the 1st.")

    server.script(compact_then_answer)
    assert session.should_flush(180_000)
    assert session.flush().written
    state = session.state
    assert (state.compaction_count, state.flush_cycle) == (2, 1)
    assert state.flush_at == int(NOW.timestamp() * 1000)
    assert session.should_flush(180_000)  # the new cycle may flush again


def test_a_shrinking_context_counts_as_a_compaction(make_session: MakeSession) -> None:
    session = make_session()
    talk(session, *TURNS)
    assert session.flush_decision(180_000).reason == "tokens"
    assert session.flush().written
    assert session.flush_decision(181_000).reason == "already-flushed"
    # the caller compacted without saying so: the context is back to 30k tokens
    assert session.flush_decision(30_000).reason == "below-threshold"
    assert session.state.compaction_count == 1
    assert session.should_flush(180_000)


def test_an_explicit_flush_below_the_threshold_infers_nothing(make_session: MakeSession) -> None:
    session = make_session()
    talk(session, *TURNS)
    assert session.flush().written  # asked for, not triggered by the count
    assert session.flush_decision(10_000).reason == "below-threshold"
    assert session.state.compaction_count == 0


# -- what the trigger counts --------------------------------------------------------------------
def test_the_recorded_usage_and_the_pending_message_are_counted(make_session: MakeSession) -> None:
    from memdir.llm import ChatResult

    session = make_session()
    session.add({"role": "user", "content": "Summarise the billing design."})
    session.add(ChatResult("It has three parts.", "gpt", "openai", 175_000, 500))
    decision = session.flush_decision()
    assert decision.projected_tokens == 175_500 and not decision.due
    assert session.should_flush(pending="x" * 2000)  # 500 more tokens
    session.add({"role": "user", "content": "y" * 2000})  # recorded since the answer: counted too
    assert session.flush_decision().projected_tokens == 176_000
    assert session.flush_decision(1_000).projected_tokens == 1_000 + 500 + 500


def test_the_size_trigger_counts_from_the_last_compaction(
    make_memory: MakeMemory, make_session: MakeSession
) -> None:
    mem = make_memory(**{"flush.force_transcript_bytes": "2kb"})
    session = make_session(memory=mem)
    assert session.flush_decision().reason == "no-token-count"
    talk(session, *TURNS, ("Invoices: " + "PDF, " * 300, "OK."))
    decision = session.flush_decision()
    assert decision.due and decision.reason == "transcript-size"
    assert session.flush().written
    session.compacted()
    assert session.flush_decision().transcript_bytes < 2048
    assert not session.should_flush()


def test_flush_disabled(make_memory: MakeMemory, make_session: MakeSession) -> None:
    mem = make_memory(**{"flush.enabled": False})
    session = make_session(memory=mem)
    talk(session, *TURNS)
    assert session.flush_decision(10**6).reason == "disabled"
    assert session.flush_for_overflow().skipped == "disabled"


# -- the overflow path --------------------------------------------------------------------------
def test_the_overflow_path_flushes_once_per_cycle(mem: Memory, make_session: MakeSession) -> None:
    session = make_session()
    talk(session, *TURNS)
    # the model refused the prompt as too long, below any threshold memdir knew of
    result = session.flush_for_overflow()
    assert result.written and result.reason == "overflow"
    again = session.flush_for_overflow()
    assert not again.written and again.skipped == "already-flushed"
    session.compacted()
    talk(session, ("The new deploy window is Friday 2026-02-20.", "Friday."))
    assert session.flush_for_overflow().written


async def test_async_session_does_the_same(mem: Memory) -> None:
    from memdir import AsyncMemory, AsyncSession

    amem = AsyncMemory(mem.config.workspace, overrides={"embedding.provider": "none"})
    async with amem, AsyncSession(amem, session_id="a", clock=lambda: NOW) as session:
        for user, assistant in TURNS:
            await session.add({"role": "user", "content": user})
            await session.add({"role": "assistant", "content": assistant})
        assert await session.should_flush(180_000)
        result = await session.flush()
        assert result.written and result.fallback
        assert not await session.should_flush(180_000)
        await session.compacted()
        assert (await session.flush_decision(180_000)).due
        assert (await session.flush_for_overflow()).skipped == "nothing-new"
        ended = await session.end()
        assert ended.written and session.state.ended_at is not None
    assert isinstance(Session(mem, session_id="a").llm, ExtractiveSummarizer)
