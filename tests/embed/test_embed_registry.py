"""Choosing an embedder from settings and the environment."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from memdir.embed import registry
from memdir.embed.base import Embedder
from memdir.embed.local import LocalEmbedder
from memdir.embed.providers import HostedEmbedder
from memdir.embed.registry import (
    DEFAULT_LOCAL_MODEL,
    EmbeddingSettings,
    create_embedder,
    last_selection_reason,
    select_embedder,
)
from memdir.errors import ConfigError, EmbeddingError, ProviderUnavailable

from .fakes import FakeServer, Reply, openai_reply

Build = Callable[[EmbeddingSettings, dict[str, str]], HostedEmbedder]


@pytest.fixture
def build() -> Iterator[Build]:
    """``create_embedder`` for hosted settings; closes what it built afterwards."""
    made: list[HostedEmbedder] = []

    def _build(settings: EmbeddingSettings, env: dict[str, str]) -> HostedEmbedder:
        embedder = create_embedder(settings, env)
        assert isinstance(embedder, HostedEmbedder)
        made.append(embedder)
        return embedder

    yield _build
    for embedder in made:
        embedder.close()


def test_none_means_keyword_only() -> None:
    assert create_embedder(EmbeddingSettings(provider="none"), {}) is None
    assert "keyword search only" in last_selection_reason()


def test_local_defaults_to_the_packaged_model_without_loading_it() -> None:
    embedder = create_embedder(EmbeddingSettings(), {})
    assert isinstance(embedder, LocalEmbedder)
    assert isinstance(embedder, Embedder)
    assert embedder.model == DEFAULT_LOCAL_MODEL
    assert not embedder.loaded


def test_explicit_local_model() -> None:
    embedder = create_embedder(EmbeddingSettings(provider="local", model="e5-small"), {})
    assert embedder is not None
    assert embedder.model == "e5-small"


def test_explicit_hosted_provider_without_key_fails_loudly() -> None:
    with pytest.raises(ProviderUnavailable, match="No API key found for provider openai") as info:
        create_embedder(EmbeddingSettings(provider="openai"), {})
    assert info.value.hint is not None
    assert "OPENAI_API_KEY" in info.value.hint


def test_gemini_names_both_variables() -> None:
    with pytest.raises(ProviderUnavailable) as info:
        create_embedder(EmbeddingSettings(provider="gemini"), {})
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in str(info.value)


@pytest.mark.parametrize(
    ("provider", "api_key", "api_key_env", "env", "header"),
    [
        ("openai", "sk-direct", None, {"OPENAI_API_KEY": "sk-env"}, "Bearer sk-direct"),
        ("openai", None, None, {"OPENAI_API_KEY": " sk-env "}, "Bearer sk-env"),
        ("voyage", None, "MY_KEY", {"MY_KEY": "pa-1", "VOYAGE_API_KEY": "x"}, "Bearer pa-1"),
        ("mistral", None, None, {"MISTRAL_API_KEY": "m-1"}, "Bearer m-1"),
    ],
)
def test_key_resolution(
    server: FakeServer,
    build: Build,
    provider: str,
    api_key: str | None,
    api_key_env: str | None,
    env: dict[str, str],
    header: str,
) -> None:
    server.handler = openai_reply
    settings = EmbeddingSettings(
        provider=provider, api_key=api_key, api_key_env=api_key_env, base_url=server.url
    )
    build(settings, env).embed_query("q")
    assert server.requests[0].headers["authorization"] == header


def test_gemini_falls_back_to_google_api_key(server: FakeServer, build: Build) -> None:
    server.script(Reply({"embedding": {"values": [1.0]}}))
    build(
        EmbeddingSettings(provider="gemini", base_url=server.url), {"GOOGLE_API_KEY": "g-1"}
    ).embed_query("q")
    assert server.requests[0].headers["x-goog-api-key"] == "g-1"


def test_settings_reach_the_provider(server: FakeServer, build: Build) -> None:
    server.handler = lambda seen: Reply({}, status=500)
    settings = EmbeddingSettings(
        provider="openai-compatible",
        model="bge-m3",
        base_url=f" {server.url}/v1/ ",
        headers={"X-Team": "blue"},
        max_retries=0,
    )
    embedder = build(settings, {})
    assert (embedder.base_url, embedder.model) == (f"{server.url}/v1", "bge-m3")
    with pytest.raises(EmbeddingError, match="after 1 attempts"):
        embedder.embed_documents(["x"])
    (seen,) = server.requests
    assert seen.path == "/v1/embeddings"
    assert seen.headers["x-team"] == "blue"
    assert "authorization" not in seen.headers


def test_timeouts_reach_the_provider(server: FakeServer, build: Build) -> None:
    server.handler = lambda seen: Reply({}, delay_s=0.5)
    settings = EmbeddingSettings(
        provider="ollama", base_url=server.url, timeout_s=0.1, batch_timeout_s=0.15, max_retries=0
    )
    with pytest.raises(EmbeddingError, match=r"timed out after 0\.1s"):
        build(settings, {}).embed_query("q")
    with pytest.raises(EmbeddingError, match=r"timed out after 0\.15s"):
        build(settings, {}).embed_documents(["d"])


def test_batch_timeout_defaults_to_the_configured_timeout(server: FakeServer, build: Build) -> None:
    # Issue #9: with timeout_s=5 a batch request still waited a hard-coded 120 s.
    server.handler = lambda seen: Reply({}, delay_s=0.5)
    settings = EmbeddingSettings(provider="ollama", base_url=server.url, timeout_s=0.1)
    assert settings.batch_timeout_s == 0.1
    with pytest.raises(EmbeddingError, match=r"timed out after 0\.1s"):
        build(settings, {}).embed_documents(["d"])


def test_ollama_needs_no_key(build: Build) -> None:
    embedder = build(EmbeddingSettings(provider="ollama"), {})
    assert embedder.base_url == "http://127.0.0.1:11434"
    assert embedder.model == "nomic-embed-text"


class TestAuto:
    @pytest.mark.parametrize(
        ("env", "provider"),
        [
            ({"OPENAI_API_KEY": "a", "GEMINI_API_KEY": "b", "MISTRAL_API_KEY": "c"}, "openai"),
            ({"GOOGLE_API_KEY": "b", "VOYAGE_API_KEY": "c"}, "gemini"),
            ({"VOYAGE_API_KEY": "c", "MISTRAL_API_KEY": "d"}, "voyage"),
            ({"MISTRAL_API_KEY": "d", "OPENAI_API_KEY": " "}, "mistral"),
        ],
    )
    def test_first_hosted_provider_with_a_key(self, env: dict[str, str], provider: str) -> None:
        selection = select_embedder(EmbeddingSettings(provider="auto"), env)
        assert isinstance(selection.embedder, HostedEmbedder)
        selection.embedder.close()
        assert selection.embedder.provider == provider
        assert f"auto: {provider} key found" in selection.reason

    def test_local_when_no_key(self) -> None:
        embedder = create_embedder(EmbeddingSettings(provider="auto"), {})
        assert isinstance(embedder, LocalEmbedder)
        reason = last_selection_reason()
        assert reason.startswith("auto: no hosted key")
        assert "openai: no OPENAI_API_KEY" in reason
        assert f"using local {DEFAULT_LOCAL_MODEL}" in reason

    def test_none_when_no_key_and_no_local_package(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(registry, "DEFAULT_LOCAL_MODEL", "not-a-packaged-model")
        assert create_embedder(EmbeddingSettings(provider="auto"), {}) is None
        assert "keyword search only" in last_selection_reason()

    @pytest.mark.parametrize(
        "kwargs",
        [
            {"model": "text-embedding-3-small"},
            {"api_key": "k"},
            {"base_url": "http://x"},
            {"dimensions": 8},
        ],
    )
    def test_provider_specific_settings_are_refused(self, kwargs: dict[str, object]) -> None:
        with pytest.raises(ConfigError, match="explicit provider"):
            EmbeddingSettings(provider="auto", **kwargs)  # type: ignore[arg-type]


def test_fallback_when_the_configured_provider_is_unavailable() -> None:
    settings = EmbeddingSettings(
        provider="openai", model="text-embedding-3-large", fallback="local"
    )
    selection = select_embedder(settings, {})
    assert isinstance(selection.embedder, LocalEmbedder)
    assert selection.embedder.model == DEFAULT_LOCAL_MODEL  # the fallback's own default
    assert "openai unavailable (No API key found for provider openai)" in selection.reason


def test_no_fallback_to_itself() -> None:
    with pytest.raises(ProviderUnavailable):
        select_embedder(EmbeddingSettings(provider="openai", fallback="openai"), {})


class TestSettings:
    @pytest.mark.parametrize(
        ("kwargs", "message"),
        [
            ({"provider": "cohere"}, "provider 'cohere' is unknown"),
            ({"fallback": "nope"}, "fallback 'nope' is unknown"),
            ({"fallback": "auto"}, "fallback cannot be 'auto'"),
            ({"timeout_s": 0}, "timeout_s must be > 0"),
            ({"batch_timeout_s": -1}, "batch_timeout_s must be > 0"),
            ({"max_retries": 11}, "max_retries must be 0..10"),
        ],
    )
    def test_validation(self, kwargs: dict[str, object], message: str) -> None:
        with pytest.raises(ConfigError, match=message):
            EmbeddingSettings(**kwargs)  # type: ignore[arg-type]

    def test_secrets_are_not_in_repr_and_headers_are_frozen(self) -> None:
        headers = {"Authorization": "Bearer hidden"}
        settings = EmbeddingSettings(provider="openai", api_key="sk-hidden", headers=headers)
        assert "hidden" not in repr(settings)
        headers["X-Late"] = "1"
        assert "X-Late" not in settings.headers
        with pytest.raises(TypeError):
            settings.headers["X"] = "y"  # type: ignore[index]

    def test_settings_are_hashable_values(self) -> None:
        a = EmbeddingSettings(provider="openai", headers={"X-Team": "blue"})
        b = EmbeddingSettings(provider="openai", headers={"X-Team": "blue"})
        assert a == b
        assert hash(a) == hash(b)
        assert a != EmbeddingSettings(provider="openai", headers={"X-Team": "red"})

    def test_local_rejects_dimensions(self) -> None:
        with pytest.raises(ConfigError, match="local"):
            create_embedder(EmbeddingSettings(provider="local", dimensions=64), {})
