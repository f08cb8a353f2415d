"""Capture for Claude Code: what ``memdir hook claude-code`` does with the JSON a hook gets.

Claude Code runs a hook command with one JSON object on its stdin: ``session_id``,
``transcript_path`` (its own JSONL, ``~/.claude/projects/<project>/<session>.jsonl``), ``cwd``,
``hook_event_name``, and ``trigger`` (``manual`` or ``auto``, for ``PreCompact``) or ``reason``
(``clear``, ``logout``, ``prompt_input_exit``, ``other``, for ``SessionEnd``).

* **PreCompact**: the pre-compaction flush (:mod:`memdir.sessions.flush`) over the messages
  of the transcript since the last flush, appended to ``memory/YYYY-MM-DD.md``. At most once
  per compaction cycle: the cycle is the number of compaction markers already in the
  transcript, so a second ``PreCompact`` before the compaction happened writes nothing.
* **SessionEnd**: the session-memory hook (:mod:`memdir.sessions.hook`) over the transcript,
  to ``memory/YYYY-MM-DD-<slug>.md``, source ``claude-code``, ended by the reason. Once per
  session, unless the session was resumed and went on after that.
* Any other event is ignored.

What each Claude Code session has had done is kept in ``.memdir/claude-code/<session>.meta.json``
(:class:`~memdir.sessions.SessionState`, saved atomically under a lock); the transcript itself
is only read. The files written are not indexed here (that would load the index, and perhaps
an embedding model, inside the agent's hook): the next search or ``memdir serve``'s watcher
picks them up.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from memdir.config import STATE_DIRNAME, Config
from memdir.errors import UsageError
from memdir.llm.chat import ChatModel
from memdir.sessions.flush import FlushResult, FlushSettings, build_flush_plan, write_flush
from memdir.sessions.hook import HookResult, HookSettings, write_session_memory
from memdir.sessions.notes import user_zone
from memdir.sessions.store import SessionState, SessionStore, check_session_id
from memdir.sessions.transcript import Transcript, read_transcript

__all__ = ["EVENTS", "HookInput", "HookOutcome", "run_claude_code_hook", "state_folder"]

EVENTS = ("PreCompact", "SessionEnd")
"""The hook events memdir acts on."""
MAX_INPUT_BYTES = 1024 * 1024
"""More stdin than this is not a hook's JSON."""
FLUSH_MAX_TOKENS = 800
FLUSH_INPUT_TOKENS = 24_000


@dataclass(frozen=True, slots=True)
class HookInput:
    """The JSON Claude Code writes to a hook's stdin (the fields memdir reads)."""

    event: str
    session_id: str
    transcript_path: Path
    cwd: str = ""
    trigger: str = ""
    reason: str = ""

    @classmethod
    def parse(cls, raw: str | bytes) -> HookInput:
        """Read the hook's stdin; :class:`UsageError` saying what is wrong when it is not a
        hook's JSON."""
        if len(raw) > MAX_INPUT_BYTES:
            raise UsageError(f"hook input is {len(raw)} bytes; a hook's JSON is far smaller")
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise UsageError(f"hook input is not JSON ({exc})") from exc
        if not isinstance(data, Mapping):
            raise UsageError(f"hook input is JSON {type(data).__name__}, not an object")

        def text(key: str, *, required: bool = False) -> str:
            value = data.get(key, "")
            if value is None:
                value = ""
            if not isinstance(value, str) or (required and not value):
                raise UsageError(f"hook input lacks {key!r} (a string)")
            return value

        event = text("hook_event_name", required=True)
        session_id = text("session_id", required=True)
        transcript = text("transcript_path", required=event in EVENTS)
        return cls(
            event,
            session_id,
            Path(transcript).expanduser(),
            cwd=text("cwd"),
            trigger=text("trigger"),
            reason=text("reason"),
        )


@dataclass(frozen=True, slots=True)
class HookOutcome:
    """What one hook run did: ``action`` is ``flush``, ``session-memory`` or ``ignored``; the
    flush's or the session-memory hook's result; ``problems`` reading the transcript."""

    event: str
    session_id: str
    action: str
    flush: FlushResult | None = None
    memory: HookResult | None = None
    problems: tuple[str, ...] = ()

    @property
    def warnings(self) -> tuple[str, ...]:
        done = self.flush or self.memory
        return self.problems + (done.warnings if done is not None else ())

    def summary(self) -> str:
        """One line saying what happened."""
        if self.flush is not None:
            f = self.flush
            if not f.written:
                return f"flush: nothing written ({f.skipped})"
            by = f"the extractive fallback ({f.fallback_reason})" if f.fallback else f.model
            return f"flush: wrote {f.path} lines {f.start_line}-{f.end_line}, by {by}"
        if self.memory is not None:
            m = self.memory
            if not m.written:
                return f"session memory: nothing written ({m.skipped})"
            return (
                f"session memory: wrote {m.path} ({m.messages} messages, slug from {m.slug_source})"
            )
        return f"{self.event}: nothing to do"

    def to_dict(self) -> dict[str, object]:
        return {
            "event": self.event,
            "session_id": self.session_id,
            "action": self.action,
            "flush": self.flush.to_dict() if self.flush else None,
            "session_memory": self.memory.to_dict() if self.memory else None,
            "warnings": list(self.warnings),
            "summary": self.summary(),
        }


def state_folder(config: Config) -> Path:
    """Where the state of each Claude Code session is kept: ``<workspace>/.memdir/claude-code``."""
    return config.workspace / STATE_DIRNAME / "claude-code"


def run_claude_code_hook(
    config: Config,
    hook: HookInput,
    *,
    model: Callable[[], ChatModel],
    now: datetime | None = None,
) -> HookOutcome:
    """Act on one hook event (see the module docstring). ``model()`` gives the chat model,
    called only when one is needed; the caller closes it."""
    if hook.event not in EVENTS:
        return HookOutcome(hook.event, hook.session_id, "ignored")
    session_id = check_session_id(hook.session_id)
    if hook.transcript_path.suffix != ".jsonl":
        raise UsageError(f"transcript_path {str(hook.transcript_path)!r} is not a .jsonl file")
    if not hook.transcript_path.is_file():
        raise UsageError(f"transcript {hook.transcript_path} does not exist or is not a file")
    transcript = read_transcript(hook.transcript_path)
    store = SessionStore(state_folder(config), session_id)
    moment = now or datetime.now(UTC)
    if hook.event == "PreCompact":
        result = _flush(config, store, transcript, model, moment, hook.trigger or "auto")
        return HookOutcome(hook.event, session_id, "flush", flush=result, problems=_p(transcript))
    memory = _end(config, store, transcript, model, moment, hook.reason or "other")
    return HookOutcome(
        hook.event, session_id, "session-memory", memory=memory, problems=_p(transcript)
    )


def _p(transcript: Transcript) -> tuple[str, ...]:
    return tuple(transcript.problems)


def _fresh(store: SessionStore) -> Callable[[], SessionState]:
    return lambda: SessionState(store.session_id)


def _flush(
    config: Config,
    store: SessionStore,
    transcript: Transcript,
    model: Callable[[], ChatModel],
    now: datetime,
    trigger: str,
) -> FlushResult:
    settings = FlushSettings.from_config(config)
    reason = f"pre-compact ({trigger})"
    zone, zone_name = user_zone(config)
    plan = build_flush_plan(settings, now=now, zone=zone, zone_name=zone_name)
    if not settings.enabled:
        return FlushResult(False, plan.relative_path, reason, skipped="disabled")
    cycle = transcript.compactions
    state = store.load_state(_fresh(store))
    if state.flush_cycle == cycle:
        return FlushResult(False, plan.relative_path, reason, skipped="already-flushed")
    messages = list(transcript.messages)
    start = 0
    if state.flushed_through:
        ids = [m.id for m in messages]
        if state.flushed_through in ids:
            start = ids.index(state.flushed_through) + 1
    new = messages[start:]
    done = {
        "compaction_count": cycle,
        "flush_cycle": cycle,
        "flush_at": int(now.timestamp() * 1000),
    }
    if not any(m.conversational for m in new):
        store.update(lambda s: replace(s, **done), _fresh(store))
        return FlushResult(False, plan.relative_path, reason, skipped="nothing-new")
    result, _ = write_flush(
        config,
        new,
        plan,
        model(),
        reason=reason,
        max_tokens=FLUSH_MAX_TOKENS,
        input_tokens=FLUSH_INPUT_TOKENS,
    )
    store.update(
        lambda s: replace(
            s, **done, flush_count=s.flush_count + 1, flushed_through=new[-1].id or ""
        ),
        _fresh(store),
    )
    return result


def _end(
    config: Config,
    store: SessionStore,
    transcript: Transcript,
    model: Callable[[], ChatModel],
    now: datetime,
    reason: str,
) -> HookResult:
    state = store.load_state(_fresh(store))
    if state.ended_at is not None:
        last = max((m.timestamp_ms for m in transcript.messages), default=0)
        if last <= state.ended_at:
            return HookResult(False, path=state.memory_file, skipped="already-ended")
    settings = HookSettings.from_config(config)
    zone, zone_name = user_zone(config)
    wants_model = settings.enabled and settings.llm_slug
    result = write_session_memory(
        config,
        transcript.messages,
        model=model() if wants_model else None,
        now=now,
        zone=zone,
        zone_name=zone_name,
        session_id=store.session_id,
        source="claude-code",
        reason=reason,
        settings=settings,
    )
    if result.skipped != "disabled":
        store.update(
            lambda s: replace(
                s,
                ended_at=int(now.timestamp() * 1000),
                end_reason=reason,
                memory_file=result.path or s.memory_file,
            ),
            _fresh(store),
        )
    return result
