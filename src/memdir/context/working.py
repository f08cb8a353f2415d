"""Working memory (seed 001/002's ``WorkingMemory``): one conversation's context over the store.

:meth:`WorkingMemory.add` stores a message (raw, at the end of the context);
:meth:`WorkingMemory.compact` runs :func:`~memdir.context.compaction.compact` when the context
has reached the trigger; :meth:`WorkingMemory.assemble` returns what to send the model: the
summaries in order, then the most recent raw messages, never more than the budget (by default
``context.window_tokens``). Assembly takes the context items newest first while they fit and
stops at the first that does not (so what it returns is always a contiguous, ordered suffix of
the context; ``omitted`` says how many older items were left out). If even the newest message
is bigger than the whole budget, its head is sent, marked as cut, with its id to expand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memdir.context.compaction import CompactionResult, ContextSettings, compact
from memdir.context.store import ContextItem, LcmStore, NewMessage, render_summary
from memdir.context.summarize import Summarizer
from memdir.context.tokens import MESSAGE_OVERHEAD, TokenCounter, cut_to_tokens

__all__ = ["Assembly", "AssemblyItem", "WorkingMemory"]

SUMMARY_PREAMBLE = (
    "Earlier parts of this conversation, summarised (oldest first). Each <summary> keeps its id: "
    "lcm_expand(id) returns the exact original messages, lcm_grep searches them all."
)


@dataclass(frozen=True, slots=True)
class AssemblyItem:
    kind: str  # "message" or "summary"
    id: int | str
    role: str  # a message's role; "summary" for a summary
    content: str  # a summary rendered as <summary …>…</summary>
    tokens: int
    cut: bool = False


@dataclass
class Assembly:
    """The context to send: ``items`` in order, their ``tokens`` (≤ ``budget``)."""

    conversation: str
    items: list[AssemblyItem]
    tokens: int
    budget: int
    omitted: int = 0
    omitted_tokens: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def summaries(self) -> list[AssemblyItem]:
        return [i for i in self.items if i.kind == "summary"]

    @property
    def raw(self) -> list[AssemblyItem]:
        return [i for i in self.items if i.kind == "message"]

    def summary_text(self) -> str:
        """The summaries as one block of text (empty when there are none), for a system prompt."""
        shown = self.summaries
        if not shown:
            return ""
        return "\n".join([SUMMARY_PREAMBLE, *(s.content for s in shown)])

    def messages(self) -> list[dict[str, str]]:
        """Chat messages: one ``system`` message holding the summaries (when any), then the raw
        messages as ``user``/``assistant`` text (a tool's answer as ``user`` text naming it)."""
        out: list[dict[str, str]] = []
        block = self.summary_text()
        if block:
            out.append({"role": "system", "content": block})
        for item in self.raw:
            if item.role in ("user", "assistant", "system"):
                out.append({"role": item.role, "content": item.content})
            else:
                out.append({"role": "user", "content": f"[{item.role}] {item.content}"})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "session": self.conversation,
            "tokens": self.tokens,
            "budget": self.budget,
            "omitted": self.omitted,
            "omitted_tokens": self.omitted_tokens,
            "items": [
                {"kind": i.kind, "id": i.id, "role": i.role, "tokens": i.tokens, "cut": i.cut}
                for i in self.items
            ],
            "warnings": list(self.warnings),
        }


class WorkingMemory:
    """The context of ``conversation`` in ``store``. ``summarizer`` writes the summaries;
    ``before_compact`` runs before a compaction's first round (the memory flush)."""

    def __init__(
        self,
        store: LcmStore,
        conversation: str,
        *,
        settings: ContextSettings | None = None,
        counter: TokenCounter | None = None,
        summarizer: Summarizer | None = None,
        before_compact: Callable[[], bool | None] | None = None,
        source: str = "",
    ) -> None:
        self.store = store
        self.conversation = conversation
        self.settings = settings or ContextSettings()
        self.counter = counter or TokenCounter()
        self.summarizer = summarizer or Summarizer(
            None, counter=self.counter, timeout_s=self.settings.timeout_s
        )
        self.before_compact = before_compact
        self.source = source

    # -- messages ----------------------------------------------------------------------------
    def add(
        self,
        role: str,
        content: str,
        *,
        created_ms: int = 0,
        ext_id: str = "",
        extra: dict[str, Any] | None = None,
    ) -> int:
        """Store one message; its id."""
        ids = self.extend([NewMessage(role, content, created_ms, ext_id, extra)])
        return ids[0] if ids else 0

    def extend(self, messages: Sequence[NewMessage]) -> list[int]:
        """Store messages in one transaction (those whose ``ext_id`` is stored already are
        skipped); their ids."""
        return self.store.append(
            self.conversation, messages, count=self.counter.message, source=self.source
        )

    # -- accounting and compaction -------------------------------------------------------------
    def items(self) -> list[ContextItem]:
        return self.store.items(self.conversation)

    def tokens(self) -> int:
        """What the whole context (every item, before any is left out) costs now."""
        return sum(i.tokens for i in self.items())

    def needs_compaction(self) -> bool:
        return self.tokens() >= self.settings.trigger_tokens

    def compact(self, *, force: bool = False, lock_timeout: float = 0.0) -> CompactionResult:
        """Compact when the trigger is reached (or always, with ``force``)."""
        return compact(
            self.store,
            self.conversation,
            self.settings,
            self.summarizer,
            force=force,
            before=self.before_compact,
            lock_timeout=lock_timeout,
        )

    # -- assembly ------------------------------------------------------------------------------
    def assemble(self, budget: int | None = None) -> Assembly:
        """Summaries in order, then the most recent raw messages, within ``budget`` tokens."""
        limit = budget if budget is not None else self.settings.window_tokens
        items = self.items()
        chosen: list[ContextItem] = []
        total = 0
        for item in reversed(items):
            if total + item.tokens > limit:
                break
            chosen.append(item)
            total += item.tokens
        chosen.reverse()
        omitted = items[: len(items) - len(chosen)]
        result = Assembly(
            self.conversation,
            self._materialise(chosen),
            total,
            limit,
            len(omitted),
            sum(i.tokens for i in omitted),
        )
        if not chosen and items:
            result.items, result.tokens = self._cut_newest(items[-1], limit)
            result.omitted = len(items) - len(result.items)
            result.omitted_tokens = sum(i.tokens for i in items) - result.tokens
        if result.omitted:
            result.warnings.append(
                f"{result.omitted} older context item(s) ({result.omitted_tokens} tokens) did "
                f"not fit the {limit}-token budget"
            )
        return result

    def _materialise(self, items: Sequence[ContextItem]) -> list[AssemblyItem]:
        messages = self.store.messages_by_id([int(i.ref) for i in items if i.is_message])
        summaries = self.store.summaries_by_id([i.ref for i in items if not i.is_message])
        out = []
        for item in items:
            if item.is_message:
                m = messages[int(item.ref)]
                out.append(AssemblyItem("message", m.id, m.role, m.content, item.tokens))
            else:
                s = summaries[item.ref]
                out.append(AssemblyItem("summary", s.id, "summary", render_summary(s), item.tokens))
        return out

    def _cut_newest(self, item: ContextItem, limit: int) -> tuple[list[AssemblyItem], int]:
        """The newest item alone is over the budget: its head, marked as cut."""
        whole = self._materialise([item])[0]
        note = f"\n[cut: {whole.kind} {whole.id} is longer than the context; lcm_expand it]"
        room = limit - MESSAGE_OVERHEAD - self.counter.count(note)
        if room <= 0:
            return [], 0
        text = cut_to_tokens(whole.content, room, self.counter.count) + note
        tokens = self.counter.message(text)
        if tokens > limit:
            return [], 0
        cut = AssemblyItem(whole.kind, whole.id, whole.role, text, tokens, cut=True)
        return [cut], tokens
