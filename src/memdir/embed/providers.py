"""Hosted embedding providers: OpenAI, OpenAI-compatible, Gemini, Voyage, Mistral and Ollama.

Each provider speaks its own wire format through :class:`~memdir.embed.http.JsonClient` and
shares the rest through :class:`HostedEmbedder`: prefixing, UTF-8 safe truncation to
``max_input_bytes``, request batching (≤ 8000 UTF-8 bytes and ≤ the provider's item cap per
request), response validation and L2 normalisation. Keys are passed in explicitly; reading them
from the environment is :mod:`memdir.embed.registry`'s job.
"""

from __future__ import annotations

import json
import logging
import random
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import httpx
import numpy as np

from memdir.embed.base import (
    BATCH_MAX_BYTES,
    Vector,
    Vectors,
    batch_by_bytes,
    check_not_blank,
    l2_normalize,
    public_headers,
    to_valid_utf8,
    truncate_utf8,
)
from memdir.embed.breaker import CircuitBreaker, ProviderFailure
from memdir.embed.http import JsonClient, RetryPolicy
from memdir.errors import ConfigError, EmbeddingError

__all__ = [
    "HOSTED_PROVIDERS",
    "GeminiEmbedder",
    "HostedEmbedder",
    "OllamaEmbedder",
    "OpenAIEmbedder",
    "ProviderSpec",
    "VoyageEmbedder",
    "create_hosted_embedder",
    "max_input_bytes_for",
    "normalize_model",
]

logger = logging.getLogger(__name__)

Rows = list[list[float]]


@dataclass(frozen=True, slots=True)
class ProviderSpec:
    """Static facts about one hosted provider."""

    id: str
    default_model: str
    default_base_url: str
    key_env: tuple[str, ...]
    model_prefixes: tuple[str, ...]
    max_items: int
    needs_key: bool = True


HOSTED_PROVIDERS: Mapping[str, ProviderSpec] = {
    spec.id: spec
    for spec in (
        ProviderSpec(
            "openai",
            "text-embedding-3-small",
            "https://api.openai.com/v1",
            ("OPENAI_API_KEY",),
            ("openai/",),
            2048,
        ),
        ProviderSpec("openai-compatible", "", "", (), (), 2048, needs_key=False),
        ProviderSpec(
            "gemini",
            "gemini-embedding-001",
            "https://generativelanguage.googleapis.com/v1beta",
            ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
            ("models/", "gemini/", "google/"),
            100,
        ),
        ProviderSpec(
            "voyage",
            "voyage-4-large",
            "https://api.voyageai.com/v1",
            ("VOYAGE_API_KEY",),
            ("voyage/",),
            128,
        ),
        ProviderSpec(
            "mistral",
            "mistral-embed",
            "https://api.mistral.ai/v1",
            ("MISTRAL_API_KEY",),
            ("mistral/",),
            512,
        ),
        ProviderSpec(
            "ollama",
            "nomic-embed-text",
            "http://127.0.0.1:11434",
            (),
            ("ollama/",),
            2048,
            needs_key=False,
        ),
    )
}
"""Hosted providers by id, in the order ``auto`` mode tries those with a key."""

# Declared input limits in tokens (spec §2.4), used as a UTF-8 byte cap: a token is at least
# one byte, so staying under N bytes keeps every input under N tokens.
_MAX_INPUT: Mapping[tuple[str, str], int] = {
    ("openai", "text-embedding-3-small"): 8192,
    ("openai", "text-embedding-3-large"): 8192,
    ("openai", "text-embedding-ada-002"): 8191,
    ("gemini", "text-embedding-004"): 2048,
    ("gemini", "gemini-embedding-001"): 2048,
    ("gemini", "gemini-embedding-2-preview"): 8192,
    ("voyage", "voyage-3"): 32000,
    ("voyage", "voyage-3-lite"): 16000,
    ("voyage", "voyage-code-3"): 32000,
}
_DEFAULT_MAX_INPUT = {"gemini": 2048}
_GEMINI_2_DIMS = (768, 1536, 3072)
# Task prefixes some Ollama models are trained with (query, document).
_OLLAMA_PREFIXES: Mapping[str, tuple[str, str]] = {
    "nomic-embed-text": ("search_query: ", "search_document: "),
}


def normalize_model(provider: str, model: str) -> str:
    """Strip the provider's leading prefixes (``openai/``, ``models/`` …); blank → default."""
    spec = HOSTED_PROVIDERS.get(provider)
    name = model.strip()
    if spec is None:
        return name
    stripped = True
    while stripped:
        stripped = False
        for prefix in spec.model_prefixes:
            if name.startswith(prefix):
                name = name[len(prefix) :].strip()
                stripped = True
    return name or spec.default_model


def _public_url(url: str) -> str:
    """``url`` without credentials, query or fragment (where a key could hide)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def max_input_bytes_for(provider: str, model: str) -> int:
    """The per-input UTF-8 byte cap for ``model``: its declared limit, else 2048 for Gemini,
    else 8192 (spec §2.4)."""
    return _MAX_INPUT.get((provider, model), _DEFAULT_MAX_INPUT.get(provider, 8192))


class HostedEmbedder:
    """Shared machinery of the hosted providers; subclasses implement the wire format.

    Subclasses override :meth:`_embed_texts` (and :meth:`_embed_one_query` when queries use
    another endpoint). Use as a context manager, or call :meth:`close`, to free connections.
    Every call goes through the instance's :attr:`breaker` (see :mod:`memdir.embed.breaker`).
    """

    provider: str
    model: str
    max_input_bytes: int
    query_prefix: str = ""
    document_prefix: str = ""

    def __init__(
        self,
        spec: ProviderSpec,
        *,
        model: str = "",
        base_url: str | None = None,
        auth_headers: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
        dimensions: int | None = None,
        timeout_s: float = 60.0,
        batch_timeout_s: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rand: Callable[[], float] = random.random,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.provider = spec.id
        self.model = normalize_model(spec.id, model)
        if not self.model:
            raise ConfigError(f"embedding model is required for provider {spec.id}")
        url = (base_url or spec.default_base_url).strip().rstrip("/")
        if not url:
            raise ConfigError(f"embedding base_url is required for provider {spec.id}")
        self.base_url = url
        self.max_input_bytes = max_input_bytes_for(spec.id, self.model)
        self.max_items = spec.max_items
        self.dimensions = dimensions
        self._extra_headers = dict(headers or {})
        self._dims = dimensions
        self.query_prefix, self.document_prefix = self._task_prefixes()
        self.breaker = CircuitBreaker(spec.id, key=f"{spec.id} {self.model} {_public_url(url)}")
        """Pauses calls to this provider for a while after it failed."""
        self._http = JsonClient(
            provider=spec.id,
            base_url=url,
            headers={**(auth_headers or {}), **self._extra_headers},
            timeout_s=timeout_s,
            batch_timeout_s=batch_timeout_s,
            retry=retry,
            sleep=sleep,
            rand=rand,
            transport=transport,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(provider={self.provider!r}, model={self.model!r})"

    def __enter__(self) -> HostedEmbedder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()

    def identity(self) -> dict[str, str]:
        """Provider, model, base URL, non-secret headers, dims and prefixes; no secrets."""
        ident = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "headers": json.dumps(public_headers(self._extra_headers), sort_keys=True),
            "dims": "" if self.dimensions is None else str(self.dimensions),
        }
        if self.query_prefix or self.document_prefix:
            ident["query_prefix"] = self.query_prefix
            ident["document_prefix"] = self.document_prefix
        return ident

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts`` in as few requests as the byte and item caps allow."""
        check_not_blank(texts)
        prepared = [self._prepare(self.document_prefix, t) for t in texts]
        if not prepared:
            return np.zeros((0, self._dims or 0), dtype=np.float32)
        rows: Rows = []
        for group in batch_by_bytes(prepared, BATCH_MAX_BYTES, self.max_items):
            batch = [prepared[i] for i in group]
            with self.breaker.guard():
                got = self._embed_texts(batch)
                self._check_rows(got, len(batch))
            rows.extend(got)
        return self._to_array(rows)

    def embed_query(self, text: str) -> Vector:
        """Embed one search query; at most ``timeout_s`` in all, retries included."""
        check_not_blank([text])
        with self.breaker.guard():
            row = self._embed_one_query(self._prepare(self.query_prefix, text))
            self._check_rows([row], 1)
        vector: Vector = self._to_array([row])[0]
        return vector

    def _task_prefixes(self) -> tuple[str, str]:
        """The (query, document) prefixes the model was trained with; none by default."""
        return "", ""

    def _prepare(self, prefix: str, text: str) -> str:
        return to_valid_utf8(truncate_utf8(prefix + text, self.max_input_bytes))

    def _embed_texts(self, texts: list[str]) -> Rows:
        """Embed one request's worth of documents."""
        raise NotImplementedError

    def _embed_one_query(self, text: str) -> list[float]:
        """Embed one query; by default the document request with one text."""
        return self._embed_texts([text])[0]

    def _malformed(self, detail: str) -> ProviderFailure:
        return ProviderFailure(f"malformed response from {self.provider}: {detail}")

    def _check_rows(self, rows: Rows, expected: int) -> None:
        if len(rows) != expected:
            raise self._malformed(f"expected {expected} embedding(s), got {len(rows)}")
        for row in rows:
            if self._dims is None:
                self._dims = len(row)
            elif len(row) != self._dims:
                raise self._malformed(f"embedding has {len(row)} dimensions, expected {self._dims}")

    def _to_array(self, rows: Rows) -> Vectors:
        return l2_normalize(np.asarray(rows, dtype=np.float32))

    def _vector(self, value: object, where: str) -> list[float]:
        """Validate one embedding: a non-empty JSON list of numbers."""
        if not isinstance(value, list) or not value:
            raise self._malformed(f"{where} is not a non-empty list of numbers")
        try:
            arr = np.asarray(value)
        except ValueError as exc:
            raise self._malformed(f"{where} is not a flat list of numbers") from exc
        if arr.ndim != 1 or arr.dtype.kind not in "iuf":
            raise self._malformed(f"{where} is not a flat list of numbers")
        return value

    def _field(self, body: object, key: str) -> object:
        if not isinstance(body, dict) or key not in body:
            raise self._malformed(f"missing {key!r}")
        return body[key]

    def _data_rows(self, body: object) -> Rows:
        """OpenAI-style ``{"data": [{"embedding": [...], "index": i}, …]}`` in index order."""
        data = self._field(body, "data")
        if not isinstance(data, list):
            raise self._malformed("'data' is not a list")
        items = [item if isinstance(item, dict) else {} for item in data]
        if all(isinstance(item.get("index"), int) for item in items):
            items.sort(key=lambda item: int(item["index"]))
            if [item["index"] for item in items] != list(range(len(items))):
                raise self._malformed("'data' indexes are not 0..n-1")
        return [
            self._vector(item.get("embedding"), f"data[{i}].embedding")
            for i, item in enumerate(items)
        ]


class OpenAIEmbedder(HostedEmbedder):
    """``POST {base}/embeddings {model, input[]}``: OpenAI, Mistral and compatible servers."""

    def _embed_texts(self, texts: list[str]) -> Rows:
        return self._post(texts, batch=True)

    def _embed_one_query(self, text: str) -> list[float]:
        return self._post([text], batch=False)[0]

    def _post(self, texts: list[str], *, batch: bool) -> Rows:
        payload: dict[str, object] = {"model": self.model, "input": texts}
        if self.dimensions is not None:
            payload["dimensions"] = self.dimensions
        return self._data_rows(self._http.post_json("embeddings", payload, batch=batch))


class VoyageEmbedder(HostedEmbedder):
    """``POST {base}/embeddings {model, input[], input_type}`` with ``document`` or ``query``."""

    def _embed_texts(self, texts: list[str]) -> Rows:
        return self._post(texts, "document")

    def _embed_one_query(self, text: str) -> list[float]:
        return self._post([text], "query")[0]

    def _post(self, texts: list[str], input_type: str) -> Rows:
        payload: dict[str, object] = {"model": self.model, "input": texts, "input_type": input_type}
        if self.dimensions is not None:
            payload["output_dimension"] = self.dimensions
        body = self._http.post_json("embeddings", payload, batch=input_type == "document")
        return self._data_rows(body)


class GeminiEmbedder(HostedEmbedder):
    """``models/{model}:batchEmbedContents`` (RETRIEVAL_DOCUMENT) for documents and
    ``models/{model}:embedContent`` (RETRIEVAL_QUERY) for queries."""

    def _request(self, text: str, task: str) -> dict[str, object]:
        request: dict[str, object] = {
            "model": f"models/{self.model}",
            "content": {"parts": [{"text": text}]},
            "taskType": task,
        }
        if self.dimensions is not None:
            request["outputDimensionality"] = self.dimensions
        return request

    def _embed_texts(self, texts: list[str]) -> Rows:
        payload = {"requests": [self._request(t, "RETRIEVAL_DOCUMENT") for t in texts]}
        body = self._http.post_json(f"models/{self.model}:batchEmbedContents", payload, batch=True)
        items = self._field(body, "embeddings")
        if not isinstance(items, list):
            raise self._malformed("'embeddings' is not a list")
        return [
            self._vector(self._field(item, "values"), f"embeddings[{i}].values")
            for i, item in enumerate(items)
        ]

    def _embed_one_query(self, text: str) -> list[float]:
        payload = self._request(text, "RETRIEVAL_QUERY")
        body = self._http.post_json(f"models/{self.model}:embedContent", payload, batch=False)
        embedding = self._field(body, "embedding")
        return self._vector(self._field(embedding, "values"), "embedding.values")


class OllamaEmbedder(HostedEmbedder):
    """``POST /api/embed {model, input[]}``; falls back to the legacy one-text-per-request
    ``POST /api/embeddings {model, prompt}`` when the server has no ``/api/embed`` (HTTP 404).

    ``nomic-embed-text`` gets its ``search_query:`` / ``search_document:`` task prefixes.
    """

    _legacy = False  # set once the server answered 404 for /api/embed

    def _task_prefixes(self) -> tuple[str, str]:
        return _OLLAMA_PREFIXES.get(self.model.split(":", 1)[0], ("", ""))

    def _embed_texts(self, texts: list[str]) -> Rows:
        return self._post(texts, batch=True)

    def _embed_one_query(self, text: str) -> list[float]:
        return self._post([text], batch=False)[0]

    def _post(self, texts: list[str], *, batch: bool) -> Rows:
        if not self._legacy:
            payload = {"model": self.model, "input": texts}
            response = self._http.send("api/embed", payload, batch=batch)
            if response.status_code == 404 and not self._model_missing(response):
                logger.info("ollama at %s has no /api/embed; using /api/embeddings", self.base_url)
                self._legacy = True
            else:
                self._raise_for_status(response)
                items = self._field(self._http.decode(response), "embeddings")
                if not isinstance(items, list):
                    raise self._malformed("'embeddings' is not a list")
                return [self._vector(v, f"embeddings[{i}]") for i, v in enumerate(items)]
        return [self._embed_legacy(text, batch=batch) for text in texts]

    def _embed_legacy(self, text: str, *, batch: bool) -> list[float]:
        payload = {"model": self.model, "prompt": text}
        response = self._http.send("api/embeddings", payload, batch=batch)
        self._raise_for_status(response)
        return self._vector(self._field(self._http.decode(response), "embedding"), "embedding")

    def _model_missing(self, response: httpx.Response) -> bool:
        text = response.text.lower()
        return "model" in text and "not found" in text

    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.status_code == 404 and self._model_missing(response):
            raise EmbeddingError(
                f"ollama has no model {self.model!r} at {self.base_url}",
                hint=f"run `ollama pull {self.model}`",
            )
        self._http.raise_for_status(response)


_CLASSES: Mapping[str, type[HostedEmbedder]] = {
    "openai": OpenAIEmbedder,
    "openai-compatible": OpenAIEmbedder,
    "mistral": OpenAIEmbedder,
    "voyage": VoyageEmbedder,
    "gemini": GeminiEmbedder,
    "ollama": OllamaEmbedder,
}
_DIMENSION_PROVIDERS = ("openai", "openai-compatible", "gemini", "voyage")


def create_hosted_embedder(
    provider: str,
    *,
    model: str = "",
    api_key: str | None = None,
    base_url: str | None = None,
    headers: Mapping[str, str] | None = None,
    dimensions: int | None = None,
    timeout_s: float = 60.0,
    batch_timeout_s: float | None = None,
    retry: RetryPolicy | None = None,
    sleep: Callable[[float], None] = time.sleep,
    rand: Callable[[], float] = random.random,
    transport: httpx.BaseTransport | None = None,
) -> HostedEmbedder:
    """Build the embedder for hosted ``provider`` with an explicit ``api_key`` (may be None
    for ``openai-compatible`` and ``ollama``). Raises :class:`~memdir.errors.ConfigError` for an
    unknown provider, a missing model or base URL, or unsupported ``dimensions``."""
    spec = HOSTED_PROVIDERS.get(provider)
    if spec is None:
        raise ConfigError(
            f"unknown hosted embedding provider {provider!r}",
            hint=f"use one of {', '.join(HOSTED_PROVIDERS)}",
        )
    name = normalize_model(provider, model)
    _check_dimensions(provider, name, dimensions)
    return _CLASSES[provider](
        spec,
        model=name,
        base_url=base_url,
        auth_headers=_auth_headers(provider, api_key),
        headers=headers,
        dimensions=dimensions,
        timeout_s=timeout_s,
        batch_timeout_s=batch_timeout_s,
        retry=retry,
        sleep=sleep,
        rand=rand,
        transport=transport,
    )


def _auth_headers(provider: str, api_key: str | None) -> dict[str, str]:
    if not api_key:
        return {}
    if provider == "gemini":
        return {"x-goog-api-key": api_key}
    return {"Authorization": f"Bearer {api_key}"}


def _check_dimensions(provider: str, model: str, dimensions: int | None) -> None:
    if dimensions is None:
        return
    if provider not in _DIMENSION_PROVIDERS:
        raise ConfigError(
            f"embedding dimensions cannot be set for provider {provider}",
            hint=f"only {', '.join(_DIMENSION_PROVIDERS)} accept it",
        )
    if dimensions < 1:
        raise ConfigError(f"embedding dimensions must be positive, not {dimensions}")
    if model == "gemini-embedding-2-preview" and dimensions not in _GEMINI_2_DIMS:
        raise ConfigError(
            f"gemini-embedding-2-preview supports dimensions {_GEMINI_2_DIMS}, not {dimensions}"
        )
