"""SciFact (BEIR) retrieval: one Markdown file per abstract, the 300 test claims as queries.

    python bench/scifact.py [--mode keyword|hybrid|vector] [--provider none|local] [--limit N]

Writes ``bench/results/scifact[-<mode>].json``. Goal (keyword): nDCG@10 ≥ .68, R@100 ≥ .92.
Abstracts are ranked by their best chunk; R@100 counts the first 100 abstracts, as BM25 over
whole abstracts returns them.
Published: BM25 .679 (Anserini) / .687 (bm25s); FTS5 + porter .687 nDCG@10, R@100 .925.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from common import (
    base_parser,
    data_dir,
    environment,
    load_beir,
    print_table,
    results_path,
    run_beir,
    settings,
    write_per_query,
    write_results,
)

NAME = "scifact"
GOALS = {"keyword": {"ndcg@10": 0.68, "recall@100": 0.92}}
PUBLISHED = {
    "BM25 (Anserini)": {"ndcg@10": 0.679},
    "BM25 (bm25s)": {"ndcg@10": 0.687},
    "FTS5 BM25 porter (measured by data curator)": {"ndcg@10": 0.687, "recall@100": 0.925},
    "all-MiniLM-L6-v2": {"ndcg@10": 0.645},
    "e5-small-v2": {"ndcg@10": 0.689},
    "bge-small-en-v1.5": {"ndcg@10": 0.713},
}


def main() -> None:
    parser = base_parser(__doc__ or NAME)
    parser.add_argument(
        "--max-results",
        type=int,
        default=200,
        help="chunks requested per query (default 200, the most a search returns: an abstract"
        " is one chunk or several, and R@100 counts the first 100 abstracts, ranked by their"
        " best chunk; 100 chunks named about 84)",
    )
    args = parser.parse_args()
    dataset = load_beir(data_dir(args.data) / "scifact")
    with tempfile.TemporaryDirectory(prefix="memdir-scifact-") as tmp:
        figures, results = run_beir(dataset, Path(tmp), args, args.max_results)

    goals = GOALS.get(args.mode, {})
    figures["goals"] = {m: {"target": t, "met": figures[m] >= t} for m, t in goals.items()}
    payload = {
        "benchmark": NAME,
        "figures": figures,
        "published": PUBLISHED,
        "settings": settings(args, document_format="# <title>\\n\\n<abstract>\\n"),
        "environment": environment(),
    }
    stem = results_path(NAME, args).stem
    write_per_query(
        stem,
        (
            {
                "query_id": r.query_id,
                "relevant": sorted(dataset.qrels[r.query_id]),
                "top10": r.ranked[:10],
                "ms": round(r.seconds * 1000, 3),
            }
            for r in results
        ),
    )

    idx = figures["index"]
    lat = figures["latency"]
    print(f"SciFact ({args.mode}): {figures['queries']} queries, {figures['documents']} docs")
    print(f"index: {idx['chunks']} chunks in {idx['seconds']:.2f} s\n")
    print_table(
        ["system", "nDCG@10", "MRR@10", "R@100", "p50 ms", "p95 ms"],
        [
            [
                f"memdir {args.mode}",
                figures["ndcg@10"],
                figures["mrr@10"],
                figures["recall@100"],
                lat["p50_ms"],
                lat["p95_ms"],
            ],
            *[
                [name, p.get("ndcg@10", "-"), "-", p.get("recall@100", "-"), "-", "-"]
                for name, p in PUBLISHED.items()
            ],
        ],
    )
    for metric, goal in figures["goals"].items():
        print(f"goal {metric} ≥ {goal['target']}: {'met' if goal['met'] else 'MISSED'}")
    write_results(results_path(NAME, args), payload)


if __name__ == "__main__":
    main()
