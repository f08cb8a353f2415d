"""How keyword and vector candidates should be merged: LoCoMo turns, one pass, many weightings.

    python bench/locomo_fusion.py [--provider local] [--weights 0.2,0.3,…] [--limit N]

For every question the script asks memdir once for the keyword candidates and once for the
vector candidates (the 200 each that a hybrid search for 50 results considers, with their
0–1 scores), then replays the hybrid merge of ``memdir.search.hybrid.merge`` offline for each
vector weight (text weight = 1 − vector weight), with fixed weights and with
``search.adaptive_weights`` (the keyword weight scaled by the query's coverage), and reports turn recall R@5/10/25/50, overall
and per category, next to keyword-only, vector-only and DRAGON. Ties are broken by path as
memdir does. Embeddings come from the shared bench cache (``bench/.cache/embeddings.sqlite``),
so after one ``locomo.py --mode hybrid`` run this takes minutes, not an hour.

Writes ``bench/results/locomo-fusion.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from common import (
    JsonDict,
    Store,
    base_parser,
    data_dir,
    environment,
    mean,
    print_table,
    results_path,
    settings,
    store_overrides,
    unique,
    write_results,
)
from locomo import (
    CATEGORIES,
    TURN_KS,
    load_locomo,
    published_turn_rows,
    write_turn_workspace,
)
from memdir.search.engine import SearchSettings, _text_weight
from memdir.search.hybrid import merge

CANDIDATES = 200  # max(TURN_KS) × the default candidate multiplier of 4


def candidates(store: Store, query: str, mode: str) -> list[tuple[int, str, float]]:
    """(chunk id stand-in, path, score) of the ``CANDIDATES`` best chunks in one mode."""
    mem = store._mem  # the bench needs the scores the Hit view drops
    response = mem.search(query, max_results=CANDIDATES, min_score=0.0, mode=mode, refresh=False)
    if response.mode != mode:
        raise SystemExit(f"asked for {mode} search, got {response.mode}: {response.warnings}")
    return [(i, r.path, float(r.score)) for i, r in enumerate(response.results)]


def replay(
    vec: Sequence[tuple[int, str, float]],
    kw: Sequence[tuple[int, str, float]],
    vector_weight: float,
    adaptive: bool,
) -> list[str]:
    """Paths in the order a hybrid search with these weights returns them."""
    ids: dict[str, int] = {}
    for _, path, _ in [*vec, *kw]:
        ids.setdefault(path, len(ids))
    path_of = {i: p for p, i in ids.items()}
    keyword_hits = [(ids[p], s) for _, p, s in kw]
    settings = SearchSettings(
        vector_weight=vector_weight, text_weight=1 - vector_weight, adaptive_weights=adaptive
    )
    merged = merge(
        [(ids[p], s) for _, p, s in vec],
        keyword_hits,
        vector_weight=vector_weight,
        text_weight=_text_weight(settings, keyword_hits),
    )
    merged.sort(key=lambda c: (-c.score, path_of[c.chunk_id]))
    return [path_of[c.chunk_id] for c in merged[: max(TURN_KS)]]


def recall(ranked: Sequence[str], wanted: set[str]) -> dict[str, float]:
    return {f"R@{k}": len(wanted & set(ranked[:k])) / len(wanted) for k in TURN_KS}


def summarise(rows: Sequence[tuple[int, dict[str, float]]]) -> JsonDict:
    def avg(chosen: Sequence[dict[str, float]]) -> JsonDict:
        return {
            "n": len(chosen),
            **{f"R@{k}": round(100 * mean([r[f"R@{k}"] for r in chosen]), 1) for k in TURN_KS},
        }

    return {
        "overall": avg([r for _, r in rows]),
        "per_category": {
            f"{c} {name}": avg([r for cat, r in rows if cat == c]) for c, name in CATEGORIES.items()
        },
    }


def main() -> None:
    parser = base_parser(__doc__ or "locomo_fusion")
    parser.set_defaults(mode="hybrid", provider="local")
    parser.add_argument(
        "--weights",
        default="0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,1.0",
        help="vector weights to replay (text weight = 1 - vector weight)",
    )
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="also write every question's candidates (JSON lines)",
    )
    args = parser.parse_args()
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    weights = [float(w) for w in args.weights.split(",")]
    root = data_dir(args.data) / "locomo"
    conversations, _ = load_locomo(root / "locomo10.json")
    anchors = json.loads((root.parent / "anchors.json").read_text(encoding="utf-8"))
    if args.limit is not None:
        conversations = conversations[: args.limit]

    per_weight: dict[float, list[tuple[int, dict[str, float]]]] = {w: [] for w in weights}
    adaptive: dict[float, list[tuple[int, dict[str, float]]]] = {w: [] for w in weights}
    keyword_only: list[tuple[int, dict[str, float]]] = []
    vector_only: list[tuple[int, dict[str, float]]] = []
    for conv in conversations:
        with tempfile.TemporaryDirectory(prefix=f"memdir-fusion-{conv.sample_id}-") as tmp:
            workspace = Path(tmp)
            path_to_turn: Mapping[str, str] = write_turn_workspace(workspace, conv, True)
            with Store(workspace, store_overrides(args), "hybrid", refresh=False) as store:
                store.sync()
                for q in conv.questions:
                    if not q.evidence:
                        continue
                    wanted = set(q.evidence)
                    vec = candidates(store, q.text, "vector")
                    kw = candidates(store, q.text, "keyword")

                    def turns(
                        paths: Sequence[str], m: Mapping[str, str] = path_to_turn
                    ) -> list[str]:
                        return unique(m[p] for p in paths if p in m)

                    if dump is not None:
                        record = {"qid": q.qid, "category": q.category, "evidence": q.evidence}
                        record["vector"] = [(path_to_turn.get(p), s) for _, p, s in vec]
                        record["keyword"] = [(path_to_turn.get(p), s) for _, p, s in kw]
                        dump.write(json.dumps(record) + "\n")
                    keyword_only.append((q.category, recall(turns([p for _, p, _ in kw]), wanted)))
                    vector_only.append((q.category, recall(turns([p for _, p, _ in vec]), wanted)))
                    for w in weights:
                        per_weight[w].append(
                            (q.category, recall(turns(replay(vec, kw, w, False)), wanted))
                        )
                        adaptive[w].append(
                            (q.category, recall(turns(replay(vec, kw, w, True)), wanted))
                        )
        print(f"{conv.sample_id}: {len(conv.questions)} questions")
    if dump is not None:
        dump.close()

    figures: JsonDict = {
        "keyword": summarise(keyword_only),
        "vector": summarise(vector_only),
        "hybrid_by_vector_weight": {str(w): summarise(rows) for w, rows in per_weight.items()},
        "adaptive_by_vector_weight": {str(w): summarise(rows) for w, rows in adaptive.items()},
        "published": published_turn_rows(anchors),
    }
    metrics = [f"R@{k}" for k in TURN_KS]
    rows = [["keyword only", *[figures["keyword"]["overall"][m] for m in metrics]]]
    rows += [["vector only", *[figures["vector"]["overall"][m] for m in metrics]]]
    rows += [
        [f"hybrid, vector weight {w}", *[s["overall"][m] for m in metrics]]
        for w, s in figures["hybrid_by_vector_weight"].items()
    ]
    rows += [
        [f"hybrid, vector weight {w}, adaptive", *[s["overall"][m] for m in metrics]]
        for w, s in figures["adaptive_by_vector_weight"].items()
    ]
    dragon = figures["published"]["DRAGON (LoCoMo paper, Table 3)"]
    rows += [["DRAGON (published)", *[dragon["overall"][m] for m in metrics]]]
    print_table(["system (all questions, %)", *metrics], rows, digits=1)
    cats = list(figures["keyword"]["per_category"])
    print("\nR@5 per category (%)")
    table = [
        ["keyword", *[figures["keyword"]["per_category"][c]["R@5"] for c in cats]],
        ["vector", *[figures["vector"]["per_category"][c]["R@5"] for c in cats]],
        *[
            [f"hybrid {w}", *[s["per_category"][c]["R@5"] for c in cats]]
            for w, s in figures["hybrid_by_vector_weight"].items()
        ],
        *[
            [f"adaptive {w}", *[s["per_category"][c]["R@5"] for c in cats]]
            for w, s in figures["adaptive_by_vector_weight"].items()
        ],
        ["DRAGON", *[dragon["per_category"][c]["R@5"] for c in cats]],
    ]
    print_table(["system", *cats], table, digits=1)
    write_results(
        results_path("locomo-fusion", argparse.Namespace(**{**vars(args), "mode": "keyword"})),
        {
            "benchmark": "locomo-fusion",
            "figures": figures,
            "settings": settings(args, overrides=store_overrides(args)),
            "environment": environment(),
        },
    )


if __name__ == "__main__":
    main()
