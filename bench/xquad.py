"""XQuAD as retrieval (MTEB XQuADRetrieval layout): 240 paragraphs, ~1,190 questions, one file each.

    python bench/xquad.py --lang en|zh [--mode keyword|hybrid|vector] [--provider none|local] [--limit N]

Writes ``bench/results/xquad-<lang>[-<mode>].json``. Goal: zh keyword nDCG@10 ≥ .95.
Published nDCG@10 — en: BM25 .965, e5-small-v2 .970; zh: whitespace BM25 .121,
FTS5 with CJK unigram+bigram tokens .966, multilingual-e5-large .964.
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

NAME = "xquad"
GOALS = {("zh", "keyword"): {"ndcg@10": 0.95}}
PUBLISHED = {
    "en": {
        "BM25": {"ndcg@10": 0.965},
        "all-MiniLM-L6-v2": {"ndcg@10": 0.944},
        "e5-small-v2": {"ndcg@10": 0.970},
    },
    "zh": {
        "BM25, whitespace tokens": {"ndcg@10": 0.121},
        "FTS5, CJK unigram+bigram (measured by data curator)": {"ndcg@10": 0.966},
        "paraphrase-multilingual-MiniLM-L12": {"ndcg@10": 0.852},
        "multilingual-e5-large": {"ndcg@10": 0.964},
    },
}


def main() -> None:
    parser = base_parser(__doc__ or NAME)
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--max-results", type=int, default=100, help="chunks requested per query")
    args = parser.parse_args()
    name = f"{NAME}-{args.lang}"
    dataset = load_beir(data_dir(args.data) / "xquad" / f"beir_{args.lang}")
    with tempfile.TemporaryDirectory(prefix=f"memdir-{name}-") as tmp:
        figures, results = run_beir(dataset, Path(tmp), args, args.max_results)

    goals = GOALS.get((args.lang, args.mode), {})
    figures["goals"] = {m: {"target": t, "met": figures[m] >= t} for m, t in goals.items()}
    payload = {
        "benchmark": name,
        "figures": figures,
        "published": PUBLISHED[args.lang],
        "settings": settings(args, document_format="<paragraph>\\n (titles are empty)"),
        "environment": environment(),
    }
    stem = results_path(name, args).stem
    write_per_query(
        stem,
        (
            {
                "query_id": r.query_id,
                "query": dataset.queries[r.query_id],
                "relevant": sorted(dataset.qrels[r.query_id]),
                "rank": next(
                    (i + 1 for i, d in enumerate(r.ranked) if d in dataset.qrels[r.query_id]),
                    None,
                ),
                "hits": r.hits,
                "ms": round(r.seconds * 1000, 3),
            }
            for r in results
        ),
    )

    idx = figures["index"]
    lat = figures["latency"]
    print(
        f"XQuAD {args.lang} ({args.mode}): {figures['queries']} queries, {figures['documents']} docs"
    )
    print(f"index: {idx['chunks']} chunks in {idx['seconds']:.2f} s\n")
    print_table(
        ["system", "nDCG@10", "MRR@10", "R@1", "R@10", "p50 ms", "p95 ms"],
        [
            [
                f"memdir {args.mode}",
                figures["ndcg@10"],
                figures["mrr@10"],
                figures["recall@1"],
                figures["recall@10"],
                lat["p50_ms"],
                lat["p95_ms"],
            ],
            *[
                [label, p["ndcg@10"], "-", "-", "-", "-", "-"]
                for label, p in PUBLISHED[args.lang].items()
            ],
        ],
    )
    for metric, goal in figures["goals"].items():
        print(f"goal {metric} ≥ {goal['target']}: {'met' if goal['met'] else 'MISSED'}")
    write_results(results_path(name, args), payload)


if __name__ == "__main__":
    main()
