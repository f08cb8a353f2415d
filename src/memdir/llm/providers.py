"""Which chat model a configuration asks for: :func:`create_chat_model`.

``llm.provider`` picks ``openai`` (any OpenAI-compatible server), ``anthropic``, or ``none``
(the default). The API key is read from the environment variable named in ``llm.api_key_env``
(by default ``OPENAI_API_KEY`` or ``ANTHROPIC_API_KEY``); the configuration never holds the key.

When no model can be used, the result is an :class:`~memdir.llm.ExtractiveSummarizer` whose
``reason`` says why (and a warning is logged when a model was asked for): no provider
configured, or the key's variable is unset or empty. An OpenAI-compatible server at a custom
``llm.base_url`` (Ollama, vLLM, LM Studio) needs no key, unless ``llm.api_key_env`` names one.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass

from memdir.config import Config
from memdir.llm.chat import ChatModel
from memdir.llm.clients import AnthropicChat, OpenAIChat
from memdir.llm.extractive import ExtractiveSummarizer

__all__ = ["CHAT_PROVIDERS", "ChatProvider", "create_chat_model"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ChatProvider:
    """Static facts about one chat provider."""

    id: str
    default_model: str
    default_base_url: str
    key_env: str


CHAT_PROVIDERS: Mapping[str, ChatProvider] = {
    "openai": ChatProvider("openai", "gpt-4o-mini", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    "anthropic": ChatProvider(
        "anthropic", "claude-haiku-4-5", "https://api.anthropic.com", "ANTHROPIC_API_KEY"
    ),
}
"""The providers ``llm.provider`` may name, besides ``none``."""


def create_chat_model(config: Config, *, env: Mapping[str, str] | None = None) -> ChatModel:
    """The chat model ``config`` asks for, or the extractive fallback saying why not.

    ``env`` defaults to ``os.environ``. Call ``close()`` on the result when done (a no-op for
    the fallback). Check ``isinstance(model, ExtractiveSummarizer)`` and ``model.reason`` to
    report that the fallback is in use.
    """
    env = os.environ if env is None else env
    provider = config["llm.provider"]
    spec = CHAT_PROVIDERS.get(provider)
    if spec is None:
        return ExtractiveSummarizer(reason=f"no model configured (llm.provider = {provider})")
    named_env = config["llm.api_key_env"]
    key_env = named_env or spec.key_env
    key = env.get(key_env, "").strip()
    custom_url = config["llm.base_url"]
    needs_key = provider == "anthropic" or not custom_url or bool(named_env)
    if needs_key and not key:
        state = "empty" if key_env in env else "not set"
        reason = (
            f"llm.provider = {provider}, but the API key variable {key_env} is {state}; "
            f"set it, or name the variable holding the key in llm.api_key_env"
        )
        log.warning("%s: using the extractive fallback", reason)
        return ExtractiveSummarizer(reason=reason)
    client = OpenAIChat if provider == "openai" else AnthropicChat
    return client(
        config["llm.model"] or spec.default_model,
        base_url=custom_url or spec.default_base_url,
        api_key=key or None,
        key_env=key_env if key else "",
        timeout_s=config["llm.timeout_s"],
        max_retries=config["llm.max_retries"],
    )
