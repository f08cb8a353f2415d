"""Guarantee 3, termination: with a summariser that always fails, one that echoes its input,
one that answers longer text and one that hangs, compaction ends within the round cap and
the timeout, makes progress (truncated extracts), and leaves the store consistent."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from context.helpers import FakeModel, conversation, recovered
from memdir.context.compaction import ContextSettings, compact, plan_round
from memdir.context.store import LcmStore, NewMessage
from memdir.context.summarize import Summarizer
from memdir.context.tokens import TokenCounter
from memdir.context.working import WorkingMemory

SETTINGS = ContextSettings(
    window_tokens=4096, leaf_tokens=800, max_rounds=6, timeout_s=0.2, fresh_messages=16
)


def _store(tmp_path: Path, n: int = 600) -> tuple[LcmStore, list[NewMessage]]:
    store = LcmStore.open(tmp_path / "lcm.sqlite")
    messages = conversation(n)
    counter = TokenCounter()
    store.append("c", messages, count=counter.message)
    return store, messages


@pytest.mark.parametrize("behaviour", ["fail", "echo", "grow", "hang"])
def test_a_bad_summariser_cannot_stop_or_stall_compaction(tmp_path: Path, behaviour: str) -> None:
    store, messages = _store(tmp_path)
    model = FakeModel(behaviour, hang_s=5.0)
    summarizer = Summarizer(model, counter=TokenCounter(), timeout_s=SETTINGS.timeout_s)
    before = sum(i.tokens for i in store.items("c"))
    started = time.monotonic()
    result = compact(store, "c", SETTINGS, summarizer)
    elapsed = time.monotonic() - started
    assert result.reason == "round-cap" and result.rounds == SETTINGS.max_rounds
    # two model calls a round at most (the prompt, then the stricter one), each bounded
    assert model.calls <= 2 * SETTINGS.max_rounds and result.calls == model.calls
    assert elapsed < 2 * SETTINGS.max_rounds * SETTINGS.timeout_s + 3
    # progress all the same: every round wrote a truncated extract that shrank the context
    assert len(result.summaries) == SETTINGS.max_rounds
    assert {store.summary(s).kind for s in result.summaries} == {"truncated"}
    assert result.tokens_after < before
    for sid in result.summaries:
        row = store.summary(sid)
        assert row.tokens < row.source_tokens
    assert store.check("c") == []
    assert [m.content for m in recovered(store, "c")] == [m.content for m in messages]
    # the next compactions continue where the first stopped, until done (with the offline
    # extract here: the bad summarisers would only make it slower)
    offline = Summarizer(None, counter=TokenCounter())
    for _ in range(40):
        again = compact(store, "c", SETTINGS, offline)
        if again.reason != "round-cap":
            break
    assert again.reason in ("done", "nothing-to-compact", "under-trigger"), again
    assert store.check("c") == []


def test_a_good_summariser_is_used_and_capped(tmp_path: Path) -> None:
    store, _ = _store(tmp_path)
    model = FakeModel("good")
    summarizer = Summarizer(model, counter=TokenCounter(), timeout_s=5)
    settings = ContextSettings(window_tokens=4096, leaf_tokens=800, max_calls=3, max_rounds=10)
    result = compact(store, "c", settings, summarizer)
    kinds = [store.summary(s).kind for s in result.summaries]
    assert kinds[:3] == ["model"] * 3 and set(kinds[3:]) == {"truncated"}  # the call cap
    assert model.calls == 3 == result.calls
    assert any("spend cap" in w for w in result.warnings)
    assert store.check("c") == []


def test_the_token_cap_also_stops_model_calls(tmp_path: Path) -> None:
    store, _ = _store(tmp_path)
    model = FakeModel("good")
    summarizer = Summarizer(model, counter=TokenCounter(), timeout_s=5)
    settings = ContextSettings(window_tokens=4096, leaf_tokens=800, max_model_tokens=2000)
    result = compact(store, "c", settings, summarizer)
    # a call is made only when its input and target still fit under the cap
    assert 1 <= model.calls < len(result.summaries) and result.model_tokens <= 2000
    assert any("spend cap" in w for w in result.warnings)


def test_a_round_that_cannot_shrink_is_not_written(tmp_path: Path) -> None:
    with LcmStore.open(tmp_path / "lcm.sqlite") as store:
        working = WorkingMemory(
            store, "tiny", settings=ContextSettings(window_tokens=256, fresh_messages=64)
        )
        working.extend([NewMessage("user", "ok") for _ in range(3)])
        result = working.compact(force=True)
        # three 5-token messages: no summary could cost less, so none is tried or written
        assert result.reason == "nothing-to-compact" and not result.compacted
        assert store.check("tiny") == []
        # under the trigger nothing happens at all, and saying so is not "compacted"
        assert working.compact().reason == "under-trigger"


def test_a_hanging_summariser_costs_at_most_two_timeouts_a_summary(tmp_path: Path) -> None:
    store, _ = _store(tmp_path)
    model = FakeModel("hang", hang_s=10)
    settings = ContextSettings(window_tokens=4096, leaf_tokens=800, max_rounds=2, timeout_s=0.3)
    started = time.monotonic()
    result = compact(store, "c", settings, Summarizer(model, counter=TokenCounter(), timeout_s=0.3))
    assert time.monotonic() - started < 4 * 0.3 + 2
    assert model.calls == 4 and len(result.summaries) == 2
    assert all("no answer within 0.3 s" in w for w in result.warnings if "attempt" in w)


def test_pressure_condenses_and_never_plans_the_fresh_tail(tmp_path: Path) -> None:
    with LcmStore.open(tmp_path / "lcm.sqlite") as store:
        settings = ContextSettings(window_tokens=2048, fresh_messages=8)
        working = WorkingMemory(store, "p", settings=settings)
        for message in conversation(1500):
            working.extend([message])
            working.compact()
            items = working.items()
            planned = plan_round(items, settings, pressure=True)
            tail = [i for i in items[-8:] if i.is_message]
            if planned is not None:
                refs = {i.ref for i in planned.items}
                assert items[-1].ref not in refs  # the newest message always stays raw
                if sum(i.tokens for i in tail) <= settings.trigger_tokens // 2:
                    assert not refs & {i.ref for i in tail}  # and the whole fresh tail
        assert working.tokens() < 2048
        assert store.check("p") == []


def test_one_compaction_at_a_time(tmp_path: Path) -> None:
    from memdir.index.lock import WriterLock

    store, _ = _store(tmp_path)
    other = WriterLock(store.lock.path)  # another process's hold, as flock sees it
    assert other.acquire(timeout=0)
    try:
        result = compact(store, "c", SETTINGS, Summarizer(None, counter=TokenCounter()))
        assert result.reason == "busy" and not result.compacted and result.warnings
    finally:
        other.release()
    assert compact(store, "c", SETTINGS, Summarizer(None, counter=TokenCounter())).compacted
