"""Retries, timeouts and error reporting of the shared HTTP layer, against a real server."""

from __future__ import annotations

import socket
import time

import httpx
import pytest

from memdir.embed.breaker import OutOfTime, ProviderFailure
from memdir.embed.http import (
    JsonClient,
    RetryPolicy,
    describe_status,
    error_message,
    is_quota_exhausted,
    retry_delay,
    time_budget,
)
from memdir.errors import EmbeddingError, ProviderUnavailable

from .fakes import TEST_KEY, FakeServer, Hosted, Reply, openai_reply


def _error(status: int, message: str) -> Reply:
    return Reply({"error": {"message": message, "type": "x", "code": None}}, status=status)


class TestRetryDelay:
    # spec case 40, with the jitter centred: ±20 % instead of +0…20 %
    def test_mid_draw_is_the_base(self) -> None:
        assert retry_delay(0.5, 0.5) == pytest.approx(0.5)

    def test_jitter_bounds(self) -> None:
        assert retry_delay(0.5, 0.0) == pytest.approx(0.4)
        assert retry_delay(0.5, 1.0) == pytest.approx(0.6)

    def test_cap(self) -> None:
        assert retry_delay(10.0, 1.0, cap_s=8.0) == 8.0


class TestRetries:
    def test_429_then_502_then_ok(self, server: FakeServer, hosted: Hosted) -> None:
        # spec case 38: three calls, waits 500 ms then 1000 ms
        server.script(
            _error(429, "Rate limit reached"),
            Reply(b"cloudflare: bad gateway", status=502),
            openai_reply,
        )
        vectors = hosted("openai").embed_documents(["hello"])
        assert vectors.shape == (1, 4)
        assert len(server.requests) == 3
        assert hosted.waits == [0.5, 1.0]

    def test_tokens_per_day_429_is_retried(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(_error(429, "Too many tokens per day"), openai_reply)
        hosted("openai").embed_documents(["hello"])
        assert len(server.requests) == 2
        assert hosted.waits == [0.5]

    def test_gives_up_after_three_retries(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = lambda seen: _error(503, "overloaded")
        with pytest.raises(
            EmbeddingError,
            match=r"openai .*HTTP 503 \(service unavailable\) after 4 attempts: overloaded",
        ):
            hosted("openai").embed_documents(["hello"])
        assert len(server.requests) == 4
        assert hosted.waits == [0.5, 1.0, 2.0]

    def test_max_retries_setting(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = lambda seen: _error(500, "boom")
        with pytest.raises(EmbeddingError, match="after 2 attempts"):
            hosted("openai", retry=RetryPolicy(max_retries=1)).embed_documents(["hello"])
        assert len(server.requests) == 2

    @pytest.mark.parametrize(
        ("headers", "wait"),
        [
            ({"Retry-After": "3"}, 3.0),
            ({"Retry-After": "120"}, 8.0),
            ({"retry-after-ms": "1500"}, 1.5),
        ],
    )
    def test_retry_after_is_honoured_up_to_the_cap(
        self, server: FakeServer, hosted: Hosted, headers: dict[str, str], wait: float
    ) -> None:
        server.script(
            Reply({"error": {"message": "slow down"}}, status=429, headers=headers), openai_reply
        )
        hosted("openai").embed_documents(["hello"])
        assert hosted.waits == [wait]

    def test_quota_429_fails_fast(self, server: FakeServer, hosted: Hosted) -> None:
        body = {
            "error": {
                "message": "You exceeded your current quota, please check your plan and billing details.",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        }
        server.handler = lambda seen: Reply(body, status=429)
        with pytest.raises(EmbeddingError, match="openai quota exhausted") as info:
            hosted("openai").embed_documents(["hello"])
        assert "exceeded your current quota" in str(info.value)
        assert len(server.requests) == 1
        assert hosted.waits == []

    def test_connection_refused_is_retried_then_explained(self, hosted: Hosted) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        embedder = hosted("ollama", base_url=f"http://127.0.0.1:{port}")
        with pytest.raises(
            EmbeddingError, match=r"cannot reach ollama at http://127\.0\.0\.1:\d+ after 4"
        ):
            embedder.embed_documents(["hello"])
        assert hosted.waits == [0.5, 1.0, 2.0]


class TestTimeouts:
    def test_one_timeout_is_retried(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply({}, delay_s=0.6), openai_reply)
        vectors = hosted("openai", timeout_s=0.15).embed_documents(["hello"])
        assert vectors.shape == (1, 4)
        assert hosted.waits == [0.5]

    def test_second_timeout_fails(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = lambda seen: Reply({}, delay_s=0.6)
        with pytest.raises(
            EmbeddingError, match=r"openai embeddings timed out after 0\.15s \(2 attempt"
        ):
            hosted("openai", timeout_s=0.15).embed_documents(["hello"])
        assert len(server.requests) == 2

    def test_a_query_takes_at_most_the_timeout_in_all(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        # Issue #9: a query's timeout was per attempt and retried, so a silent provider held a
        # search for twice the timeout (and 2 x 120 s for the batch a search embedded itself).
        server.script(Reply({}, delay_s=0.6), openai_reply)
        started = time.monotonic()
        with pytest.raises(ProviderFailure, match=r"timed out after 0\.3s \(1 attempt"):
            hosted("openai", timeout_s=0.3).embed_query("hello")
        assert time.monotonic() - started < 0.55
        assert len(server.requests) == 1

    def test_a_query_stops_retrying_when_its_time_is_up(self, hosted: Hosted) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
        embedder = hosted("openai", base_url=f"http://127.0.0.1:{port}", timeout_s=0.8)
        with pytest.raises(ProviderFailure, match="cannot reach openai"):
            embedder.embed_query("hello")
        assert hosted.waits == [0.5]  # the next wait (1 s) would end after the 0.8 s

    def test_no_request_starts_once_a_time_budget_is_spent(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.handler = lambda seen: Reply(openai_reply(seen).body, delay_s=0.3)
        embedder = hosted("openai", timeout_s=5.0)
        with time_budget(0.2):
            assert embedder.embed_documents(["first"]).shape == (1, 4)
            with pytest.raises(OutOfTime, match="time budget is spent"):
                embedder.embed_documents(["second"])
        assert len(server.requests) == 1
        assert embedder.breaker.state == "closed"  # the budget ran out, not the provider
        assert embedder.embed_documents(["third"]).shape == (1, 4)

    def test_documents_use_the_batch_timeout(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = lambda seen: Reply({}, delay_s=0.6)
        with pytest.raises(EmbeddingError, match=r"timed out after 0\.1s"):
            hosted("openai", timeout_s=5.0, batch_timeout_s=0.1).embed_documents(["hello"])


class TestErrors:
    @pytest.mark.parametrize(
        ("status", "label", "hint_word"),
        [
            (429, "rate limited", "rate-limiting"),
            (500, "internal server error", "failed on its side"),
            (502, "bad gateway", "proxy"),
            (503, "service unavailable", "overloaded"),
            (504, "gateway timeout", "too slow"),
            (507, "server error", "on its side"),
        ],
    )
    def test_each_status_is_described_for_what_it_is(
        self, server: FakeServer, hosted: Hosted, status: int, label: str, hint_word: str
    ) -> None:
        # Issue #9: HTTP 500 was described as "overloaded or rate-limiting".
        server.handler = lambda seen: _error(status, "nope")
        with pytest.raises(
            ProviderFailure, match=rf"HTTP {status} \({label}\) after 1 attempts"
        ) as info:
            hosted("openai", retry=RetryPolicy(max_retries=0)).embed_documents(["hello"])
        assert info.value.hint and hint_word in info.value.hint
        assert describe_status(status) == (label, info.value.hint)
        if status != 503:
            assert "overloaded" not in str(info.value)

    def test_401_is_provider_unavailable_with_key_hint(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.script(_error(401, "Incorrect API key provided: sk-te****6789."))
        with pytest.raises(
            ProviderUnavailable, match=r"openai refused the API key \(HTTP 401\)"
        ) as info:
            hosted("openai").embed_documents(["hello"])
        assert info.value.hint and "API key" in info.value.hint
        assert TEST_KEY not in str(info.value)
        assert len(server.requests) == 1

    def test_403_gemini_shape(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(
            Reply(
                {
                    "error": {
                        "code": 403,
                        "message": "Method doesn't allow unregistered callers.",
                        "status": "PERMISSION_DENIED",
                    }
                },
                status=403,
            )
        )
        with pytest.raises(ProviderUnavailable, match="unregistered callers"):
            hosted("gemini").embed_query("hello")

    def test_400_names_provider_status_and_message(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.script(Reply({"detail": "Model voyage-x is not supported."}, status=400))
        with pytest.raises(
            EmbeddingError,
            match=r"voyage embeddings failed with HTTP 400: Model voyage-x is not supported\.",
        ):
            hosted("voyage").embed_documents(["hello"])
        assert len(server.requests) == 1
        assert hosted.waits == []

    def test_malformed_json(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply(b"<html>gateway says hi</html>"))
        with pytest.raises(
            EmbeddingError, match="malformed response from openai: body is not JSON"
        ):
            hosted("openai").embed_documents(["hello"])


class TestErrorMessage:
    def _resp(self, status: int, body: object) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(status, text=body)
        return httpx.Response(status, json=body)

    @pytest.mark.parametrize(
        ("body", "expected"),
        [
            ({"error": {"message": "bad input", "type": "invalid_request_error"}}, "bad input"),
            (
                {
                    "error": {
                        "code": 400,
                        "message": "API key not valid",
                        "status": "INVALID_ARGUMENT",
                    }
                },
                "API key not valid",
            ),
            ({"detail": "Invalid input_type"}, "Invalid input_type"),
            ({"detail": [{"loc": ["body", "input"], "msg": "field required"}]}, "field required"),
            (
                {"object": "error", "message": "Input is too long", "type": "invalid_request"},
                "Input is too long",
            ),
            (
                {"error": 'model "x" not found, try pulling it first'},
                'model "x" not found, try pulling it first',
            ),
            ("upstream   connect\nerror", "upstream connect error"),
        ],
    )
    def test_shapes(self, body: object, expected: str) -> None:
        assert error_message(self._resp(400, body)) == expected

    def test_long_bodies_are_cut(self) -> None:
        assert len(error_message(self._resp(500, "x" * 5000))) == 300

    def test_quota_detection(self) -> None:
        assert is_quota_exhausted(self._resp(429, {"error": {"code": "insufficient_quota"}}))
        assert is_quota_exhausted(
            self._resp(429, {"error": {"message": "Quota exceeded for metric: embed_content"}})
        )
        assert not is_quota_exhausted(self._resp(429, {"error": {"message": "Rate limit reached"}}))
        assert not is_quota_exhausted(self._resp(500, {"error": {"code": "insufficient_quota"}}))


def test_client_joins_paths_under_the_base_url() -> None:
    with JsonClient(provider="p", base_url="https://example.test/v1/", headers={}) as client:
        assert client.url("/embeddings") == "https://example.test/v1/embeddings"
        assert (
            client.url("models/m:embedContent") == "https://example.test/v1/models/m:embedContent"
        )
