"""OpenAIChat and AnthropicChat against a real HTTP server on 127.0.0.1 that speaks each
protocol with scripted answers: what they send, what they make of the answers, how they retry,
and how they fail (every failure an LLMError naming the provider, URL and status)."""

from __future__ import annotations

import time

import pytest

from embed.fakes import FakeServer, Reply, SilentServer
from memdir.errors import LLMError, UsageError
from memdir.llm import ChatModel, Message, RetryPolicy
from memdir.llm.clients import ANTHROPIC_VERSION

from .conftest import (
    TEST_KEY,
    MakeAnthropic,
    MakeOpenAI,
    TrickleServer,
    anthropic_answer,
    openai_answer,
    text_block,
)

HELLO = [{"role": "user", "content": "Hello?"}]


# -- OpenAI-compatible --------------------------------------------------------------------------
def test_openai_sends_the_chat_completions_request_and_reads_the_answer(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.script(openai_answer("We chose PostgreSQL.", usage=(42, 7)))
    client = openai(model="gpt-test")
    result = client.complete(
        [
            {"role": "user", "content": "Which database?"},
            {"role": "assistant", "content": "Let me check."},
            Message("user", "Well?"),
        ],
        system="You are terse.",
        max_tokens=64,
    )
    assert isinstance(client, ChatModel)
    assert result.text == "We chose PostgreSQL."
    assert (result.provider, result.model) == ("openai", "gpt-test-2026-01-01")
    assert (result.input_tokens, result.output_tokens) == (42, 7)
    assert result.finish_reason == "stop" and not result.truncated and not result.silent
    [seen] = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["user-agent"].startswith("memdir/")
    assert "x-api-key" not in seen.headers
    assert seen.body == {
        "model": "gpt-test",
        "messages": [
            {"role": "system", "content": "You are terse."},
            {"role": "user", "content": "Which database?"},
            {"role": "assistant", "content": "Let me check."},
            {"role": "user", "content": "Well?"},
        ],
        "max_tokens": 64,
        "stream": False,
        "temperature": 0.0,
    }


def test_openai_without_key_sends_no_authorization_and_temperature_none_is_omitted(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.script(openai_answer("ok"))
    blocks = [
        {"type": "text", "text": "part one"},
        {"type": "image"},
        {"type": "text", "text": "two"},
    ]
    openai(api_key=None).complete([{"role": "user", "content": blocks}], temperature=None)
    [seen] = server.requests
    assert "authorization" not in seen.headers
    assert isinstance(seen.body, dict)
    assert "temperature" not in seen.body
    assert seen.body["messages"] == [{"role": "user", "content": "part one\ntwo"}]


def test_openai_no_reply_answers_are_silent(server: FakeServer, openai: MakeOpenAI) -> None:
    server.script(openai_answer("  NO_REPLY\n"), openai_answer('{"action": "NO_REPLY"}'))
    client = openai()
    first, second = client.complete(HELLO), client.complete(HELLO)
    assert first.silent and first.text == "  NO_REPLY\n"
    assert second.silent


def test_openai_length_finish_missing_usage_and_null_content(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.script(
        openai_answer("cut sh", finish="length", usage=None),
        openai_answer(None, finish="content_filter"),
    )
    client = openai()
    cut = client.complete(HELLO)
    assert cut.truncated and cut.input_tokens is None and cut.output_tokens is None
    filtered = client.complete(HELLO)
    assert filtered.text == "" and filtered.silent and filtered.finish_reason == "content_filter"


def test_openai_retries_a_429_after_its_retry_after(server: FakeServer, openai: MakeOpenAI) -> None:
    server.script(
        Reply({"error": {"message": "slow down"}}, status=429, headers={"Retry-After": "1"}),
        openai_answer("done"),
    )
    client = openai(retry=RetryPolicy(max_retries=2, base_delay_s=0.001, max_delay_s=5.0))
    started = time.monotonic()
    result = client.complete(HELLO)
    elapsed = time.monotonic() - started
    assert result.text == "done"
    assert 1.0 <= elapsed < 3.0  # the computed wait would have been 1 ms
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


def test_openai_caps_a_long_retry_after(server: FakeServer, openai: MakeOpenAI) -> None:
    server.script(Reply({}, status=429, headers={"Retry-After": "3600"}), openai_answer("done"))
    client = openai(retry=RetryPolicy(max_retries=1, base_delay_s=0.001, max_delay_s=0.1))
    started = time.monotonic()
    assert client.complete(HELLO).text == "done"
    assert time.monotonic() - started < 2.0


def test_a_retry_after_past_the_time_limit_fails_at_once(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.handler = lambda seen: Reply(
        {"error": {"message": "Rate limit reached for requests"}},
        status=429,
        headers={"retry-after": "30"},
    )
    client = openai(retry=RetryPolicy(max_retries=3, max_delay_s=30.0), timeout_s=2.0)
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        client.complete(HELLO)
    assert time.monotonic() - started < 1.0
    err = caught.value
    assert (err.status, err.attempts, err.provider) == (429, 1, "openai")
    assert "asked to wait 30s" in err.message and "Rate limit reached" in err.message


def test_openai_500s_until_retries_run_out(server: FakeServer, openai: MakeOpenAI) -> None:
    body = {"error": {"message": "upstream exploded " + "x" * 2000}}
    server.handler = lambda seen: Reply(body, status=500)
    client = openai(retry=RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05))
    with pytest.raises(LLMError) as caught:
        client.complete(HELLO)
    err = caught.value
    assert len(server.requests) == 3
    assert (err.status, err.attempts, err.exit_code) == (500, 3, 5)
    assert err.url == server.url + "/v1/chat/completions"
    assert err.url in err.message and "HTTP 500 (internal server error)" in err.message
    assert "openai" in err.message and "upstream exploded" in err.message
    assert "…" in err.message and len(err.message) < 600
    assert TEST_KEY not in str(err)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_other_4xx_are_not_retried(server: FakeServer, openai: MakeOpenAI, status: int) -> None:
    server.handler = lambda seen: Reply({"error": {"message": f"nope {status}"}}, status=status)
    with pytest.raises(LLMError) as caught:
        openai().complete(HELLO)
    assert len(server.requests) == 1
    err = caught.value
    assert err.status == status and err.attempts == 1 and f"nope {status}" in err.message
    if status in (401, 403):
        assert "$TEST_OPENAI_KEY" in str(err) and TEST_KEY not in str(err)
    if status == 404:
        assert "/v1" in str(err.hint)


def test_a_server_that_never_answers_fails_within_the_time_limit(
    silent_server: SilentServer, openai: MakeOpenAI
) -> None:
    client = openai(base_url=silent_server.url + "/v1", timeout_s=0.5)
    started = time.monotonic()
    with pytest.raises(LLMError) as caught:
        client.complete(HELLO)
    elapsed = time.monotonic() - started
    assert 0.45 <= elapsed < 2.0
    assert caught.value.status is None
    assert "did not answer within 0.5s" in caught.value.message
    assert silent_server.connections == 1  # a timeout uses the time up: no retry


def test_a_server_that_trickles_is_cut_at_the_time_limit(
    trickle_server: TrickleServer, openai: MakeOpenAI
) -> None:
    client = openai(base_url=trickle_server.url + "/v1", timeout_s=0.6)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"did not answer within 0\.6s"):
        client.complete(HELLO)
    assert time.monotonic() - started < 1.5  # each byte came in time; the total did not


def test_the_per_call_timeout_overrides_the_clients(
    silent_server: SilentServer, openai: MakeOpenAI
) -> None:
    client = openai(base_url=silent_server.url, timeout_s=30.0)
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"within 0\.3s"):
        client.complete(HELLO, timeout=0.3)
    assert time.monotonic() - started < 2.0


def test_connection_refused_is_retried_then_explained(
    closed_port_url: str, openai: MakeOpenAI
) -> None:
    client = openai(base_url=closed_port_url + "/v1")
    with pytest.raises(LLMError) as caught:
        client.complete(HELLO)
    err = caught.value
    assert err.attempts == 4 and err.status is None
    assert err.message.startswith(f"cannot reach openai at {closed_port_url}/v1/chat/completions")
    assert "ConnectError" in err.message and "llm.base_url" in str(err.hint)


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(b"{not json"), "the body is not JSON ('{not json')"),
        (Reply(b""), "the body is not JSON ('empty body')"),
        (Reply([1, 2]), "not a JSON object"),
        (Reply({"choices": []}), "no choices in the answer"),
        (Reply({"id": "x"}), "no choices in the answer (keys: id)"),
        (
            Reply({"error": {"message": "model is loading"}}),
            "the server sent an error: model is loading",
        ),
        (Reply({"choices": [{"index": 0}]}), "choices[0].message is missing"),
        (Reply({"choices": [{"message": {"content": 5}}]}), "content is not text"),
    ],
)
def test_malformed_answers_are_errors_not_crashes(
    server: FakeServer, openai: MakeOpenAI, reply: Reply, problem: str
) -> None:
    server.script(reply)
    with pytest.raises(LLMError) as caught:
        openai().complete(HELLO)
    assert problem in caught.value.message
    assert caught.value.message.startswith("malformed answer from openai at http://127.0.0.1:")
    assert caught.value.status == 200
    assert len(server.requests) == 1  # the same request would get the same answer


def test_a_bad_answer_to_a_retry_is_still_reported_as_that_answer(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.script(Reply({}, status=503), Reply(b"<html>gateway</html>", status=502))
    with pytest.raises(LLMError) as caught:
        openai(retry=RetryPolicy(max_retries=1, base_delay_s=0.01)).complete(HELLO)
    assert caught.value.status == 502 and caught.value.attempts == 2
    assert "bad gateway" in caught.value.message and "<html>gateway</html>" in caught.value.message


def test_bad_calls_are_usage_errors_before_any_request(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    client = openai()
    for call in (
        lambda: client.complete([]),
        lambda: client.complete(HELLO, max_tokens=0),
        lambda: client.complete([{"role": "robot", "content": "x"}]),
        lambda: client.complete([{"role": "user", "content": 3}]),
        lambda: client.complete("hello"),  # type: ignore[arg-type]
        lambda: client.complete(HELLO, timeout=0),
    ):
        with pytest.raises(UsageError):
            call()
    with pytest.raises(UsageError, match="http:// or https://"):
        openai(base_url="127.0.0.1:11434/v1")
    with pytest.raises(UsageError, match="model"):
        openai(model=" ")
    assert server.requests == []


# -- Anthropic ----------------------------------------------------------------------------------
def test_anthropic_sends_a_messages_request_with_its_headers(
    server: FakeServer, anthropic: MakeAnthropic
) -> None:
    server.script(
        anthropic_answer(
            text_block("We chose "),
            {"type": "tool_use", "id": "t1", "name": "x", "input": {}},
            text_block("PostgreSQL."),
            usage={
                "input_tokens": 10,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 1000,
                "output_tokens": 6,
            },
        )
    )
    client = anthropic(model="claude-test")
    result = client.complete(
        [
            {"role": "system", "content": "Dates are UTC."},
            {"role": "user", "content": "Which database?"},
        ],
        system="You are terse.",
        max_tokens=50,
        temperature=0.2,
    )
    assert isinstance(client, ChatModel)
    assert result.text == "We chose PostgreSQL."
    assert (result.provider, result.model) == ("anthropic", "claude-test-20260101")
    assert (result.input_tokens, result.output_tokens) == (1110, 6)
    assert result.finish_reason == "stop"
    [seen] = server.requests
    assert seen.path == "/v1/messages"
    assert seen.headers["x-api-key"] == TEST_KEY
    assert seen.headers["anthropic-version"] == ANTHROPIC_VERSION
    assert "authorization" not in seen.headers
    assert seen.body == {
        "model": "claude-test",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": "Which database?"}],
        "system": "You are terse.\n\nDates are UTC.",
        "temperature": 0.2,
    }


def test_anthropic_no_reply_max_tokens_and_empty_content(
    server: FakeServer, anthropic: MakeAnthropic
) -> None:
    server.script(
        anthropic_answer(text_block("NO_REPLY")),
        anthropic_answer(text_block("partial"), stop="max_tokens"),
        Reply({"type": "message", "content": [], "stop_reason": "end_turn", "usage": {}}),
    )
    client = anthropic()
    assert client.complete(HELLO).silent
    assert client.complete(HELLO).truncated
    empty = client.complete(HELLO)
    assert empty.text == "" and empty.silent and empty.input_tokens is None
    assert empty.model == "claude-test"  # the server named none: the one asked for
    assert isinstance(server.requests[0].body, dict)
    assert "system" not in server.requests[0].body and "temperature" in server.requests[0].body


def test_anthropic_retries_overloaded_529_and_reads_its_error_shape(
    server: FakeServer, anthropic: MakeAnthropic
) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    server.script(Reply(overloaded, status=529), anthropic_answer(text_block("fine")))
    assert anthropic().complete(HELLO).text == "fine"
    assert len(server.requests) == 2
    server.handler = lambda seen: Reply(overloaded, status=529)
    with pytest.raises(LLMError) as caught:
        anthropic(retry=RetryPolicy(max_retries=1, base_delay_s=0.01)).complete(HELLO)
    assert "HTTP 529 (overloaded) after 2 attempt(s): Overloaded" in caught.value.message


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (Reply(b"Internal error"), "not JSON"),
        (Reply({"type": "message"}), "no content in the answer"),
        (Reply({"type": "error", "error": {"message": "bad"}}), "the answer is an error: bad"),
        (Reply({"content": ["text"]}), "not a block"),
        (Reply({"content": [{"type": "text"}]}), "a text block has no text"),
    ],
)
def test_anthropic_malformed_answers(
    server: FakeServer, anthropic: MakeAnthropic, reply: Reply, problem: str
) -> None:
    server.script(reply)
    with pytest.raises(LLMError, match="malformed answer from anthropic") as caught:
        anthropic().complete(HELLO)
    assert problem in caught.value.message


def test_anthropic_needs_a_conversation_turn(server: FakeServer, anthropic: MakeAnthropic) -> None:
    with pytest.raises(UsageError, match="at least one user or assistant message"):
        anthropic().complete([{"role": "system", "content": "only instructions"}])
    assert server.requests == []


def test_anthropic_never_answering_is_bounded(
    silent_server: SilentServer, anthropic: MakeAnthropic
) -> None:
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"anthropic .* did not answer within 0\.4s"):
        anthropic(base_url=silent_server.url, timeout_s=0.4).complete(HELLO)
    assert time.monotonic() - started < 2.0


# -- async twins --------------------------------------------------------------------------------
async def test_acomplete_matches_complete(
    server: FakeServer, openai: MakeOpenAI, anthropic: MakeAnthropic
) -> None:
    server.script(openai_answer("sync"), openai_answer("async"))
    client = openai()
    sync, awaited = client.complete(HELLO, system="s"), await client.acomplete(HELLO, system="s")
    assert (sync.text, awaited.text) == ("sync", "async")
    assert sync.model == awaited.model and sync.input_tokens == awaited.input_tokens
    assert server.requests[0].body == server.requests[1].body
    assert (
        server.requests[0].headers["authorization"] == server.requests[1].headers["authorization"]
    )
    server.script(anthropic_answer(text_block("NO_REPLY")))
    assert (await anthropic().acomplete(HELLO)).silent
    assert server.requests[2].headers["x-api-key"] == TEST_KEY


async def test_acomplete_retries_a_429_then_succeeds(
    server: FakeServer, openai: MakeOpenAI
) -> None:
    server.script(Reply({}, status=429, headers={"retry-after-ms": "300"}), openai_answer("ok"))
    started = time.monotonic()
    result = await openai(
        retry=RetryPolicy(max_retries=1, base_delay_s=0.001, max_delay_s=5.0)
    ).acomplete(HELLO)
    assert result.text == "ok" and len(server.requests) == 2
    assert time.monotonic() - started >= 0.3


async def test_acomplete_500s_run_out(server: FakeServer, anthropic: MakeAnthropic) -> None:
    server.handler = lambda seen: Reply({"error": {"message": "boom"}}, status=500)
    with pytest.raises(LLMError) as caught:
        await anthropic(retry=RetryPolicy(max_retries=2, base_delay_s=0.01)).acomplete(HELLO)
    assert caught.value.attempts == 3 and caught.value.status == 500
    assert len(server.requests) == 3


async def test_acomplete_never_answering_and_trickling_are_bounded(
    silent_server: SilentServer, trickle_server: TrickleServer, openai: MakeOpenAI
) -> None:
    for url in (silent_server.url, trickle_server.url):
        started = time.monotonic()
        with pytest.raises(LLMError, match=r"did not answer within 0\.5s"):
            await openai(base_url=url, timeout_s=0.5).acomplete(HELLO)
        assert 0.45 <= time.monotonic() - started < 1.5


async def test_acomplete_malformed_and_refused(
    server: FakeServer, openai: MakeOpenAI, closed_port_url: str
) -> None:
    server.script(Reply(b"[[["))
    with pytest.raises(LLMError, match="not JSON"):
        await openai().acomplete(HELLO)
    with pytest.raises(LLMError, match="cannot reach openai") as caught:
        await openai(base_url=closed_port_url).acomplete(HELLO)
    assert caught.value.attempts == 4
