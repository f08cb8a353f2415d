"""Compaction: turning the oldest context items into summaries until the context is small again,
always terminating and always making progress.

It starts when the context holds ``context.trigger`` × ``context.window_tokens`` tokens (75 % by
default), or when asked (``force``). The newest ``context.fresh_messages`` raw messages (64) stay
raw, but never more than half the trigger's tokens of them, so a tail of huge messages cannot
keep the context above the trigger for ever (lossless-claw #639). Then, one *round* at a time,
each round one transaction:

1. **leaf**: the oldest run of raw messages outside that tail, at most ``context.leaf_tokens``
   (20k) tokens of them (a single bigger message alone), becomes a depth-0 summary
   (``context.leaf_target_tokens``, at most an eighth of the trigger's tokens);
2. **condense**: once ``context.leaf_fanout`` (8) depth-0 summaries follow each other in the
   context, or ``context.condensed_fanout`` (4) of a higher depth, the oldest such run becomes one
   summary a level up (``context.condensed_target_tokens``, at most a quarter of the
   trigger's). When the leaves are done and the context is still above 80 % of the trigger
   (:data:`LOW_WATER`), two are enough; and if no two of one depth are adjacent, the deeper of two adjacent summaries
   absorbs the other (keeping its depth, so repeated merges under pressure do not make the
   DAG ever deeper).

Each round tries the candidates in that order. A summary is only written when it costs less in
the context than what it replaces (its rendered header included; a run too small for that is
not even tried), otherwise the next candidate is tried, so the context never grows. The loop
stops when no candidate is left (``done``), after ``context.max_rounds`` attempts
(``round-cap``), or when no candidate shrinks the context (``no-shrink``, with a warning: it
resumes when more messages arrive, with no loop in between). Model spend across one compaction is capped at
``context.max_calls`` calls and ``context.max_model_tokens`` tokens, each call at
``context.timeout_s`` seconds; past the caps the summaries are truncated extracts (see
:mod:`.summarize`). One compaction runs at a time per store (its writer lock; another caller
gets ``reason="busy"``), and ``before`` (the memory flush) runs once it has the lock, before the
first round.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memdir.config import Config
from memdir.context.store import ContextItem, LcmStore, MessageRow, SummaryRow, render_summary
from memdir.context.summarize import Spend, Summarizer
from memdir.errors import StorageError

__all__ = ["CompactionResult", "ContextSettings", "compact", "plan_round", "plan_rounds"]

log = logging.getLogger(__name__)


LOW_WATER = 0.8
"""Once started, a compaction condenses under pressure until the context is below this share
of the trigger, not just below the trigger: in a small window that means far fewer
compactions and summaries (3 LoCoMo conversations through 4,096 tokens: 67 compactions and 127
summaries, against 237 and 251 stopping just under the trigger), so a slow local summariser is
not called every few turns."""
MIN_SUMMARY_TOKENS = 16
"""A run is only summarised when a summary of at least this many tokens would still cost
less than the run (a leaf waits for at least four times that beyond the summary's header)."""


@dataclass(frozen=True, slots=True)
class ContextSettings:
    """The ``context.*`` settings (see :mod:`memdir.config` for each one's meaning)."""

    window_tokens: int = 200_000
    trigger: float = 0.75
    fresh_messages: int = 64
    leaf_tokens: int = 20_000
    leaf_fanout: int = 8
    condensed_fanout: int = 4
    leaf_target_tokens: int = 1200
    condensed_target_tokens: int = 2000
    max_rounds: int = 10
    max_calls: int = 24
    max_model_tokens: int = 400_000
    timeout_s: float = 60.0

    @classmethod
    def from_config(cls, config: Config, **overrides: Any) -> ContextSettings:
        values = {name: config[f"context.{name}"] for name in cls.__dataclass_fields__}
        values.update(overrides)
        return cls(**values)

    @property
    def trigger_tokens(self) -> int:
        """The context size at which compaction starts."""
        return max(int(self.window_tokens * self.trigger), 1)

    def target(self, depth: int) -> int:
        """The summary target for ``depth``, never more than an eighth (a leaf) or a quarter
        (a condensed summary) of the trigger's tokens: a small window gets small summaries, so
        compaction can get under it."""
        if depth == 0:
            return max(min(self.leaf_target_tokens, self.trigger_tokens // 8), 16)
        return max(min(self.condensed_target_tokens, self.trigger_tokens // 4), 16)

    def fanout(self, depth: int) -> int:
        return self.leaf_fanout if depth == 0 else self.condensed_fanout


@dataclass
class CompactionResult:
    """What one :func:`compact` did. ``reason``: ``under-trigger`` (nothing due), ``done`` (no
    round left), ``nothing-to-compact`` (due, but everything outside the fresh tail is
    summarised and no run is long enough to condense), ``round-cap``, ``no-shrink``, ``busy``
    (another compaction holds the store)."""

    conversation: str
    reason: str
    rounds: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    summaries: list[str] = field(default_factory=list)
    calls: int = 0
    model_tokens: int = 0
    flushed: bool = False
    elapsed_s: float = 0.0
    warnings: list[str] = field(default_factory=list)

    @property
    def compacted(self) -> bool:
        """Whether anything changed (a summary was written)."""
        return bool(self.summaries)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.conversation,
            "compacted": self.compacted,
            "reason": self.reason,
            "rounds": self.rounds,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "summaries": list(self.summaries),
            "model_calls": self.calls,
            "model_tokens": self.model_tokens,
            "flushed": self.flushed,
            "elapsed_s": round(self.elapsed_s, 4),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True, slots=True)
class Round:
    items: tuple[ContextItem, ...]
    depth: int  # of the summary to write

    @property
    def tokens(self) -> int:
        return sum(i.tokens for i in self.items)


def protected_tail(items: Sequence[ContextItem], settings: ContextSettings) -> int:
    """The index in ``items`` where the fresh tail starts: the newest raw messages, at most
    ``fresh_messages`` of them and at most half the trigger's tokens (at least one)."""
    cap = settings.trigger_tokens // 2
    start, tokens = len(items), 0
    for kept, i in enumerate(range(len(items) - 1, -1, -1)):
        item = items[i]
        if not item.is_message or kept >= settings.fresh_messages:
            break
        if kept and tokens + item.tokens > cap:
            break
        tokens += item.tokens
        start = i
    return start


def plan_rounds(
    items: Sequence[ContextItem],
    settings: ContextSettings,
    *,
    pressure: bool = False,
    min_leaf_tokens: int = 0,
) -> list[Round]:
    """The rounds worth trying next, best first: a leaf over the oldest raw run outside the
    fresh tail (when it holds at least ``min_leaf_tokens``: a summary of less could not be
    cheaper than it), then the runs of same-depth summaries long enough to condense, oldest
    first. Under ``pressure`` (the context still over the trigger) two summaries are enough,
    and when no two of one depth are adjacent, the oldest two adjacent summaries of any depth."""
    older = items[: protected_tail(items, settings)]
    rounds: list[Round] = []
    for i, item in enumerate(older):
        if not item.is_message:
            continue
        run = [item]
        total = item.tokens
        for later in older[i + 1 :]:
            if not later.is_message or total + later.tokens > settings.leaf_tokens:
                break
            run.append(later)
            total += later.tokens
        if total >= min_leaf_tokens:
            rounds.append(Round(tuple(run), 0))
        break
    i = 0
    while i < len(older):
        depth = older[i].depth
        j = i
        while j < len(older) and not older[j].is_message and older[j].depth == depth:
            j += 1
        need = 2 if pressure else settings.fanout(depth)
        if j - i >= need:
            take = max(need, min(j - i, settings.fanout(depth)))
            rounds.append(Round(tuple(older[i : i + take]), depth + 1))
        i = max(j, i + 1)
    if pressure and len(rounds) == (1 if rounds and rounds[0].depth == 0 else 0):
        for i in range(len(older) - 1):
            pair = older[i : i + 2]
            if not pair[0].is_message and not pair[1].is_message:
                # Of two depths the deeper absorbs the other and keeps its depth, so repeated
                # merges under pressure do not build an ever deeper chain.
                rounds.append(Round(tuple(pair), max(p.depth for p in pair)))
                break
    return rounds


def plan_round(
    items: Sequence[ContextItem], settings: ContextSettings, *, pressure: bool = False
) -> Round | None:
    """The first of :func:`plan_rounds`, or ``None``."""
    rounds = plan_rounds(items, settings, pressure=pressure)
    return rounds[0] if rounds else None


def render_messages(rows: Sequence[MessageRow], *, max_tokens: int, count: Any) -> str:
    """A run of messages as the summariser reads it: ``role: text`` blocks, cut at
    ``max_tokens`` (only a single message bigger than a leaf is ever cut)."""
    text = "\n\n".join(f"{m.role}: {m.content}" for m in rows)
    if count(text) <= max_tokens:
        return text
    return text[: max(max_tokens * 4, 1)]


def compact(
    store: LcmStore,
    conversation: str,
    settings: ContextSettings,
    summarizer: Summarizer,
    *,
    force: bool = False,
    before: Callable[[], bool | None] | None = None,
    lock_timeout: float = 0.0,
) -> CompactionResult:
    """Compact ``conversation`` (see the module's description); never raises for a failing
    summariser. ``before`` runs once the store's compaction lock is held and before the first
    round; it returns whether it flushed."""
    started = time.monotonic()
    items = store.items(conversation)
    result = CompactionResult(conversation, "under-trigger")
    result.tokens_before = result.tokens_after = sum(i.tokens for i in items)
    if not items or (not force and result.tokens_before < settings.trigger_tokens):
        if not items:
            result.reason = "nothing-to-compact"
        return result
    if not store.lock.acquire(timeout=lock_timeout):
        result.reason = "busy"
        result.warnings.append(f"another process is compacting {store.path}; skipped")
        return result
    spend = Spend(settings.max_calls, settings.max_model_tokens)
    try:
        if before is not None and plan_round(items, settings, pressure=True) is not None:
            result.flushed = bool(before())
        count = summarizer.counter.count
        min_leaf = _item_cost("", 0, count) + 4 * MIN_SUMMARY_TOKENS
        while True:
            items = store.items(conversation)
            tokens = sum(i.tokens for i in items)
            pressure = tokens >= settings.trigger_tokens * LOW_WATER
            candidates = plan_rounds(items, settings, pressure=pressure, min_leaf_tokens=min_leaf)
            if not candidates:
                result.reason = "done" if result.rounds else "nothing-to-compact"
                break
            written = None
            for planned in candidates:
                if result.rounds >= settings.max_rounds:
                    break
                result.rounds += 1
                summary = _summarise(store, planned, settings, summarizer, spend, count)
                if summary is None:  # too small to summarise into anything cheaper
                    continue
                result.warnings.extend(summary.warnings)
                cost = _item_cost(summary.content, planned.depth, count)
                if cost >= planned.tokens:
                    result.warnings.append(
                        f"a summary of {planned.tokens} tokens came to {cost}: it would not "
                        "shrink the context, so it was not written"
                    )
                    continue
                try:
                    written = store.replace_items(
                        conversation,
                        planned.items,
                        content=summary.content,
                        depth=planned.depth,
                        kind=summary.kind,
                        model=summary.model,
                        count=count,
                    )
                except StorageError as exc:  # the context changed under us
                    result.warnings.append(str(exc))
                    result.reason = "changed"
                    return _finish(result, store, spend, started)
                result.summaries.append(written.id)
                break
            if written is None:
                if result.rounds >= settings.max_rounds:
                    result.reason = "round-cap"
                    result.warnings.append(
                        f"stopped after {settings.max_rounds} rounds (context.max_rounds); "
                        "the next compaction continues"
                    )
                else:
                    result.reason = "no-shrink"
                    result.warnings.append(
                        "no round shrank the context: compaction stopped (it resumes when more "
                        "messages arrive)"
                    )
                break
    finally:
        store.lock.release()
    return _finish(result, store, spend, started)


def _finish(
    result: CompactionResult, store: LcmStore, spend: Spend, started: float
) -> CompactionResult:
    result.tokens_after = sum(i.tokens for i in store.items(result.conversation))
    result.calls, result.model_tokens = spend.calls, spend.tokens
    result.elapsed_s = time.monotonic() - started
    stopped = result.reason in ("round-cap", "no-shrink", "busy", "changed")
    for warning in result.warnings:  # a summary's retries are routine; a stop is not
        log.log(logging.WARNING if stopped else logging.INFO, "compaction of %s: %s",
                result.conversation, warning)  # fmt: skip
    return result


def _summarise(
    store: LcmStore,
    planned: Round,
    settings: ContextSettings,
    summarizer: Summarizer,
    spend: Spend,
    count: Any,
) -> Any:
    if planned.depth == 0:
        rows = store.messages_by_id([int(i.ref) for i in planned.items])
        ordered = [rows[int(i.ref)] for i in planned.items]
        text = render_messages(ordered, max_tokens=settings.leaf_tokens, count=count)
    else:
        found = store.summaries_by_id([i.ref for i in planned.items])
        text = "\n\n".join(found[i.ref].content for i in planned.items)
    # The summary must cost less than what it replaces, its rendered header included.
    room = planned.tokens - _item_cost("", planned.depth, count) - 1
    if room < MIN_SUMMARY_TOKENS:
        return None
    target = min(settings.target(planned.depth), room)
    return summarizer.summarize(text, depth=planned.depth, target=target, spend=spend, limit=room)


def _item_cost(content: str, depth: int, count: Any) -> int:
    """What a summary of ``content`` would cost in the context (its rendered form)."""
    probe = SummaryRow(
        "sum_0000000000000000", "", depth, content, 0, 0, 0, 0, 0, 1, 1, 99999, "", "", 0
    )
    return count(render_summary(probe)) + 4
