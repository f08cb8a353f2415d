"""The pre-compaction memory flush (spec §11): when it is due, what the model is asked, and
how its answer becomes a note.

**When** (:func:`decide_flush`). ``threshold = context_window − reserve − soft``, with the
``flush.*`` settings: 200,000 − 20,000 − 4,000 = 176,000 tokens by default. The reserve is
``flush.reserve_tokens`` (at most a quarter of the window, so a small local model still gets a
threshold; upstream then never flushes), or the reserve the caller's runtime really keeps if
that is larger (upstream #25880); the soft margin is at most half of what the reserve leaves.
The count is *projected over the next turn*: the prompt tokens of the last model call, plus the
tokens of its answer, plus an estimate of the message about to be sent (about 4 characters, or
one CJK character, a token). The flush is due when that reaches the threshold, or when the
transcript has grown ``flush.force_transcript_bytes`` since the last compaction whatever the
count, and no flush ran in this compaction cycle yet.

**What** (:func:`build_flush_plan`). The target is ``memory/YYYY-MM-DD.md``, dated in the
user's time zone (the ``timezone`` setting). The model reads the conversation since the last
flush, what the day's file already says, and the flush prompt, which ends with the current time
in the user's zone and in UTC; the system prompt says what the turn is for. memdir writes the
answer itself, so a model needs no tools. Custom prompts (``flush.prompt``,
``flush.system_prompt``) get the target, append-only and read-only hints and the ``NO_REPLY``
hint added when they lack them.

**The answer.** ``NO_REPLY`` (alone, as ``{"action": "NO_REPLY"}``, or starting the answer)
writes nothing. Anything else is appended, minus what the day's file already says
(:func:`memdir.sessions.notes.fresh_lines`). Without a model (or when the model fails) the
:class:`~memdir.llm.ExtractiveSummarizer` writes the sentences that carry decisions,
preferences, dates, names, numbers and to-dos, and the result says so.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from memdir.config import Config
from memdir.errors import LLMError
from memdir.llm.chat import NO_REPLY, ChatModel, Message, is_silent_reply
from memdir.llm.extractive import ExtractiveSummarizer
from memdir.sessions.notes import clean_reply, fresh_lines, read_text, target
from memdir.sessions.transcript import TranscriptMessage
from memdir.text import weighted_length
from memdir.writer import append_note

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_SYSTEM_PROMPT",
    "FlushDecision",
    "FlushPlan",
    "FlushResult",
    "FlushSettings",
    "build_flush_plan",
    "current_time_line",
    "decide_flush",
    "estimate_tokens",
    "flush_threshold",
    "run_flush_model",
    "write_flush",
]

log = logging.getLogger(__name__)

TARGET_HINT = "Store durable memories only in memory/YYYY-MM-DD.md: your reply is written there."
APPEND_HINT = (
    "If memory/YYYY-MM-DD.md already exists, your reply is APPENDED to it: "
    "do not overwrite or repeat what it already says."
)
READ_ONLY_HINT = (
    "Treat MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md and AGENTS.md as read-only during this flush."
)
_REQUIRED_HINTS = (TARGET_HINT, APPEND_HINT, READ_ONLY_HINT)
NO_REPLY_HINT = f"If there is nothing to store, reply with {NO_REPLY}."

DEFAULT_PROMPT = " ".join(
    [
        "Pre-compaction memory flush.",
        "The conversation is about to be compacted; save what is worth remembering before its "
        "details are gone.",
        TARGET_HINT,
        READ_ONLY_HINT,
        APPEND_HINT,
        "Do NOT create timestamped variants (YYYY-MM-DD-HHMM.md); always use the one "
        "YYYY-MM-DD.md file.",
        "Reply with short Markdown bullet points, one durable fact each: decisions, preferences, "
        "facts about people and projects, commitments and to-dos, with absolute dates.",
        f"If nothing to store, reply with {NO_REPLY}.",
    ]
)
"""The flush prompt; ``YYYY-MM-DD`` becomes the day's date."""

DEFAULT_SYSTEM_PROMPT = " ".join(
    [
        "Pre-compaction memory flush turn.",
        "The session is near auto-compaction; capture durable memories to disk.",
        TARGET_HINT,
        READ_ONLY_HINT,
        APPEND_HINT,
        f"Your reply is saved as it is: no greeting, no commentary; {NO_REPLY} when nothing "
        "in the conversation is worth keeping.",
    ]
)
"""The flush's system prompt; ``YYYY-MM-DD`` becomes the day's date."""


@dataclass(frozen=True, slots=True)
class FlushSettings:
    """The ``flush.*`` settings."""

    enabled: bool = True
    context_window: int = 200_000
    reserve_tokens: int = 20_000
    soft_threshold_tokens: int = 4000
    force_transcript_bytes: int = 2 * 1024 * 1024
    prompt: str = ""
    system_prompt: str = ""

    @classmethod
    def from_config(cls, config: Config) -> FlushSettings:
        return cls(
            enabled=config["flush.enabled"],
            context_window=config["flush.context_window"],
            reserve_tokens=config["flush.reserve_tokens"],
            soft_threshold_tokens=config["flush.soft_threshold_tokens"],
            force_transcript_bytes=config["flush.force_transcript_bytes"],
            prompt=config["flush.prompt"],
            system_prompt=config["flush.system_prompt"],
        )


def estimate_tokens(text: str) -> int:
    """About 4 characters, or one CJK character, a token (the chunker's measure)."""
    return math.ceil(weighted_length(text) / 4)


def flush_threshold(
    settings: FlushSettings,
    *,
    context_window: int | None = None,
    reserve_tokens: int | None = None,
) -> int:
    """The projected token count at which the flush is due (0 or less: never by tokens)."""
    window = context_window if context_window else settings.context_window
    floor = min(settings.reserve_tokens, window // 4)
    reserve = max(floor, reserve_tokens or 0)
    soft = min(settings.soft_threshold_tokens, max(window - reserve, 0) // 2)
    return window - reserve - soft


@dataclass(frozen=True, slots=True)
class FlushDecision:
    """Whether the flush is due, and why (or why not).

    ``reason``: ``tokens`` or ``transcript-size`` (due); ``already-flushed`` (due, but this
    compaction cycle was flushed already), ``below-threshold``, ``no-token-count`` (nothing to
    project from yet) or ``disabled`` (``flush.enabled`` is off).
    """

    due: bool
    reason: str
    threshold: int
    projected_tokens: int | None
    transcript_bytes: int

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def decide_flush(
    settings: FlushSettings,
    *,
    prompt_tokens: int | None,
    output_tokens: int = 0,
    pending_tokens: int = 0,
    transcript_bytes: int = 0,
    flushed_this_cycle: bool = False,
    context_window: int | None = None,
    reserve_tokens: int | None = None,
) -> FlushDecision:
    """Spec §11.2's trigger. ``prompt_tokens`` is the prompt size the last model call reported
    (``None`` or 0: unknown), ``output_tokens`` its answer's, ``pending_tokens`` the message
    about to be sent; ``transcript_bytes`` counts from the last compaction."""
    threshold = flush_threshold(
        settings, context_window=context_window, reserve_tokens=reserve_tokens
    )
    projected = prompt_tokens + output_tokens + pending_tokens if prompt_tokens else None

    def decision(due: bool, reason: str) -> FlushDecision:
        return FlushDecision(due, reason, threshold, projected, transcript_bytes)

    if not settings.enabled:
        return decision(False, "disabled")
    by_tokens = projected is not None and threshold > 0 and projected >= threshold
    force = settings.force_transcript_bytes
    by_size = force > 0 and transcript_bytes >= force
    if not (by_tokens or by_size):
        return decision(False, "no-token-count" if projected is None else "below-threshold")
    if flushed_this_cycle:
        return decision(False, "already-flushed")
    return decision(True, "tokens" if by_tokens else "transcript-size")


# -- the plan -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FlushPlan:
    """What one flush writes where: ``relative_path`` (``memory/<date>.md``) and the prompts."""

    date: str
    relative_path: str
    prompt: str
    system_prompt: str


def _ordinal(day: int) -> str:
    suffix = "th" if 11 <= day % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def current_time_line(now: datetime, zone: tzinfo, zone_name: str) -> str:
    """``Current time: Monday, February 16th, 2026 - 10:00 AM (America/New_York) /
    2026-02-16 15:00 UTC``."""
    local = now.astimezone(zone)
    hour = local.strftime("%I:%M %p").lstrip("0")
    when = f"{local:%A}, {local:%B} {_ordinal(local.day)}, {local.year} - {hour}"
    return f"Current time: {when} ({zone_name}) / {now.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _with_hints(text: str) -> str:
    out = text.strip()
    for hint in _REQUIRED_HINTS:
        if hint not in out:
            out = f"{out}\n\n{hint}" if out else hint
    if NO_REPLY not in out:
        out = f"{out}\n\n{NO_REPLY_HINT}"
    return out


def build_flush_plan(
    settings: FlushSettings, *, now: datetime, zone: tzinfo, zone_name: str
) -> FlushPlan:
    """The flush's target and prompts for ``now`` in the user's ``zone``."""
    date = now.astimezone(zone).date().isoformat()
    prompt = _with_hints(settings.prompt or DEFAULT_PROMPT).replace("YYYY-MM-DD", date)
    if "Current time:" not in prompt:
        prompt = f"{prompt}\n{current_time_line(now, zone, zone_name)}"
    system = _with_hints(settings.system_prompt or DEFAULT_SYSTEM_PROMPT).replace(
        "YYYY-MM-DD", date
    )
    return FlushPlan(date, f"memory/{date}.md", prompt, system)


# -- running the model --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class FlushResult:
    """What one flush did.

    ``written`` says whether a note was appended to ``path`` (lines ``start_line``..
    ``end_line``), with ``text`` the note. Otherwise ``skipped`` says why: ``silent`` (the
    model answered ``NO_REPLY``), ``duplicate`` (the day's file already says all of it),
    ``nothing-new`` (no message since the last flush), ``already-flushed`` or ``disabled`` (the
    overflow flush only). ``provider``/``model`` made the note; ``fallback`` is set, with
    ``fallback_reason``, when the extractive summariser made it instead of a model.
    """

    written: bool
    path: str
    reason: str
    text: str = ""
    start_line: int = 0
    end_line: int = 0
    skipped: str = ""
    provider: str = ""
    model: str = ""
    fallback: bool = False
    fallback_reason: str = ""
    messages: int = 0
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class ModelNote:
    """A flush answer: its text, who wrote it, and why the fallback did, if it did."""

    text: str
    silent: bool
    provider: str
    model: str
    fallback_reason: str = ""


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _render(message: TranscriptMessage) -> str:
    if message.role == "tool":
        status = " (error)" if message.is_error else ""
        return f"[tool {message.tool_name or 'result'}{status}: {_one_line(message.text, 400)}]"
    parts = [message.text.strip()] if message.text.strip() else []
    for call in message.tool_calls:
        args = json.dumps(call.arguments, ensure_ascii=False, default=str)
        parts.append(f"[called {call.name}({_one_line(args, 200)})]")
    return f"{message.role}: " + " ".join(parts) if parts else ""


def render_conversation(
    messages: Sequence[TranscriptMessage], budget_tokens: int
) -> tuple[str, int]:
    """The messages as ``role: text`` lines, the newest that fit ``budget_tokens``, and how
    many older ones did not fit."""
    lines = [line for line in map(_render, messages) if line]
    kept: list[str] = []
    spent = 0
    for line in reversed(lines):
        cost = estimate_tokens(line) + 1
        if kept and spent + cost > budget_tokens:
            break
        kept.append(line)
        spent += cost
    return "\n".join(reversed(kept)), len(lines) - len(kept)


_STARTS_SILENT = re.compile(rf"\s*{NO_REPLY}(?!\w)", re.IGNORECASE)


def _silent(text: str) -> bool:
    """Nothing to store: an empty answer, ``NO_REPLY`` or its JSON envelope, or an answer that
    starts with ``NO_REPLY`` (what a custom prompt's hint asks for)."""
    return not text.strip() or is_silent_reply(text) or bool(_STARTS_SILENT.match(text))


def run_flush_model(
    model: ChatModel,
    messages: Sequence[TranscriptMessage],
    plan: FlushPlan,
    existing: str,
    *,
    max_tokens: int,
    input_tokens: int,
) -> tuple[ModelNote, list[str]]:
    """Ask ``model`` (or the extractive fallback) for the flush's note; never raises for a
    failing model: the fallback answers instead and the warnings say why."""
    warnings: list[str] = []
    if isinstance(model, ExtractiveSummarizer):
        return _extractive(model, messages, max_tokens, model.reason), warnings
    conversation, dropped = render_conversation(messages, input_tokens)
    if dropped:
        warnings.append(f"{dropped} older messages did not fit the flush's input and were left out")
    body = [f"Conversation since the last flush:\n{conversation}"]
    if existing.strip():
        tail = existing.strip()[-3000:]
        body.append(f"{plan.relative_path} already says:\n{tail}")
    body.append(plan.prompt)
    try:
        answer = model.complete(
            [Message("user", "\n\n".join(body))],
            system=plan.system_prompt,
            max_tokens=max_tokens,
        )
    except LLMError as exc:
        reason = f"{model.provider} model {model.model} failed ({exc.message}); used the extractive fallback"
        warnings.append(reason)
        return _extractive(
            ExtractiveSummarizer(reason=reason), messages, max_tokens, reason
        ), warnings
    if answer.truncated:
        warnings.append(f"the model's note was cut at {max_tokens} tokens; its end may be missing")
    return ModelNote(answer.text, _silent(answer.text), answer.provider, answer.model), warnings


def _extractive(
    summarizer: ExtractiveSummarizer,
    messages: Sequence[TranscriptMessage],
    max_tokens: int,
    reason: str,
) -> ModelNote:
    said = [Message(m.role, m.text) for m in messages if m.conversational]  # type: ignore[arg-type]
    answer = summarizer.complete(said, max_tokens=max_tokens) if said else None
    text = answer.text if answer is not None else NO_REPLY
    return ModelNote(text, _silent(text), summarizer.provider, summarizer.model, reason)


def write_flush(
    config: Config,
    messages: Sequence[TranscriptMessage],
    plan: FlushPlan,
    model: ChatModel,
    *,
    reason: str,
    max_tokens: int,
    input_tokens: int,
) -> tuple[FlushResult, Path]:
    """Run one flush over ``messages`` (those since the last flush) and append its note to
    ``plan.relative_path``, minus what that file already says; the result and the file's
    absolute path. Shared by :meth:`Session.flush <memdir.sessions.Session.flush>` and the
    Claude Code hook; the caller keeps the bookkeeping (which messages were flushed, the
    cycle) and indexes the file. A failing model never fails it (the fallback writes the
    note); a file that cannot be written raises :class:`~memdir.errors.StorageError` or
    :class:`~memdir.errors.PathError`."""
    path = target(config.workspace, plan.relative_path)
    existing = read_text(path)
    note, warnings = run_flush_model(
        model, messages, plan, existing, max_tokens=max_tokens, input_tokens=input_tokens
    )
    if note.fallback_reason:
        log.info("flush by the extractive fallback: %s", note.fallback_reason)
    result = FlushResult(
        False,
        plan.relative_path,
        reason,
        provider=note.provider,
        model=note.model,
        fallback=bool(note.fallback_reason),
        fallback_reason=note.fallback_reason,
        messages=len(messages),
        warnings=tuple(warnings),
    )
    text = "" if note.silent else fresh_lines(clean_reply(note.text), existing)
    if not text:
        return replace(result, skipped="silent" if note.silent else "duplicate"), path
    written = append_note(
        path,
        text,
        header=f"# {plan.date}\n\n",
        allow_hardlinks=config["limits.allow_hardlinks"],
    )
    return (
        replace(
            result,
            written=True,
            text=text,
            start_line=written.start_line,
            end_line=written.end_line,
        ),
        path,
    )
