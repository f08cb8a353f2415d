"""Shared helpers for the memdir benchmarks.

Every benchmark script is a thin driver around these pieces:

* locating the evaluation data (``--data``, ``MEMDIR_BENCH_DATA`` or ``../shared/bench``
  relative to the repository root) and reading BEIR-style files;
* ``Store``: one memdir workspace opened through the public API, with the only code that
  knows the API's exact shape (so an API change is fixed here, once);
* retrieval metrics (nDCG, recall, MRR) and latency percentiles;
* the results file (figures + environment) and a plain-text table for the terminal.

The datasets are evaluation-only: scripts read them in place and write derived Markdown
into temporary workspaces, never into the repository.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import os
import platform
import resource
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_DIR = BENCH_DIR / "results"
CACHE_DIR = BENCH_DIR / ".cache"
DATA_ENV = "MEMDIR_BENCH_DATA"
# Embeddings computed by earlier runs, shared across runs so that a second run with other search
# settings does not re-embed a corpus (e5-small on 2 cores: ~15 chunks/s). Its table is created
# from the index's own ``embedding_cache`` definition; delete the file to start cold.
EMBED_CACHE_PATH = CACHE_DIR / "embeddings.sqlite"
EMBED_CACHE_ENV = "MEMDIR_BENCH_EMBED_CACHE"  # "0" turns the shared cache off
MODES = ("keyword", "hybrid", "vector")

JsonDict = dict[str, Any]


# --------------------------------------------------------------------------- data


def data_dir(explicit: Path | None) -> Path:
    """Where the evaluation data lives: ``--data``, then ``$MEMDIR_BENCH_DATA``, then the default."""
    if explicit is not None:
        root = explicit
    elif os.environ.get(DATA_ENV):
        root = Path(os.environ[DATA_ENV])
    else:
        root = REPO_ROOT.parent / "shared" / "bench"
    root = root.expanduser().resolve()
    if not root.is_dir():
        raise SystemExit(f"error: no benchmark data at {root}; pass --data DIR or set {DATA_ENV}")
    return root


def read_jsonl(path: Path) -> Iterator[JsonDict]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_qrels(path: Path) -> dict[str, dict[str, int]]:
    """BEIR qrels TSV (``query-id  corpus-id  score`` with a header) → {query: {doc: grade}}."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as handle:
        next(handle)  # header
        for line in handle:
            parts = line.rstrip("\n").split("\t")
            if len(parts) == 3:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    return qrels


def write_files(root: Path, files: Mapping[str, str]) -> None:
    """Write ``{relative posix path: text}`` under ``root``."""
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- memdir


def _import_memory() -> Any:
    """Import ``memdir.Memory`` from this checkout's ``src/`` (preferred over any installed copy)."""
    src = str(REPO_ROOT / "src")
    if src not in sys.path:
        sys.path.insert(0, src)
    from memdir import Memory

    return Memory


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result, reduced to what the benchmarks score."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str


@dataclass(frozen=True, slots=True)
class SyncStats:
    files_indexed: int
    chunks_written: int
    seconds: float  # wall clock measured here, around the sync() call
    cpu_seconds: float  # CPU time of this process over the same call


def _imports(module: Any, name: str) -> str | None:
    """The full name of the module that ``module``'s source imports ``name`` from (``from …
    import name``: ``module`` holds a copy of it, not the original); ``None`` when it does not."""
    import ast
    import importlib.util
    import inspect

    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(
            alias.name == name and alias.asname in (None, name) for alias in node.names
        ):
            relative = "." * node.level + (node.module or "")
            return importlib.util.resolve_name(relative, module.__package__ or module.__name__)
    return None


def set_constants(pairs: Sequence[str]) -> dict[str, list[float]]:
    """Set module constants of memdir for this process, for measuring a value other than the
    one the code sets: ``["search.keyword.HEADING_BONUS=0.2"]`` (``memdir.`` may be left off).
    Each must name an existing int or float; an int takes only a whole number. Returns
    ``{name: [old, new]}`` for the results file.

    Only what reads the module's global at call time sees the new value: a constant copied
    into another module by ``from … import NAME`` is refused (that copy would keep the old
    value), and one a function took as a default argument when it was defined is not reached
    at all; check that a sweep moves something before reading anything into a sweep that
    moves nothing."""
    import importlib

    done: dict[str, list[float]] = {}
    for pair in pairs:
        name, sep, raw = pair.partition("=")
        path, dot, attr = name.strip().rpartition(".")
        if not sep or not dot or not attr:
            raise SystemExit(f"error: --constant expects MODULE.NAME=VALUE, got {pair!r}")
        module_name = path if path.startswith("memdir") else f"memdir.{path}"
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            raise SystemExit(f"error: --constant {pair!r}: no module {module_name}") from None
        old = getattr(module, attr, None)
        if isinstance(old, bool) or not isinstance(old, int | float):
            raise SystemExit(f"error: --constant {pair!r}: {module_name}.{attr} is no number")
        try:
            value = float(raw)
        except ValueError:
            raise SystemExit(f"error: --constant {pair!r}: {raw!r} is no number") from None
        if isinstance(old, int) and not value.is_integer():
            raise SystemExit(f"error: --constant {pair!r}: {module_name}.{attr} is an int")
        for other_name, other in list(sys.modules.items()):
            if (
                other is not module
                and other_name.startswith("memdir")
                and getattr(other, attr, None) is old
                and _imports(other, attr) == module_name
            ):
                raise SystemExit(
                    f"error: --constant {pair!r}: {other_name} holds its own copy of {attr}"
                )
        new = type(old)(value)
        setattr(module, attr, new)
        done[f"{module_name}.{attr}"] = [old, new]
    return done


def parse_overrides(pairs: Sequence[str]) -> dict[str, Any]:
    """``["chunking.tokens=200", "search.mmr.enabled=false"]`` → typed dict (JSON values, else str)."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"error: --set expects KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(raw)
        except json.JSONDecodeError:
            out[key] = raw
    return out


def store_overrides(args: argparse.Namespace, extra: Mapping[str, Any] | None = None) -> JsonDict:
    """The memdir config overrides a run uses: mode, provider, model, then ``--set`` pairs."""
    overrides: JsonDict = {
        "search.mode": args.mode,
        "embedding.provider": args.provider,
    }
    if args.model:
        overrides["embedding.model"] = args.model
    if extra:
        overrides.update(extra)
    overrides.update(parse_overrides(args.set))
    return overrides


class Store:
    """A memdir workspace opened through the public API (context manager).

    Searches always pass ``min_score=0`` so that ranking, not the score floor, is measured.
    """

    def __init__(
        self, workspace: Path, overrides: Mapping[str, Any], mode: str, *, refresh: bool = True
    ) -> None:
        self.workspace = workspace
        self.mode = mode
        self.refresh = refresh  # False: skip the API's check-files-before-search step
        memory_cls = _import_memory()
        self._mem: Any = memory_cls(workspace, overrides=dict(overrides))
        self.effective_modes: Counter[str] = Counter()
        self.last_cpu_seconds = 0.0
        self.last_best_score = 0.0
        self.last_floor_share = 1.0
        self.warnings: Counter[str] = Counter()
        self._seeded = False  # shared embedding cache copied in (first sync only)

    def __enter__(self) -> Store:
        self._mem.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._mem.__exit__(exc_type, exc, tb)

    def sync(self, paths: Sequence[Path] | None = None) -> SyncStats:
        """Sync everything, or (``paths``) only the files a watcher would have reported.

        With an embedding provider, the index's embedding cache is seeded from the shared bench
        cache first and written back after, so only texts no earlier run embedded are embedded;
        ``seconds`` then measures indexing with a warm cache (see ``EMBED_CACHE_PATH``).
        """
        shared = self._shared_cache()
        if shared and not self._seeded:
            self._copy_cache(into_index=True)
        cpu = time.process_time()
        start = time.perf_counter()
        done = threading.Event()
        saver = threading.Thread(target=self._save_cache_every, args=(done, 60.0), daemon=True)
        if shared:  # a long embedding run that is stopped keeps what it has embedded
            saver.start()
        try:
            report = self._mem.sync() if paths is None else self._mem.sync(paths=list(paths))
        finally:
            done.set()
            if saver.is_alive():
                saver.join()
        seconds = time.perf_counter() - start
        if shared:
            self._copy_cache(into_index=False)
            if not self._seeded:  # drop seeded entries this corpus does not use
                self._prune_cache()
            self._seeded = True
        return SyncStats(
            files_indexed=int(report.files_indexed),
            chunks_written=int(report.chunks_written),
            seconds=seconds,
            cpu_seconds=time.process_time() - cpu,
        )

    def _shared_cache(self) -> bool:
        if os.environ.get(EMBED_CACHE_ENV, "1") == "0":
            return False
        provider = str(self.config_value("embedding.provider") or "none")
        return provider not in ("none", "")

    def _save_cache_every(self, done: threading.Event, seconds: float) -> None:
        while not done.wait(seconds):
            try:
                self._copy_cache(into_index=False)
            except sqlite3.Error as exc:  # busy or locked: try again next round
                print(f"warning: could not save embeddings to the bench cache: {exc}")

    def _prune_cache(self) -> None:
        con = sqlite3.connect(self.index_path(), timeout=60)
        try:
            with con:
                con.execute(
                    "DELETE FROM embedding_cache WHERE hash NOT IN (SELECT hash FROM chunks)"
                )
        finally:
            con.close()

    def _copy_cache(self, *, into_index: bool) -> None:
        index_path = self.index_path()
        EMBED_CACHE_PATH.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(index_path, timeout=60)
        try:
            con.execute("ATTACH DATABASE ? AS shared", (str(EMBED_CACHE_PATH),))
            # The shared table is created from the index's own definition, so the two
            # cannot drift apart.
            (create,) = con.execute(
                "SELECT sql FROM main.sqlite_master WHERE type = 'table' AND name = 'embedding_cache'"
            ).fetchone()
            con.execute(
                create.replace(
                    "CREATE TABLE embedding_cache",
                    "CREATE TABLE IF NOT EXISTS shared.embedding_cache",
                    1,
                )
            )
            src, dst = ("shared", "main") if into_index else ("main", "shared")
            with con:
                con.execute(
                    f"INSERT OR IGNORE INTO {dst}.embedding_cache "
                    f"SELECT provider_key, hash, dims, embedding, used_at FROM {src}.embedding_cache"
                )
        finally:
            con.close()

    def search(self, query: str, max_results: int) -> list[Hit]:
        return self.timed_search(query, max_results)[0]

    def timed_search(self, query: str, max_results: int) -> tuple[list[Hit], float]:
        """Search and return (hits, seconds); only the API call is timed.

        The mode search really used (a hybrid request silently served by keyword search, say)
        and any warnings are tallied in ``effective_modes`` and ``warnings``. The CPU time of
        the call is kept in ``last_cpu_seconds``: on a shared machine it moves less than wall time,
        and the score whether to answer was judged by in ``last_best_score`` (the best result's
        without the lift of its best line: ``SearchResponse.best_score``), against the share
        of the floor in ``last_floor_share`` (``SearchResponse.floor_share``).
        """
        cpu = time.process_time()
        start = time.perf_counter()
        raw = self._mem.search(
            query, max_results=max_results, min_score=0.0, mode=self.mode, refresh=self.refresh
        )
        seconds = time.perf_counter() - start
        self.last_cpu_seconds = time.process_time() - cpu
        self.last_best_score = float(getattr(raw, "best_score", 0.0))
        self.last_floor_share = float(getattr(raw, "floor_share", 1.0))
        self.effective_modes[str(getattr(raw, "mode", self.mode))] += 1
        for warning in getattr(raw, "warnings", ()) or ():
            self.warnings[str(warning)] += 1
        hits = [
            Hit(
                path=h.path,
                start_line=int(h.start_line),
                end_line=int(h.end_line),
                score=float(h.score),
                snippet=str(h.snippet),
            )
            for h in getattr(raw, "results", raw)
        ]
        return hits, seconds

    def status(self) -> JsonDict:
        raw = self._mem.status()
        if hasattr(raw, "to_dict"):
            raw = raw.to_dict()
        try:
            plain: JsonDict = json.loads(json.dumps(dict(raw), default=str))
        except (TypeError, ValueError):
            plain = {"repr": repr(raw)}
        return plain

    def config_value(self, key: str) -> Any:
        """A resolved memdir setting (default, file, env or override)."""
        return self._mem.config[key]

    def chunk_count(self) -> int:
        return int(self._mem.status()["chunks"])

    def index_path(self) -> Path:
        return Path(self._mem.status()["index_path"])

    def index_bytes(self) -> int:
        """Size of the index database with its WAL/SHM side files."""
        return sum(index_files(self.index_path()).values())


def index_files(db: Path) -> dict[str, int]:
    """{file name: bytes} for an index database and its side files (-wal, -shm, temp builds)."""
    return {p.name: p.stat().st_size for p in db.parent.glob(db.name + "*") if p.is_file()}


# --------------------------------------------------------------------------- metrics


def unique(items: Iterable[str]) -> list[str]:
    """Items in first-seen order without repeats (chunk hits → document ranking)."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def ndcg_at_k(ranked: Sequence[str], grades: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gains (as pytrec_eval / BEIR compute it)."""
    dcg = sum(grades.get(doc, 0) / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]))
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 2) for rank, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    if not relevant:
        return 0.0
    return len(set(ranked[:k]) & set(relevant)) / len(relevant)


def mrr_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    for rank, doc in enumerate(ranked[:k]):
        if doc in relevant:
            return 1.0 / (rank + 1)
    return 0.0


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default method)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * pct / 100.0
    low = math.floor(pos)
    high = math.ceil(pos)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def latency_summary(seconds: Sequence[float]) -> JsonDict:
    """p50/p95/p99/mean/max in milliseconds."""
    ms = [s * 1000.0 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 3),
        "p95_ms": round(percentile(ms, 95), 3),
        "p99_ms": round(percentile(ms, 99), 3),
        "mean_ms": round(mean(ms), 3),
        "max_ms": round(max(ms), 3) if ms else float("nan"),
    }


def peak_rss_mb() -> float:
    """Peak resident set size of this process (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1024 * 1024 if sys.platform == "darwin" else 1024
    return round(peak / scale, 1)


# --------------------------------------------------------------------------- results


def base_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--mode", choices=MODES, default="keyword", help="search mode")
    parser.add_argument(
        "--provider", default="none", help="embedding.provider (none, local, …); default none"
    )
    parser.add_argument("--model", default=None, help="embedding.model override")
    parser.add_argument(
        "--limit",
        type=int,
        default=None,
        help="quick run on a subset; its results go to bench/.cache/results/, not bench/results/",
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help=f"evaluation data folder (default: ${DATA_ENV} or ../shared/bench from the repo root)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="extra memdir config override, e.g. --set chunking.tokens=200 (repeatable)",
    )
    parser.add_argument(
        "--refresh",
        action="store_true",
        help="let every search re-check the workspace files first (the API default); off by "
        "default so query latency measures the search itself",
    )
    parser.add_argument("--out", type=Path, default=None, help="results file (default: derived)")
    return parser


def results_path(name: str, args: argparse.Namespace) -> Path:
    """``bench/results/<name>[-<mode>].json``; quick (``--limit``) runs go under ``bench/.cache``."""
    if args.out is not None:
        return Path(args.out)
    stem = name if args.mode == "keyword" else f"{name}-{args.mode}"
    if args.limit is not None:
        return CACHE_DIR / "results" / f"{stem}-limit{args.limit}.json"
    return RESULTS_DIR / f"{stem}.json"


def _git(*argv: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(REPO_ROOT), *argv],
            capture_output=True,
            text=True,
            check=False,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def environment() -> JsonDict:
    """Where and on what the figures were measured."""
    memdir_version: str | None
    try:
        import memdir

        memdir_version = str(getattr(memdir, "__version__", None))
    except ImportError:
        memdir_version = None
    dirty = _git("status", "--porcelain", "--", "src")
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "memdir_version": memdir_version,
        "memdir_commit": _git("rev-parse", "HEAD"),
        "memdir_src_dirty": bool(dirty) if dirty is not None else None,
        "load_average_1m": round(os.getloadavg()[0], 2),  # other work on the machine skews timings
    }


def settings(args: argparse.Namespace, **extra: Any) -> JsonDict:
    """The run's arguments and extra settings, JSON-safe."""
    out: JsonDict = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    out.update(extra)
    return out


def warn_if_degraded(requested: str, effective: Mapping[str, int]) -> None:
    """Say loudly when memdir served some searches in another mode than the one asked for."""
    other = {mode: n for mode, n in effective.items() if mode != requested}
    if other:
        print(f"WARNING: asked for {requested} search, memdir used {other}", file=sys.stderr)


def write_results(path: Path, payload: JsonDict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {_display(path)}")


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def fmt(value: object, digits: int = 3) -> str:
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def print_table(headers: Sequence[str], rows: Iterable[Sequence[object]], digits: int = 3) -> None:
    """A plain aligned table (first column left, others right)."""
    cells = [[str(h) for h in headers]] + [[fmt(v, digits) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        return "  ".join(parts)

    print(line(cells[0]))
    print("  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


class Stopwatch:
    """``with Stopwatch() as sw: ...; sw.seconds``"""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._start = 0.0

    def __enter__(self) -> Stopwatch:
        self._start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start


# --------------------------------------------------------------------------- BEIR retrieval

DOCS_DIR = "memory/docs"
BEIR_KS = (1, 10, 100)


@dataclass(frozen=True, slots=True)
class BeirDataset:
    corpus: dict[str, tuple[str, str]]  # doc id → (title, text)
    queries: dict[str, str]  # only the queries that have qrels
    qrels: dict[str, dict[str, int]]


def load_beir(folder: Path, split: str = "test") -> BeirDataset:
    qrels = read_qrels(folder / "qrels" / f"{split}.tsv")
    corpus = {
        str(row["_id"]): (str(row.get("title") or ""), str(row.get("text") or ""))
        for row in read_jsonl(folder / "corpus.jsonl")
    }
    queries = {
        str(row["_id"]): str(row["text"])
        for row in read_jsonl(folder / "queries.jsonl")
        if str(row["_id"]) in qrels
    }
    missing = set(qrels) - set(queries)
    if missing:
        raise SystemExit(f"error: {len(missing)} qrels queries missing from queries.jsonl")
    return BeirDataset(corpus=corpus, queries=queries, qrels=qrels)


def beir_markdown(title: str, text: str) -> str:
    """One document as a Markdown memory file: the title as a heading, then the text."""
    title = " ".join(title.split())
    return f"# {title}\n\n{text.strip()}\n" if title else f"{text.strip()}\n"


def beir_workspace(root: Path, corpus: Mapping[str, tuple[str, str]]) -> dict[str, str]:
    """Write one file per document under ``memory/docs/``; returns {relative path: doc id}."""
    files: dict[str, str] = {}
    path_to_id: dict[str, str] = {}
    for number, (doc_id, (title, text)) in enumerate(corpus.items()):
        safe = doc_id if doc_id.replace("-", "").replace("_", "").isalnum() else f"doc{number}"
        rel = f"{DOCS_DIR}/{safe}.md"
        files[rel] = beir_markdown(title, text)
        path_to_id[rel] = doc_id
    write_files(root, files)
    return path_to_id


@dataclass(frozen=True, slots=True)
class QueryResult:
    query_id: str
    ranked: list[str]  # unique doc ids in rank order
    scores: list[float]  # score of each doc's best chunk, aligned with ``ranked``
    hits: int  # chunk hits returned
    seconds: float
    cpu_seconds: float
    best: float = 0.0  # the score whether to answer is judged by (``SearchResponse.best_score``)
    # the share of the floor ``best`` must reach (``SearchResponse.floor_share``)
    floor_share: float = 1.0


def kept_at_floor(
    scores: Sequence[float], best: float, floor: float, share: float = 1.0
) -> list[bool]:
    """Which of a search's results (run at ``min_score`` 0) a caller at ``floor`` gets, as
    memdir decides it: nothing unless ``best`` (``SearchResponse.best_score``, the best result
    without the lift of its best line) reaches ``share`` of the floor
    (``SearchResponse.floor_share``), then each result scoring at least ``COMPANION_SHARE`` of
    that."""
    _import_memory()
    from memdir.search.engine import COMPANION_SHARE

    floor *= share
    if best < floor:
        return [False] * len(scores)
    return [s >= COMPANION_SHARE * floor for s in scores]


def beir_scores(results: Sequence[QueryResult], qrels: Mapping[str, Mapping[str, int]]) -> JsonDict:
    """Mean nDCG@10, MRR@10 and R@k over all queries (a query with no hits scores 0)."""
    per_metric: dict[str, list[float]] = {"ndcg@10": [], "mrr@10": []}
    for k in BEIR_KS:
        per_metric[f"recall@{k}"] = []
    for res in results:
        grades = qrels[res.query_id]
        relevant = {d for d, g in grades.items() if g > 0}
        per_metric["ndcg@10"].append(ndcg_at_k(res.ranked, grades, 10))
        per_metric["mrr@10"].append(mrr_at_k(res.ranked, relevant, 10))
        for k in BEIR_KS:
            per_metric[f"recall@{k}"].append(recall_at_k(res.ranked, relevant, k))
    return {name: round(mean(vals), 4) for name, vals in per_metric.items()}


def at_min_score(
    results: Sequence[QueryResult], qrels: Mapping[str, Mapping[str, int]], floor: float
) -> JsonDict:
    """What a caller using the default ``search.min_score`` would get (:func:`kept_at_floor`)."""
    kept = []
    for r in results:
        keep = kept_at_floor(r.scores, r.best, floor, r.floor_share)
        kept.append(
            QueryResult(
                r.query_id,
                [d for d, k in zip(r.ranked, keep, strict=True) if k],
                [s for s, k in zip(r.scores, keep, strict=True) if k],
                r.hits,
                r.seconds,
                r.cpu_seconds,
                r.best,
                r.floor_share,
            )
        )
    scores = beir_scores(kept, qrels)
    return {
        "min_score": floor,
        "ndcg@10": scores["ndcg@10"],
        "recall@10": scores["recall@10"],
        "queries_without_hits": sum(1 for r in kept if not r.ranked),
    }


def run_beir(
    dataset: BeirDataset,
    workspace: Path,
    args: argparse.Namespace,
    max_results: int,
) -> tuple[JsonDict, list[QueryResult]]:
    """Write, index and query one BEIR dataset; returns (figures, per-query results)."""
    path_to_id = beir_workspace(workspace, dataset.corpus)
    query_ids = list(dataset.queries)
    if args.limit is not None:
        query_ids = query_ids[: args.limit]
    with Store(workspace, store_overrides(args), args.mode, refresh=args.refresh) as store:
        sync = store.sync()
        store.search(dataset.queries[query_ids[0]], max_results)  # warm-up, not timed
        results: list[QueryResult] = []
        for qid in query_ids:
            hits, seconds = store.timed_search(dataset.queries[qid], max_results)
            best: dict[str, float] = {}
            for h in hits:
                if h.path in path_to_id:
                    best.setdefault(path_to_id[h.path], h.score)
            results.append(
                QueryResult(
                    qid,
                    list(best),
                    list(best.values()),
                    len(hits),
                    seconds,
                    store.last_cpu_seconds,
                    store.last_best_score,
                    store.last_floor_share,
                )
            )
        chunks = store.chunk_count()
        index_bytes = store.index_bytes()
        floor = float(store.config_value("search.min_score"))
        modes = dict(store.effective_modes)
        warnings = dict(store.warnings)
    warn_if_degraded(args.mode, modes)
    figures: JsonDict = {
        "queries": len(results),
        "documents": len(dataset.corpus),
        **beir_scores(results, dataset.qrels),
        "latency": latency_summary([r.seconds for r in results]),
        "latency_cpu": latency_summary([r.cpu_seconds for r in results]),
        "at_default_min_score": at_min_score(results, dataset.qrels, floor),
        "mean_unique_docs_returned": round(mean([len(r.ranked) for r in results]), 2),
        "queries_without_hits": sum(1 for r in results if not r.ranked),
        "effective_modes": modes,
        "warnings": warnings,
        "index": {
            "files_indexed": sync.files_indexed,
            "chunks": chunks,
            "seconds": round(sync.seconds, 3),
            "cpu_seconds": round(sync.cpu_seconds, 3),
            "index_bytes": index_bytes,
        },
    }
    return figures, results


def write_per_query(stem: str, rows: Iterable[JsonDict]) -> Path:
    """Per-query detail for analysis, kept out of git under ``bench/.cache/perquery``."""
    path = CACHE_DIR / "perquery" / f"{stem}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path
