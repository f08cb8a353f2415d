"""Lossless context (issue #13; seed 001's Layer 4, seed 002's ``LosslessRecall`` and
``WorkingMemory``): a conversation's context window is compacted into summaries, and nothing
is ever lost.

* :mod:`.store`: every message in SQLite (``<index folder>/lcm.sqlite``), the summary DAG over
  them (leaves over messages, condensed summaries over summaries) and the ordered context items
  the model sees; FTS5 over messages and summaries with the index's CJK-aware words.
* :mod:`.working`: :class:`WorkingMemory`: token accounting (:mod:`.tokens`) and assembly =
  summaries in order + the newest raw messages, never over the budget.
* :mod:`.compaction` and :mod:`.summarize`: bounded compaction that always terminates and
  always makes progress (retry, stricter prompt, truncated extract; caps on rounds, calls,
  tokens and time).
* :mod:`.lcm`: :class:`LosslessContext`, a workspace's store: sessions, transcript import and
  the answers of the tools ``lcm_grep``, ``lcm_describe`` and ``lcm_expand`` (:mod:`.tools`).

This package uses :mod:`memdir.llm`, :mod:`memdir.text`, :mod:`memdir.config`, the index's
writer lock and the transcript readers of :mod:`memdir.sessions`; nothing below it imports it
(a :class:`~memdir.Session` reaches it through ``Memory.lcm``). Names are imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memdir.context.compaction import CompactionResult, ContextSettings, compact
    from memdir.context.lcm import LosslessContext
    from memdir.context.store import LcmStore, NewMessage, store_path
    from memdir.context.summarize import Summarizer
    from memdir.context.tokens import TokenCounter
    from memdir.context.working import Assembly, WorkingMemory

_LAZY = {
    "CompactionResult": "memdir.context.compaction",
    "ContextSettings": "memdir.context.compaction",
    "compact": "memdir.context.compaction",
    "LosslessContext": "memdir.context.lcm",
    "LcmStore": "memdir.context.store",
    "NewMessage": "memdir.context.store",
    "store_path": "memdir.context.store",
    "Summarizer": "memdir.context.summarize",
    "TokenCounter": "memdir.context.tokens",
    "Assembly": "memdir.context.working",
    "WorkingMemory": "memdir.context.working",
}

__all__ = [
    "Assembly",
    "CompactionResult",
    "ContextSettings",
    "LcmStore",
    "LosslessContext",
    "NewMessage",
    "Summarizer",
    "TokenCounter",
    "WorkingMemory",
    "compact",
    "store_path",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir.context' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
