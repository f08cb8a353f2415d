"""Replaying a recorded conversation through the live pipeline (``memdir replay FILE``).

:func:`load_recording` reads a recording into :class:`RecordedSession` objects:

* **OpenClaw / memdir JSONL** and **Claude Code transcripts**
  (:func:`~memdir.sessions.read_transcript`): one session, its user and assistant messages with
  their own timestamps (tool calls and answers are left out);
* **LoCoMo conversation JSON** (one sample ``{"conversation": {…}, …}``, a list of them, or the
  ``conversation`` object itself): ``session_1``, ``session_2``, … become sessions dated by
  their ``session_<n>_date_time`` ("1:56 pm on 8 May, 2023", read in the user's time zone).
  ``speaker_a``'s turns are the user's, ``speaker_b``'s the assistant's; each message is
  ``Speaker: text`` (``[shares <caption>]`` added for an image), keeping its turn id.

:func:`replay` feeds each session to a :class:`~memdir.sessions.Session` as a live loop would:
every message is added; after each, :meth:`~memdir.sessions.Session.should_flush` is asked with
the estimated size of the context so far (about 4 characters a token) against a small context
window (``context_tokens``), and when due the session flushes and counts as compacted (the
context starts again empty). At the end of a session, unless ``final_flush`` is off, what came
after the last flush is flushed too (a live agent would lose it to the hook's 15-message
window); then :meth:`~memdir.sessions.Session.end` runs the session-memory hook. The clock
is the recording's: a message's own time, or its session's date, so the daily files carry the
conversation's dates, not today's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

from memdir.errors import StorageError, UsageError
from memdir.llm.chat import ChatModel
from memdir.sessions.flush import estimate_tokens
from memdir.sessions.session import MemoryLike, Session
from memdir.sessions.transcript import read_transcript

__all__ = [
    "DEFAULT_CONTEXT_TOKENS",
    "RecordedMessage",
    "RecordedSession",
    "ReplayReport",
    "Written",
    "load_recording",
    "replay",
]

DEFAULT_CONTEXT_TOKENS = 2048
"""The context window a replay pretends the model has: small, so flushes happen (threshold
2048 − 512 − 768 = 768 tokens, by :func:`~memdir.sessions.flush_threshold`)."""
LOCOMO_DATE = "%I:%M %p on %d %B, %Y"
_SESSION_KEY = re.compile(r"session_(\d+)")


@dataclass(frozen=True, slots=True)
class RecordedMessage:
    """One message of a recording: ``role`` (user or assistant), ``text``, its time (or
    ``None``: its session's) and ``source`` (a LoCoMo turn id, else ``#<n>``)."""

    role: str
    text: str
    when: datetime | None = None
    source: str = ""


@dataclass(frozen=True, slots=True)
class RecordedSession:
    """One session of a recording: a ``label`` (``session_3``, the transcript's id), its date
    (``when``, or ``None``: the messages' own) and the messages."""

    label: str
    when: datetime | None
    messages: tuple[RecordedMessage, ...]
    conversation: str = ""


@dataclass(frozen=True, slots=True)
class Written:
    """What one step wrote: ``kind`` is ``flush`` or ``session-memory``; lines
    ``start_line``..``end_line`` of ``path``; ``sources`` the message sources it covered
    (for a flush, the messages since the previous one; for the hook, the last ones kept)."""

    kind: str
    path: str
    start_line: int
    end_line: int
    session: str
    date: str
    seconds: float
    fallback: bool = False
    sources: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass(slots=True)
class ReplayReport:
    """A replay's outcome: the recording's ``format``, counts, what was written, and the time
    the flushes and hooks took (``flush_seconds``/``hook_seconds``, one entry per run)."""

    path: str
    format: str
    sessions: int = 0
    messages: int = 0
    flushes: int = 0
    hooks: int = 0
    written: list[Written] = field(default_factory=list)
    flush_seconds: list[float] = field(default_factory=list)
    hook_seconds: list[float] = field(default_factory=list)
    model: str = ""
    fallback: bool = False
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["files"] = sorted({w.path for w in self.written})
        data["lines_written"] = sum(w.end_line - w.start_line + 1 for w in self.written)
        return data


# -- reading ------------------------------------------------------------------------------------
def load_recording(path: str | Path, *, zone: tzinfo = UTC) -> tuple[str, list[RecordedSession]]:
    """The recording at ``path`` as ``(format, sessions)``: ``locomo``, ``openclaw`` or
    ``claude-code``. LoCoMo dates are read in ``zone``. :class:`UsageError` for a file that is
    none of these."""
    path = Path(path)
    try:
        head = path.read_bytes()[:4096].lstrip()
    except OSError as exc:
        raise StorageError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if head.startswith((b"[", b"{")) and not _looks_like_jsonl(path):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise UsageError(f"{path} is not valid JSON: {exc}") from exc
        return "locomo", _locomo_sessions(data, path, zone)
    transcript = read_transcript(path)
    if transcript.format == "empty" or not transcript.messages:
        raise UsageError(
            f"{path} holds no conversation",
            hint="replay reads OpenClaw/memdir or Claude Code JSONL transcripts and LoCoMo JSON",
        )
    messages = tuple(
        RecordedMessage(
            m.role,
            m.text,
            datetime.fromtimestamp(m.timestamp_ms / 1000, UTC) if m.timestamp_ms else None,
            f"#{i}",
        )
        for i, m in enumerate(transcript.messages, start=1)
        if m.conversational
    )
    label = transcript.session_id or path.stem
    return transcript.format, [RecordedSession(label, None, messages)]


def _looks_like_jsonl(path: Path) -> bool:
    """A JSONL transcript also starts with ``{``: more than one JSON value, one a line."""
    with open(path, "rb") as handle:
        first = handle.readline()
        second = handle.readline()
    if not second.strip():
        return False
    try:
        json.loads(first)
        json.loads(second)
    except ValueError:
        return False
    return True


def _locomo_sessions(data: object, path: Path, zone: tzinfo) -> list[RecordedSession]:
    samples = data if isinstance(data, list) else [data]
    out: list[RecordedSession] = []
    for ci, sample in enumerate(samples):
        if not isinstance(sample, Mapping):
            raise UsageError(f"{path}: item {ci} is not a LoCoMo sample")
        conv = sample.get("conversation", sample)
        if not isinstance(conv, Mapping) or "speaker_a" not in conv:
            raise UsageError(
                f"{path} is not a LoCoMo conversation (no speaker_a)",
                hint="replay reads OpenClaw/memdir or Claude Code JSONL transcripts and LoCoMo JSON",
            )
        name = str(sample.get("sample_id", f"conversation-{ci}"))
        user = conv["speaker_a"]
        numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION_KEY.fullmatch(k)))
        for n in numbers:
            turns = conv[f"session_{n}"]
            when = _locomo_date(conv.get(f"session_{n}_date_time"), zone, path, n)
            messages = []
            for i, turn in enumerate(turns if isinstance(turns, list) else []):
                if not isinstance(turn, Mapping) or not isinstance(turn.get("text"), str):
                    continue
                line = f"{turn.get('speaker', '?')}: {turn['text']}"
                if turn.get("blip_caption"):
                    line += f" [shares {turn['blip_caption']}]"
                role = "user" if turn.get("speaker") == user else "assistant"
                source = str(turn.get("dia_id") or f"D{n}:{i + 1}")
                messages.append(RecordedMessage(role, line, None, source))
            out.append(RecordedSession(f"session_{n}", when, tuple(messages), name))
    return out


def _locomo_date(text: object, zone: tzinfo, path: Path, n: int) -> datetime:
    if not isinstance(text, str):
        raise UsageError(f"{path}: session_{n} has no session_{n}_date_time")
    try:
        naive = datetime.strptime(text.strip(), LOCOMO_DATE)
    except ValueError as exc:
        raise UsageError(
            f"{path}: session_{n}_date_time {text!r} is not like '1:56 pm on 8 May, 2023'"
        ) from exc
    return naive.replace(tzinfo=zone)


# -- replaying ----------------------------------------------------------------------------------
def _moments(session: RecordedSession) -> Iterator[tuple[RecordedMessage, datetime]]:
    """Each message with the time it happened: its own, else its session's date plus a
    second a message (so the order survives), else now."""
    base = session.when or datetime.now(UTC)
    last = base
    for i, message in enumerate(session.messages):
        moment = message.when or (base + timedelta(seconds=i) if session.when else last)
        last = moment
        yield message, moment


def _lines_of(root: Path, rel: str) -> int:
    try:
        return len((root / rel).read_text(encoding="utf-8").splitlines())
    except OSError:
        return 0


def replay(
    memory: MemoryLike,
    sessions: Sequence[RecordedSession],
    *,
    llm: ChatModel | None = None,
    context_tokens: int = DEFAULT_CONTEXT_TOKENS,
    final_flush: bool = True,
    report: ReplayReport | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReplayReport:
    """Feed ``sessions`` through :class:`Session` (see the module docstring) and say what was
    written. ``progress(done, total)`` is called after each message."""
    if (
        isinstance(context_tokens, bool)
        or not isinstance(context_tokens, int)
        or context_tokens < 8
    ):
        raise UsageError(f"context_tokens must be a whole number >= 8, got {context_tokens!r}")
    report = report or ReplayReport("", "")
    total = sum(len(s.messages) for s in sessions)
    counter = [0]

    def tick() -> None:
        counter[0] += 1
        if progress is not None:
            progress(counter[0], total)

    for recorded in sessions:
        if recorded.messages:
            _replay_session(memory, recorded, llm, context_tokens, final_flush, report, tick)
    return report


def _replay_session(
    memory: MemoryLike,
    recorded: RecordedSession,
    llm: ChatModel | None,
    context_tokens: int,
    final_flush: bool,
    report: ReplayReport,
    tick: Callable[[], None],
) -> None:
    import time

    clock = [recorded.when or datetime.now(UTC)]
    session = Session(memory, llm=llm, source="replay", fsync=False, clock=lambda: clock[0])
    label = f"{recorded.conversation}/{recorded.label}".strip("/")
    pending: list[str] = []

    def flush(reason: str) -> None:
        started = time.perf_counter()
        result = session.flush(reason=reason)
        seconds = time.perf_counter() - started
        report.flush_seconds.append(seconds)
        report.flushes += 1
        report.fallback = report.fallback or result.fallback
        report.warnings.extend(result.warnings)
        if result.written:
            report.written.append(
                Written(
                    "flush",
                    result.path,
                    result.start_line,
                    result.end_line,
                    label,
                    clock[0].date().isoformat(),
                    round(seconds, 4),
                    result.fallback,
                    tuple(pending),
                )
            )
        pending.clear()

    try:
        model = session.llm
        report.model = f"{model.provider}/{model.model}"
        context = 0
        for message, moment in _moments(recorded):
            clock[0] = moment
            session.add({"role": message.role, "content": message.text}, timestamp=moment)
            pending.append(message.source)
            context += estimate_tokens(message.text) + 4
            report.messages += 1
            if session.should_flush(context, context_window=context_tokens):
                flush("tokens")
                session.compacted(tokens_before=context)
                context = 0
            tick()
        if final_flush and pending:
            flush("session-end")
        started = time.perf_counter()
        result = session.end(reason="new")
        seconds = time.perf_counter() - started
        report.hook_seconds.append(seconds)
        report.hooks += 1
        report.warnings.extend(result.warnings)
        if result.written:
            kept = [m.source for m in recorded.messages if not m.text.startswith("/")]
            report.written.append(
                Written(
                    "session-memory",
                    result.path,
                    1,
                    _lines_of(memory.config.workspace, result.path),
                    label,
                    clock[0].date().isoformat(),
                    round(seconds, 4),
                    False,
                    tuple(kept[-result.messages :]) if result.messages else (),
                )
            )
        report.sessions += 1
    finally:
        session.close()
