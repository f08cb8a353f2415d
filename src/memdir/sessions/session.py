"""A conversation's memory: :class:`Session` and its asyncio twin :class:`AsyncSession`.

>>> with Session(mem) as session:                          # doctest: +SKIP
...     session.add({"role": "user", "content": question})
...     answer = model.complete(session.history())
...     session.add(answer)                                # text, usage and model recorded
...     if session.should_flush(answer.input_tokens):
...         session.flush()                                # before the loop compacts
...     session.end()                                      # on /new: the session-memory file

Every message goes to ``<sessions.dir>/<session-id>.jsonl`` (see :mod:`.store`), so a session
can be resumed by id in a later process, its flush bookkeeping included. ``context()`` and
``compact()`` mirror the transcript into the workspace's lossless context store (through
``Memory.lcm``) and return what to send the model: summaries plus the newest messages.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from memdir.config import Config
from memdir.errors import UsageError
from memdir.llm.chat import ChatModel, Message
from memdir.sessions.flush import (
    FlushDecision,
    FlushResult,
    FlushSettings,
    build_flush_plan,
    decide_flush,
    estimate_tokens,
    write_flush,
)
from memdir.sessions.hook import HookResult, HookSettings, write_session_memory
from memdir.sessions.notes import user_zone
from memdir.sessions.records import (
    Timestamp,
    compaction_record,
    header_record,
    message_record,
    new_record_id,
    normalize,
)
from memdir.sessions.store import SessionState, SessionStore, check_session_id, new_session_id
from memdir.sessions.transcript import TranscriptMessage, read_transcript

__all__ = ["AsyncSession", "MemoryLike", "Session"]

log = logging.getLogger(__name__)

FLUSH_MAX_TOKENS = 800
"""How long a flush's note may be, in tokens (the model's ``max_tokens``, the fallback's budget)."""
FLUSH_INPUT_TOKENS = 24_000
"""How much of the conversation a flush sends to the model, newest first, in tokens."""


class MemoryLike(Protocol):
    """What a session needs of a :class:`~memdir.Memory`: its settings, and a way to index the
    files it writes at once."""

    @property
    def config(self) -> Config: ...

    def refresh(self, paths: Sequence[str | os.PathLike[str]] | None = None) -> list[str]: ...


class Session:
    """One conversation recorded in a :class:`~memdir.Memory`'s workspace.

    ``llm`` writes the flushes and names the session-memory files; by default the model the
    ``llm.*`` settings name, else the extractive fallback (see :mod:`memdir.llm`).
    ``session_id`` resumes that session (its transcript and state are read back); by default a
    new one is started. ``source`` is written into the session-memory file (``api``, ``chat``…).
    ``clock`` returns the current time (an aware datetime); the transcript is ``fsync`` ed after
    every message unless ``fsync`` is off. Nothing is written until the first :meth:`add`.
    """

    def __init__(
        self,
        memory: MemoryLike,
        *,
        llm: ChatModel | None = None,
        session_id: str | None = None,
        source: str = "api",
        cwd: str | None = None,
        flush_max_tokens: int = FLUSH_MAX_TOKENS,
        flush_input_tokens: int = FLUSH_INPUT_TOKENS,
        fsync: bool = True,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        for name, value in (
            ("flush_max_tokens", flush_max_tokens),
            ("flush_input_tokens", flush_input_tokens),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise UsageError(f"{name} must be a whole number >= 1, got {value!r}")
        config = getattr(memory, "config", None)
        if not isinstance(config, Config):
            raise UsageError(
                f"Session needs a memdir.Memory (or an object with its config), got {type(memory).__name__}"
            )
        self.memory = memory
        self.config = config
        self.session_id = check_session_id(session_id) if session_id else new_session_id()
        self.store = SessionStore(config.path("sessions.dir"), self.session_id, fsync=fsync)
        self.flush_settings = FlushSettings.from_config(config)
        self.hook_settings = HookSettings.from_config(config)
        self.source = source
        self.cwd = cwd if cwd is not None else str(config.workspace)
        self.flush_max_tokens = flush_max_tokens
        self.flush_input_tokens = flush_input_tokens
        self._clock = clock or (lambda: datetime.now(UTC))
        self._llm = llm
        self._owns_llm = llm is None
        self._lock = threading.RLock()
        transcript = read_transcript(self.store.path)
        if transcript.path is not None and transcript.format == "claude-code":
            raise UsageError(
                f"{self.store.path} is a Claude Code transcript; memdir appends only to its own "
                "(OpenClaw) format. Read it with memdir.sessions.read_transcript"
            )
        self._messages = list(transcript.messages)
        self._last_id = transcript.last_id
        self._compactions = transcript.compactions
        self._started_ms = transcript.started_ms or self._now_ms()
        self._tool_names = {c.id: c.name for m in self._messages for c in m.tool_calls}
        self._token_trigger: int | None = None  # the projected count of a due token trigger
        self._lcm_synced = 0  # messages known to be in the lossless context store
        self.warnings: list[str] = transcript.problems
        """What went wrong reading the session back (a torn last line, a damaged state file)."""
        for problem in self.warnings:
            log.warning("%s", problem)
        self._state = self.store.load_state(self._rebuilt_state, repair=False)
        self.warnings.extend(w for w in self.store.warnings if w not in self.warnings)

    # -- lifecycle -------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"Session({self.session_id!r}, messages={len(self._messages)})"

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Release the chat model if the session created it. Does not end the session."""
        if self._owns_llm and self._llm is not None:
            self._llm.close()
            self._llm = None

    @property
    def llm(self) -> ChatModel:
        """The chat model in use, created from the ``llm.*`` settings on first use."""
        with self._lock:
            if self._llm is None:
                from memdir.llm.providers import create_chat_model

                self._llm = create_chat_model(self.config)
            return self._llm

    @property
    def path(self) -> Path:
        """The transcript: ``<sessions.dir>/<session-id>.jsonl``."""
        return self.store.path

    @property
    def messages(self) -> tuple[TranscriptMessage, ...]:
        """Every message recorded so far, tool calls and answers included."""
        return tuple(self._messages)

    @property
    def state(self) -> SessionState:
        """The saved state: compactions, the last flush, whether the session ended."""
        with self._lock:
            return self._reload()

    def history(self) -> list[Message]:
        """The user and assistant messages as :class:`~memdir.llm.Message` objects, to send
        back to a model."""
        return [Message(m.role, m.text) for m in self._messages if m.conversational]  # type: ignore[arg-type]

    def _now_ms(self) -> int:
        return int(self._clock().timestamp() * 1000)

    def _rebuilt_state(self) -> SessionState:
        return SessionState(self.session_id, self._started_ms, self._compactions)

    def _reload(self) -> SessionState:
        self._state = self.store.load_state(self._rebuilt_state, repair=False)
        return self._state

    def _update(self, **changes: Any) -> SessionState:
        self._state = self.store.update(lambda s: replace(s, **changes), self._rebuilt_state)
        return self._state

    # -- the transcript --------------------------------------------------------------------
    def add(
        self,
        message: object,
        *,
        usage: object = None,
        timestamp: Timestamp | None = None,
    ) -> tuple[TranscriptMessage, ...]:
        """Record ``message`` (any shape :mod:`memdir.sessions.records` lists; a ChatResult
        for a model's answer) and return what was written: nothing for a system message, a
        tool answer and the text for an Anthropic user message with ``tool_result`` blocks."""
        with self._lock:
            if self._state.ended_at is not None or self._reload().ended_at is not None:
                raise UsageError(f"session {self.session_id} has ended; start a new Session")
            now = self._now_ms()
            made = normalize(
                message, usage=usage, timestamp=timestamp, now_ms=now, tool_names=self._tool_names
            )
            if not made:
                return ()
            written: list[TranscriptMessage] = []
            records = []
            parent = self._last_id or None
            for item in made:
                item = replace(item, id=new_record_id())
                records.append(message_record(item, parent))
                written.append(item)
                parent = item.id
            self.store.append(records, header=header_record(self.session_id, now, self.cwd))
            self._messages.extend(written)
            self._last_id = written[-1].id
            self._tool_names.update((c.id, c.name) for m in written for c in m.tool_calls)
            return tuple(written)

    # -- the flush -------------------------------------------------------------------------
    def should_flush(
        self,
        tokens: int | None = None,
        *,
        pending: str | Message | Mapping[str, object] | None = None,
        context_window: int | None = None,
        reserve_tokens: int | None = None,
    ) -> bool:
        """Whether to :meth:`flush` now, before the next turn: see :meth:`flush_decision`."""
        return self.flush_decision(
            tokens, pending=pending, context_window=context_window, reserve_tokens=reserve_tokens
        ).due

    def flush_decision(
        self,
        tokens: int | None = None,
        *,
        pending: str | Message | Mapping[str, object] | None = None,
        context_window: int | None = None,
        reserve_tokens: int | None = None,
    ) -> FlushDecision:
        """Whether the flush is due, and why (:func:`memdir.sessions.decide_flush`).

        ``tokens`` is the prompt size the last model call reported (input, cached included);
        by default the usage recorded with the last answer. To it are added that answer's
        tokens, the messages recorded since (tool results, say) and ``pending``, the message
        about to be sent. ``context_window`` and ``reserve_tokens`` are the model's window and
        the reserve the caller's compaction keeps, when they differ from the settings.

        A loop that compacts without calling :meth:`compacted` is still seen to: once a flush
        that the token count made due has run, a projected count back below the threshold
        means the context was compacted, and a new cycle begins.
        """
        with self._lock:
            prompt, extra = self._token_snapshot(tokens)
            extra += _pending_tokens(pending)
            state = self._reload()
            decision = self._decide(state, prompt, extra, context_window, reserve_tokens)
            projected = decision.projected_tokens
            if (
                state.flushed_this_cycle
                and state.flush_tokens is not None
                and projected is not None
                and projected < decision.threshold <= state.flush_tokens
            ):
                log.info(
                    "session %s: the context shrank from %d to %d tokens since the last flush; "
                    "counting it as a compaction",
                    self.session_id,
                    state.flush_tokens,
                    projected,
                )
                state = self._record_compaction(summary="", tokens_before=None, write=False)
                decision = self._decide(state, prompt, extra, context_window, reserve_tokens)
            due_by_tokens = decision.due and decision.reason == "tokens"
            self._token_trigger = decision.projected_tokens if due_by_tokens else None
            return decision

    def _decide(
        self,
        state: SessionState,
        prompt: int | None,
        extra: int,
        context_window: int | None,
        reserve_tokens: int | None,
    ) -> FlushDecision:
        grown = max(self.store.transcript_size() - state.compacted_at_bytes, 0)
        return decide_flush(
            self.flush_settings,
            prompt_tokens=prompt,
            output_tokens=extra,
            transcript_bytes=grown,
            flushed_this_cycle=state.flushed_this_cycle,
            context_window=context_window,
            reserve_tokens=reserve_tokens,
        )

    def _token_snapshot(self, tokens: int | None) -> tuple[int | None, int]:
        """The last call's prompt tokens, and the tokens added since (its answer and later
        messages, estimated when no usage says)."""
        if tokens is not None and (
            isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0
        ):
            raise UsageError(f"tokens must be a whole number >= 0 or None, got {tokens!r}")
        last = None
        for i in range(len(self._messages) - 1, -1, -1):
            message = self._messages[i]
            if message.role == "assistant" and (tokens is not None or message.usage is not None):
                last = i
                break
        if last is None:
            return tokens, 0
        answer = self._messages[last]
        usage = answer.usage
        prompt = tokens if tokens is not None else (usage.prompt_tokens if usage else None)
        output = usage.output if usage and usage.output else _message_tokens(answer)
        later = sum(_message_tokens(m) for m in self._messages[last + 1 :])
        return prompt, output + later

    def flush(self, *, reason: str = "requested") -> FlushResult:
        """Save the durable memories of the conversation since the last flush to
        ``memory/YYYY-MM-DD.md`` now (see :mod:`memdir.sessions.flush`), and count this
        compaction cycle as flushed. A failing model never fails the flush (the extractive
        fallback writes it, and the result says so); a file that cannot be written raises
        :class:`~memdir.errors.StorageError` or :class:`~memdir.errors.PathError`."""
        with self._lock:
            state = self._reload()
            cycle = state.compaction_count
            start = self._index_after(state.flushed_through)
            new = self._messages[start:]
            now = self._clock()
            zone, zone_name = user_zone(self.config)
            plan = build_flush_plan(self.flush_settings, now=now, zone=zone, zone_name=zone_name)
            done = {
                "flush_cycle": cycle,
                "flush_at": int(now.timestamp() * 1000),
                "flush_tokens": self._token_trigger if reason != "overflow" else None,
            }
            self._token_trigger = None
            if not any(m.conversational for m in new):
                self._update(**done)
                return FlushResult(False, plan.relative_path, reason, skipped="nothing-new")
            result, path = write_flush(
                self.config,
                new,
                plan,
                self.llm,
                reason=reason,
                max_tokens=self.flush_max_tokens,
                input_tokens=self.flush_input_tokens,
            )
            warnings = list(result.warnings)
            if result.written:
                warnings.extend(self._index(path))
            self._update(
                **done,
                flush_count=state.flush_count + 1,
                flushed_through=new[-1].id,
            )
            return replace(result, warnings=tuple(warnings))

    def flush_for_overflow(self) -> FlushResult:
        """The model refused the prompt as too long: flush before compacting, unless this
        compaction cycle was flushed already (upstream skips this path, issue #114081)."""
        with self._lock:
            if not self.flush_settings.enabled:
                return FlushResult(False, "", "overflow", skipped="disabled")
            if self._reload().flushed_this_cycle:
                return FlushResult(False, "", "overflow", skipped="already-flushed")
            return self.flush(reason="overflow")

    def compacted(self, *, summary: str = "", tokens_before: int | None = None) -> None:
        """Record that the caller compacted the conversation: a new compaction cycle begins,
        in which one more flush may run. A ``compaction`` record goes into the transcript."""
        with self._lock:
            self._record_compaction(summary=summary, tokens_before=tokens_before, write=True)

    def _record_compaction(
        self, *, summary: str, tokens_before: int | None, write: bool
    ) -> SessionState:
        if write:
            record_id = new_record_id()
            now = self._now_ms()
            self.store.append(
                [compaction_record(record_id, self._last_id or None, now, summary, tokens_before)],
                header=header_record(self.session_id, now, self.cwd),
            )
            self._last_id = record_id
        size = self.store.transcript_size()
        # A state rebuilt from the transcript counts the compactions before this one.
        self._state = self.store.update(
            lambda s: replace(s, compaction_count=s.compaction_count + 1, compacted_at_bytes=size),
            self._rebuilt_state,
        )
        self._compactions += 1
        return self._state

    def _index_after(self, message_id: str) -> int:
        if message_id:
            for i in range(len(self._messages) - 1, -1, -1):
                if self._messages[i].id == message_id:
                    return i + 1
        return 0

    def _index(self, path: Path) -> list[str]:
        refresh = getattr(self.memory, "refresh", None)
        return list(refresh(paths=[path])) if callable(refresh) else []

    # -- the lossless context ----------------------------------------------------------------
    def _working(self) -> Any:
        """This session's working memory in the workspace's lossless context store (through
        ``Memory.lcm``: this package never imports :mod:`memdir.context`), with every message
        recorded so far stored."""
        lcm = getattr(self.memory, "lcm", None)
        if lcm is None:
            raise UsageError(
                "Session.context() and compact() need a memdir.Memory (its lossless context store)"
            )
        pending = self._messages[self._lcm_synced :] if self._lcm_synced else self._messages
        working = lcm.record(
            self.session_id, pending, before_compact=self._flush_before_compact, source=self.source
        )
        self._lcm_synced = len(self._messages)
        return working

    def _flush_before_compact(self) -> bool:
        """The memory flush, before a compaction's first round, once per compaction cycle."""
        if not self.flush_settings.enabled or self._reload().flushed_this_cycle:
            return False
        return bool(self.flush(reason="compaction").written)

    def context(self, budget: int | None = None, *, compact: bool = True) -> Any:
        """What to send the model now, as a :class:`memdir.context.Assembly`: the summaries in
        order, then the most recent raw messages, within ``budget`` tokens (default
        ``context.window_tokens``); ``.messages()`` gives them as chat messages. With
        ``compact`` (the default) the context is compacted first when it has reached
        ``context.trigger`` (see :meth:`compact`)."""
        with self._lock:
            working = self._working()
            if compact and working.needs_compaction():
                self._compact(working, force=False)
            return working.assemble(budget)

    def compact(self, *, force: bool = False) -> Any:
        """Compact the context when it has reached ``context.trigger`` (or now, with
        ``force``): the memory flush first (once per cycle), then summaries replace the oldest
        messages (:func:`memdir.context.compact`). When anything was summarised a new
        compaction cycle begins (:meth:`compacted`). Returns the
        :class:`memdir.context.CompactionResult`."""
        with self._lock:
            return self._compact(self._working(), force=force)

    def _compact(self, working: Any, *, force: bool) -> Any:
        result = working.compact(force=force, lock_timeout=30.0)
        if result.compacted:
            self.compacted(
                summary=f"lcm: {len(result.summaries)} summaries, last {result.summaries[-1]}",
                tokens_before=result.tokens_before,
            )
        return result

    # -- the end ---------------------------------------------------------------------------
    def end(self, *, reason: str = "new") -> HookResult:
        """End the session (``/new``, ``/reset``): its last messages become
        ``memory/YYYY-MM-DD-<slug>.md`` (see :mod:`memdir.sessions.hook`); nothing for a
        trivial session. Later calls return ``skipped="already-ended"``; :meth:`add` refuses."""
        with self._lock:
            state = self._reload()
            if state.ended_at is not None:
                return HookResult(False, path=state.memory_file, skipped="already-ended")
            now = self._clock()
            zone, zone_name = user_zone(self.config)
            wants_model = self.hook_settings.enabled and self.hook_settings.llm_slug
            result = write_session_memory(
                self.config,
                self._messages,
                model=self.llm if wants_model else None,
                now=now,
                zone=zone,
                zone_name=zone_name,
                session_id=self.session_id,
                source=self.source,
                reason=f"/{reason.lstrip('/')}",
                settings=self.hook_settings,
            )
            if result.written:
                extra = self._index(self.config.workspace / result.path)
                result = replace(result, warnings=result.warnings + tuple(extra))
            self._update(
                ended_at=int(now.timestamp() * 1000),
                end_reason=reason,
                memory_file=result.path,
            )
            return result


def _message_tokens(message: TranscriptMessage) -> int:
    calls = sum(
        estimate_tokens(c.name) + estimate_tokens(str(c.arguments)) for c in message.tool_calls
    )
    return estimate_tokens(message.text) + calls


def _pending_tokens(pending: str | Message | Mapping[str, object] | None) -> int:
    if pending is None:
        return 0
    if isinstance(pending, str):
        return estimate_tokens(pending)
    if isinstance(pending, Message):
        return estimate_tokens(pending.content)
    if isinstance(pending, Mapping):
        made = normalize(pending, now_ms=1, tool_names={})
        return sum(_message_tokens(m) for m in made)
    raise UsageError(f"pending must be text or a message, got {type(pending).__name__}")


async def _in_thread(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    import asyncio

    return await asyncio.to_thread(func, *args, **kwargs)


class AsyncSession:
    """:class:`Session` for asyncio code: the same methods, awaited, each run in a worker
    thread. ``memory`` is an :class:`~memdir.AsyncMemory` or a :class:`~memdir.Memory`."""

    def __init__(self, memory: object, **kwargs: Any) -> None:
        inner = getattr(memory, "memory", memory)
        self._session = Session(inner, **kwargs)  # type: ignore[arg-type]

    @property
    def session(self) -> Session:
        return self._session

    @property
    def session_id(self) -> str:
        return self._session.session_id

    @property
    def path(self) -> Path:
        return self._session.path

    @property
    def messages(self) -> tuple[TranscriptMessage, ...]:
        return self._session.messages

    @property
    def warnings(self) -> list[str]:
        return self._session.warnings

    def history(self) -> list[Message]:
        return self._session.history()

    @property
    def state(self) -> SessionState:
        return self._session.state

    async def add(
        self, message: object, *, usage: object = None, timestamp: Timestamp | None = None
    ) -> tuple[TranscriptMessage, ...]:
        return await _in_thread(self._session.add, message, usage=usage, timestamp=timestamp)  # type: ignore[no-any-return]

    async def should_flush(self, tokens: int | None = None, **kwargs: Any) -> bool:
        return await _in_thread(self._session.should_flush, tokens, **kwargs)  # type: ignore[no-any-return]

    async def flush_decision(self, tokens: int | None = None, **kwargs: Any) -> FlushDecision:
        return await _in_thread(self._session.flush_decision, tokens, **kwargs)  # type: ignore[no-any-return]

    async def flush(self, *, reason: str = "requested") -> FlushResult:
        return await _in_thread(self._session.flush, reason=reason)  # type: ignore[no-any-return]

    async def flush_for_overflow(self) -> FlushResult:
        return await _in_thread(self._session.flush_for_overflow)  # type: ignore[no-any-return]

    async def compacted(self, *, summary: str = "", tokens_before: int | None = None) -> None:
        await _in_thread(self._session.compacted, summary=summary, tokens_before=tokens_before)

    async def end(self, *, reason: str = "new") -> HookResult:
        return await _in_thread(self._session.end, reason=reason)  # type: ignore[no-any-return]

    async def context(self, budget: int | None = None, *, compact: bool = True) -> Any:
        return await _in_thread(self._session.context, budget, compact=compact)

    async def compact(self, *, force: bool = False) -> Any:
        return await _in_thread(self._session.compact, force=force)

    async def aclose(self) -> None:
        await _in_thread(self._session.close)

    async def __aenter__(self) -> AsyncSession:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()
