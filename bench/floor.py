"""How well does ``search.min_score`` separate real matches from queries memory cannot answer?

Two rates, measured over a sweep of floors, at the default settings otherwise (6 results):

* **true pass**: a question asked of the store that holds its answer — LoCoMo questions of
  their own conversation (daily-file view, as users run it), XQuAD questions of the paragraphs
  in the same language and, cross-lingually, of the *other* language's paragraphs (the XQuAD
  corpora are translations of each other). It passes when a result that contains the answer
  scores at or above the floor. Questions whose answer is not retrieved at all (top 6, no floor)
  are counted separately: no floor can help them.
* **false pass**: a question asked of a store that never mentions its subject — each LoCoMo
  conversation's questions against the next conversation's store, and XQuAD questions against a
  LoCoMo store. It passes (wrongly) when the search answers at that floor.

Whether a search answers is judged as memdir judges it: by ``SearchResponse.best_score``, the
best result's score without the lift a chunk's best line gives it (``embedding.line_vectors``),
against ``SearchResponse.floor_share`` of the floor (half of it in keyword search when memory
holds every word of the question). A true pass needs both that and the answer's own result at
or above that share of the floor.

The recommended floor maximises true pass − false pass (Youden's J) for the given mode.

    python bench/floor.py --mode hybrid --provider local
    python bench/floor.py --mode keyword
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (
    Store,
    base_parser,
    beir_workspace,
    data_dir,
    environment,
    load_beir,
    print_table,
    results_path,
    settings,
    store_overrides,
    write_results,
)
from locomo import load_locomo, write_daily_workspace

FLOORS = [round(i / 100, 2) for i in range(0, 91)]
MAX_RESULTS = 6


def _judged(store: Store, score: float) -> float:
    """``score`` on the scale of the floor the last search was judged against: a search whose
    best result must reach only a share of the floor (``SearchResponse.floor_share``) passes a
    floor when ``score`` / that share reaches it."""
    return score / store.last_floor_share if store.last_floor_share > 0 else 1.0


def _rates(true_scores: list[float], false_scores: list[float]) -> list[dict[str, float]]:
    rows = []
    for f in FLOORS:
        tp = sum(1 for s in true_scores if s >= f) / max(1, len(true_scores))
        fp = sum(1 for s in false_scores if s >= f) / max(1, len(false_scores))
        rows.append(
            {
                "floor": f,
                "true_pass": round(tp, 4),
                "false_pass": round(fp, 4),
                "j": round(tp - fp, 4),
            }
        )
    return rows


def _locomo_stores(
    root: Path, data: Path, overrides: dict[str, Any], mode: str, limit: int | None
) -> dict[str, Any]:
    conversations, _ = load_locomo(data / "locomo" / "locomo10.json")
    if limit:
        conversations = conversations[: max(2, limit)]
    layouts = {}
    for conv in conversations:
        layouts[conv.sample_id] = write_daily_workspace(root / conv.sample_id, conv)
    return {"conversations": conversations, "layouts": layouts}


def main() -> None:
    parser = base_parser(__doc__ or "")
    args = parser.parse_args()
    data = data_dir(args.data)
    overrides = store_overrides(args)
    true_scores: dict[str, list[float]] = {
        "locomo": [],
        "xquad-en": [],
        "xquad-zh": [],
        "xquad-en→zh": [],
        "xquad-zh→en": [],
    }
    false_scores: dict[str, list[float]] = {"locomo→other": [], "xquad→locomo": []}
    unretrieved: dict[str, int] = dict.fromkeys(true_scores, 0)
    with tempfile.TemporaryDirectory(prefix="memdir-floor-") as tmp:
        root = Path(tmp)
        lo = _locomo_stores(root / "locomo", data, overrides, args.mode, args.limit)
        convs = lo["conversations"]
        stores = {
            c.sample_id: Store(root / "locomo" / c.sample_id, overrides, args.mode, refresh=False)
            for c in convs
        }
        for store in stores.values():
            store.sync()
        for i, conv in enumerate(convs):
            own = stores[conv.sample_id]
            other = stores[convs[(i + 1) % len(convs)].sample_id]
            layout = lo["layouts"][conv.sample_id]
            questions = [q for q in conv.questions if q.evidence and q.category != 5]
            if args.limit:
                questions = questions[: args.limit * 10]
            for q in questions:
                where = [layout.location[e] for e in q.evidence if e in layout.location]
                hits = own.search(q.text, MAX_RESULTS)
                good = [
                    h.score
                    for h in hits
                    if any(p == h.path and h.start_line <= ln <= h.end_line for p, ln in where)
                ]
                if good:
                    true_scores["locomo"].append(_judged(own, min(max(good), own.last_best_score)))
                else:
                    unretrieved["locomo"] += 1
                other.search(q.text, MAX_RESULTS)
                false_scores["locomo→other"].append(_judged(other, other.last_best_score))
        xq = {lang: load_beir(data / "xquad" / f"beir_{lang}") for lang in ("en", "zh")}
        xstores = {}
        for lang, ds in xq.items():
            paths = beir_workspace(root / f"xquad-{lang}", ds.corpus)
            xstores[lang] = (
                Store(root / f"xquad-{lang}", overrides, args.mode, refresh=False),
                paths,
            )
            xstores[lang][0].sync()
        any_locomo = stores[convs[0].sample_id]
        for qlang, ds in xq.items():
            queries = list(ds.queries.items())
            if args.limit:
                queries = queries[: args.limit * 20]
            for qid, text in queries:
                for clang in ("en", "zh"):
                    # Question ids are shared across the translations: the other language's
                    # qrels name the translated paragraph (each corpus has its own doc ids).
                    relevant = {d for d, g in xq[clang].qrels.get(qid, {}).items() if g > 0}
                    store, paths = xstores[clang]
                    hits = store.search(text, MAX_RESULTS)
                    good = [h.score for h in hits if paths.get(h.path) in relevant]
                    key = f"xquad-{qlang}" if qlang == clang else f"xquad-{qlang}→{clang}"
                    if good:
                        true_scores[key].append(
                            _judged(store, min(max(good), store.last_best_score))
                        )
                    else:
                        unretrieved[key] += 1
                any_locomo.search(text, MAX_RESULTS)
                false_scores["xquad→locomo"].append(_judged(any_locomo, any_locomo.last_best_score))
        for store in stores.values():
            store.__exit__(None, None, None)
        for store, _ in xstores.values():
            store.__exit__(None, None, None)
    all_true = [s for v in true_scores.values() for s in v]
    all_false = [s for v in false_scores.values() for s in v]
    curve = _rates(all_true, all_false)
    best = max(curve, key=lambda r: (r["j"], -r["floor"]))
    per_set = {
        name: {
            "n": len(v),
            "unretrieved": unretrieved.get(name, 0),
            "pass_at": {
                str(f): round(sum(1 for s in v if s >= f) / max(1, len(v)), 4)
                for f in (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
            },
        }
        for name, v in {**true_scores, **false_scores}.items()
    }
    payload = {
        "benchmark": "floor",
        "figures": {"recommended_floor": best, "per_set": per_set, "curve": curve},
        "settings": settings(args, max_results=MAX_RESULTS),
        "environment": environment(),
    }
    write_results(results_path("floor", args), payload)
    print_table(
        ["set", "n", "unretrieved", "≥.25", "≥.30", "≥.35", "≥.40", "≥.45"],
        [
            [
                k,
                v["n"],
                v["unretrieved"],
                v["pass_at"]["0.25"],
                v["pass_at"]["0.3"],
                v["pass_at"]["0.35"],
                v["pass_at"]["0.4"],
                v["pass_at"]["0.45"],
            ]
            for k, v in per_set.items()
        ],
    )
    print(f"recommended floor (max true−false): {best}")


if __name__ == "__main__":
    main()
