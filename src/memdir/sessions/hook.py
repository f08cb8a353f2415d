"""The session-memory hook (spec §12): when a session ends (``/new``, ``/reset``,
:meth:`Session.end <memdir.sessions.Session.end>`), its last messages become a memory file.

* **Which messages**: the last ``session_memory.messages`` (15) user and assistant messages
  with text, commands (text starting with ``/``) left out before counting. Each becomes one
  ``role: text`` line, white space collapsed, at most 2,000 characters.
* **Nothing for a trivial session**: when everything the user wrote in the session comes to
  fewer than 16 characters (a CJK character counting 4), a "hi" or a "thanks", no file is
  written.
* **The file**: ``memory/YYYY-MM-DD-<slug>.md``, dated in the user's time zone (upstream: UTC).
  The slug comes from the chat model (one call on the first 2,000 characters, 15 s at most),
  lowercased, with every run of characters other than ``a-z0-9`` made one ``-``, at most 30
  characters; without a model, with ``session_memory.llm_slug`` off, or when the model fails or
  gives nothing usable, it is the time, ``HHMM``. A name already taken gets ``-2``, ``-3``, …:
  unlike upstream, an earlier file is never overwritten.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, tzinfo

from memdir.config import Config
from memdir.errors import LLMError
from memdir.llm.chat import ChatModel, Message
from memdir.llm.extractive import ExtractiveSummarizer
from memdir.sessions.notes import create_new
from memdir.sessions.transcript import TranscriptMessage
from memdir.text import weighted_length
from memdir.writer import append_note

__all__ = [
    "HookResult",
    "HookSettings",
    "is_trivial",
    "render_memory",
    "select_lines",
    "slugify",
    "write_session_memory",
]

MAX_LINE_CHARS = 2000
TRIVIAL_USER_WEIGHT = 16
SLUG_INPUT_CHARS = 2000
SLUG_TIMEOUT_S = 15.0
SLUG_MAX_CHARS = 30
SLUG_PROMPT = (
    "Give a short 1-2 word filename slug (lowercase, hyphen-separated, e.g. 'vendor-pitch' or "
    "'db-migration') for the conversation below. Reply with the slug only.\n\n"
)


@dataclass(frozen=True, slots=True)
class HookSettings:
    """The ``session_memory.*`` settings."""

    enabled: bool = True
    messages: int = 15
    llm_slug: bool = True

    @classmethod
    def from_config(cls, config: Config) -> HookSettings:
        return cls(
            config["session_memory.enabled"],
            config["session_memory.messages"],
            config["session_memory.llm_slug"],
        )


@dataclass(frozen=True, slots=True)
class HookResult:
    """What the hook did: ``written`` to ``path``, with the ``slug`` (``slug_source`` is
    ``model`` or ``time``) and the number of ``messages`` kept; or ``skipped`` (``trivial``,
    ``disabled``, ``already-ended``)."""

    written: bool
    path: str = ""
    slug: str = ""
    slug_source: str = ""
    messages: int = 0
    skipped: str = ""
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def select_lines(messages: Sequence[TranscriptMessage], count: int) -> list[tuple[str, str]]:
    """The last ``count`` user/assistant messages as ``(role, one-line text)``, commands
    dropped before counting."""
    kept = []
    for message in messages:
        if message.role not in ("user", "assistant"):
            continue
        text = " ".join(message.text.split())
        if not text or text.startswith("/"):
            continue
        if len(text) > MAX_LINE_CHARS:
            text = text[: MAX_LINE_CHARS - 1].rstrip() + "…"
        kept.append((message.role, text))
    return kept[-count:] if count > 0 else []


def is_trivial(lines: Sequence[tuple[str, str]]) -> bool:
    """Nothing worth a file: what the user wrote weighs under 16 (see the module docstring)."""
    return (
        sum(weighted_length(text) for role, text in lines if role == "user") < TRIVIAL_USER_WEIGHT
    )


def slugify(text: str) -> str:
    """A model's answer as a file-name slug (upstream's rules); "" when nothing is left."""
    slug = re.sub(r"[^a-z0-9-]+", "-", text.strip().lower())
    slug = re.sub(r"-{2,}", "-", slug).strip("-")
    return slug[:SLUG_MAX_CHARS].strip("-")


def _model_slug(model: ChatModel, body: str) -> tuple[str, str]:
    """The model's slug for ``body`` and a warning ("" when all went well)."""
    try:
        answer = model.complete(
            [Message("user", SLUG_PROMPT + body[:SLUG_INPUT_CHARS])],
            max_tokens=16,
            timeout=SLUG_TIMEOUT_S,
        )
    except LLMError as exc:
        return (
            "",
            f"slug from {model.provider} model {model.model} failed ({exc.message}); using the time",
        )
    first = answer.text.strip().splitlines()[0] if answer.text.strip() else ""
    slug = slugify(first.strip("`'\" "))
    if not slug:
        return "", f"{model.provider} model {model.model} gave no usable slug; using the time"
    return slug, ""


def render_memory(
    lines: Sequence[tuple[str, str]],
    *,
    moment: datetime,
    zone_name: str,
    session_id: str,
    source: str,
    reason: str,
) -> str:
    """The session-memory file's Markdown."""
    head = [
        f"# Session: {moment:%Y-%m-%d %H:%M:%S} {zone_name}",
        "",
        f"- **Session ID**: {session_id or 'unknown'}",
        f"- **Source**: {source or 'unknown'}",
        f"- **Ended by**: {reason or 'unknown'}",
    ]
    if lines:
        head += ["", "## Conversation Summary", "", *(f"{role}: {text}" for role, text in lines)]
    return "\n".join(head) + "\n"


def write_session_memory(
    config: Config,
    messages: Sequence[TranscriptMessage],
    *,
    model: ChatModel | None,
    now: datetime,
    zone: tzinfo,
    zone_name: str,
    session_id: str,
    source: str,
    reason: str,
    settings: HookSettings | None = None,
) -> HookResult:
    """Run the hook over ``messages`` and write the file (see the module docstring)."""
    settings = settings or HookSettings.from_config(config)
    if not settings.enabled:
        return HookResult(False, skipped="disabled")
    every = select_lines(messages, len(messages))
    if is_trivial(every):
        return HookResult(False, messages=0, skipped="trivial")
    lines = every[-settings.messages :]
    local = now.astimezone(zone)
    warnings: list[str] = []
    slug, slug_source = "", "time"
    if settings.llm_slug and model is not None and not isinstance(model, ExtractiveSummarizer):
        body = "\n".join(f"{role}: {text}" for role, text in lines)
        slug, warning = _model_slug(model, body)
        if warning:
            warnings.append(warning)
        slug_source = "model" if slug else "time"
    slug = slug or f"{local:%H%M}"
    rel, path = create_new(config.workspace, "memory", f"{local:%Y-%m-%d}-{slug}")
    text = render_memory(
        lines,
        moment=local,
        zone_name=zone_name,
        session_id=session_id,
        source=source,
        reason=reason,
    )
    append_note(path, text, allow_hardlinks=config["limits.allow_hardlinks"])
    return HookResult(True, rel, slug, slug_source, len(lines), warnings=tuple(warnings))
