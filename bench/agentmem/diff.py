"""Compare two runs of the agent-memory bench question by question.

    python bench/agentmem/diff.py BEFORE.json AFTER.json [--systems hybrid,keyword] [--no-floor]

BEFORE and AFTER are files ``run.py`` wrote (``--out``). On this bench a change is mostly
worth a question or two either way, which the averages hide: for each system in both files
this prints every question whose first gold hit moved (rank 1-10, ``-`` for none in the first
ten) and every negative question that went from answered to empty or back, then counts them:
how many questions reached or left the first place and the first five. Exits 1 when a file
cannot be compared (not a run of this bench, another memory or split, or written before ranks
per question were recorded).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check import MEMORIES, load  # noqa: E402

Ranks = dict[str, int | None]


def _load(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"error: cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or data.get("benchmark") != "agentmem":
        raise SystemExit(f"error: {path} is not a results file of bench/agentmem/run.py")
    return data


def _ranks(data: dict[str, Any], system: str, path: Path, no_floor: bool) -> Ranks | None:
    entry = data["results"].get(system)
    if entry is None:
        return None
    if no_floor:
        entry = entry.get("no_floor")
        if entry is None:
            return None
    ranks = entry.get("per_question")
    if ranks is None:
        raise SystemExit(
            f"error: {path} has no ranks per question for {system}; rerun run.py to write them"
        )
    return dict(ranks)


def _show(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def compare(
    before: Ranks, after: Ranks, questions: dict[str, dict[str, Any]]
) -> tuple[list[str], dict[str, int]]:
    """The lines describing each changed question, and the counts of the moves."""
    lines: list[str] = []
    counts = dict.fromkeys(
        ("first_gained", "first_lost", "top5_gained", "top5_lost", "empty_gained", "empty_lost"),
        0,
    )
    for qid in sorted(set(before) & set(after)):
        old, new = before[qid], after[qid]
        if old == new:
            continue
        q = questions.get(qid, {})
        label = f"{qid} {q.get('type', '?')}/{q.get('lang', '?')}"
        text = q.get("question", "")
        if q.get("type") == "negative":
            if bool(old) == bool(new):
                continue  # answered either way, only the number of results changed
            counts["empty_gained" if not new else "empty_lost"] += 1
            was = "empty" if not old else f"answered ({old})"
            now = "empty" if not new else f"answered ({new})"
            lines.append(f"  {label:<24} {was} → {now}  {text}")
            continue
        for key, limit in (("first", 1), ("top5", 5)):
            had = old is not None and old <= limit
            has = new is not None and new <= limit
            if had != has:
                counts[f"{key}_gained" if has else f"{key}_lost"] += 1
        lines.append(f"  {label:<24} {_show(old):>2} → {_show(new):<2}  {text}")
    return lines, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--systems", default=None, help="systems to compare (default: all shared)")
    parser.add_argument(
        "--no-floor", action="store_true", help="compare the memdir runs without the score floor"
    )
    args = parser.parse_args()
    before, after = _load(args.before), _load(args.after)
    if before.get("memory", "engineer") != after.get("memory", "engineer"):
        raise SystemExit(
            f"error: {args.before} is a run on the {before.get('memory', 'engineer')} memory and"
            f" {args.after} on the {after.get('memory', 'engineer')} memory"
        )
    if before.get("split") != after.get("split"):
        raise SystemExit(
            f"error: {args.before} is the {before.get('split')} split and {args.after}"
            f" the {after.get('split')} split"
        )
    shared = [s for s in before["results"] if s in after["results"]]
    systems = [s.strip() for s in args.systems.split(",")] if args.systems else shared
    unknown = [s for s in systems if s not in shared]
    if unknown:
        raise SystemExit(f"error: --systems {unknown} not in both files; they share {shared}")
    memory = before.get("memory", "engineer")
    questions = {q["id"]: q for q in load(MEMORIES[memory][1])}
    for system in systems:
        old = _ranks(before, system, args.before, args.no_floor)
        new = _ranks(after, system, args.after, args.no_floor)
        if old is None or new is None:
            continue  # fts5 and grep have no run without a floor
        lines, c = compare(old, new, questions)
        print(
            f"{system}: first place +{c['first_gained']} −{c['first_lost']},"
            f" top 5 +{c['top5_gained']} −{c['top5_lost']},"
            f" negatives empty +{c['empty_gained']} −{c['empty_lost']}"
        )
        print("\n".join(lines) if lines else "  no question changed")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # piped into head: stop quietly
        sys.stderr.close()
        sys.exit(0)
