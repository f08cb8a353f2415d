"""``Session.context()`` and ``Session.compact()``: the session's messages go into the
workspace's lossless context store, the flush runs before the first compaction of a cycle,
and what ``context()`` returns is never over the budget."""

from __future__ import annotations

import asyncio

from memdir import AsyncSession
from sessions.conftest import MakeMemory, MakeSession, talk

OVERRIDES = {"context.window_tokens": 1024, "context.fresh_messages": 8}


def _pairs(n: int) -> list[tuple[str, str]]:
    return [
        (
            f"Turn {i}: we decided the relay deploy moves to Friday, ticket OPS-{900 + i}.",
            f"Noted {i}: 发布计划改到周五，负责人是 Alice，预算 {i * 100} 元。",
        )
        for i in range(n)
    ]


def test_context_compacts_flushes_first_and_stays_in_budget(
    make_memory: MakeMemory, make_session: MakeSession
) -> None:
    memory = make_memory(**OVERRIDES)
    session = make_session(memory=memory)
    sizes = []
    for pair in _pairs(60):
        talk(session, pair)
        assembly = session.context()
        assert assembly.tokens <= 1024
        sizes.append(len(assembly.items))
    assert session.state.compaction_count >= 1  # compactions started new cycles
    assert session.state.flush_count >= 1  # ... each after a flush
    (daily,) = (memory.config.workspace / "memory").glob("????-??-??.md")
    assert "OPS-" in daily.read_text(encoding="utf-8")
    messages = assembly.messages()
    assert messages[0]["role"] == "system" and "<summary id=" in messages[0]["content"]
    assert messages[-1]["content"].startswith("Noted 59")
    # every message is in the store once, in order, even though context() ran after each turn
    stored = memory.lcm.store.messages(session.session_id)
    assert [m.content for m in stored] == [m.text for m in session.messages]
    assert memory.lcm.store.check(session.session_id) == []


def test_compact_is_a_no_op_under_the_trigger(
    make_memory: MakeMemory, make_session: MakeSession
) -> None:
    session = make_session(memory=make_memory(**OVERRIDES))
    talk(session, *_pairs(2))
    result = session.compact()
    assert result.reason == "under-trigger" and not result.compacted
    assert session.state.compaction_count == 0 and session.state.flush_count == 0
    forced = session.compact(force=True)
    assert not forced.compacted  # all four messages are the fresh tail
    assert session.context(compact=False).omitted == 0


def test_a_resumed_session_stores_each_message_once(
    make_memory: MakeMemory, make_session: MakeSession
) -> None:
    memory = make_memory(**OVERRIDES)
    first = make_session(memory=memory)
    talk(first, *_pairs(3))
    first.context()
    again = make_session(memory=memory, session_id=first.session_id)
    talk(again, *_pairs(1))
    again.context()
    assert len(memory.lcm.store.messages(first.session_id)) == 8


def test_async_twins(make_memory: MakeMemory) -> None:
    memory = make_memory(**OVERRIDES)

    async def main() -> int:
        session = AsyncSession(memory)
        for user, assistant in _pairs(40):
            await session.add({"role": "user", "content": user})
            await session.add({"role": "assistant", "content": assistant})
        result = await session.compact()
        assembly = await session.context()
        assert assembly.tokens <= 1024
        return len(result.summaries)

    assert asyncio.run(main()) > 0
