"""The in-memory vector matrix follows the index incrementally; cosine is rescaled per model."""

from __future__ import annotations

import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memdir.index import Index
from memdir.search import vector
from memdir.search.threads import Assist
from memdir.search.vector import COSINE_RANGES, VectorMatrix, VectorSearch, cosine_range

from .helpers import add_note, fill_pool


@pytest.fixture(params=["simd", "numpy"])
def kernel(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test with the SIMD int8 pass (simsimd, the default) and with the numpy pass used
    where simsimd is not installed: both must give the exact top k."""
    if request.param == "numpy":
        monkeypatch.setattr(vector, "_simsimd", None)
    else:
        assert vector._simsimd is not None, "simsimd is a dependency of memdir"
    return str(request.param)


def _unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def _add(index: Index, path: str, vec: np.ndarray) -> int:
    return add_note(index, path, path, vec)


def test_matrix_follows_inserts_deletes_and_generations(tmp_path: Path) -> None:
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=3)
    matrix = VectorMatrix()
    a = _add(index, "a.md", _unit(1, 0, 0))
    b = _add(index, "b.md", _unit(0, 1, 0))
    matrix.refresh(index)
    assert [cid for cid, _ in matrix.top(_unit(1, 0.1, 0), 2)] == [a, b]
    with index.transaction() as conn:
        index.remove_file(conn, "a.md")  # cascades to its vector, logged for readers
    c = _add(index, "c.md", _unit(0.9, 0, 0.1))
    matrix.refresh(index)
    assert matrix.count == 2
    assert [cid for cid, _ in matrix.top(_unit(1, 0, 0), 5)] == [c, b]
    index.reset_vectors(provider_key="k2", model="m2", dims=3)  # a new embedder: reload whole
    matrix.refresh(index)
    assert matrix.count == 0 and matrix.top(_unit(1, 0, 0), 5) == []
    index.close()


def test_dead_rows_are_compacted(tmp_path: Path) -> None:
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=2)
    matrix = VectorMatrix()
    for i in range(10):
        _add(index, f"n{i}.md", _unit(1, i))
    matrix.refresh(index)
    full = matrix.nbytes
    with index.transaction() as conn:
        for i in range(5):
            index.remove_file(conn, f"n{i}.md")
    matrix.refresh(index)
    assert matrix.count == 5
    assert matrix.nbytes <= full // 2  # compacted to the five live rows
    assert len(matrix.top(_unit(1, 1), 10)) == 5
    index.close()


class _Fixed:
    provider, model, max_input_bytes = "local", "e5-small", 100

    def identity(self) -> dict[str, str]:
        return {}

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("not used")

    def embed_query(self, text: str) -> np.ndarray:
        return _unit(1, 0)


def test_scores_are_rescaled_to_the_models_cosine_range(tmp_path: Path) -> None:
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=2)
    close = _add(index, "close.md", _unit(1, 0.2))  # cosine ~0.98
    far = _add(index, "far.md", _unit(1, 1.0))  # cosine ~0.71
    search = VectorSearch(index, _Fixed(), VectorMatrix(), cosines=cosine_range(_Fixed()))  # type: ignore[arg-type]
    assert search.search("q", 5) == []  # not refreshed yet: search never reads the index
    search.refresh()
    scores = dict(search.search("q", 5))
    assert COSINE_RANGES[("local", "e5-small")] == (0.76, 0.92)
    assert scores[close] == 1.0  # above the ceiling
    assert scores[far] == 0.0  # below the floor: as good as unrelated for this model
    assert cosine_range(_Fixed(), ["0.1", "0.9"]) == (0.1, 0.9)  # configured wins
    index.close()


class _English(_Fixed):
    def embed_query(self, text: str) -> np.ndarray:
        return _unit(1, 0, 0)


def _at_cosine(cos: float, side: float) -> np.ndarray:
    return np.array([cos, side * np.sqrt(1 - cos**2), 0.0], dtype=np.float32)


def test_every_script_pair_is_scored_on_one_range(tmp_path: Path) -> None:
    """A chunk's script does not move its score: a Chinese note and an English one are both
    mapped through the model's one cosine range (a per-script shift, tuned on monolingual
    XQuAD, hurt real bilingual notes in bench/agentmem), so the closer one ranks first."""
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=3)
    english = add_note(index, "en.md", "Our standup moved to ten.", _at_cosine(0.80, 1))
    chinese = add_note(
        index, "zh.md", "我们选择了 PostgreSQL 作为账单服务的数据库。", _at_cosine(0.79, -1)
    )
    search = VectorSearch(index, _English(), VectorMatrix(), cosines=cosine_range(_English()))  # type: ignore[arg-type]
    search.refresh()
    got = search.search("which database did we choose", 5)
    assert [cid for cid, _ in got] == [english, chinese]
    scores = dict(got)
    assert scores[english] == pytest.approx((0.80 - 0.76) / 0.16, abs=1e-5)
    assert scores[chinese] == pytest.approx((0.79 - 0.76) / 0.16, abs=1e-5)
    index.close()


def test_int8_pass_ranks_chunks_of_every_script_exactly_as_float32(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """Over a mix of Chinese and English chunks the int8 pass returns the float32 top k with
    their raw cosines, whatever each chunk's script."""
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    monkeypatch.setattr(vector, "_SLICE", 256)
    rng = np.random.default_rng(9)
    dims, n = 32, 1500
    vecs = rng.standard_normal(dims) * 2 + rng.standard_normal((n, dims))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    cjk = rng.random(n) < 0.3
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=dims)
    with index.transaction() as conn:
        ids = [
            add_note(index, f"{i}.md", f"中文段落 {i}" if c else f"text {i}", v, conn=conn)
            for i, (v, c) in enumerate(zip(vecs, cjk, strict=True))
        ]
    matrix = VectorMatrix()
    matrix.refresh(index)
    index.close()
    for trial in range(20):
        query = vecs[trial] + 0.1 * rng.standard_normal(dims).astype(np.float32)
        query /= np.linalg.norm(query)
        want = vecs @ query
        got = matrix.top(query, 15)
        assert [cid for cid, _ in got] == [ids[i] for i in np.argsort(-want, kind="stable")[:15]]
        assert np.allclose([sc for _, sc in got], np.sort(want)[::-1][:15], atol=1e-5)


def test_int8_pass_finds_exactly_the_float32_top_k(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """At scale the matrix scans int8 rows and rescores only the rows that can still make the
    top k; that must give the same ids and scores as scoring every float32 row, also where
    many rows are nearly tied (embedders put most text in a narrow cone) and rows are dead."""
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)  # use the int8 pass on a small matrix
    monkeypatch.setattr(vector, "_SLICE", 256)  # and cut it into slices for several threads
    monkeypatch.setattr(vector, "_BLOCK", 100)  # of blocks, some smaller than k
    monkeypatch.setattr(vector, "_WORKERS", 3)
    rng = np.random.default_rng(7)
    dims, n = 48, 3000
    common = rng.standard_normal(dims)
    vecs = common * 3 + rng.standard_normal((n, dims))
    vecs[1::97] = vecs[0]  # exact duplicates: ties must not lose rows
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=dims)
    with index.transaction() as conn:
        ids = [add_note(index, f"{i}.md", str(i), vec, conn=conn) for i, vec in enumerate(vecs)]
    with index.transaction() as conn:
        for i in range(0, n, 50):  # dead rows, not yet compacted away
            index.remove_file(conn, f"{i}.md")
    matrix = VectorMatrix()
    matrix.refresh(index)
    refined: list[int] = []
    real_refine = vector._Scan._refine

    def refine(self: vector._Scan, rows: np.ndarray) -> np.ndarray:
        kept = real_refine(self, rows)
        refined.append(len(rows) - len(kept))
        return kept

    monkeypatch.setattr(vector._Scan, "_refine", refine)
    alive = np.array([i % 50 != 0 for i in range(n)])
    for trial in range(40):
        query = vecs[trial * 7] + 0.05 * rng.standard_normal(dims).astype(np.float32)
        query /= np.linalg.norm(query)
        exact = vecs @ query
        exact[~alive] = -np.inf
        for k in (1, 10, 40):
            want = np.sort(exact)[::-1][:k]
            got = matrix.top(query, k)
            assert np.allclose([s for _, s in got], want, atol=1e-6)
            row_of = {cid: i for i, cid in enumerate(ids)}
            assert len({cid for cid, _ in got}) == k
            assert all(exact[row_of[cid]] >= want[-1] - 1e-6 for cid, _ in got)
            assert matrix.top(query, k) == got  # ties broken the same way every time
    assert matrix.nbytes < vecs.nbytes * 1.5  # float32 + int8 twin, no more
    if kernel == "simd":  # the quantised query's looser bound is narrowed again before rescoring
        assert refined and max(refined) > 0
    else:
        assert not refined
    index.close()


def _top_in_child(matrix: VectorMatrix, query: np.ndarray, out: Any) -> None:
    out.put(matrix.top(query, 1))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX-only")
def test_a_forked_child_can_scan_after_its_parent_did(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    monkeypatch.setattr(vector, "_WORKERS", 2)  # the scan uses its thread pool
    monkeypatch.setattr(vector, "_SLICE", 1)
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=2)
    near = _add(index, "near.md", _unit(1, 0.1))
    _add(index, "far.md", _unit(0, 1))
    matrix = VectorMatrix()
    matrix.refresh(index)
    index.close()
    query = _unit(1, 0)
    assert matrix.top(query, 1)[0][0] == near
    fill_pool(vector._SCAN_POOL.get())
    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    child = ctx.Process(target=_top_in_child, args=(matrix, query, out))
    child.start()
    child.join(timeout=30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child's scan hung")
    assert out.get(timeout=5)[0][0] == near


def _scan_matrix(tmp_path: Path, n: int = 600, dims: int = 16) -> tuple[VectorMatrix, np.ndarray]:
    rng = np.random.default_rng(3)
    vecs = rng.standard_normal((n, dims))
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=dims)
    with index.transaction() as conn:
        for i, vec in enumerate(vecs):
            add_note(index, f"{i}.md", str(i), vec, conn=conn)
    matrix = VectorMatrix()
    matrix.refresh(index)
    index.close()
    return matrix, vecs


def _record_scans(
    monkeypatch: pytest.MonkeyPatch, *, wait_for: str | None = None, fail_in: str | None = None
) -> list[str]:
    """Wrap the scan of one slice: record which thread ran it; ``wait_for``: the first thread
    whose name starts so makes everyone else wait until it has a slice (so that it surely
    takes part); ``fail_in``: slices run by a thread whose name starts so raise."""
    scans: list[str] = []
    arrived = threading.Event()
    real = vector._Scan._slice

    def scan(self: vector._Scan, lo: int, hi: int) -> None:
        name = threading.current_thread().name
        scans.append(name)
        if wait_for and name.startswith(wait_for):
            arrived.set()
        elif wait_for:
            assert arrived.wait(5), f"no slice reached a {wait_for} thread"
        if fail_in and name.startswith(fail_in):
            raise RuntimeError("scan failed")
        real(self, lo, hi)

    monkeypatch.setattr(vector._Scan, "_slice", scan)
    return scans


def test_the_thread_waiting_for_a_search_helps_with_its_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """In a hybrid search the keyword thread, once done, scans slices of the vector pass
    rather than wait idle; the answer is the same whoever scans which slice."""
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    monkeypatch.setattr(vector, "_SLICE", 32)
    monkeypatch.setattr(vector, "_WORKERS", 2)  # the caller and the assisting thread
    matrix, vecs = _scan_matrix(tmp_path)
    query = vecs[5]
    alone = matrix.top(query, 10)
    scans = _record_scans(monkeypatch, wait_for="keyword")
    assist = Assist()
    helper = threading.Thread(target=assist.join, name="keyword-half")
    helper.start()
    got = matrix.top(query, 10, assist)
    assist.close()
    helper.join(5)
    assert got == alone
    assert "keyword-half" in scans and threading.current_thread().name in scans
    assert len(scans) == -(-len(vecs) // 32)  # every slice scanned exactly once
    assert not any(name.startswith("memdir-scan") for name in scans)  # no third thread


def test_a_failing_helper_fails_the_search_instead_of_leaving_scores_unset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    monkeypatch.setattr(vector, "_SLICE", 32)
    monkeypatch.setattr(vector, "_WORKERS", 2)
    matrix, vecs = _scan_matrix(tmp_path)
    _record_scans(monkeypatch, wait_for="memdir-scan", fail_in="memdir-scan")
    with pytest.raises(RuntimeError, match="scan failed"):
        matrix.top(vecs[0], 5)


@pytest.mark.parametrize("rounding", [0.49, 0.51])
def test_the_int8_bounds_hold_when_rounding_errors_line_up(
    monkeypatch: pytest.MonkeyPatch, kernel: str, rounding: float
) -> None:
    """Every row's true score lies within its int8 bounds, also in the worst case for them:
    a query whose every entry rounds the same way (all down, or all up), against rows that
    all point the same way, so that the rounding errors add up instead of cancelling."""
    dims, n, k = 64, 300, 5
    rng = np.random.default_rng(5)
    steps = rng.integers(1, 100, dims) + rounding  # each entry ~half a step off the grid
    steps[0] = 127.0  # the peak, on the grid: it sets the query's int8 scale
    query = (steps / np.linalg.norm(steps)).astype(np.float32)
    rows = np.abs(1 + 0.05 * rng.standard_normal((n, dims)))
    rows = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    matrix = VectorMatrix()
    matrix._append([(i + 1, i + 1, row.tobytes()) for i, row in enumerate(rows)])
    true = rows @ query
    scan = vector._Scan(matrix, query, n, k)
    scan.work()
    assert np.all(true <= scan.high + 1e-6)  # no row is ruled out that could be in the top k
    kth_low = np.sort(np.concatenate(scan.lows))[-k]
    assert kth_low <= np.sort(true)[-k] + 1e-6  # the cut-off is below the true k-th best


def test_rows_the_int8_estimate_misorders_are_kept_and_ranked_by_float32(
    monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """Nearly tied rows whose entries all round down (or all up) get int8 estimates in the
    wrong order; the narrowing before the float32 rescoring must still keep the true best."""
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    dims, k = 64, 5
    rng = np.random.default_rng(5)
    base = rng.integers(20, 100, dims).astype(float)
    rows = []
    for i in range(40):
        ints = base + rng.integers(-1, 2, dims)
        ints[0] = 127  # on the grid: sets the row's scale
        off = np.full(dims, 0.49 if i % 2 else 0.51)  # every entry rounds the same way
        off[0] = 0
        rows.append(ints + off)
    vecs = np.array(rows)
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    query = rng.uniform(0.5, 1, dims)
    query = (query / np.linalg.norm(query)).astype(np.float32)
    matrix = VectorMatrix()
    matrix._append([(i + 1, i + 1, row.tobytes()) for i, row in enumerate(vecs)])
    true = vecs @ query
    best = np.argsort(-true)[:k]
    estimate = (matrix._q8[: len(vecs)].astype(np.float32) @ query) * matrix._scale[: len(vecs)]
    assert set(np.argsort(-estimate)[:k]) != set(best)  # the premise: int8 alone gets it wrong
    scan = vector._Scan(matrix, query, len(vecs), k)
    assert set(best) <= set(scan._refine(np.arange(len(vecs))))
    assert [cid for cid, _ in matrix.top(query, k)] == [int(i) + 1 for i in best]


def test_rows_closer_than_the_int8_error_are_still_ranked_exactly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """Rows that differ by less than int8 rounding (of the rows and, in the SIMD pass, of the
    query too) leave the order to the float32 rescoring: the bounds must keep them all."""
    monkeypatch.setattr(vector, "_EXACT_BELOW", 0)
    rng = np.random.default_rng(11)
    dims, n = 384, 2000
    base = rng.standard_normal(dims)
    vecs = base + 2e-3 * rng.standard_normal((n, dims)) * np.abs(base).max()
    vecs = (vecs / np.linalg.norm(vecs, axis=1, keepdims=True)).astype(np.float32)
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=dims)
    with index.transaction() as conn:
        ids = [add_note(index, f"{i}.md", str(i), vec, conn=conn) for i, vec in enumerate(vecs)]
    matrix = VectorMatrix()
    matrix.refresh(index)
    index.close()
    for trial in range(20):
        query = base + 0.5 * rng.standard_normal(dims)
        query = (query / np.linalg.norm(query)).astype(np.float32)
        exact = vecs @ query
        for k in (1, 10):
            want = [ids[i] for i in np.argsort(-exact, kind="stable")[:k]]
            assert [cid for cid, _ in matrix.top(query, k)] == want, (trial, k)


def test_e5_small_int8_shares_e5_small_calibration() -> None:
    """Requantised e5-small: cosine levels within a few thousandths of e5-small's on XQuAD
    (bench/results/cosine_calibration-int8.json), so the same cosine range."""

    class _Int8(_Fixed):
        model = "e5-small-int8"

    assert cosine_range(_Int8()) == cosine_range(_Fixed()) == (0.76, 0.92)  # type: ignore[arg-type]


def test_chunks_beyond_the_nearest_are_scored_with_the_last_querys_vector(
    tmp_path: Path,
) -> None:
    """``scores`` gives the chunks a search did not return the score they would have had, from
    the vector that search embedded; another query, or none yet, gets nothing."""
    index = Index.open(tmp_path / "index.sqlite")
    index.reset_vectors(provider_key="k", model="m", dims=3)
    near = add_note(index, "near.md", "near", _at_cosine(0.90, 1))
    far = add_note(index, "far.md", "far", _at_cosine(0.80, -1))
    bare = add_note(index, "bare.md", "no vector")
    search = VectorSearch(index, _English(), VectorMatrix(), cosines=cosine_range(_English()))  # type: ignore[arg-type]
    search.refresh()
    assert search.scores("q", [far]) == []  # no search yet
    assert [cid for cid, _ in search.search("q", 1)] == [near]
    got = search.scores("q", [far, bare, near])
    assert [cid for cid, _ in got] == [far, near]  # the chunk without a vector is left out
    assert dict(got)[far] == pytest.approx((0.80 - 0.76) / 0.16, abs=1e-5)
    assert dict(got)[near] == pytest.approx((0.90 - 0.76) / 0.16, abs=1e-5)
    assert search.scores("another query", [far]) == []
    index.close()
