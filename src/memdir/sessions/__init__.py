"""Memory from conversations: transcripts, the pre-compaction flush, the session-memory hook
and consolidation into ``MEMORY.md``.

* :class:`Session` (and :class:`AsyncSession`): ``add(message)`` records each message to
  ``<sessions.dir>/<session-id>.jsonl`` in OpenClaw's format; ``should_flush(tokens)`` says
  when the context is about to be compacted, ``flush()`` then saves the durable memories to
  ``memory/YYYY-MM-DD.md``, ``compacted()`` starts a new compaction cycle and
  ``flush_for_overflow()`` covers a prompt the model refused as too long; ``end()`` (``/new``,
  ``/reset``) turns the last messages into ``memory/YYYY-MM-DD-<slug>.md``; ``context()`` and
  ``compact()`` keep the conversation in the workspace's lossless context store
  (:mod:`memdir.context`, reached through ``Memory.lcm``: this package never imports it).
* :func:`read_transcript` reads OpenClaw's transcripts (memdir's own) and Claude Code's
  (``~/.claude/projects/<project>/<session>.jsonl``) as they are, damage reported, not fatal.
* :func:`consolidate` proposes an updated ``MEMORY.md`` from the daily files of the last days
  (new facts added, superseded ones marked, nothing deleted) and :func:`apply_proposal`
  writes it, keeping a backup; see :mod:`.consolidation`.
* :mod:`.replay` feeds a recorded conversation (OpenClaw, Claude Code, LoCoMo) through a
  :class:`Session` with the recording's dates: ``memdir replay FILE``.
* With no chat model configured, the :class:`~memdir.llm.ExtractiveSummarizer` writes the
  flushes and the results say so; the session-memory file is then named after the time.

This package uses :mod:`memdir.llm`, :mod:`memdir.writer`, :mod:`memdir.config` and
:mod:`memdir.text`, never :mod:`memdir.api`, the CLI or MCP. Names are imported on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "Applied": "memdir.sessions.consolidation",
    "Proposal": "memdir.sessions.consolidation",
    "Superseded": "memdir.sessions.consolidation",
    "aapply_proposal": "memdir.sessions.consolidation",
    "aconsolidate": "memdir.sessions.consolidation",
    "apply_proposal": "memdir.sessions.consolidation",
    "consolidate": "memdir.sessions.consolidation",
    "FlushDecision": "memdir.sessions.flush",
    "FlushPlan": "memdir.sessions.flush",
    "FlushResult": "memdir.sessions.flush",
    "FlushSettings": "memdir.sessions.flush",
    "build_flush_plan": "memdir.sessions.flush",
    "decide_flush": "memdir.sessions.flush",
    "flush_threshold": "memdir.sessions.flush",
    "HookResult": "memdir.sessions.hook",
    "HookSettings": "memdir.sessions.hook",
    "AsyncSession": "memdir.sessions.session",
    "Session": "memdir.sessions.session",
    "SessionState": "memdir.sessions.store",
    "ToolCall": "memdir.sessions.transcript",
    "Transcript": "memdir.sessions.transcript",
    "TranscriptMessage": "memdir.sessions.transcript",
    "Usage": "memdir.sessions.transcript",
    "parse_transcript": "memdir.sessions.transcript",
    "read_transcript": "memdir.sessions.transcript",
}

__all__ = [
    "Applied",
    "AsyncSession",
    "FlushDecision",
    "FlushPlan",
    "FlushResult",
    "FlushSettings",
    "HookResult",
    "HookSettings",
    "Proposal",
    "Session",
    "SessionState",
    "Superseded",
    "ToolCall",
    "Transcript",
    "TranscriptMessage",
    "Usage",
    "aapply_proposal",
    "aconsolidate",
    "apply_proposal",
    "build_flush_plan",
    "consolidate",
    "decide_flush",
    "flush_threshold",
    "parse_transcript",
    "read_transcript",
]

if TYPE_CHECKING:
    from memdir.sessions.consolidation import (
        Applied,
        Proposal,
        Superseded,
        aapply_proposal,
        aconsolidate,
        apply_proposal,
        consolidate,
    )
    from memdir.sessions.flush import (
        FlushDecision,
        FlushPlan,
        FlushResult,
        FlushSettings,
        build_flush_plan,
        decide_flush,
        flush_threshold,
    )
    from memdir.sessions.hook import HookResult, HookSettings
    from memdir.sessions.session import AsyncSession, Session
    from memdir.sessions.store import SessionState
    from memdir.sessions.transcript import (
        ToolCall,
        Transcript,
        TranscriptMessage,
        Usage,
        parse_transcript,
        read_transcript,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir.sessions' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
