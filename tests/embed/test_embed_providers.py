"""Each hosted provider's wire format, spoken to a real local server."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memdir.embed.base import Embedder, provider_key
from memdir.embed.providers import create_hosted_embedder, max_input_bytes_for, normalize_model
from memdir.errors import ConfigError, EmbeddingError, UsageError

from .fakes import TEST_KEY, FakeServer, Hosted, Reply, Seen, fake_vector, openai_reply


def _body(seen: Seen) -> dict[str, object]:
    assert isinstance(seen.body, dict)
    return seen.body


class TestOpenAI:
    def test_request_shape_and_auth(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        embedder = hosted("openai", path="/v1")
        vectors = embedder.embed_documents(["alpha beta", "gamma"])
        (seen,) = server.requests
        assert seen.path == "/v1/embeddings"
        assert seen.headers["authorization"] == f"Bearer {TEST_KEY}"
        assert _body(seen) == {"model": "text-embedding-3-small", "input": ["alpha beta", "gamma"]}
        # reply listed items in reverse order: rows follow "index", and are L2-normalised
        expected = np.array([fake_vector("alpha beta"), fake_vector("gamma")], dtype=np.float32)
        expected /= np.linalg.norm(expected, axis=1, keepdims=True)
        np.testing.assert_allclose(vectors, expected, rtol=1e-6)
        assert vectors.dtype == np.float32

    def test_batches_follow_spec_case_36(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        embedder = hosted("openai")
        assert embedder.embed_documents(["a" * 4200, "b" * 4200]).shape == (2, 4)
        assert [len(_body(s)["input"]) for s in server.requests] == [1, 1]  # type: ignore[arg-type]
        server.requests.clear()
        assert embedder.embed_documents(["c" * 120] * 4).shape == (4, 4)
        assert [len(_body(s)["input"]) for s in server.requests] == [4]  # type: ignore[arg-type]

    def test_inputs_are_truncated_utf8_safely(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        hosted("openai").embed_documents(["😀" * 3000])
        sent = _body(server.requests[0])["input"]
        assert sent == ["😀" * 2048]  # 8192 bytes: the cap, without splitting an emoji

    def test_lone_surrogates_are_replaced(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        hosted("openai").embed_documents(["bad \udcff byte"])
        assert _body(server.requests[0])["input"] == ["bad \ufffd byte"]

    def test_query_vector_is_unit_length(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply({"data": [{"index": 0, "embedding": [3, 4]}]}))
        vector = hosted("openai").embed_query("q")
        np.testing.assert_allclose(vector, [0.6, 0.8], rtol=1e-6)
        assert vector.shape == (2,)

    def test_dimensions_are_requested(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply({"data": [{"index": 0, "embedding": [0.5] * 256}]}))
        embedder = hosted("openai", model="openai/text-embedding-3-large", dimensions=256)
        embedder.embed_query("q")
        assert _body(server.requests[0]) == {
            "model": "text-embedding-3-large",
            "input": ["q"],
            "dimensions": 256,
        }
        assert embedder.identity()["dims"] == "256"

    @pytest.mark.parametrize(
        ("body", "detail"),
        [
            (
                {"data": [{"index": 0, "embedding": [1, 2, 3]}, {"index": 1, "embedding": [1, 2]}]},
                "dimensions",
            ),
            ({"data": [{"index": 0, "embedding": [1, 2, 3]}]}, "expected 2 embedding"),
            ({"object": "list"}, "missing 'data'"),
            ({"data": [{"index": 0}, {"index": 1, "embedding": [1.0]}]}, r"data\[0\]\.embedding"),
            (
                {"data": [{"index": 0, "embedding": [1, "x"]}, {"index": 1, "embedding": [1, 2]}]},
                "flat list",
            ),
            (
                {"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": [1, 2]}]},
                "non-empty",
            ),
            (
                {"data": [{"index": 0, "embedding": [[1], [2]]}, {"index": 1, "embedding": [1]}]},
                "flat list",
            ),
            ({"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [2]}]}, "indexes"),
            ([1, 2], "missing 'data'"),
        ],
    )
    def test_malformed_embeddings(
        self, server: FakeServer, hosted: Hosted, body: object, detail: str
    ) -> None:
        server.script(Reply(body))
        with pytest.raises(EmbeddingError, match=f"malformed response from openai: .*{detail}"):
            hosted("openai").embed_documents(["a", "b"])

    def test_dimensions_must_agree_across_requests(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.script(
            Reply({"data": [{"index": 0, "embedding": [1, 2, 3]}]}),
            Reply({"data": [{"index": 0, "embedding": [1, 2]}]}),
        )
        with pytest.raises(EmbeddingError, match="2 dimensions, expected 3"):
            hosted("openai").embed_documents(["a" * 5000, "b" * 5000])

    def test_blank_and_empty_inputs(self, server: FakeServer, hosted: Hosted) -> None:
        embedder = hosted("openai")
        with pytest.raises(UsageError, match="blank"):
            embedder.embed_documents(["ok", "  "])
        with pytest.raises(UsageError):
            embedder.embed_query("")
        assert embedder.embed_documents([]).shape == (0, 0)
        assert server.requests == []


class TestOpenAICompatibleAndMistral:
    def test_mistral_defaults(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        embedder = hosted("mistral", path="/v1", model="mistral/mistral-embed")
        embedder.embed_query("bonjour")
        assert server.paths == ["/v1/embeddings"]
        assert _body(server.requests[0])["model"] == "mistral-embed"
        assert embedder.provider == "mistral"

    def test_compatible_needs_base_url_and_model(self) -> None:
        with pytest.raises(ConfigError, match="model is required"):
            create_hosted_embedder("openai-compatible", base_url="http://x.test")
        with pytest.raises(ConfigError, match="base_url is required"):
            create_hosted_embedder("openai-compatible", model="m")

    def test_compatible_without_key_sends_no_authorization(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.handler = openai_reply
        embedder = hosted(
            "openai-compatible", api_key=None, model="openai/bge-m3", headers={"X-Team": "blue"}
        )
        embedder.embed_documents(["x"])
        (seen,) = server.requests
        assert "authorization" not in seen.headers
        assert seen.headers["x-team"] == "blue"
        assert _body(seen)["model"] == "openai/bge-m3"  # custom servers keep their own model names


def _gemini_texts(seen: Seen) -> list[str]:
    requests = _body(seen)["requests"]
    assert isinstance(requests, list)
    return [r["content"]["parts"][0]["text"] for r in requests]


def _gemini_batch(seen: Seen) -> Reply:
    return Reply({"embeddings": [{"values": fake_vector(t)} for t in _gemini_texts(seen)]})


class TestGemini:
    def test_documents_use_batch_endpoint(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = _gemini_batch
        embedder = hosted("gemini", path="/v1beta", model="models/gemini-embedding-001")
        assert embedder.embed_documents(["one", "two"]).shape == (2, 4)
        (seen,) = server.requests
        assert seen.path == "/v1beta/models/gemini-embedding-001:batchEmbedContents"
        assert seen.headers["x-goog-api-key"] == TEST_KEY
        assert "authorization" not in seen.headers
        assert _body(seen) == {
            "requests": [
                {
                    "model": "models/gemini-embedding-001",
                    "content": {"parts": [{"text": t}]},
                    "taskType": "RETRIEVAL_DOCUMENT",
                }
                for t in ("one", "two")
            ]
        }

    def test_query_uses_embed_content(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply({"embedding": {"values": [0.0, 2.0]}}))
        vector = hosted("gemini", path="/v1beta", model="gemini/gemini-embedding-001").embed_query(
            "where?"
        )
        (seen,) = server.requests
        assert seen.path == "/v1beta/models/gemini-embedding-001:embedContent"
        assert _body(seen) == {
            "model": "models/gemini-embedding-001",
            "content": {"parts": [{"text": "where?"}]},
            "taskType": "RETRIEVAL_QUERY",
        }
        np.testing.assert_allclose(vector, [0.0, 1.0])

    def test_item_cap_and_output_dimensionality(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = lambda seen: Reply(
            {"embeddings": [{"values": [1.0] * 768} for _ in _gemini_texts(seen)]}
        )
        embedder = hosted("gemini", model="gemini-embedding-2-preview", dimensions=768)
        assert embedder.embed_documents(["t"] * 150).shape == (150, 768)
        assert [len(_gemini_texts(s)) for s in server.requests] == [100, 50]
        first = _body(server.requests[0])["requests"]
        assert isinstance(first, list)
        assert first[0]["outputDimensionality"] == 768

    def test_gemini_2_dimensions_are_checked(self) -> None:
        with pytest.raises(ConfigError, match="768, 1536, 3072"):
            create_hosted_embedder(
                "gemini", api_key="k", model="gemini-embedding-2-preview", dimensions=100
            )

    def test_missing_values(self, server: FakeServer, hosted: Hosted) -> None:
        server.script(Reply({"embedding": {}}))
        with pytest.raises(
            EmbeddingError, match="malformed response from gemini: missing 'values'"
        ):
            hosted("gemini").embed_query("q")


class TestVoyage:
    def test_input_type(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        embedder = hosted("voyage", path="/v1", model="voyage/voyage-3-lite")
        embedder.embed_documents(["doc"])
        embedder.embed_query("query")
        assert server.paths == ["/v1/embeddings", "/v1/embeddings"]
        assert [_body(s)["input_type"] for s in server.requests] == ["document", "query"]
        assert _body(server.requests[0])["model"] == "voyage-3-lite"
        assert server.requests[0].headers["authorization"] == f"Bearer {TEST_KEY}"
        assert embedder.max_input_bytes == 16000

    def test_item_cap(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = openai_reply
        hosted("voyage").embed_documents(["w"] * 200)
        assert [len(_body(s)["input"]) for s in server.requests] == [128, 72]  # type: ignore[arg-type]


def _ollama_batch(seen: Seen) -> Reply:
    if seen.path != "/api/embed":
        return Reply(b"404 page not found", status=404)
    return Reply({"model": "m", "embeddings": [fake_vector(t) for t in _body(seen)["input"]]})  # type: ignore[attr-defined]


def _ollama_legacy_only(seen: Seen) -> Reply:
    if seen.path != "/api/embeddings":
        return Reply(b"404 page not found", status=404)
    return Reply({"embedding": fake_vector(str(_body(seen)["prompt"]))})


class TestOllama:
    def test_batch_endpoint_with_nomic_prefixes(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = _ollama_batch
        embedder = hosted("ollama", api_key=None, model="ollama/nomic-embed-text")
        embedder.embed_documents(["a", "b"])
        embedder.embed_query("c")
        assert server.paths == ["/api/embed", "/api/embed"]
        assert _body(server.requests[0]) == {
            "model": "nomic-embed-text",
            "input": ["search_document: a", "search_document: b"],
        }
        assert _body(server.requests[1])["input"] == ["search_query: c"]
        assert "authorization" not in server.requests[0].headers
        assert embedder.identity()["query_prefix"] == "search_query: "

    def test_legacy_fallback_is_remembered(self, server: FakeServer, hosted: Hosted) -> None:
        server.handler = _ollama_legacy_only
        embedder = hosted("ollama", api_key=None, model="all-minilm")
        vectors = embedder.embed_documents(["x", "yy"])
        assert server.paths == ["/api/embed", "/api/embeddings", "/api/embeddings"]
        assert [_body(s).get("prompt") for s in server.requests[1:]] == ["x", "yy"]
        expected = np.array([fake_vector("x"), fake_vector("yy")], dtype=np.float32)
        np.testing.assert_allclose(
            vectors, expected / np.linalg.norm(expected, axis=1, keepdims=True), rtol=1e-6
        )
        embedder.embed_query("z")
        assert server.paths[-1] == "/api/embeddings"
        assert len(server.requests) == 4

    def test_missing_model_is_not_mistaken_for_an_old_server(
        self, server: FakeServer, hosted: Hosted
    ) -> None:
        server.handler = lambda seen: Reply(
            {"error": 'model "nope" not found, try pulling it first'}, status=404
        )
        with pytest.raises(EmbeddingError, match="ollama has no model 'nope'") as info:
            hosted("ollama", api_key=None, model="nope").embed_query("q")
        assert info.value.hint == "run `ollama pull nope`"
        assert server.paths == ["/api/embed"]


class TestIdentity:
    def test_secrets_never_in_identity_or_repr(self, hosted: Hosted, server: FakeServer) -> None:
        headers = {
            "Authorization": "Bearer other-secret",
            "X-Api-Key": "k-secret",
            "X-Team": "blue",
        }
        embedder = hosted("openai", headers=headers)
        ident = embedder.identity()
        dumped = json.dumps(ident) + repr(embedder)
        for secret in (TEST_KEY, "other-secret", "k-secret"):
            assert secret not in dumped
        assert json.loads(ident["headers"]) == {"x-team": "blue"}
        assert ident["provider"] == "openai"
        assert ident["base_url"] == server.url
        assert isinstance(embedder, Embedder)

    def test_key_changes_only_with_what_changes_vectors(self, hosted: Hosted) -> None:
        a = hosted("openai")
        b = hosted("openai", api_key="sk-another")
        c = hosted("openai", model="text-embedding-3-large")
        d = hosted("gemini", dimensions=768)
        e = hosted("gemini", dimensions=1536)
        assert provider_key(a) == provider_key(b)
        assert len({provider_key(x) for x in (a, c, d, e)}) == 4


@pytest.mark.parametrize(
    ("provider", "model", "expected"),
    [
        ("openai", "openai/text-embedding-3-large", "text-embedding-3-large"),
        ("openai", "", "text-embedding-3-small"),
        ("openai", "  ", "text-embedding-3-small"),
        ("gemini", "models/gemini-embedding-001", "gemini-embedding-001"),
        ("gemini", "gemini/text-embedding-004", "text-embedding-004"),
        ("gemini", "google/models/gemini-embedding-001", "gemini-embedding-001"),
        ("gemini", "", "gemini-embedding-001"),
        ("voyage", "voyage/voyage-3", "voyage-3"),
        ("voyage", "", "voyage-4-large"),
        ("mistral", "mistral/mistral-embed", "mistral-embed"),
        ("mistral", "", "mistral-embed"),
        ("ollama", "ollama/nomic-embed-text", "nomic-embed-text"),
        ("ollama", "", "nomic-embed-text"),
        ("openai-compatible", "openai/x", "openai/x"),
    ],
)
def test_model_normalisation(provider: str, model: str, expected: str) -> None:
    assert normalize_model(provider, model) == expected


@pytest.mark.parametrize(
    ("provider", "model", "limit"),
    [
        ("openai", "text-embedding-3-small", 8192),
        ("openai", "text-embedding-ada-002", 8191),
        ("gemini", "gemini-embedding-001", 2048),
        ("gemini", "some-future-model", 2048),
        ("voyage", "voyage-3", 32000),
        ("mistral", "mistral-embed", 8192),
    ],
)
def test_max_input_bytes(provider: str, model: str, limit: int) -> None:
    assert max_input_bytes_for(provider, model) == limit


def test_unknown_provider_and_unsupported_dimensions() -> None:
    with pytest.raises(ConfigError, match="unknown hosted embedding provider"):
        create_hosted_embedder("cohere")
    with pytest.raises(ConfigError, match="cannot be set for provider mistral"):
        create_hosted_embedder("mistral", api_key="k", dimensions=256)
