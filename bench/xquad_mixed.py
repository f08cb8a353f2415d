"""XQuAD in a bilingual memory: half the paragraphs stored in English, half in Chinese.

    python bench/xquad_mixed.py --lang en|zh [--mode keyword|hybrid|vector] [--provider none|local]

A user who keeps notes in both languages asks in one of them. The store holds the first 24
XQuAD articles' paragraphs in English and the other 24 articles' in Chinese (the corpora are
translations of each other, paragraph for paragraph), so every question has exactly one
answer, stored either in its own language or in the other one. Scores are reported apart for
the two kinds of question: nDCG@10, recall, what the default ``search.min_score`` keeps, and
how often a paragraph of another article (a wrong answer) still clears it.

Writes ``bench/results/xquad-mixed-<lang>[-<mode>].json``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from common import (
    BeirDataset,
    at_min_score,
    base_parser,
    beir_scores,
    data_dir,
    environment,
    kept_at_floor,
    load_beir,
    print_table,
    results_path,
    run_beir,
    settings,
    write_results,
)

NAME = "xquad-mixed"
SPLIT = 120  # paragraphs [0, 120) = articles 1-24, kept in English; the rest in Chinese


def mixed_dataset(root: Path, lang: str) -> tuple[BeirDataset, dict[str, str], dict[str, int]]:
    """The bilingual store and ``lang``'s questions; also {query id: "same" | "cross"} and
    {doc id: article number} (XQuAD: 48 articles of 5 paragraphs, in corpus order)."""
    en, zh = load_beir(root / "beir_en"), load_beir(root / "beir_zh")
    order = {name: list(ds.corpus) for name, ds in (("en", en), ("zh", zh))}
    corpus = {d: en.corpus[d] for d in order["en"][:SPLIT]}
    corpus |= {d: zh.corpus[d] for d in order["zh"][SPLIT:]}
    asked = en if lang == "en" else zh
    position = {d: i for i, d in enumerate(order[lang])}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    kind: dict[str, str] = {}
    for qid, text in asked.queries.items():
        (doc,) = asked.qrels[qid]  # one paragraph answers each XQuAD question
        i = position[doc]
        stored_lang = "en" if i < SPLIT else "zh"
        stored = order[stored_lang][i]
        queries[qid] = text
        qrels[qid] = {stored: 1}
        kind[qid] = "same" if stored_lang == lang else "cross"
    article = {d: i // 5 for ids in order.values() for i, d in enumerate(ids)}
    return BeirDataset(corpus=corpus, queries=queries, qrels=qrels), kind, article


def main() -> None:
    parser = base_parser(__doc__ or NAME)
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    parser.add_argument("--max-results", type=int, default=100, help="chunks requested per query")
    args = parser.parse_args()
    name = f"{NAME}-{args.lang}"
    dataset, kind, article = mixed_dataset(data_dir(args.data) / "xquad", args.lang)
    with tempfile.TemporaryDirectory(prefix=f"memdir-{name}-") as tmp:
        figures, results = run_beir(dataset, Path(tmp), args, args.max_results)
    floor = figures["at_default_min_score"]["min_score"]
    rows = []
    for group in ("same", "cross"):
        subset = [r for r in results if kind[r.query_id] == group]
        scores = beir_scores(subset, dataset.qrels)
        kept = at_min_score(subset, dataset.qrels, floor)
        # A wrong answer shown: among the 6 results a default search returns, a paragraph of
        # another article that clears the floor.
        wrong = sum(
            1
            for r in subset
            if any(
                k and article[d] != article[next(iter(dataset.qrels[r.query_id]))]
                for d, k in list(
                    zip(
                        r.ranked, kept_at_floor(r.scores, r.best, floor, r.floor_share), strict=True
                    )
                )[:6]
            )
        )
        kept["other_article_above_floor"] = round(wrong / max(1, len(subset)), 4)
        figures[f"{group}_language"] = {
            "queries": len(subset),
            **scores,
            "at_default_min_score": kept,
        }
        rows.append(
            [
                group,
                len(subset),
                scores["ndcg@10"],
                scores["recall@10"],
                kept["ndcg@10"],
                kept["recall@10"],
                kept["other_article_above_floor"],
            ]
        )
    payload = {
        "benchmark": name,
        "figures": figures,
        "settings": settings(
            args, document_format="<paragraph>\\n; paragraphs 1-120 English, 121-240 Chinese"
        ),
        "environment": environment(),
    }
    write_results(results_path(name, args), payload)
    headers = ["answer", "queries", "nDCG@10", "R@10", f"nDCG@10 ≥{floor}", f"R@10 ≥{floor}"]
    print_table([*headers, "wrong shown"], rows)


if __name__ == "__main__":
    main()
