"""Issue #11's rule for exact matches, checked on the agent-memory bench: "a note containing every
rare term of the question ranks in the top 3 in every mode".

    python bench/agentmem/named.py [--memory engineer|designer] [--split tune|test|all]

The rare terms of a question are the identifiers it names that memory holds (``OPS-1324``,
``max_inflight``, ``INV-2026-08-00417``: what memdir searches as a phrase and weighs double).
For every question with at least one chunk naming all of them, the script asks each mode
(keyword, vector, hybrid; no score floor) for its first three results and counts the questions
where none of them is such a chunk. Writes ``bench/results/agentmem[-designer]-named-<split>.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


from check import MEMORIES, add_memory_option, load, results_name  # noqa: E402
from probes import chunk_bodies, chunks_holding, indexed_copy, write_probe  # noqa: E402

from common import RESULTS_DIR, print_table  # noqa: E402
from memdir.search.keyword import is_identifier_term  # noqa: E402
from memdir.text import fts_query_terms  # noqa: E402

MODES = ("keyword", "vector", "hybrid")
TOP = 3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_memory_option(parser)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="tune")
    parser.add_argument("--provider", default="local")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    _, questions_file = MEMORIES[args.memory]
    questions = [q for q in load(questions_file) if args.split == "all" or q["split"] == args.split]
    checked = 0
    missed: dict[str, list[str]] = {mode: [] for mode in MODES}
    with indexed_copy(args.memory, args.provider, "memdir-named-") as (_, mem):
        chunks = chunk_bodies(mem)
        for q in questions:
            names = [t for t in fts_query_terms(q["question"]) if is_identifier_term(t)]
            naming = chunks_holding(chunks, names)
            if not naming:
                continue
            checked += 1
            for mode in MODES:
                hits = mem.search(
                    q["question"], max_results=TOP, min_score=0.0, mode=mode, refresh=False
                ).results
                if not {(h.path, h.start_line) for h in hits} & naming:
                    missed[mode].append(q["id"])
    rows = [[mode, checked, len(missed[mode]), ", ".join(missed[mode])] for mode in MODES]
    print(
        f"{checked} questions of {len(questions)} ({args.split}) have a chunk naming every identifier"
    )
    print_table(["mode", "questions", f"none in top {TOP}", "ids"], rows)
    out = args.out or RESULTS_DIR / f"{results_name(args.memory, 'named')}-{args.split}.json"
    write_probe(
        out,
        "agentmem-named",
        args.memory,
        args.provider,
        {"split": args.split, "questions": checked, "top": TOP, "missed": missed},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
