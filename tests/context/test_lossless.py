"""Guarantee 1, lossless: a long bilingual conversation replayed through a small window (4k
tokens) and many compactions expands back to every original message, byte for byte and in
order, and the assembled context is never over the budget at any step."""

from __future__ import annotations

from pathlib import Path

from context.helpers import conversation, recovered
from memdir.context.compaction import ContextSettings
from memdir.context.store import LcmStore, NewMessage
from memdir.context.working import WorkingMemory

WINDOW = 4096


def test_replay_through_a_4k_window_loses_nothing(tmp_path: Path) -> None:
    messages = conversation(2500)
    store = LcmStore.open(tmp_path / "lcm.sqlite")
    settings = ContextSettings(window_tokens=WINDOW, leaf_tokens=1500)
    working = WorkingMemory(store, "conv", settings=settings)
    compactions = 0
    for message in messages:
        working.extend([message])
        result = working.compact()
        compactions += result.compacted
        assembly = working.assemble()
        assert assembly.tokens <= WINDOW
        assert sum(i.tokens for i in assembly.items) == assembly.tokens
        assert working.tokens() < WINDOW  # compaction keeps the whole context in the window
    assert compactions > 20
    depths = store.depth_counts("conv")
    assert depths[0] > 16 and max(depths) >= 2, depths  # leaves, condensed, condensed again

    # Expanding the top-level summaries, then the raw tail, gives back every message.
    got = recovered(store, "conv")
    assert [m.content for m in got] == [m.content for m in messages]
    assert [m.role for m in got] == [m.role for m in messages]
    assert [m.created_ms for m in got] == [m.created_ms for m in messages]
    assert store.check("conv") == []
    tops = store.top_summaries("conv")
    assert [i.ref for i in store.items("conv") if not i.is_message] == [s.id for s in tops]
    store.close()

    # ... and so does the file read by a new connection, byte for byte.
    again = LcmStore.open(tmp_path / "lcm.sqlite")
    stored = [m.content.encode("utf-8") for m in recovered(again, "conv")]
    assert stored == [m.content.encode("utf-8") for m in messages]
    again.close()


def test_odd_text_is_kept_exactly(tmp_path: Path) -> None:
    odd = [
        "",
        " ",
        "line one\r\nline two\n\n\n",
        "tab\there\x00nul and \x7f del",
        "混合 English 与中文，emoji 👩‍👩‍👧 and combining é (e\u0301)",
        "\u202eright-to-left override\u202c and zero\u200bwidth",
        "x" * 50_000,
    ]
    with LcmStore.open(tmp_path / "lcm.sqlite") as store:
        settings = ContextSettings(window_tokens=2048, fresh_messages=1)
        working = WorkingMemory(store, "odd", settings=settings)
        filler = conversation(20)
        sent = [*filler[:10], *(NewMessage("user", t, 1000 + i) for i, t in enumerate(odd))]
        sent.extend(filler[10:])
        sent.append(NewMessage("assistant", "y" * 40_000))
        working.extend(sent)
        result = working.compact(force=True)
        assert result.compacted
        assert store.covering_leaf(store.messages("odd")[12].id) is not None
        assert [m.content for m in recovered(store, "odd")] == [m.content for m in sent]
        assembly = working.assemble()
        assert assembly.tokens <= 2048
        # The newest message alone is bigger than the window: its head is sent, marked.
        assert assembly.items[-1].cut and assembly.items[-1].id == store.messages("odd")[-1].id


def test_assembly_is_a_budgeted_ordered_suffix(tmp_path: Path) -> None:
    with LcmStore.open(tmp_path / "lcm.sqlite") as store:
        working = WorkingMemory(store, "c", settings=ContextSettings(window_tokens=100_000))
        working.extend(conversation(300))
        full = working.assemble()
        assert full.omitted == 0 and len(full.items) == 300
        for budget in (50, 500, 2000, 5000):
            part = working.assemble(budget)
            assert part.tokens <= budget
            assert [i.id for i in part.items] == [i.id for i in full.items][
                len(full.items) - len(part.items) :
            ]
            assert part.omitted == 300 - len(part.items)
            assert part.warnings
        messages = working.assemble().messages()
        assert [m["role"] for m in messages[:2]] == ["user", "assistant"]
