"""Reading session transcripts as they are: OpenClaw's JSONL (which memdir writes too) and
Claude Code's.

**OpenClaw** (``<sessions>/<session-id>.jsonl``, pi's format, version 3), one JSON object a
line::

    {"type":"session","version":3,"id":"<session id>","timestamp":"<ISO>","cwd":"<dir>"}
    {"type":"message","id":"1a2b3c4d","parentId":null,"timestamp":"<ISO>",
     "message":{"role":"user","content":[{"type":"text","text":"…"}],"timestamp":<ms>}}

An assistant message has text, ``thinking`` and ``toolCall`` blocks (``id``, ``name``,
``arguments``), ``usage`` (``input``, ``output``, ``cacheRead``, ``cacheWrite``,
``totalTokens``), ``model`` and ``stopReason``; a tool's answer is a message of role
``toolResult`` (``toolCallId``, ``toolName``, ``content``, ``isError``); a ``compaction``
record marks a compaction. Other records (``custom``, ``model_change``, …) are skipped.

**Claude Code** (``~/.claude/projects/<project>/<session>.jsonl``): records of ``type``
``user`` or ``assistant`` with ``message`` (``role``, ``content`` as text or blocks),
``timestamp``, ``sessionId``, ``cwd`` and ``uuid``. Assistant blocks are ``text``, ``thinking``
and ``tool_use`` (``id``, ``name``, ``input``), with ``usage`` (``input_tokens``,
``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens``); one API
answer written as several records sharing ``message.id`` is merged back into one message. User
``tool_result`` blocks are tool answers. Skipped: ``isMeta`` and ``isSidechain`` records (notes
Claude Code adds, sub-agent conversations), the compaction summary, local command output and
"[Request interrupted …]" markers; a slash command (``<command-name>/model</command-name>``)
reads as its text, ``/model …``. A ``system`` record of subtype ``compact_boundary`` marks a
compaction.

Damage is tolerated, never fatal: a line that is not valid JSON is skipped and listed in
``bad_lines``; a last line cut short (no final newline and not valid JSON: a crash mid-write)
is ``torn_line``. :attr:`Transcript.problems` says both in words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from memdir.chunking import NOT_JSON, parse_jsonl_line, timestamp_ms
from memdir.errors import StorageError
from memdir.text import replace_surrogates

__all__ = [
    "ToolCall",
    "Transcript",
    "TranscriptMessage",
    "Usage",
    "parse_transcript",
    "read_transcript",
    "timestamp_ms",
]


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens one model call reported: ``input`` (not cached), ``output``, and the cached
    prompt tokens read (``cache_read``) and written (``cache_write``)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def prompt_tokens(self) -> int:
        """The whole prompt of that call: input plus cache reads and writes."""
        return self.input + self.cache_read + self.cache_write

    def to_dict(self) -> dict[str, int]:
        """The ``usage`` object of an OpenClaw transcript record."""
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "totalTokens": self.prompt_tokens + self.output,
        }


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A tool the assistant called: its call ``id``, ``name`` and JSON ``arguments``."""

    id: str
    name: str
    arguments: object = None


@dataclass(frozen=True, slots=True)
class TranscriptMessage:
    """One message of a transcript.

    ``role`` is ``user``, ``assistant`` or ``tool`` (a tool's answer to ``tool_call_id``).
    ``text`` is the message's text blocks joined by newlines. ``line`` is its 1-based JSONL line
    (0 for a message not written yet), ``id`` its record id (``uuid`` in Claude Code).
    """

    role: str
    text: str
    line: int = 0
    id: str = ""
    timestamp_ms: int = 0
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str = ""
    tool_name: str = ""
    is_error: bool = False
    usage: Usage | None = None
    model: str = ""
    provider: str = ""

    @property
    def conversational(self) -> bool:
        """A user or assistant message with text (what the flush and the hook read)."""
        return self.role in ("user", "assistant") and bool(self.text.strip())


@dataclass(frozen=True, slots=True)
class Transcript:
    """A transcript read from disk: its messages, in order, and what was wrong with it.

    ``format`` is ``openclaw``, ``claude-code`` or ``empty`` (no record memdir understood).
    ``compactions`` counts the compaction markers. ``size`` is the file's size in bytes.
    """

    path: Path | None
    format: str
    session_id: str = ""
    cwd: str = ""
    messages: tuple[TranscriptMessage, ...] = ()
    compactions: int = 0
    bad_lines: tuple[int, ...] = ()
    torn_line: int | None = None
    size: int = 0
    last_id: str = ""
    """Id of the last record, the ``parentId`` of the next one appended."""
    started_ms: int = 0
    """When the session started: its header's time, else its first record's (0: unknown)."""

    @property
    def conversation(self) -> list[TranscriptMessage]:
        """The user and assistant messages that have text."""
        return [m for m in self.messages if m.conversational]

    @property
    def problems(self) -> list[str]:
        """What was skipped, in words (empty when the file was whole)."""
        name = self.path.name if self.path else "transcript"
        out = []
        if self.bad_lines:
            shown = ", ".join(map(str, self.bad_lines[:10]))
            more = f" and {len(self.bad_lines) - 10} more" if len(self.bad_lines) > 10 else ""
            which = "line" if len(self.bad_lines) == 1 else "lines"
            out.append(f"{name}: {which} {shown}{more} not valid JSON; skipped")
        if self.torn_line is not None:
            out.append(
                f"{name}: the last line ({self.torn_line}) was cut short, probably by a crash "
                "while it was written; skipped"
            )
        return out

    def last_usage(self) -> Usage | None:
        """The usage of the last assistant message that reported any."""
        for message in reversed(self.messages):
            if message.usage is not None and (message.usage.prompt_tokens or message.usage.output):
                return message.usage
        return None


def read_transcript(path: str | Path) -> Transcript:
    """Read the transcript at ``path`` (OpenClaw or Claude Code JSONL). A missing file is an
    empty transcript; one that cannot be read raises :class:`StorageError`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Transcript(path, "empty")
    except OSError as exc:
        raise StorageError(f"cannot read transcript {path}: {exc.strerror}") from exc
    return replace(parse_transcript(data), path=path)


def parse_transcript(data: bytes | str) -> Transcript:
    """A transcript from the JSONL text itself (see the module docstring)."""
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    text = raw.decode("utf-8", errors="replace")
    lines = text.split("\n")
    ends_clean = text.endswith("\n") or not text
    if lines and lines[-1] == "":
        lines.pop()
    reader = _Reader()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        record = parse_jsonl_line(line)
        if record is NOT_JSON:
            if number == len(lines) and not ends_clean:
                reader.torn_line = number
            else:
                reader.bad_lines.append(number)
            continue
        if isinstance(record, dict):
            reader.take(record, number)
    return reader.result(len(raw))


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _str(value: object) -> str:
    return replace_surrogates(value) if isinstance(value, str) else ""


def _texts(content: object, kinds: Iterable[str] = ("text",)) -> str:
    """The text of a message's content: the string itself, or its text blocks joined."""
    if isinstance(content, str):
        return replace_surrogates(content)
    if not isinstance(content, list):
        return ""
    wanted = tuple(kinds)
    parts = [
        _str(block.get("text"))
        for block in content
        if isinstance(block, Mapping) and block.get("type") in wanted
    ]
    return "\n".join(p for p in parts if p)


_COMMAND = re.compile(r"<command-name>\s*(.*?)\s*</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_INTERRUPTED = re.compile(r"\s*\[Request interrupted[^\]]*\]\s*")


@dataclass
class _Reader:
    """Collects messages record by record, in whichever of the two formats they come."""

    messages: list[TranscriptMessage] = field(default_factory=list)
    bad_lines: list[int] = field(default_factory=list)
    torn_line: int | None = None
    openclaw: int = 0
    claude: int = 0
    compactions: int = 0
    session_id: str = ""
    cwd: str = ""
    last_id: str = ""
    started_ms: int = 0
    _claude_message_id: str = ""

    def result(self, size: int) -> Transcript:
        fmt = "empty"
        if self.openclaw or self.claude:
            fmt = "claude-code" if self.claude > self.openclaw else "openclaw"
        return Transcript(
            None,
            fmt,
            session_id=self.session_id,
            cwd=self.cwd,
            messages=tuple(self.messages),
            compactions=self.compactions,
            bad_lines=tuple(self.bad_lines),
            torn_line=self.torn_line,
            size=size,
            last_id=self.last_id,
            started_ms=self.started_ms,
        )

    def take(self, record: dict[str, object], line: int) -> None:
        kind = record.get("type")
        record_id = _str(record.get("id")) or _str(record.get("uuid"))
        if record_id:
            self.last_id = record_id
        if not self.started_ms:
            self.started_ms = timestamp_ms(record.get("timestamp"))
        if kind == "session":
            self.openclaw += 1
            self.session_id = self.session_id or _str(record.get("id"))
            self.cwd = self.cwd or _str(record.get("cwd"))
        elif kind == "message":
            self.openclaw += 1
            self._openclaw_message(record, line, record_id)
        elif kind == "compaction":
            self.openclaw += 1
            self.compactions += 1
        elif kind in ("user", "assistant") and isinstance(
            message := record.get("message"), Mapping
        ):
            self.claude += 1
            self.session_id = self.session_id or _str(record.get("sessionId"))
            self.cwd = self.cwd or _str(record.get("cwd"))
            self._claude_record(record, message, line, record_id)
        elif kind == "system" and record.get("subtype") == "compact_boundary":
            self.claude += 1
            self.compactions += 1

    # -- OpenClaw --------------------------------------------------------------------------
    def _openclaw_message(self, record: Mapping[str, object], line: int, record_id: str) -> None:
        message = record.get("message")
        if not isinstance(message, Mapping):
            return
        role = message.get("role")
        stamp = timestamp_ms(message.get("timestamp", record.get("timestamp")))
        content = message.get("content")
        if role == "toolResult":
            self.messages.append(
                TranscriptMessage(
                    "tool",
                    _texts(content),
                    line,
                    record_id,
                    stamp,
                    tool_call_id=_str(message.get("toolCallId")),
                    tool_name=_str(message.get("toolName")),
                    is_error=message.get("isError") is True,
                )
            )
        elif role in ("user", "assistant"):
            calls = ()
            if role == "assistant" and isinstance(content, list):
                calls = tuple(
                    ToolCall(_str(b.get("id")), _str(b.get("name")), b.get("arguments"))
                    for b in content
                    if isinstance(b, Mapping) and b.get("type") == "toolCall"
                )
            self.messages.append(
                TranscriptMessage(
                    str(role),
                    _texts(content),
                    line,
                    record_id,
                    stamp,
                    tool_calls=calls,
                    usage=_openclaw_usage(message.get("usage")),
                    model=_str(message.get("model")),
                    provider=_str(message.get("provider")),
                )
            )

    # -- Claude Code -----------------------------------------------------------------------
    def _claude_record(
        self,
        record: Mapping[str, object],
        message: Mapping[str, object],
        line: int,
        record_id: str,
    ) -> None:
        if record.get("isMeta") or record.get("isSidechain") or record.get("isCompactSummary"):
            return
        stamp = timestamp_ms(record.get("timestamp"))
        content = message.get("content")
        if record.get("type") == "assistant":
            self._claude_assistant(message, content, line, record_id, stamp)
            return
        self._claude_message_id = ""
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and block.get("type") == "tool_result":
                    call_id = _str(block.get("tool_use_id"))
                    self.messages.append(
                        TranscriptMessage(
                            "tool",
                            _texts(block.get("content")),
                            line,
                            record_id,
                            stamp,
                            tool_call_id=call_id,
                            tool_name=self._tool_name(call_id),
                            is_error=block.get("is_error") is True,
                        )
                    )
        text = _claude_user_text(_texts(content))
        if text:
            self.messages.append(TranscriptMessage("user", text, line, record_id, stamp))

    def _claude_assistant(
        self,
        message: Mapping[str, object],
        content: object,
        line: int,
        record_id: str,
        stamp: int,
    ) -> None:
        calls: tuple[ToolCall, ...] = ()
        if isinstance(content, list):
            calls = tuple(
                ToolCall(_str(b.get("id")), _str(b.get("name")), b.get("input"))
                for b in content
                if isinstance(b, Mapping) and b.get("type") == "tool_use"
            )
        text = _texts(content)
        usage = _claude_usage(message.get("usage"))
        message_id = _str(message.get("id"))
        previous = self.messages[-1] if self.messages else None
        if (
            message_id
            and message_id == self._claude_message_id
            and previous is not None
            and previous.role == "assistant"
        ):
            # One API answer that Claude Code wrote as a record per content block.
            self.messages[-1] = replace(
                previous,
                text="\n".join(t for t in (previous.text, text) if t),
                tool_calls=previous.tool_calls + calls,
                usage=usage or previous.usage,
            )
            return
        self._claude_message_id = message_id
        self.messages.append(
            TranscriptMessage(
                "assistant",
                text,
                line,
                record_id,
                stamp,
                tool_calls=calls,
                usage=usage,
                model=_str(message.get("model")),
                provider="anthropic" if message.get("model") else "",
            )
        )

    def _tool_name(self, call_id: str) -> str:
        for message in reversed(self.messages):
            for call in message.tool_calls:
                if call.id == call_id:
                    return call.name
        return ""


def _claude_user_text(text: str) -> str:
    """A Claude Code user message's text: a slash command as ``/name args``; command output and
    interruption markers as nothing."""
    if "<local-command-stdout>" in text or "<local-command-stderr>" in text:
        return ""
    command = _COMMAND.search(text)
    if command:
        args = _COMMAND_ARGS.search(text)
        return " ".join(p for p in (command.group(1), args.group(1).strip() if args else "") if p)
    if _INTERRUPTED.fullmatch(text):
        return ""
    return text


def _openclaw_usage(value: object) -> Usage | None:
    if not isinstance(value, Mapping):
        return None
    return Usage(
        _int(value.get("input")),
        _int(value.get("output")),
        _int(value.get("cacheRead")),
        _int(value.get("cacheWrite")),
    )


def _claude_usage(value: object) -> Usage | None:
    if not isinstance(value, Mapping):
        return None
    return Usage(
        _int(value.get("input_tokens")),
        _int(value.get("output_tokens")),
        _int(value.get("cache_read_input_tokens")),
        _int(value.get("cache_creation_input_tokens")),
    )
