"""Fixtures for the chat-model tests: clients aimed at the suite's scripted HTTP server
(``server``, ``silent_server`` from tests/conftest.py), and the answers the two APIs give."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from embed.fakes import FakeServer, Reply
from memdir.llm import AnthropicChat, OpenAIChat, RetryPolicy

TEST_KEY = "sk-test-SECRET-0123456789"
QUICK = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05)
"""Retries with waits short enough for tests (the real waits are asserted separately)."""


def openai_answer(
    text: str | None = "Hello.",
    *,
    finish: str | None = "stop",
    usage: tuple[int, int] | None = (21, 3),
    model: str = "gpt-test-2026-01-01",
) -> Reply:
    body: dict[str, object] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
        ],
    }
    if usage is not None:
        body["usage"] = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": sum(usage),
        }
    return Reply(body)


def anthropic_answer(
    *blocks: dict[str, object],
    stop: str = "end_turn",
    usage: dict[str, int] | None = None,
    model: str = "claude-test-20260101",
) -> Reply:
    return Reply(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": list(blocks) or [{"type": "text", "text": "Hello."}],
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": usage if usage is not None else {"input_tokens": 30, "output_tokens": 4},
        }
    )


def text_block(text: str) -> dict[str, object]:
    return {"type": "text", "text": text}


MakeOpenAI = Callable[..., OpenAIChat]
MakeAnthropic = Callable[..., AnthropicChat]


@pytest.fixture
def openai(server: FakeServer) -> Iterator[MakeOpenAI]:
    """``openai(**kwargs)``: an OpenAIChat aimed at ``server`` (``{url}/v1``), quick retries."""
    made: list[OpenAIChat] = []

    def make(**kwargs: object) -> OpenAIChat:
        kwargs.setdefault("base_url", server.url + "/v1")
        kwargs.setdefault("api_key", TEST_KEY)
        kwargs.setdefault("key_env", "TEST_OPENAI_KEY")
        kwargs.setdefault("retry", QUICK)
        kwargs.setdefault("timeout_s", 10.0)
        client = OpenAIChat(str(kwargs.pop("model", "gpt-test")), **kwargs)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


@pytest.fixture
def anthropic(server: FakeServer) -> Iterator[MakeAnthropic]:
    """``anthropic(**kwargs)``: an AnthropicChat aimed at ``server``, quick retries."""
    made: list[AnthropicChat] = []

    def make(**kwargs: object) -> AnthropicChat:
        kwargs.setdefault("base_url", server.url)
        kwargs.setdefault("api_key", TEST_KEY)
        kwargs.setdefault("key_env", "TEST_ANTHROPIC_KEY")
        kwargs.setdefault("retry", QUICK)
        kwargs.setdefault("timeout_s", 10.0)
        client = AnthropicChat(str(kwargs.pop("model", "claude-test")), **kwargs)  # type: ignore[arg-type]
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


class TrickleServer:
    """Answers every request with status and headers at once, then one body byte every
    ``interval_s``: each read returns quickly, the answer never completes in time."""

    def __init__(self, interval_s: float = 0.1) -> None:
        self.interval_s = interval_s
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.05)
        self._stop = threading.Event()
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._threads: list[threading.Thread] = []
        self._accepter = threading.Thread(target=self._accept, daemon=True)
        self._accepter.start()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._trickle, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _trickle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
                    b"content-length: 100000\r\n\r\n"
                )
                while not self._stop.is_set():
                    conn.sendall(b" ")
                    time.sleep(self.interval_s)
            except OSError:
                return

    def close(self) -> None:
        self._stop.set()
        self._accepter.join()
        self._sock.close()
        for thread in self._threads:
            thread.join(timeout=2)


@pytest.fixture
def trickle_server() -> Iterator[TrickleServer]:
    srv = TrickleServer()
    yield srv
    srv.close()


@pytest.fixture
def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens: connections are refused."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
