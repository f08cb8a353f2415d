"""Packaged offline models, run for real, and the optional on-disk model loaders."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from memdir.embed.base import Embedder, provider_key, truncate_utf8
from memdir.embed.local import (
    PACKAGED_MODELS,
    LocalEmbedder,
    create_local_embedder,
    local_model_available,
)
from memdir.errors import ConfigError, ProviderUnavailable, UsageError

EN = "The cat is sleeping on the warm windowsill."
ZH = "猫正在温暖的窗台上睡觉。"
UNRELATED = "Quarterly revenue fell because of higher interest rates."


@pytest.fixture(scope="module", params=sorted(PACKAGED_MODELS))
def packaged(request: pytest.FixtureRequest) -> LocalEmbedder:
    """Each packaged model, loaded once for the module."""
    return create_local_embedder(request.param)


class TestPackagedModels:
    def test_cross_lingual_pair_beats_unrelated(self, packaged: LocalEmbedder) -> None:
        en, zh, other = packaged.embed_documents([EN, ZH, UNRELATED])
        assert float(en @ zh) > float(en @ other) + 0.1
        assert float(en @ zh) > float(zh @ other) + 0.1

    def test_query_finds_its_passage_across_languages(self, packaged: LocalEmbedder) -> None:
        docs = packaged.embed_documents([UNRELATED, ZH, "Le train part à huit heures."])
        scores = docs @ packaged.embed_query("Where is the cat sleeping?")
        assert int(np.argmax(scores)) == 1

    def test_shapes_dtype_and_unit_norm(self, packaged: LocalEmbedder) -> None:
        dims = PACKAGED_MODELS[packaged.model].dims
        docs = packaged.embed_documents(["one", "two", "three"])
        query = packaged.embed_query("one")
        assert docs.shape == (3, dims)
        assert query.shape == (dims,)
        assert docs.dtype == query.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
        assert packaged.embed_documents([]).shape == (0, dims)

    def test_long_input_is_truncated_not_rejected(
        self, packaged: LocalEmbedder, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        assert packaged.max_input_bytes == 2048
        long = "记忆 memory 😀 " * 2000
        # a smaller cap keeps the test fast; 301 falls inside an emoji on purpose
        monkeypatch.setattr(packaged, "max_input_bytes", 301)
        vectors = packaged.embed_documents([long, truncate_utf8(long, 301)])
        assert np.isfinite(vectors).all()
        np.testing.assert_allclose(vectors[0], vectors[1], atol=1e-6)

    def test_thread_safe(self, packaged: LocalEmbedder) -> None:
        texts = [f"note number {i} about topic {i % 3}" for i in range(12)]
        expected = packaged.embed_documents(texts)
        results: dict[int, np.ndarray] = {}

        def work(i: int) -> None:
            results[i] = packaged.embed_documents(texts)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for got in results.values():
            np.testing.assert_allclose(got, expected, atol=1e-5)

    def test_identity(self, packaged: LocalEmbedder) -> None:
        ident = packaged.identity()
        assert ident["provider"] == "local"
        assert ident["model"] == packaged.model
        assert ident["dims"] == str(PACKAGED_MODELS[packaged.model].dims)
        assert ident["version"]
        assert isinstance(packaged, Embedder)
        assert len(provider_key(packaged)) == 64

    def test_lone_surrogate_is_tolerated(self, packaged: LocalEmbedder) -> None:
        vector = packaged.embed_documents(["caf\udce9 au lait"])[0]
        assert np.isfinite(vector).all()

    def test_blank_text_is_refused(self, packaged: LocalEmbedder) -> None:
        with pytest.raises(UsageError):
            packaged.embed_documents(["ok", ""])


def test_e5_uses_distinct_query_and_passage_prefixes() -> None:
    e5 = create_local_embedder("e5-small")
    query = e5.embed_query("how much protein per day")
    passage = e5.embed_documents(["how much protein per day"])[0]
    assert 0.8 < float(query @ passage) < 0.9999


def test_loading_is_lazy() -> None:
    embedder = create_local_embedder("e5-small")
    assert not embedder.loaded
    embedder.embed_query("hello")
    assert embedder.loaded


@pytest.mark.parametrize(
    ("model", "module"), [(m.name, m.module) for m in PACKAGED_MODELS.values()]
)
def test_missing_package_is_provider_unavailable(
    monkeypatch: pytest.MonkeyPatch, model: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes the package look uninstalled
    assert not local_model_available(model)
    with pytest.raises(ProviderUnavailable, match=module) as info:
        create_local_embedder(model)
    assert info.value.hint == "pip install 'memdir[local]'"


def test_unknown_model() -> None:
    with pytest.raises(ConfigError, match="unknown local embedding model 'minilm'") as info:
        create_local_embedder("minilm")
    assert info.value.hint is not None
    assert "e5-small" in info.value.hint


@pytest.mark.parametrize(
    "spec",
    [
        "sentence-transformers:",
        "sentence-transformers:/no/such/dir",
        "fastembed:BAAI/x@/no/such/dir",
    ],
)
def test_on_disk_models_need_an_existing_directory(spec: str) -> None:
    with pytest.raises(ConfigError, match="not a directory"):
        create_local_embedder(spec)


@pytest.mark.parametrize(
    ("prefix", "module"),
    [
        ("sentence-transformers:", "sentence_transformers"),
        ("fastembed:BAAI/bge-small-en-v1.5@", "fastembed"),
    ],
)
def test_on_disk_models_need_their_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefix: str, module: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ProviderUnavailable, match=module) as info:
        create_local_embedder(f"{prefix}{tmp_path}")
    assert info.value.hint == f"pip install {module.replace('_', '-')}"
