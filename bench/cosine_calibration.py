"""Does a local model share e5-small's cosine calibration (search/vector.py)?

For each XQuAD pair (en→en, zh→zh, en→zh, zh→en: questions against the paragraphs of either
language, the corpora being translations, their questions sharing ids) and each model: the median
raw cosine of a question to its answer's paragraph, the median cosine of the best *other*
paragraph (any paragraph but the answer's, its own article's included: compare models, not
levels), and the cosine that best separates the two (max of answer-pass − other-pass). One
``COSINE_RANGES`` entry serves every pair; the four pairs are a fingerprint of a model's cosine
scale, and models whose figures agree within a few thousandths can share one entry.

    python bench/cosine_calibration.py --models e5-small e5-small-int8
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from embed_models import data_dir, load_beir
from memdir.embed.local import create_local_embedder

BENCH_DIR = Path(__file__).resolve().parent


def separation(true: np.ndarray, false: np.ndarray) -> tuple[float, float]:
    """(the cosine maximising true pass − false pass, that difference)."""
    best = (0.0, -1.0)
    for t in np.unique(np.round(np.concatenate([true, false]), 3)):
        j = float(np.mean(true >= t) - np.mean(false >= t))
        if j > best[1]:
            best = (float(t), j)
    return round(best[0], 3), round(best[1], 3)


def measure(model: str, data: Path) -> dict[str, dict[str, float]]:
    embedder = create_local_embedder(model)
    sets = {lang: load_beir(data / "xquad" / f"beir_{lang}") for lang in ("en", "zh")}
    docs = {lang: embedder.embed_documents(ds.doc_texts) for lang, ds in sets.items()}
    out: dict[str, dict[str, float]] = {}
    for q_lang in ("en", "zh"):
        ds = sets[q_lang]
        qids = [q for q in ds.queries if all(q in sets[d].qrels for d in sets)]
        queries = np.stack([embedder.embed_query(ds.queries[q]) for q in qids])
        for d_lang in ("en", "zh"):
            ids = sets[d_lang].doc_ids
            cos = queries @ docs[d_lang].T
            qrels = sets[d_lang].qrels  # same question ids; paragraph ids per language
            gold = np.array([[d in qrels[q] for d in ids] for q in qids])
            true = np.where(gold, cos, -np.inf).max(axis=1)
            false = np.where(gold, -np.inf, cos).max(axis=1)
            cut, j = separation(true, false)
            out[f"{q_lang}->{d_lang}"] = {
                "answer_p50": round(float(np.median(true)), 3),
                "other_best_p50": round(float(np.median(false)), 3),
                "best_cut": cut,
                "youden_j": j,
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--models", nargs="+", default=["e5-small", "e5-small-int8"])
    parser.add_argument(
        "--out", type=Path, default=BENCH_DIR / "results" / "cosine_calibration-int8.json"
    )
    args = parser.parse_args()
    data = data_dir(args.data)
    result = {model: measure(model, data) for model in args.models}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
