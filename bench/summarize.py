"""Print the headline figures of the keyword results in ``bench/results/`` as one table.

python bench/summarize.py [--results DIR]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from common import RESULTS_DIR, JsonDict, fmt, print_table


def load(folder: Path, name: str) -> JsonDict | None:
    path = folder / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def goal_text(figures: JsonDict) -> str:
    goals = figures.get("goals", {})
    return ", ".join(f"{k} {'met' if g['met'] else 'MISSED'}" for k, g in goals.items())


def rows(folder: Path) -> list[list[object]]:
    out: list[list[object]] = []
    for name in ("scifact", "xquad-en", "xquad-zh"):
        data = load(folder, name)
        if data:
            f = data["figures"]
            out.append(
                [
                    name,
                    f"nDCG@10 {fmt(f['ndcg@10'])}  R@10 {fmt(f['recall@10'])}"
                    f"  R@100 {fmt(f['recall@100'])}",
                    f"p50 {f['latency']['p50_ms']:.1f} / p95 {f['latency']['p95_ms']:.1f} ms",
                    goal_text(f),
                ]
            )
    for name in ("locomo-turns", "locomo-turns-nodate", "locomo-daily"):
        data = load(folder, name)
        if data:
            f = data["figures"]
            overall = f["all"]["overall"]
            metrics = "  ".join(f"{k} {v:.1f}" for k, v in overall.items() if k != "n")
            out.append(
                [
                    name,
                    metrics,
                    f"p50 {f['latency']['p50_ms']:.1f} / p95 {f['latency']['p95_ms']:.1f} ms",
                    "",
                ]
            )
    data = load(folder, "scale")
    if data:
        f = data["figures"]
        out.append(
            [
                "scale",
                f"{f['full_index']['chunks']} chunks in {f['full_index']['seconds']:.1f} s;"
                f" edit sync {f['sync']['incremental']['median_ms']:.0f} ms",
                f"p50 {f['search']['all']['p50_ms']:.1f} / p95 {f['search']['all']['p95_ms']:.1f} ms",
                goal_text(f),
            ]
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--results", type=Path, default=RESULTS_DIR)
    args = parser.parse_args()
    print_table(["benchmark", "quality / work", "query latency", "goals"], rows(args.results))


if __name__ == "__main__":
    main()
