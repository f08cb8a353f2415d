"""What :meth:`Session.add <memdir.sessions.Session.add>` accepts, and the OpenClaw records it
becomes.

A message is taken in whichever shape the caller's SDK uses:

* a :class:`~memdir.llm.Message` or a :class:`~memdir.llm.ChatResult` (an assistant answer,
  with its token counts and model);
* an OpenAI chat message: ``{"role": "user" | "assistant" | "tool", "content": …}``, with
  ``tool_calls`` (``{"id", "function": {"name", "arguments"}}``) on an assistant message and
  ``tool_call_id`` on a tool's;
* an Anthropic message: content blocks ``text``, ``tool_use`` (``id``, ``name``, ``input``) and,
  in a user message, ``tool_result`` (``tool_use_id``, ``content``, ``is_error``);
* an OpenClaw message: ``toolCall`` blocks, role ``toolResult``.

``usage`` (in the message or passed beside it) may be OpenAI's (``prompt_tokens``,
``completion_tokens``, ``prompt_tokens_details.cached_tokens``), Anthropic's (``input_tokens``,
``output_tokens``, ``cache_read_input_tokens``, ``cache_creation_input_tokens``), OpenClaw's
(``input``, ``output``, ``cacheRead``, ``cacheWrite``) or a :class:`~.transcript.Usage`.
``system`` (and ``developer``) messages are not part of a transcript, as in OpenClaw, and are
not recorded.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from datetime import UTC, datetime

from memdir.errors import UsageError
from memdir.llm.chat import ChatResult, Message
from memdir.sessions.transcript import (
    ToolCall,
    TranscriptMessage,
    Usage,
    timestamp_ms,
)
from memdir.text import replace_surrogates

__all__ = [
    "TRANSCRIPT_VERSION",
    "Timestamp",
    "compaction_record",
    "header_record",
    "iso_utc",
    "message_record",
    "new_record_id",
    "normalize",
    "parse_usage",
]

TRANSCRIPT_VERSION = 3
"""The ``version`` of the session header record (pi's, which OpenClaw writes)."""

Timestamp = datetime | int | float | str
"""A time: a datetime (naive means UTC), epoch seconds or milliseconds, or ISO 8601 text."""

_SKIPPED_ROLES = ("system", "developer")


def new_record_id() -> str:
    """A record id as OpenClaw writes them: 8 hex digits."""
    return secrets.token_hex(4)


def iso_utc(ms: int) -> str:
    """``2026-02-16T15:00:00.000Z`` for epoch milliseconds."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def _ms(value: Timestamp | None, now_ms: int) -> int:
    if value is None:
        return now_ms
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return int(moment.timestamp() * 1000)
    ms = timestamp_ms(value)
    if ms == 0:
        raise UsageError(f"timestamp {value!r} is not a time (a datetime, epoch or ISO 8601)")
    return ms


def _count(data: Mapping[str, object], *keys: str) -> int:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return max(value, 0)
    return 0


def parse_usage(value: object) -> Usage | None:
    """Token usage in any of the shapes the module docstring lists; ``None`` for none."""
    if value is None or isinstance(value, Usage):
        return value
    if not isinstance(value, Mapping):
        raise UsageError(f"usage must be a mapping of token counts, got {type(value).__name__}")
    if "prompt_tokens" in value or "completion_tokens" in value:  # OpenAI
        details = value.get("prompt_tokens_details")
        cached = _count(details, "cached_tokens") if isinstance(details, Mapping) else 0
        prompt = _count(value, "prompt_tokens")
        return Usage(max(prompt - cached, 0), _count(value, "completion_tokens"), cached)
    if "input_tokens" in value or "output_tokens" in value:  # Anthropic
        return Usage(
            _count(value, "input_tokens"),
            _count(value, "output_tokens"),
            _count(value, "cache_read_input_tokens"),
            _count(value, "cache_creation_input_tokens"),
        )
    return Usage(  # OpenClaw
        _count(value, "input"),
        _count(value, "output"),
        _count(value, "cacheRead"),
        _count(value, "cacheWrite"),
    )


def _text(value: object) -> str:
    return replace_surrogates(value) if isinstance(value, str) else ""


def _content_text(content: object, where: str) -> str:
    """Text content, or the ``text`` blocks of a block list joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return replace_surrogates(content)
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(replace_surrogates(block))
            elif isinstance(block, Mapping) and block.get("type", "text") == "text":
                parts.append(_text(block.get("text")))
        return "\n".join(p for p in parts if p)
    raise UsageError(f"{where}: content must be text or a list of blocks")


def _arguments(raw: object) -> object:
    """OpenAI sends tool arguments as JSON text; keep them as JSON values."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def normalize(
    message: object,
    *,
    usage: object = None,
    timestamp: Timestamp | None = None,
    now_ms: int,
    tool_names: Mapping[str, str],
) -> list[TranscriptMessage]:
    """``message`` as transcript messages (none for a system message; a tool message before
    the text for an Anthropic user message carrying ``tool_result`` blocks)."""
    stamp = _ms(timestamp, now_ms)
    if isinstance(message, ChatResult):
        counted = message.input_tokens is not None or message.output_tokens is not None
        reported = Usage(message.input_tokens or 0, message.output_tokens or 0) if counted else None
        return [
            TranscriptMessage(
                "assistant",
                message.text,
                timestamp_ms=stamp,
                usage=parse_usage(usage) or reported,
                model=message.model,
                provider=message.provider,
            )
        ]
    if isinstance(message, Message):
        if message.role in _SKIPPED_ROLES:
            return []
        return [
            TranscriptMessage(
                message.role, message.content, timestamp_ms=stamp, usage=parse_usage(usage)
            )
        ]
    if not isinstance(message, Mapping):
        raise UsageError(
            f"a message must be a mapping, a Message or a ChatResult, got {type(message).__name__}"
        )
    return _from_mapping(message, usage, stamp, tool_names)


def _from_mapping(
    message: Mapping[str, object], usage: object, stamp: int, tool_names: Mapping[str, str]
) -> list[TranscriptMessage]:
    role = message.get("role")
    if role in _SKIPPED_ROLES:
        return []
    content = message.get("content")
    used = parse_usage(usage if usage is not None else message.get("usage"))
    if role in ("tool", "toolResult"):
        call_id = _text(message.get("tool_call_id") or message.get("toolCallId"))
        name = _text(message.get("name") or message.get("toolName")) or tool_names.get(call_id, "")
        return [
            TranscriptMessage(
                "tool",
                _content_text(content, "tool message"),
                timestamp_ms=stamp,
                tool_call_id=call_id,
                tool_name=name,
                is_error=message.get("is_error") is True or message.get("isError") is True,
            )
        ]
    if role == "user":
        out = []
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and block.get("type") == "tool_result":
                    call_id = _text(block.get("tool_use_id"))
                    out.append(
                        TranscriptMessage(
                            "tool",
                            _content_text(block.get("content"), "tool_result block"),
                            timestamp_ms=stamp,
                            tool_call_id=call_id,
                            tool_name=tool_names.get(call_id, ""),
                            is_error=block.get("is_error") is True,
                        )
                    )
        text = _content_text(content, "user message")
        if text or not out:
            out.append(TranscriptMessage("user", text, timestamp_ms=stamp, usage=used))
        return out
    if role == "assistant":
        return [
            TranscriptMessage(
                "assistant",
                _content_text(content, "assistant message"),
                timestamp_ms=stamp,
                tool_calls=_tool_calls(message),
                usage=used,
                model=_text(message.get("model")),
                provider=_text(message.get("provider")),
            )
        ]
    raise UsageError(
        f"message role {role!r} is not one of user, assistant, tool, toolResult or system"
    )


def _tool_calls(message: Mapping[str, object]) -> tuple[ToolCall, ...]:
    calls = []
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if not isinstance(block, Mapping):
                continue
            if block.get("type") == "tool_use":  # Anthropic
                calls.append(
                    ToolCall(_text(block.get("id")), _text(block.get("name")), block.get("input"))
                )
            elif block.get("type") == "toolCall":  # OpenClaw
                calls.append(
                    ToolCall(
                        _text(block.get("id")), _text(block.get("name")), block.get("arguments")
                    )
                )
    openai = message.get("tool_calls")
    if isinstance(openai, list):
        for call in openai:
            if not isinstance(call, Mapping):
                continue
            function = call.get("function")
            function = function if isinstance(function, Mapping) else {}
            calls.append(
                ToolCall(
                    _text(call.get("id")),
                    _text(function.get("name")),
                    _arguments(function.get("arguments")),
                )
            )
    return tuple(calls)


def header_record(session_id: str, ms: int, cwd: str) -> dict[str, object]:
    """The first line of a transcript."""
    return {
        "type": "session",
        "version": TRANSCRIPT_VERSION,
        "id": session_id,
        "timestamp": iso_utc(ms),
        "cwd": cwd,
    }


def message_record(message: TranscriptMessage, parent_id: str | None) -> dict[str, object]:
    """``message`` as an OpenClaw ``message`` record (its ``id`` must be set)."""
    body: dict[str, object]
    text_blocks: list[dict[str, object]] = (
        [{"type": "text", "text": message.text}] if message.text else []
    )
    if message.role == "tool":
        body = {
            "role": "toolResult",
            "toolCallId": message.tool_call_id,
            "toolName": message.tool_name,
            "content": text_blocks,
            "isError": message.is_error,
        }
    elif message.role == "assistant":
        calls = [
            {"type": "toolCall", "id": c.id, "name": c.name, "arguments": c.arguments}
            for c in message.tool_calls
        ]
        body = {"role": "assistant", "content": text_blocks + calls}
        if message.usage is not None:
            body["usage"] = message.usage.to_dict()
        if message.provider:
            body["provider"] = message.provider
        if message.model:
            body["model"] = message.model
        body["stopReason"] = "toolUse" if calls else "stop"
    else:
        body = {"role": "user", "content": text_blocks}
    body["timestamp"] = message.timestamp_ms
    return {
        "type": "message",
        "id": message.id,
        "parentId": parent_id,
        "timestamp": iso_utc(message.timestamp_ms),
        "message": body,
    }


def compaction_record(
    record_id: str, parent_id: str | None, ms: int, summary: str, tokens_before: int | None
) -> dict[str, object]:
    """A ``compaction`` record: the caller compacted its context here."""
    record: dict[str, object] = {
        "type": "compaction",
        "id": record_id,
        "parentId": parent_id,
        "timestamp": iso_utc(ms),
        "summary": summary,
    }
    if tokens_before is not None:
        record["tokensBefore"] = tokens_before
    return record
