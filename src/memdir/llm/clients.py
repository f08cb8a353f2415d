"""Chat clients over httpx: :class:`OpenAIChat` (``/chat/completions``: OpenAI, Ollama, vLLM,
LM Studio and most hosted models) and :class:`AnthropicChat` (``/v1/messages``).

Both also take part in a tool-using conversation (``memdir chat``): :meth:`complete_with_tools`
sends messages in the provider's own wire format with tool definitions in its format
(``tool_format``: ``openai`` or ``anthropic``, as :func:`memdir.tools.tool_schemas` exports
them) and returns the calls asked for in ``ChatResult.tool_calls``; :meth:`user_turn`,
:meth:`assistant_turn` and :meth:`tool_results` build those wire messages.

Both take the model, the base URL, the API key itself (:func:`memdir.llm.create_chat_model`
reads it from the environment variable named in ``llm.api_key_env``), a total ``timeout_s`` per
call and ``max_retries`` (or a whole :class:`~memdir.llm.RetryPolicy` as ``retry``, which
then replaces it); :mod:`memdir.llm.http` says what is retried and how failures read.
Each owns a connection pool for its sync calls (``close()``, or use it in ``with``); an async
call opens its own, so it works from any event loop.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from typing import Self

import httpx

from memdir import __version__
from memdir.errors import UsageError
from memdir.llm.chat import ChatResult, Message, MessageLike, ToolUse, as_messages
from memdir.llm.http import Endpoint, Malformed, RetryPolicy, apost_json, post_json

__all__ = ["ANTHROPIC_VERSION", "AnthropicChat", "OpenAIChat"]

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` header sent with every Anthropic request."""


class _HTTPChat:
    """What both clients share: the endpoint, the retry policy, the sync and async calls."""

    provider = ""
    path = ""
    tool_format = ""

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None = None,
        key_env: str = "",
        timeout_s: float = 60.0,
        max_retries: int = 3,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
        rand: Callable[[], float] = random.random,
    ) -> None:
        if not model.strip():
            raise UsageError(f"{self.provider} needs a model name")
        url = base_url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise UsageError(
                f"{self.provider} base URL {base_url!r} must start with http:// or https://"
            )
        if timeout_s <= 0:
            raise UsageError(f"timeout_s must be > 0, got {timeout_s}")
        if max_retries < 0:
            raise UsageError(f"max_retries must be >= 0, got {max_retries}")
        self.model = model.strip()
        self.base_url = url
        self.timeout_s = timeout_s
        self.retry = retry if retry is not None else RetryPolicy(max_retries=max_retries)
        self._rand = rand
        sent = {
            "content-type": "application/json",
            "user-agent": f"memdir/{__version__}",
            **self._auth_headers(api_key),
            **dict(headers or {}),
        }
        self.endpoint = Endpoint(self.provider, f"{url}{self.path}", sent, key_env)
        self._client = httpx.Client(follow_redirects=False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, base_url={self.base_url!r})"

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool of the sync calls."""
        self._client.close()

    def complete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult:
        """Send ``messages`` and return the answer; :class:`~memdir.errors.LLMError` on failure."""
        payload = self._payload(_checked(messages, max_tokens), system, max_tokens, temperature)
        return post_json(
            self._client,
            self.endpoint,
            payload,
            self._parse,
            policy=self.retry,
            timeout_s=self._timeout(timeout),
            rand=self._rand,
        )

    async def acomplete(
        self,
        messages: Sequence[MessageLike],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult:
        """:meth:`complete`, awaited."""
        payload = self._payload(_checked(messages, max_tokens), system, max_tokens, temperature)
        return await apost_json(
            self.endpoint,
            payload,
            self._parse,
            policy=self.retry,
            timeout_s=self._timeout(timeout),
            rand=self._rand,
        )

    def complete_with_tools(
        self,
        messages: Sequence[Mapping[str, object]],
        *,
        tools: Sequence[Mapping[str, object]] = (),
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float | None = 0.0,
        timeout: float | None = None,
    ) -> ChatResult:
        """One turn of a tool-using conversation: ``messages`` in this provider's wire format
        (see :meth:`user_turn`, :meth:`assistant_turn`, :meth:`tool_results`), ``tools`` in
        ``tool_format``. The calls the model asks for are in the answer's ``tool_calls``."""
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise UsageError(f"max_tokens must be a whole number >= 1, got {max_tokens!r}")
        if not messages:
            raise UsageError("messages is empty; send at least one message")
        payload = self._raw_payload([dict(m) for m in messages], system, max_tokens, temperature)
        if tools:
            payload["tools"] = [dict(t) for t in tools]
        return post_json(
            self._client,
            self.endpoint,
            payload,
            self._parse,
            policy=self.retry,
            timeout_s=self._timeout(timeout),
            rand=self._rand,
        )

    def user_turn(self, text: str) -> dict[str, object]:
        """The user's message, in the wire format."""
        return {"role": "user", "content": text}

    def assistant_turn(self, result: ChatResult) -> dict[str, object]:
        """The model's answer (text and tool calls) as the message to send back."""
        raise NotImplementedError

    def tool_results(self, results: Sequence[tuple[ToolUse, str, bool]]) -> list[dict[str, object]]:
        """The messages carrying ``(call, output text, is_error)`` back to the model."""
        raise NotImplementedError

    def _raw_payload(
        self,
        messages: list[dict[str, object]],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        raise NotImplementedError

    def _timeout(self, timeout: float | None) -> float:
        if timeout is None:
            return self.timeout_s
        if timeout <= 0:
            raise UsageError(f"timeout must be > 0 seconds, got {timeout}")
        return timeout

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        raise NotImplementedError

    def _payload(
        self,
        messages: list[Message],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        raise NotImplementedError

    def _parse(self, data: dict[str, object]) -> ChatResult:
        raise NotImplementedError


class OpenAIChat(_HTTPChat):
    """An OpenAI-compatible chat model: POST ``{base_url}/chat/completions``.

    ``base_url`` ends in the API version, as OpenAI's own clients expect:
    ``https://api.openai.com/v1``, ``http://127.0.0.1:11434/v1`` (Ollama),
    ``http://127.0.0.1:8000/v1`` (vLLM), ``http://127.0.0.1:1234/v1`` (LM Studio). The key, if
    any, goes in ``Authorization: Bearer``; local servers need none. ``system`` becomes the
    first message.
    """

    provider = "openai"
    path = "/chat/completions"
    tool_format = "openai"

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        return {"authorization": f"Bearer {api_key}"} if api_key else {}

    def _payload(
        self,
        messages: list[Message],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        return self._raw_payload([m.to_dict() for m in messages], system, max_tokens, temperature)

    def _raw_payload(
        self,
        messages: list[dict[str, object]],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        sent: list[dict[str, object]] = [{"role": "system", "content": system}] if system else []
        sent += messages
        payload: dict[str, object] = {
            "model": self.model,
            "messages": sent,
            "max_tokens": max_tokens,
            "stream": False,
        }
        if temperature is not None:
            payload["temperature"] = temperature
        return payload

    def _parse(self, data: dict[str, object]) -> ChatResult:
        choices = data.get("choices")
        if not isinstance(choices, list) or not choices:
            raise Malformed(_missing("choices", data))
        choice = choices[0]
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise Malformed("choices[0].message is missing")
        content = message.get("content")
        if content is not None and not isinstance(content, str):
            raise Malformed("choices[0].message.content is not text")
        usage = data.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        reason = choice.get("finish_reason")
        calls = []
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                raise Malformed("a tool call has no function name")
            calls.append(
                ToolUse(
                    _text(call.get("id")), function["name"], _arguments(function.get("arguments"))
                )
            )
        return ChatResult(
            text=content or "",
            model=_text(data.get("model")) or self.model,
            provider=self.provider,
            input_tokens=_count(usage.get("prompt_tokens")),
            output_tokens=_count(usage.get("completion_tokens")),
            finish_reason=_text(reason) or "unknown",
            tool_calls=tuple(calls),
        )

    def assistant_turn(self, result: ChatResult) -> dict[str, object]:
        turn: dict[str, object] = {"role": "assistant", "content": result.text or None}
        if result.tool_calls:
            turn["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": _arguments_text(c.arguments)},
                }
                for c in result.tool_calls
            ]
        return turn

    def tool_results(self, results: Sequence[tuple[ToolUse, str, bool]]) -> list[dict[str, object]]:
        return [{"role": "tool", "tool_call_id": c.id, "content": out} for c, out, _ in results]


class AnthropicChat(_HTTPChat):
    """An Anthropic model: POST ``{base_url}/v1/messages`` (``base_url`` is
    ``https://api.anthropic.com`` by default, without the version), with the ``x-api-key`` and
    ``anthropic-version`` headers. ``system`` (and any ``system`` message in the list) is the
    top-level ``system`` field; the answer is the text of its ``text`` blocks. Input tokens
    include those written to and read from the prompt cache.
    """

    provider = "anthropic"
    path = "/v1/messages"
    tool_format = "anthropic"

    def _auth_headers(self, api_key: str | None) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION}
        if api_key:
            headers["x-api-key"] = api_key
        return headers

    def _payload(
        self,
        messages: list[Message],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        extra = [m.content for m in messages if m.role == "system" and m.content]
        turns: list[dict[str, object]] = [m.to_dict() for m in messages if m.role != "system"]
        if not turns:
            raise UsageError("anthropic needs at least one user or assistant message")
        joined = "\n\n".join([system, *extra] if system else extra) or None
        return self._raw_payload(turns, joined, max_tokens, temperature)

    def _raw_payload(
        self,
        messages: list[dict[str, object]],
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> dict[str, object]:
        instructions = [system] if system else []
        turns = messages
        payload: dict[str, object] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": turns,
        }
        if instructions:
            payload["system"] = "\n\n".join(instructions)
        if temperature is not None:
            payload["temperature"] = temperature
        return payload

    def _parse(self, data: dict[str, object]) -> ChatResult:
        if data.get("type") == "error":
            raise Malformed(f"the answer is an error: {_error_text(data)}")
        content = data.get("content")
        if not isinstance(content, list):
            raise Malformed(_missing("content", data))
        texts = []
        calls = []
        for block in content:
            if not isinstance(block, dict):
                raise Malformed("content holds something that is not a block")
            if block.get("type") == "text":
                if not isinstance(block.get("text"), str):
                    raise Malformed("a text block has no text")
                texts.append(str(block["text"]))
            elif block.get("type") == "tool_use":
                if not isinstance(block.get("name"), str):
                    raise Malformed("a tool_use block has no name")
                arguments = block.get("input")
                calls.append(
                    ToolUse(
                        _text(block.get("id")),
                        str(block["name"]),
                        arguments if isinstance(arguments, dict) else {},
                    )
                )
        usage = data.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        parts = [
            _count(usage.get(k))
            for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        ]
        reason = _text(data.get("stop_reason"))
        return ChatResult(
            text="".join(texts),
            model=_text(data.get("model")) or self.model,
            provider=self.provider,
            input_tokens=None if parts[0] is None else sum(p or 0 for p in parts),
            output_tokens=_count(usage.get("output_tokens")),
            finish_reason=_ANTHROPIC_REASONS.get(reason, reason or "unknown"),
            tool_calls=tuple(calls),
        )

    def assistant_turn(self, result: ChatResult) -> dict[str, object]:
        blocks: list[dict[str, object]] = (
            [{"type": "text", "text": result.text}] if result.text else []
        )
        blocks += [
            {
                "type": "tool_use",
                "id": c.id,
                "name": c.name,
                "input": _arguments_object(c.arguments),
            }
            for c in result.tool_calls
        ]
        return {"role": "assistant", "content": blocks}

    def tool_results(self, results: Sequence[tuple[ToolUse, str, bool]]) -> list[dict[str, object]]:
        blocks = [
            {"type": "tool_result", "tool_use_id": c.id, "content": out, "is_error": bad}
            for c, out, bad in results
        ]
        return [{"role": "user", "content": blocks}] if blocks else []


_ANTHROPIC_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}


def _checked(messages: Sequence[MessageLike], max_tokens: int) -> list[Message]:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise UsageError(f"max_tokens must be a whole number >= 1, got {max_tokens!r}")
    out = as_messages(messages)
    if not out:
        raise UsageError("messages is empty; send at least one message")
    return out


def _arguments(value: object) -> dict[str, object] | str:
    """OpenAI's ``arguments`` JSON text as an object (the text itself when it is not one)."""
    if isinstance(value, dict):
        return value
    if not isinstance(value, str) or not value.strip():
        return {}
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return parsed if isinstance(parsed, dict) else value


def _arguments_text(value: dict[str, object] | str) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _arguments_object(value: dict[str, object] | str) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _count(value: object) -> int | None:
    """A token count, or ``None`` when the server sent none (or something that is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _error_text(data: dict[str, object]) -> str:
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:300]
    if isinstance(error, str):
        return error[:300]
    return "no message"


def _missing(field: str, data: dict[str, object]) -> str:
    """Why ``field`` is unusable: absent, empty, or replaced by an error the server sent."""
    if "error" in data:
        return f"no {field}; the server sent an error: {_error_text(data)}"
    return f"no {field} in the answer (keys: {', '.join(sorted(data)[:12]) or 'none'})"
