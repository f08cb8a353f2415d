"""What every chat model shares: messages in, a :class:`ChatResult` out, the :class:`ChatModel`
protocol, and the silent ``NO_REPLY`` answer.

A message is a :class:`Message` or a mapping in the shape the OpenAI and Anthropic APIs use,
``{"role": "user", "content": "…"}``, whose content is a string or a list of blocks (the text of
its ``{"type": "text", "text": …}`` blocks is used). Roles are ``user``, ``assistant`` and
``system``; a ``system`` message in the list is joined to the ``system=`` instructions by the
clients that need it separate (Anthropic).

A reply is *silent* (spec §11.3) when its whole text is ``NO_REPLY`` (any case, surrounding
white space allowed) or the JSON envelope ``{"action": "NO_REPLY"}``: the model was asked to
store or say something and found nothing worth it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal, Protocol, Self, runtime_checkable

from memdir.errors import UsageError

__all__ = [
    "NO_REPLY",
    "ChatModel",
    "ChatResult",
    "Message",
    "MessageLike",
    "Role",
    "ToolUse",
    "as_messages",
    "is_silent_reply",
]

NO_REPLY = "NO_REPLY"
"""What a model answers when it has nothing to store or say (spec §11.1)."""

Role = Literal["system", "user", "assistant"]
_ROLES: tuple[Role, ...] = ("system", "user", "assistant")
_SILENT = re.compile(r"\s*NO_REPLY\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message: who said it and the text."""

    role: Role
    content: str

    def to_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class ToolUse:
    """A tool call the model asked for (``ChatResult.tool_calls``): its ``id``, the tool's
    ``name`` and its ``arguments`` (an object; the JSON text when it was not valid JSON)."""

    id: str
    name: str
    arguments: dict[str, object] | str


MessageLike = Message | Mapping[str, object]
"""A :class:`Message`, or ``{"role": …, "content": …}`` with string or text-block content."""


@dataclass(frozen=True, slots=True)
class ChatResult:
    """A model's answer.

    ``finish_reason`` is ``"stop"`` (the model finished), ``"length"`` (cut at ``max_tokens``)
    or the provider's own word for anything else (``"content_filter"``, ``"refusal"``, …).
    Token counts are ``None`` when the server did not report them. ``provider`` and ``model``
    are ``"extractive"`` for the offline fallback, which uses no model. ``tool_calls`` holds
    the tools the model asked to call (only from ``complete_with_tools``).
    """

    text: str
    model: str
    provider: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str = "stop"
    tool_calls: tuple[ToolUse, ...] = ()

    @property
    def silent(self) -> bool:
        """Nothing to deliver or store: an empty answer, or ``NO_REPLY``."""
        return not self.text.strip() or is_silent_reply(self.text)

    @property
    def truncated(self) -> bool:
        """The answer was cut short by ``max_tokens`` (or, for the fallback, the size budget)."""
        return self.finish_reason == "length"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: :class:`~memdir.llm.OpenAIChat`, :class:`~memdir.llm.AnthropicChat` or the
    offline :class:`~memdir.llm.ExtractiveSummarizer`.

    ``complete`` sends ``messages`` (with ``system`` instructions) and returns the answer, at
    most ``max_tokens`` long. ``temperature=None`` leaves it to the server (some models accept
    only their default). ``timeout`` is the whole call's limit in seconds, retries included;
    ``None`` means the client's own. ``acomplete`` is the same, awaited. ``close()`` (or
    leaving a ``with`` block) releases the connections.
    """

    provider: str
    model: str

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult: ...

    async def acomplete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult: ...

    def close(self) -> None: ...

    def __enter__(self) -> Self: ...

    def __exit__(self, *exc_info: object) -> None: ...


def is_silent_reply(text: str) -> bool:
    """Whether ``text`` is the silent answer: ``NO_REPLY`` alone, or ``{"action": "NO_REPLY"}``."""
    if _SILENT.fullmatch(text):
        return True
    stripped = text.strip()
    if not (stripped.startswith("{") and stripped.endswith("}")):
        return False
    try:
        data = json.loads(stripped)
    except ValueError:
        return False
    action = data.get("action") if isinstance(data, dict) else None
    return isinstance(action, str) and action.strip().upper() == NO_REPLY


def as_messages(items: Sequence[MessageLike]) -> list[Message]:
    """``items`` as :class:`Message` objects; :class:`~memdir.errors.UsageError` for a bad one."""
    if isinstance(items, str | bytes | Mapping | Message):
        raise UsageError("messages must be a list of messages, not one message or a string")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, Message):
            out.append(item)
            continue
        if not isinstance(item, Mapping):
            raise UsageError(
                f"message {i} must be a Message or a mapping, got {type(item).__name__}"
            )
        role = item.get("role")
        if role not in _ROLES:
            raise UsageError(
                f"message {i} has role {role!r}; use one of {', '.join(_ROLES)}",
            )
        out.append(Message(role, _content_text(item.get("content"), i)))
    return out


def _content_text(content: object, i: int) -> str:
    """A message's content as text: a string, or the text blocks of a block list joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif (
                isinstance(block, Mapping)
                and isinstance(block.get("text"), str)
                and block.get("type", "text") == "text"
            ):
                parts.append(str(block["text"]))
        return "\n".join(parts)
    raise UsageError(f"message {i} content must be text or a list of text blocks")
