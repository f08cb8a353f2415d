"""The :class:`Embedder` protocol and the helpers every provider shares.

Vectors
    Every embedder returns float32 vectors that are already L2-normalised, so memdir compares
    them with a plain dot product (= cosine similarity). Non-finite components become 0, and a
    vector whose norm is below 1e-10 is returned as it is (an all-zero query vector means "skip
    vector search").

Input size
    Every embedder truncates each input to its ``max_input_bytes`` UTF-8 bytes before sending it
    (never splitting a code point), and hosted providers group inputs into requests of at most
    8000 UTF-8 bytes (spec §5.3), a single larger input going alone.

Identity
    ``identity()`` describes everything that changes the vectors (provider, model, endpoint,
    non-secret headers, output dimensions, package version for local models) and never an API
    key or an authorisation header; :func:`provider_key` hashes it to key caches and to detect
    that an index was built with another model.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from memdir.errors import UsageError
from memdir.text import replace_surrogates

__all__ = [
    "BATCH_MAX_BYTES",
    "Embedder",
    "Vector",
    "Vectors",
    "batch_by_bytes",
    "check_not_blank",
    "is_secret_header",
    "l2_normalize",
    "provider_key",
    "public_headers",
    "to_valid_utf8",
    "truncate_utf8",
    "utf8_len",
]

Vector = npt.NDArray[np.float32]
"""One embedding, shape ``(d,)``."""
Vectors = npt.NDArray[np.float32]
"""Several embeddings, shape ``(n, d)``."""

BATCH_MAX_BYTES = 8000
"""Largest total of UTF-8 bytes sent in one embedding request (spec §5.3)."""

_MIN_NORM = 1e-10
_SECRET_HEADER = re.compile(
    r"auth|key|token|secret|password|passwd|cookie|session|signature|credential", re.IGNORECASE
)


@runtime_checkable
class Embedder(Protocol):
    """Turns text into L2-normalised float32 vectors.

    ``provider`` is the provider id (``"openai"``, ``"local"``, …), ``model`` the model name
    after normalisation, ``max_input_bytes`` the UTF-8 length each input is truncated to.
    """

    provider: str
    model: str
    max_input_bytes: int

    def identity(self) -> dict[str, str]:
        """What determines the vectors: provider, model, endpoint, dims; never a secret."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        """Embed texts to be stored; returns float32 of shape ``(len(texts), d)``."""
        ...

    def embed_query(self, text: str) -> Vector:
        """Embed a search query; returns float32 of shape ``(d,)``."""
        ...


def provider_key(embedder: Embedder) -> str:
    """SHA-256 hex digest of the canonical JSON of ``embedder.identity()``."""
    canonical = json.dumps(
        embedder.identity(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def l2_normalize(arr: npt.ArrayLike) -> npt.NDArray[np.float32]:
    """Return a float32 copy of ``arr`` (one vector or a matrix of row vectors), each vector
    scaled to unit length.

    Non-finite components become 0 first; a vector whose norm is below 1e-10 is left as it is.
    """
    out = np.array(arr, dtype=np.float32, copy=True)
    out[~np.isfinite(out)] = 0.0
    if out.ndim == 0 or out.size == 0:
        return out
    norms = np.linalg.norm(out, axis=-1, keepdims=True)
    scale = np.where(norms < _MIN_NORM, 1.0, norms)
    out /= scale
    return out


def utf8_len(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (lone surrogates count as 3 bytes)."""
    return len(text.encode("utf-8", "surrogatepass"))


def truncate_utf8(text: str, max_bytes: int) -> str:
    """Return the longest prefix of ``text`` whose UTF-8 encoding fits in ``max_bytes``.

    The cut never falls inside a code point, so the result never contains U+FFFD that the
    input did not have. ``max_bytes <= 0`` gives ``""``.
    """
    if max_bytes <= 0:
        return ""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text
    cut = max_bytes
    # Back up over continuation bytes (0b10xxxxxx) to the start of the cut code point.
    while cut > 0 and (data[cut] & 0xC0) == 0x80:
        cut -= 1
    return data[:cut].decode("utf-8", "surrogatepass")


def to_valid_utf8(text: str) -> str:
    """``text`` with any lone surrogate (which UTF-8 cannot encode, e.g. from a file decoded
    with ``surrogateescape``) replaced by U+FFFD; other text is returned unchanged."""
    return replace_surrogates(text)


def batch_by_bytes(
    texts: Sequence[str], max_bytes: int = BATCH_MAX_BYTES, max_items: int = 2048
) -> list[list[int]]:
    """Group the indexes of ``texts`` into consecutive requests.

    Each group holds at most ``max_items`` texts whose UTF-8 lengths add up to at most
    ``max_bytes``; a single text longer than ``max_bytes`` forms a group of its own. Order is
    kept, and every index appears exactly once.
    """
    if max_bytes < 1 or max_items < 1:
        raise UsageError(
            f"batch limits must be positive (max_bytes={max_bytes}, max_items={max_items})"
        )
    groups: list[list[int]] = []
    current: list[int] = []
    current_bytes = 0
    for i, text in enumerate(texts):
        size = utf8_len(text)
        if current and (current_bytes + size > max_bytes or len(current) >= max_items):
            groups.append(current)
            current, current_bytes = [], 0
        current.append(i)
        current_bytes += size
    if current:
        groups.append(current)
    return groups


def check_not_blank(texts: Sequence[str]) -> None:
    """Raise :class:`~memdir.errors.UsageError` if any text is empty or only whitespace.

    Providers reject or mis-embed blank input; callers drop blank chunks before embedding.
    """
    for i, text in enumerate(texts):
        if not text.strip():
            raise UsageError(
                f"cannot embed a blank text (item {i})",
                hint="drop empty or whitespace-only chunks before embedding",
            )


def is_secret_header(name: str) -> bool:
    """True for headers that may carry credentials (``Authorization``, ``x-api-key``, …)."""
    return bool(_SECRET_HEADER.search(name))


def public_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The headers that are safe to show or hash: lower-cased names, secrets left out."""
    return {k.lower(): v for k, v in sorted(headers.items()) if not is_secret_header(k)}
