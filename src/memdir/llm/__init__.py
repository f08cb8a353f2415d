"""Chat models for capturing memory from conversations: one small protocol, two HTTP clients
and an offline fallback.

* :class:`ChatModel`: ``complete(messages, *, system, max_tokens, temperature, timeout)`` →
  :class:`ChatResult` (text, model, token counts, finish reason), and ``acomplete``, awaited.
* :class:`OpenAIChat` (OpenAI and every OpenAI-compatible server: Ollama, vLLM, LM Studio) and
  :class:`AnthropicChat`, over httpx, with a total time limit per call, capped retries with
  jittered back-off, and :class:`~memdir.errors.LLMError` for every failure; both can also
  offer tools (``complete_with_tools``, the calls in ``ChatResult.tool_calls`` as
  :class:`ToolUse`), which ``memdir chat`` uses.
* :class:`ExtractiveSummarizer`: the deterministic fallback that needs no model
  (``provider == model == "extractive"``), with ``summarize(text or messages, max_chars=…)``.
* :func:`create_chat_model` picks one from the ``llm.*`` settings.

This package sits low in memdir: it uses only :mod:`memdir.config`, :mod:`memdir.errors` and
:mod:`memdir.text`. Names are imported on first use, so ``import memdir.llm.chat`` does not
load httpx.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_LAZY = {
    "NO_REPLY": "memdir.llm.chat",
    "ChatModel": "memdir.llm.chat",
    "ChatResult": "memdir.llm.chat",
    "Message": "memdir.llm.chat",
    "MessageLike": "memdir.llm.chat",
    "ToolUse": "memdir.llm.chat",
    "is_silent_reply": "memdir.llm.chat",
    "AnthropicChat": "memdir.llm.clients",
    "OpenAIChat": "memdir.llm.clients",
    "EXTRACTIVE": "memdir.llm.extractive",
    "ExtractiveSummarizer": "memdir.llm.extractive",
    "RetryPolicy": "memdir.llm.http",
    "CHAT_PROVIDERS": "memdir.llm.providers",
    "create_chat_model": "memdir.llm.providers",
}

__all__ = [
    "CHAT_PROVIDERS",
    "EXTRACTIVE",
    "NO_REPLY",
    "AnthropicChat",
    "ChatModel",
    "ChatResult",
    "ExtractiveSummarizer",
    "Message",
    "MessageLike",
    "OpenAIChat",
    "RetryPolicy",
    "ToolUse",
    "create_chat_model",
    "is_silent_reply",
]

if TYPE_CHECKING:
    from memdir.llm.chat import (
        NO_REPLY,
        ChatModel,
        ChatResult,
        Message,
        MessageLike,
        ToolUse,
        is_silent_reply,
    )
    from memdir.llm.clients import AnthropicChat, OpenAIChat
    from memdir.llm.extractive import EXTRACTIVE, ExtractiveSummarizer
    from memdir.llm.http import RetryPolicy
    from memdir.llm.providers import CHAT_PROVIDERS, create_chat_model


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'memdir.llm' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
