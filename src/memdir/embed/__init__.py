"""Embedding providers: turn text into L2-normalised float32 vectors for memdir's index.

Pick one with :func:`create_embedder` and :class:`EmbeddingSettings`::

    from memdir.embed import EmbeddingSettings, create_embedder

    embedder = create_embedder(EmbeddingSettings(provider="local"))
    vectors = embedder.embed_documents(["first note", "second note"])  # (2, d) float32
    query = embedder.embed_query("which note?")                        # (d,) float32
    scores = vectors @ query                                           # cosine similarity

Every vector is already L2-normalised, so cosine similarity is a plain dot product.
"""

from memdir.embed.base import (
    BATCH_MAX_BYTES,
    Embedder,
    Vector,
    Vectors,
    batch_by_bytes,
    l2_normalize,
    provider_key,
    truncate_utf8,
    utf8_len,
)
from memdir.embed.breaker import CircuitBreaker, OutOfTime, ProviderFailure, ProviderPaused
from memdir.embed.http import JsonClient, RetryPolicy, retry_delay, time_budget
from memdir.embed.local import PACKAGED_MODELS, LocalEmbedder, create_local_embedder
from memdir.embed.providers import (
    HOSTED_PROVIDERS,
    GeminiEmbedder,
    HostedEmbedder,
    OllamaEmbedder,
    OpenAIEmbedder,
    VoyageEmbedder,
    create_hosted_embedder,
    normalize_model,
)
from memdir.embed.registry import (
    DEFAULT_LOCAL_MODEL,
    PROVIDER_IDS,
    EmbedderSelection,
    EmbeddingSettings,
    create_embedder,
    last_selection_reason,
    select_embedder,
)

__all__ = [
    "BATCH_MAX_BYTES",
    "DEFAULT_LOCAL_MODEL",
    "HOSTED_PROVIDERS",
    "PACKAGED_MODELS",
    "PROVIDER_IDS",
    "CircuitBreaker",
    "Embedder",
    "EmbedderSelection",
    "EmbeddingSettings",
    "GeminiEmbedder",
    "HostedEmbedder",
    "JsonClient",
    "LocalEmbedder",
    "OllamaEmbedder",
    "OpenAIEmbedder",
    "OutOfTime",
    "ProviderFailure",
    "ProviderPaused",
    "RetryPolicy",
    "Vector",
    "Vectors",
    "VoyageEmbedder",
    "batch_by_bytes",
    "create_embedder",
    "create_hosted_embedder",
    "create_local_embedder",
    "l2_normalize",
    "last_selection_reason",
    "normalize_model",
    "provider_key",
    "retry_delay",
    "select_embedder",
    "time_budget",
    "truncate_utf8",
    "utf8_len",
]
