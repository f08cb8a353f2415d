"""Exact vector search over vectors held in memory, kept in step with the index incrementally.

The matrix follows the ``vectors`` table by sequence number: new rows are appended, rows named
in ``vector_log`` are masked out (and compacted away once a fifth of the matrix is dead), and a
change of ``vectors.generation`` (a rebuild, a new embedder) reloads it whole.

A search is exact, but at scale it does not read every float32 row. Each row is also kept as
int8 with its own scale and the norm of its rounding error, which bounds how far its int8 score
can be from the true one. A pass over the int8 rows (a quarter of the bytes) gives every row
an interval that holds its true score; only rows whose interval reaches the k-th best lower
bound can be in the top k, and those few hundred are scored again from float32.

The pass multiplies int8 by int8 in SIMD (simsimd), with the query quantised too and its own
rounding error added to the bounds; the few thousand rows that leaves are narrowed with the
float query before the float32 rescoring. Without simsimd, numpy widens the rows to float32 a
block at a time, about twice as slow. The pass is cut into slices that up to one thread per
core claim as they get free: in a hybrid search, the thread that did the keyword half joins in
once it is done. Measured at 100k × 384 on 2 cores (``bench/hybrid_latency.py``): 13-16 ms for
one float32 pass, 7-8 ms this way. Small matrices are scored directly in float32.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import numpy as np
from threadpoolctl import ThreadpoolController

from memdir.embed.base import Embedder
from memdir.embed.fill import decode_vector
from memdir.errors import EmbeddingError
from memdir.index.backend import IndexBackend, VectorLog
from memdir.search.threads import Assist, LazyPool

try:  # SIMD int8 dot products; wheels cover CPython 3.8-3.14 on Linux, macOS and Windows
    import simsimd as _simsimd
except ImportError:  # pragma: no cover - the numpy pass below gives the same result, slower
    _simsimd = None

__all__ = [
    "COSINE_RANGES",
    "IndexVectorSearch",
    "VectorMatrix",
    "VectorSearch",
    "cosine_range",
]

# One matrix-vector product is memory-bound: a second BLAS thread buys little when the machine
# is idle and, on a small busy machine, spin-waiting threads made it 10-30x slower (measured
# here on 2 cores: hybrid search over MCP p50 254 ms with default threads, 27 ms with one).
# memdir splits large scans across its own threads instead, each calling single-threaded BLAS.
_BLAS = ThreadpoolController()
_blas_lock = threading.Lock()
_blas_users = 0
_blas_limit: object | None = None


@contextmanager
def _one_blas_thread() -> Iterator[None]:
    """BLAS limited to one thread while any search runs (reference-counted across threads, so
    that concurrent searches do not restore each other's setting halfway)."""
    global _blas_users, _blas_limit
    with _blas_lock:
        if _blas_users == 0:
            _blas_limit = _BLAS.limit(limits=1, user_api="blas")
        _blas_users += 1
    try:
        yield
    finally:
        with _blas_lock:
            _blas_users -= 1
            if _blas_users == 0 and _blas_limit is not None:
                _blas_limit.restore_original_limits()  # type: ignore[attr-defined]
                _blas_limit = None


_PAGE = 8192  # vectors read from the index at a time
_EXACT_BELOW = 16_384  # rows; below this one float32 pass is as fast as the int8 pass
_BLOCK = 1024  # int8 rows widened to float32 at a time (1.5 MB at 384 dims: stays in L3)
_SLICE = 4096  # int8 rows claimed by a scanning thread at a time
_WORKERS = max(1, min(4, os.cpu_count() or 1))  # threads in one scan, the caller included
_SCAN_POOL = LazyPool("memdir-scan", lambda: _WORKERS)


def _quantise(vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows as int8 × per-row scale, plus each row's rounding-error norm ``‖x − scale·q‖`` and
    the norm of its int8 version ``‖scale·q‖``."""
    peak = np.abs(vecs).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    q8 = np.clip(np.rint(vecs / scale[:, None]), -127, 127).astype(np.int8)
    approx = q8.astype(np.float32) * scale[:, None]
    err = np.linalg.norm(vecs - approx, axis=1)
    # Float32 rounding in the int8 pass (sums of a few hundred products) stays far below
    # 1e-4 of the row's norm; the margin keeps the bound safe without adding candidates.
    err = (err + 1e-4 * np.linalg.norm(vecs, axis=1)).astype(np.float32)
    return q8, scale, err, np.linalg.norm(approx, axis=1).astype(np.float32)


def _kth_largest(values: np.ndarray, k: int) -> float:
    """The ``k``-th largest of ``values`` (``1 <= k <= len(values)``), in linear time."""
    return float(np.partition(values, len(values) - k)[len(values) - k])


class _Scan:
    """One int8 pass, cut into slices that whichever thread is free claims one at a time.

    Each slice leaves in ``high`` its rows' upper bounds on their true scores and keeps its
    ``k`` best lower bounds, so the k-th best lower bound of the whole matrix comes from those
    few (the global top k is among the slices' top k) without further passes over every row on
    the calling thread.

    A fixed split (one half per core, with the keyword half of a hybrid search running beside
    them: three busy threads on two cores) made hybrid search wait for the slowest half; p50 at
    100k chunks went from 17.4-19.8 ms to 14.3-16.1 ms (three alternating runs each) with slices
    claimed by the scanning thread and, once its keyword half is done, the waiting one.
    """

    def __init__(self, matrix: VectorMatrix, query: np.ndarray, n: int, k: int) -> None:
        self.q8 = matrix._q8
        self.scale = matrix._scale
        self.err = matrix._err
        self.norm8 = matrix._norm8
        self.alive = matrix._alive
        self.query = query
        self.norm = float(np.linalg.norm(query))
        self.simd = _simsimd is not None
        if self.simd:  # int8 × int8 in SIMD: the query is quantised too, and its error bounded
            q8, qscale, qerr, _ = _quantise(query[None, :])
            self.query8, self.qscale, self.qerr = q8, float(qscale[0]), float(qerr[0])
        self.k = k
        self.high = np.empty(n, dtype=np.float32)
        self.lows: list[np.ndarray] = []
        self.cuts = [*range(0, n, _SLICE), n]
        self.next = 0
        self.active = 0
        self.error: BaseException | None = None
        self.cond = threading.Condition()

    def _slice(self, lo: int, hi: int) -> None:
        coarse = self.high[lo:hi]
        if self.simd:
            dots = _simsimd.cdist(self.query8, self.q8[lo:hi], metric="dot", threads=1)  # type: ignore[union-attr]
            np.multiply(np.asarray(dots)[0], self.scale[lo:hi], out=coarse, casting="same_kind")
            coarse *= self.qscale
            # q·x − qs·s·(q8·x8) = q·(x − s·x8) + (q − qs·q8)·(s·x8), so it is at most
            # ‖q‖·‖x − s·x8‖ + ‖q − qs·q8‖·‖s·x8‖ from the true score.
            slack = self.err[lo:hi] * self.norm + self.norm8[lo:hi] * self.qerr
        else:
            buf = np.empty((min(_BLOCK, hi - lo), self.q8.shape[1]), dtype=np.float32)
            for start in range(lo, hi, _BLOCK):
                stop = min(start + _BLOCK, hi)
                block = buf[: stop - start]
                block[...] = self.q8[start:stop]
                np.dot(block, self.query, out=self.high[start:stop])
            coarse *= self.scale[lo:hi]
            # |q·x − s·(q·x8)| ≤ ‖q‖·‖x − s·x8‖: the true score is within coarse ± slack.
            slack = self.err[lo:hi] * self.norm
        low = coarse - slack
        low[~self.alive[lo:hi]] = -np.inf
        coarse += slack
        if len(low) > self.k:
            low = np.partition(low, len(low) - self.k)[len(low) - self.k :]
        with self.cond:
            self.lows.append(low)

    def work(self) -> None:
        while True:
            with self.cond:
                if self.next >= len(self.cuts) - 1:
                    return
                i = self.next
                self.next += 1
                self.active += 1
            error = None
            try:
                self._slice(self.cuts[i], self.cuts[i + 1])
            except BaseException as exc:  # a helper's failure must reach the caller
                error = exc
            with self.cond:
                self.active -= 1
                if error is not None:
                    self.error = self.error or error
                    self.next = len(self.cuts)  # nobody starts another slice
                self.cond.notify_all()
            if error is not None:
                return

    def run(self, assist: Assist | None) -> np.ndarray:
        """Scan with the calling thread, the thread behind ``assist`` (once it is free) and
        pool helpers, ``_WORKERS`` threads in all; the rows that may be in the top k, sorted."""
        helpers = _WORKERS - 1 if len(self.cuts) > 2 else 0
        if assist is not None and helpers:
            assist.offer(self.work)
            helpers -= 1
        if helpers:
            pool = _SCAN_POOL.get()
            for _ in range(min(helpers, len(self.cuts) - 2)):
                pool.submit(self.work)
        try:
            self.work()
            with self.cond:  # a helper that starts late finds nothing left and returns
                self.cond.wait_for(lambda: self.active == 0)
        finally:
            if assist is not None:
                assist.withdraw(self.work)
        if self.error is not None:
            raise self.error
        lows = np.concatenate(self.lows)
        kth_low = _kth_largest(lows, self.k)
        # Dead rows may pass (their upper bound is not masked); top() rescores them as -inf.
        rows = np.flatnonzero(self.high >= kth_low)
        return self._refine(rows) if self.simd and len(rows) > 2 * self.k else rows

    def _refine(self, rows: np.ndarray) -> np.ndarray:
        """Narrow the SIMD pass's candidates with the float query (no query rounding error).

        The quantised query doubles the slack, which on real embeddings (dense near the top)
        left ~4x the candidates of the float-query bound: 690 of 15,620 e5-small vectors.
        These few rows are cheap to bound again before they are rescored from float32. The
        true top k are among ``rows``, so the k-th best lower bound over ``rows`` is still a
        lower bound of the k-th best score.
        """
        coarse = (self.q8[rows].astype(np.float32) @ self.query) * self.scale[rows]
        slack = self.err[rows] * self.norm
        low = coarse - slack
        low[~self.alive[rows]] = -np.inf
        kth_low = _kth_largest(low, self.k)
        return rows[coarse + slack >= kth_low]


# The matrix's per-row arrays: name → (dtype, one value per dimension?). They grow, compact and
# reset together; ``_alive`` is False once the row's chunk is gone (until compaction).
_ROW_FIELDS: dict[str, tuple[type, bool]] = {
    "_ids": (np.int64, False),  # chunk ids
    "_mat": (np.float32, True),  # the vectors
    "_q8": (np.int8, True),  # their int8 twins, × _scale
    "_scale": (np.float32, False),
    "_err": (np.float32, False),  # ‖x − scale·q8‖, plus a margin for float rounding
    "_norm8": (np.float32, False),  # ‖scale·q8‖
    "_alive": (np.bool_, False),
}


class VectorMatrix:
    """The index's vectors as an ``(n, d)`` float32 matrix (plus its int8 twin) and chunk ids."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: str | None = None
        self._vec_seq = 0
        self._log_seq = 0
        self._dims = 0
        self._size = 0
        self._row_of: dict[int, int] = {}
        self._allocate(0)

    _ids: np.ndarray
    _mat: np.ndarray
    _q8: np.ndarray
    _scale: np.ndarray
    _err: np.ndarray
    _norm8: np.ndarray
    _alive: np.ndarray

    def _allocate(self, capacity: int) -> None:
        for name, (dtype, wide) in _ROW_FIELDS.items():
            shape = (capacity, self._dims) if wide else (capacity,)
            setattr(self, name, np.zeros(shape, dtype=dtype))

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return tuple(getattr(self, name) for name in _ROW_FIELDS)

    @property
    def count(self) -> int:
        return len(self._row_of)

    @property
    def nbytes(self) -> int:
        return int(sum(a.nbytes for a in self._arrays()))

    def refresh(self, index: VectorLog) -> None:
        """Catch up with the index: cheap (two indexed reads) when nothing changed.

        The index is taken before the matrix: a hybrid search holds the index while its vector
        half waits for the matrix, so the other order deadlocked two concurrent searches."""
        with index.snapshot(), self._lock:
            state = index.vector_state()
            if state.generation != self._generation or state.dims != (self._dims or None):
                self._reset(state.generation, state.dims or 0)
            if state.log_seq > self._log_seq:
                for seq, chunk_id in index.vector_deletions_since(self._log_seq):
                    self._drop(chunk_id)
                    self._log_seq = seq
            if state.vector_seq > self._vec_seq and self._size == 0:
                self._reserve(index.vector_count())
            while state.vector_seq > self._vec_seq:
                # In pages, so that loading a large index never holds every blob, and every
                # temporary of the int8 conversion, at once (peak RSS at 100k x 384: 736 MB
                # loaded in one piece).
                rows = index.vectors_since(self._vec_seq, limit=_PAGE)
                if not rows:
                    self._vec_seq = state.vector_seq
                    break
                self._append(rows)
                self._vec_seq = rows[-1][0]
            if self._size and (self._size - len(self._row_of)) > self._size // 5:
                self._compact()

    def _reserve(self, rows: int) -> None:
        """Room for ``rows`` more rows, allocated once (a first load knows how many come)."""
        need = self._size + rows
        if need > len(self._ids):
            old, size = self._arrays(), self._size
            self._allocate(need)
            for new, prev in zip(self._arrays(), old, strict=True):
                new[:size] = prev[:size]

    def _reset(self, generation: str, dims: int) -> None:
        self._generation = generation
        self._dims = dims
        self._vec_seq = self._log_seq = 0
        self._size = 0
        self._row_of = {}
        self._allocate(0)

    def _drop(self, chunk_id: int) -> None:
        row = self._row_of.pop(chunk_id, None)
        if row is not None:
            self._alive[row] = False

    def _append(self, rows: list[tuple[int, int, bytes]]) -> None:
        """Rows as :meth:`~memdir.index.backend.VectorLog.vectors_since` gives them: (seq, chunk id, blob)."""
        if not rows:
            return
        vecs = [decode_vector(blob) for _, _, blob in rows]
        if not self._dims:
            self._dims = len(vecs[0])
            self._allocate(0)
        keep = [
            (chunk_id, v)
            for (_, chunk_id, _), v in zip(rows, vecs, strict=True)
            if len(v) == self._dims
        ]
        if not keep:
            return
        if self._size + len(keep) > len(self._ids):
            # a quarter more, not twice as much: the first note written after a 100k-chunk
            # index was loaded doubled its matrix (199 MB to 397 MB at 384 dimensions)
            self._reserve(max(len(keep), len(self._ids) // 4, 1024))
        block = np.stack([v for _, v in keep]).astype(np.float32, copy=False)
        q8, scale, err, norm8 = _quantise(block)
        lo, hi = self._size, self._size + len(keep)
        self._mat[lo:hi] = block
        self._q8[lo:hi] = q8
        self._scale[lo:hi] = scale
        self._err[lo:hi] = err
        self._norm8[lo:hi] = norm8
        self._alive[lo:hi] = True
        for offset, (chunk_id, _) in enumerate(keep):
            self._drop(chunk_id)  # an id written twice: the later vector wins
            self._ids[lo + offset] = chunk_id
            self._row_of[chunk_id] = lo + offset
        self._size = hi

    def _compact(self) -> None:
        keep = np.flatnonzero(self._alive[: self._size])
        for name in _ROW_FIELDS:
            setattr(self, name, getattr(self, name)[keep].copy())
        self._size = len(keep)
        self._row_of = {int(cid): i for i, cid in enumerate(self._ids)}

    def top(
        self,
        query: np.ndarray,
        k: int,
        assist: Assist | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` chunks with the highest cosine similarity to a normalised ``query``.

        ``assist``: a thread waiting for this result that may help with the scan."""
        with self._lock:
            n = self._size
            if n == 0 or k <= 0 or len(query) != self._dims:
                return []
            k = min(k, len(self._row_of))
            if k <= 0:
                return []
            query = np.ascontiguousarray(query, dtype=np.float32)
            with _one_blas_thread():
                rows = np.arange(n) if n < _EXACT_BELOW else _Scan(self, query, n, k).run(assist)
                scores = self._mat[rows] @ query if len(rows) < n else self._mat[:n] @ query
            scores[~self._alive[rows]] = -np.inf
            if k < len(rows):  # everything tied with the k-th best, then the oldest rows first
                kth = _kth_largest(scores, k)
                part = np.flatnonzero(scores >= kth)
            else:
                part = np.arange(len(rows))
            order = part[np.lexsort((part, -scores[part]))][:k]
            order = order[np.isfinite(scores[order])]
            return list(zip(self._ids[rows[order]].tolist(), scores[order].tolist(), strict=True))

    def scores(self, query: np.ndarray, chunk_ids: Sequence[int]) -> list[tuple[int, float]]:
        """The cosine similarity of a normalised ``query`` to each of ``chunk_ids`` that the
        matrix holds (others are left out), in the order given."""
        with self._lock:
            if len(query) != self._dims:
                return []
            found = [(cid, self._row_of[cid]) for cid in chunk_ids if cid in self._row_of]
            if not found:
                return []
            rows = np.fromiter((row for _, row in found), dtype=np.int64, count=len(found))
            sims = self._mat[rows] @ np.ascontiguousarray(query, dtype=np.float32)
            return [(cid, float(sim)) for (cid, _), sim in zip(found, sims, strict=True)]


# Cosine similarity is not a relevance scale: every model has its own baseline. Measured here
# (bench: XQuAD en/zh questions against their paragraphs and against LoCoMo turns), the best
# *unrelated* chunk scores ~0.78 with e5-small and ~0.28 with use-multilingual, while a real
# match scores ~0.86-0.90 and ~0.40-0.47. Scores are mapped linearly from (floor, ceiling) to
# (0, 1), so that a vector score, a hybrid score and search.min_score mean the same thing
# whatever the model. Unknown models keep raw cosine unless embedding.cosine_range is set.
#
# One range for every pair of query and chunk scripts: moving it per (query, chunk) script pair,
# as tuned on monolingual XQuAD paragraphs, hurt real bilingual notes, where both scripts share
# a chunk (bench/agentmem, tuning half, linear fusion: hybrid hit@1 / R@5 .384 / .616 with one
# range against .349 / .593 with the shifts; vector alone .326 / .488 against .244 / .413).
COSINE_RANGES: dict[tuple[str, str], tuple[float, float]] = {
    ("local", "e5-small"): (0.76, 0.92),
    ("local", "use-multilingual"): (0.25, 0.60),
}


# e5-small-int8 is e5-small with requantised weights (vectors within cosine ~0.995), and shares
# its calibration: on XQuAD its same-answer cosine p50 is within .002 of e5-small's for all four
# language pairs (.868/.902/.768/.793 against .870/.903/.768/.793), the best other paragraph's
# within .001 (bench/cosine_calibration.py, bench/results/cosine_calibration-int8.json).
COSINE_RANGES[("local", "e5-small-int8")] = COSINE_RANGES[("local", "e5-small")]


def cosine_range(embedder: Embedder, configured: Sequence[float] = ()) -> tuple[float, float]:
    """The (floor, ceiling) of raw cosine that maps to vector scores 0 and 1."""
    if len(configured) == 2:
        return float(configured[0]), float(configured[1])
    return COSINE_RANGES.get((embedder.provider, embedder.model), (0.0, 1.0))


def best_line_cosines(query: np.ndarray, blobs: dict[int, bytes]) -> dict[int, float]:
    """Per chunk, the cosine of its best line with a normalised ``query``, from its line
    vectors (:meth:`~memdir.index.backend.IndexBackend.line_vectors`: float32 vectors one
    after another); chunks without a line of the query's dimensions are left out."""
    dims = len(query)
    owners: list[int] = []
    parts: list[np.ndarray] = []
    for cid, blob in blobs.items():
        flat = np.frombuffer(blob, dtype="<f4")
        if not len(flat) or len(flat) % dims:
            continue
        owners.append(cid)
        parts.append(flat.reshape(-1, dims))
    if not parts:
        return {}
    sims = np.concatenate(parts) @ np.asarray(query, dtype=np.float32)
    bounds = np.cumsum([0, *(len(p) for p in parts)])
    return {
        cid: float(sims[lo:hi].max())
        for cid, lo, hi in zip(owners, bounds[:-1], bounds[1:], strict=True)
    }


class _ScaledCosines:
    """Raw cosines to vector scores by :func:`cosine_range`'s (floor, ceiling), shared by the
    two searchers so that their scores, and their lines' scores, are one scale."""

    low: float
    high: float

    def _scale(self, cos: float) -> float:
        span = max(self.high - self.low, 1e-6)
        return min(1.0, max(0.0, (cos - self.low) / span))

    def _line_scores(self, query: np.ndarray, blobs: dict[int, bytes]) -> dict[int, float]:
        return {cid: self._scale(c) for cid, c in best_line_cosines(query, blobs).items()}


class VectorSearch(_ScaledCosines):
    """:class:`~memdir.search.VectorSearcher` over a :class:`VectorMatrix`; scores are cosine
    similarities rescaled by :func:`cosine_range` to [0, 1]."""

    def __init__(
        self,
        index: VectorLog,
        embedder: Embedder,
        matrix: VectorMatrix,
        *,
        prepare: Callable[[str], str] = lambda t: t,
        cosines: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.matrix = matrix
        self.prepare = prepare
        self.low, self.high = cosines
        self._query: tuple[str, np.ndarray] | None = None  # the last query and its vector

    def refresh(self) -> None:
        """Bring the matrix up to date with the index (``search`` itself does not read it)."""
        self.matrix.refresh(self.index)

    def search(
        self, query: str, limit: int, assist: Assist | None = None
    ) -> list[tuple[int, float]]:
        """The ``limit`` nearest chunks as of the last :meth:`refresh`. Safe to run on another
        thread than the index's reader: it touches only the embedder and the matrix."""
        if self.matrix.count == 0:
            return []
        vec = self.embedder.embed_query(self.prepare(query))
        vec = np.asarray(vec, dtype=np.float32)
        if vec.ndim != 1:
            raise EmbeddingError(
                f"{self.embedder.provider} returned a query vector of shape {vec.shape}"
            )
        if not np.any(vec):
            return []
        self._query = (query, vec)
        return [(cid, self._scale(cos)) for cid, cos in self.matrix.top(vec, limit, assist)]

    def scores(self, query: str, chunk_ids: Sequence[int]) -> list[tuple[int, float]]:
        """The vector scores of ``chunk_ids`` for ``query``, scaled as :meth:`search` scales
        them; chunks without a vector are left out.

        It reuses the query vector of the last :meth:`search` of the same query, so that the
        keyword candidates of a hybrid search that are not among the nearest chunks are judged
        by their true similarity instead of none (a few dot products, no second embedding).
        Without that search it returns ``[]``.
        """
        if self._query is None or self._query[0] != query or not chunk_ids:
            return []
        vec = self._query[1]
        return [(cid, self._scale(cos)) for cid, cos in self.matrix.scores(vec, chunk_ids)]

    def best_lines(self, query: str, blobs: dict[int, bytes]) -> dict[int, float]:
        """The score of each chunk's best line (scaled as :meth:`search` scales), from the
        query vector of the last :meth:`search` of ``query`` (no second embedding); ``{}``
        without that search."""
        if self._query is None or self._query[0] != query:
            return {}
        return self._line_scores(self._query[1], blobs)


class IndexVectorSearch(_ScaledCosines):
    """:class:`~memdir.search.VectorSearcher` for an index that searches its vectors itself
    (``server_vectors``: PostgreSQL's HNSW); scores are rescaled as :class:`VectorSearch` does.

    The index call takes its own connection, so it may run beside the keyword half. Like
    :class:`VectorSearch` it has :meth:`scores`, so hybrid search judges keyword candidates the
    nearest chunks left out by their true similarity on either backend."""

    _REMEMBERED = 16  # query vectors kept for scores(): one per search in flight is enough

    def __init__(
        self,
        index: IndexBackend,
        embedder: Embedder,
        *,
        prepare: Callable[[str], str] = lambda t: t,
        cosines: tuple[float, float] = (0.0, 1.0),
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.prepare = prepare
        self.low, self.high = cosines
        # the vectors of the last few queries searched (searches may run at once on threads)
        self._queries: dict[str, np.ndarray] = {}
        self._queries_lock = threading.Lock()

    def search(
        self, query: str, limit: int, assist: Assist | None = None
    ) -> list[tuple[int, float]]:
        vec = np.asarray(self.embedder.embed_query(self.prepare(query)), dtype=np.float32)
        if vec.ndim != 1:
            raise EmbeddingError(
                f"{self.embedder.provider} returned a query vector of shape {vec.shape}"
            )
        if not np.any(vec):
            return []
        with self._queries_lock:
            self._queries.pop(query, None)
            self._queries[query] = vec
            while len(self._queries) > self._REMEMBERED:
                del self._queries[next(iter(self._queries))]
        return [(chunk_id, self._scale(cos)) for chunk_id, cos in self.index.nearest(vec, limit)]

    def scores(self, query: str, chunk_ids: Sequence[int]) -> list[tuple[int, float]]:
        """The vector scores of ``chunk_ids`` for ``query``, scaled as :meth:`search` scales
        them, from the query vector of an earlier :meth:`search` of the same query (no second
        embedding; one statement on the server); chunks without a vector are left out, and
        without that search it returns ``[]``."""
        with self._queries_lock:
            vec = self._queries.get(query)
        if vec is None or not chunk_ids:
            return []
        return [
            (chunk_id, self._scale(cos))
            for chunk_id, cos in self.index.vector_scores(vec, list(chunk_ids))
        ]

    def best_lines(self, query: str, blobs: dict[int, bytes]) -> dict[int, float]:
        """As :meth:`VectorSearch.best_lines`."""
        with self._queries_lock:
            vec = self._queries.get(query)
        if vec is None:
            return {}
        return self._line_scores(vec, blobs)
