"""Probe: do true matches clear the floor in a small memory, as every memory starts?

    python bench/agentmem/small.py [--memory designer] [--split tune] [--others 0,4,16]

Each answerable question of the split is asked (hybrid unless ``--mode keyword``; the default
floor) of a memory made
of the notes holding its answer alone, or with ``k`` other notes of the same memory (chosen by
a seed derived from the question); each question about what memory never mentions is asked of
``k + 1`` notes chosen the same way. It prints, per ``k``: the questions whose true match is in
the first five without the floor, how many of those the floor keeps, the questions about what
memory never mentions answered with nothing, and the median chunks indexed. The full memory's
figures are those of ``run.py`` ("kept", "negatives answered with nothing").

``--telling-lines N`` sets ``memdir.search.keyword.TELLING_LINES`` for the run (0: the rule
before it), to compare the two in one sitting.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from check import MEMORIES, add_memory_option, load, results_name  # noqa: E402
from run import Ranged, _overlaps  # noqa: E402

from common import RESULTS_DIR, environment, write_results  # noqa: E402
from memdir import Memory  # noqa: E402
from memdir.search import keyword  # noqa: E402


def _pick(question: dict[str, Any], files: list[str], k: int) -> list[str]:
    rng = random.Random(f"{question['id']}/{k}")
    if question["type"] == "negative":
        return rng.sample(files, min(k + 1, len(files)))
    gold = sorted({g["path"] for group in question["gold"] for g in group})
    others = [f for f in files if f not in gold]
    return gold + rng.sample(others, min(k, len(others)))


def _ask(
    source: Path, picked: list[str], question: dict[str, Any], provider: str, mode: str
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="memdir-small-") as tmp:
        root = Path(tmp) / "workspace"
        for rel in picked:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source / rel, root / rel)
        with Memory(root, overrides={"embedding.provider": provider}) as mem:
            mem.sync()
            chunks = mem.status()["chunks"]
            text = question["question"]
            bare = mem.search(text, max_results=5, min_score=0, mode=mode, refresh=False)
            floored = mem.search(text, max_results=5, mode=mode, refresh=False)
    golds = [g for group in question.get("gold") or [] for g in group]

    def holds(results: Any) -> bool:
        return any(
            _overlaps(Ranged(r.path, r.start_line, r.end_line), g) for r in results for g in golds
        )

    return {
        "chunks": chunks,
        "found": holds(bare.results),
        "kept": holds(floored.results),
        "empty": not floored.results,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_memory_option(parser)
    parser.add_argument("--split", choices=("tune", "test"), default="tune")
    parser.add_argument("--others", default="0,4,16", help="other notes beside the answer's")
    parser.add_argument("--mode", choices=("hybrid", "keyword"), default="hybrid")
    parser.add_argument(
        "--provider", default=None, help="embedding.provider (local; none in keyword mode)"
    )
    parser.add_argument("--telling-lines", type=int, default=None, metavar="N")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    provider = args.provider or ("none" if args.mode == "keyword" else "local")
    if args.telling_lines is not None:
        keyword.TELLING_LINES = args.telling_lines
    workspace, questions_file = MEMORIES[args.memory]
    questions = [q for q in load(questions_file) if q["split"] == args.split]
    files = sorted(str(p.relative_to(workspace)) for p in workspace.rglob("*.md"))
    figures: dict[str, Any] = {}
    for k in (int(x) for x in args.others.split(",")):
        answers = [_ask(workspace, _pick(q, files, k), q, provider, args.mode) for q in questions]
        asked = list(zip(questions, answers, strict=True))
        found = [a for q, a in asked if q["type"] != "negative" and a["found"]]
        negatives = [a for q, a in asked if q["type"] == "negative"]
        row = {
            "found": len(found),
            "kept": sum(a["kept"] for a in found),
            "kept_share": round(sum(a["kept"] for a in found) / max(1, len(found)), 3),
            "negatives": len(negatives),
            "negatives_empty": round(
                sum(a["empty"] for a in negatives) / max(1, len(negatives)), 3
            ),
            "median_chunks": statistics.median(a["chunks"] for a in answers),
        }
        figures[str(k)] = row
        print(
            f"{k:>3} other notes: {row['kept']} of {row['found']} true matches kept "
            f"({row['kept_share']:.3f}), negatives answered with nothing {row['negatives_empty']:.3f}"
            f", median {row['median_chunks']} chunks",
            flush=True,
        )
    name = "small" if args.mode == "hybrid" else f"small-{args.mode}"
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, name)}-{args.split}.json"
    write_results(
        out,
        {
            "benchmark": "agentmem-small",
            "memory": args.memory,
            "split": args.split,
            "settings": {
                "mode": args.mode,
                "provider": provider,
                "telling_lines": keyword.TELLING_LINES,
            },
            "environment": environment(),
            "figures": figures,
        },
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
