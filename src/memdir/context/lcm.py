"""A workspace's lossless context: :class:`LosslessContext` opens the store, resolves sessions,
imports transcripts and answers ``lcm_grep``, ``lcm_describe`` and ``lcm_expand``.

>>> with LosslessContext(load_config("~/notes")) as lcm:        # doctest: +SKIP
...     report = lcm.import_transcript("~/.claude/projects/app/0b6c.jsonl")
...     hits = lcm.grep("Postgres", session=report["session"])
...     lcm.expand(hits["results"][0]["summary"])

The tools (:mod:`memdir.context.tools`), the CLI (``memdir lcm``), ``memdir chat`` and
:meth:`memdir.Session.context` all go through it, so they agree on every answer.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memdir.config import Config
from memdir.context.compaction import CompactionResult, ContextSettings
from memdir.context.store import LcmStore, NewMessage, iso_time, parse_ref, store_path
from memdir.context.summarize import Summarizer
from memdir.context.tokens import TokenCounter
from memdir.context.working import WorkingMemory
from memdir.errors import NotFoundError, UsageError

__all__ = ["GREP_MODES", "GREP_SCOPES", "GREP_SORTS", "MAX_GREP_LIMIT", "LosslessContext"]

GREP_MODES = ("text", "regex")
GREP_SCOPES = ("messages", "summaries", "both")
GREP_SORTS = ("recency", "relevance")
MAX_GREP_LIMIT = 200
DEFAULT_EXPAND_TOKENS = 8000
"""What ``lcm_expand`` returns at most per page when the caller gives no ``max_tokens``."""


class LosslessContext:
    """The store of ``config``'s workspace (``<index folder>/lcm.sqlite``), opened on first use.

    ``model`` writes summaries: a :class:`~memdir.llm.ChatModel`, by default the one the
    ``llm.*`` settings name (the extractive fallback without one), created on the first
    compaction. ``settings`` replaces the ``context.*`` settings.
    """

    def __init__(
        self,
        config: Config,
        *,
        model: Any = None,
        settings: ContextSettings | None = None,
        counter: TokenCounter | None = None,
        path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.config = config
        self.settings = settings or ContextSettings.from_config(config)
        self.counter = counter or TokenCounter()
        self.path = Path(path) if path is not None else store_path(config)
        self._model = model
        self._owns_model = model is None
        self._store: LcmStore | None = None
        self._summarizer: Summarizer | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    @property
    def store(self) -> LcmStore:
        if self._store is None:
            self._store = LcmStore.open(self.path)
        return self._store

    @property
    def exists(self) -> bool:
        return self._store is not None or self.path.exists()

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
        if self._owns_model and self._model is not None:
            self._model.close()
            self._model = None

    def __enter__(self) -> LosslessContext:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def summarizer(self) -> Summarizer:
        """Writes the summaries; the ``llm.*`` model is created on the first one."""
        if self._summarizer is None:
            self._summarizer = Summarizer(
                self._model,
                counter=self.counter,
                timeout_s=self.settings.timeout_s,
                factory=self._create_model if self._model is None else None,
            )
        return self._summarizer

    def _create_model(self) -> Any:
        from memdir.llm.providers import create_chat_model

        self._model = create_chat_model(self.config)
        return self._model

    # -- sessions ----------------------------------------------------------------------------
    def resolve(self, session: str | None) -> str:
        """``session``, checked to exist, or the most recent one; :class:`NotFoundError`."""
        if not self.exists:
            raise NotFoundError(
                f"no conversation is stored yet ({self.path} does not exist)",
                hint="`memdir lcm import FILE` stores a transcript; `memdir chat` stores its own",
            )
        if session:
            if not self.store.has_conversation(session):
                known = [c.id for c in self.store.conversations()[:5]]
                raise NotFoundError(
                    f"no session {session!r} in {self.path}",
                    hint=f"known: {', '.join(known) or 'none'}",
                )
            return session
        latest = self.store.latest()
        if latest is None:
            raise NotFoundError(
                f"no conversation is stored yet in {self.path}",
                hint="`memdir lcm import FILE` stores a transcript",
            )
        return latest

    def working(
        self, session: str, *, before_compact: Any = None, source: str = ""
    ) -> WorkingMemory:
        """The working memory of ``session`` (created on its first message)."""
        return WorkingMemory(
            self.store,
            session,
            settings=self.settings,
            counter=self.counter,
            summarizer=self.summarizer,
            before_compact=before_compact,
            source=source,
        )

    def status(self, session: str | None = None) -> dict[str, Any]:
        """The store and one session (default: the most recent) in numbers."""
        out: dict[str, Any] = {
            "path": str(self.path),
            "exists": self.exists,
            "token_counter": self.counter.name,
            "window_tokens": self.settings.window_tokens,
            "trigger_tokens": self.settings.trigger_tokens,
            "sessions": [],
        }
        if not self.exists:
            return out
        rows = self.store.conversations()
        out["sessions"] = [
            {"id": c.id, "messages": c.messages, "summaries": c.summaries,
             "updated_at": iso_time(c.updated_ms), "source": c.source}
            for c in rows
        ]  # fmt: skip
        if not rows:
            return out
        sid = self.resolve(session)
        items = self.store.items(sid)
        out["session"] = {
            "id": sid,
            "messages": len(self.store.messages(sid)),
            "summaries_by_depth": {
                str(d): n for d, n in sorted(self.store.depth_counts(sid).items())
            },
            "context_items": len(items),
            "context_tokens": sum(i.tokens for i in items),
            "raw_in_context": sum(1 for i in items if i.is_message),
            "summaries_in_context": sum(1 for i in items if not i.is_message),
            "problems": self.store.check(sid),
        }
        return out

    # -- recording -----------------------------------------------------------------------------
    def unstored(self, session: str, messages: Sequence[Any]) -> list[NewMessage]:
        """Transcript messages (:class:`memdir.sessions.TranscriptMessage`) of ``session`` that
        the store does not hold yet (by transcript id), as messages to append."""
        known = self.store.ext_ids(session) if self.store.has_conversation(session) else set()
        return [n for n in map(_as_new, messages) if n.ext_id not in known]

    def record(
        self, session: str, messages: Sequence[Any], *, before_compact: Any = None, source: str = ""
    ) -> WorkingMemory:
        """Append the transcript messages of ``session`` not stored yet; its working memory.
        (A few are appended directly: :meth:`LcmStore.append` skips a stored transcript id
        itself, so a live session's every turn does not read all the ids back.)"""
        working = self.working(session, before_compact=before_compact, source=source)
        pending = (
            [_as_new(m) for m in messages]
            if len(messages) <= 32
            else self.unstored(session, messages)
        )
        if pending:
            working.extend(pending)
        return working

    # -- import ------------------------------------------------------------------------------
    def import_transcript(
        self,
        file: str | os.PathLike[str],
        *,
        session: str | None = None,
        compact: bool = True,
        batch: int = 200,
    ) -> dict[str, Any]:
        """Store a Claude Code or OpenClaw (memdir) JSONL transcript as a conversation,
        compacting as a live session would (after every ``batch`` messages, when the trigger
        is reached) so the result is grep-able and expandable. Importing it again adds only
        the messages not stored yet (by their transcript ids)."""
        from memdir.sessions.transcript import read_transcript

        path = Path(os.path.expanduser(os.fspath(file)))
        if not path.is_file():
            raise UsageError(f"no transcript file {path}")
        transcript = read_transcript(path)
        if transcript.format == "empty":
            raise UsageError(
                f"{path} holds no message memdir can read",
                hint="expected a Claude Code or OpenClaw JSONL transcript",
            )
        sid = session or transcript.session_id or path.stem
        pending = self.unstored(sid, transcript.messages)
        started = time.monotonic()
        memory = self.working(sid, source=transcript.format)
        added = 0
        compactions: list[CompactionResult] = []
        for start in range(0, len(pending), batch):
            added += len(memory.extend(pending[start : start + batch]))
            if compact and memory.needs_compaction():
                compactions.append(memory.compact(lock_timeout=30.0))
        if not pending and not self.store.has_conversation(sid):
            raise UsageError(f"{path} holds no message to store")
        warnings = list(transcript.problems)
        for c in compactions:
            warnings.extend(c.warnings)
        return {
            "session": sid,
            "file": str(path),
            "format": transcript.format,
            "messages_read": len(transcript.messages),
            "messages_added": added,
            "compactions": len(compactions),
            "summaries_written": sum(len(c.summaries) for c in compactions),
            "context_tokens": memory.tokens(),
            "elapsed_s": round(time.monotonic() - started, 3),
            "warnings": warnings,
        }

    # -- the tools' answers ------------------------------------------------------------------
    def grep(
        self,
        pattern: str,
        *,
        session: str | None = None,
        mode: str = "text",
        scope: str = "both",
        sort: str = "recency",
        limit: int = 20,
        all_sessions: bool = False,
    ) -> dict[str, Any]:
        """``lcm_grep``: messages and summaries matching ``pattern`` in one session (default:
        the most recent), or in every session with ``all_sessions``."""
        _check_choice("mode", mode, GREP_MODES)
        _check_choice("scope", scope, GREP_SCOPES)
        _check_choice("sort", sort, GREP_SORTS)
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= MAX_GREP_LIMIT
        ):
            raise UsageError(
                f"limit must be a whole number from 1 to {MAX_GREP_LIMIT}, got {limit!r}"
            )
        if not isinstance(pattern, str) or not pattern.strip():
            raise UsageError("pattern must be a non-empty string")
        sid = None if all_sessions and not session else self.resolve(session)
        hits, how = self.store.grep(
            pattern, conversation=sid, mode=mode, scope=scope, sort=sort, limit=limit
        )
        return {
            "pattern": pattern,
            "session": sid,
            "mode": mode,
            "matched": how,
            "results": [h.to_dict() for h in hits],
        }

    def describe(self, ref: object) -> dict[str, Any]:
        """``lcm_describe``: a summary's depth, time span, token counts, parent and children;
        for a message id, the message's place (and the summary covering it)."""
        kind, value = parse_ref(ref)
        store = self.store if self.exists else None
        if store is None:
            raise NotFoundError(f"no conversation is stored yet ({self.path} does not exist)")
        if kind == "message":
            m = store.message(int(value))
            leaf = store.covering_leaf(m.id)
            return {
                "kind": "message",
                "id": m.id,
                "session": m.conversation,
                "seq": m.seq,
                "role": m.role,
                "tokens": m.tokens,
                "created_at": iso_time(m.created_ms),
                "summary": leaf,
                "in_context": leaf is None,
            }
        row = store.summary(str(value))
        children = store.children(row.id)
        return {
            "kind": "summary",
            "id": row.id,
            "session": row.conversation,
            "depth": row.depth,
            "earliest_at": iso_time(row.earliest_ms),
            "latest_at": iso_time(row.latest_ms),
            "first_seq": row.first_seq,
            "last_seq": row.last_seq,
            "messages": row.messages,
            "tokens": row.tokens,
            "source_tokens": row.source_tokens,
            "parent": store.parent(row.id),
            "children": [{"kind": k, "id": i} for k, i in children],
            "made_by": row.kind,
            "model": row.model,
            "created_at": iso_time(row.created_ms),
            "content": row.content,
        }

    def expand(
        self, ref: object, *, max_tokens: int | None = None, offset: int = 0
    ) -> dict[str, Any]:
        """``lcm_expand``: the exact original messages under a summary, in order, recursively;
        a page of at most ``max_tokens`` tokens (at least one message) from message
        ``offset`` of them, with ``next_offset`` to continue (``None`` at the end). A message
        id expands to that message."""
        if max_tokens is not None and (
            isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
        ):
            raise UsageError(f"max_tokens must be a whole number >= 1, got {max_tokens!r}")
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise UsageError(f"offset must be a whole number >= 0, got {offset!r}")
        kind, value = parse_ref(ref)
        if not self.exists:
            raise NotFoundError(f"no conversation is stored yet ({self.path} does not exist)")
        if kind == "message":
            row = self.store.message(int(value))
            conversation, first, last = row.conversation, row.seq, row.seq
            total, total_tokens = 1, row.tokens
        else:
            summary = self.store.summary(str(value))  # NotFoundError for an unknown id
            conversation, first, last = summary.conversation, summary.first_seq, summary.last_seq
            total, total_tokens = summary.messages, summary.source_tokens
        page = self.store.message_page(conversation, first + offset, last, max_tokens)
        end = offset + len(page)
        return {
            "id": value,
            "session": conversation,
            "total_messages": total,
            "total_tokens": total_tokens,
            "offset": offset,
            "next_offset": end if end < total else None,
            "tokens": sum(r.tokens for r in page),
            "messages": [r.to_dict() for r in page],
        }


def _as_new(m: Any) -> NewMessage:
    """A transcript message as a message to store (its tool calls and answers as ``extra``)."""
    extra: dict[str, Any] = {}
    if m.tool_calls:
        extra["tool_calls"] = [
            {"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls
        ]
    if m.tool_call_id:
        extra.update(tool_call_id=m.tool_call_id, tool_name=m.tool_name)
    if m.is_error:
        extra["is_error"] = True
    return NewMessage(m.role, m.text, m.timestamp_ms, m.id or f"line-{m.line}", extra or None)


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise UsageError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
