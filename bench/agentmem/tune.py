"""Both tuning halves in one line: how a change moves keyword and hybrid search.

    python bench/agentmem/tune.py TAG [--set KEY=VALUE] [--constant MODULE.NAME=VALUE]
                                      [--systems keyword,hybrid] [--against TAG]

Runs ``run.py --split tune`` on the engineer's and the designer's memory side by side (two
processes: the machine has two cores), writes each to ``<dir>/TAG-engineer.json`` and
``<dir>/TAG-designer.json`` (``--dir``, default a folder in the system's temporary directory)
and prints one line: hit@1 / R@5 / MRR@10 and negatives answered with nothing, per memory and
system, at the floor. ``--against`` names an earlier tag to compare with question by question
(``diff.py``). Options after the tag other than these are passed to ``run.py`` as they are, so
that a sweep is a loop over one command:

    for v in 0.1 0.2 0.3; do
        python bench/agentmem/tune.py bonus$v --constant search.keyword.HEADING_BONUS=$v \\
            --against base
    done

Only the tuning halves: the test halves are run once, after a change is kept.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from check import MEMORIES  # noqa: E402  (the hand-written memories, engineer's first)


def _line(tag: str, outs: dict[str, Path], systems: list[str]) -> str:
    parts = [tag]
    for memory, path in outs.items():
        results: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))["results"]
        for system in systems:
            if system not in results:
                continue
            figures = results[system]["all"]
            negatives = figures.get("negatives_empty")
            shown = f"{figures['hit1']:.3f}/{figures['r5']:.3f}/{figures['mrr10']:.3f}"
            if negatives is not None:
                shown += f" neg {negatives:.2f}"
            parts.append(f"{memory[:3]}-{system} {shown}")
    return " | ".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tag", help="name of this run (files TAG-engineer.json, TAG-designer.json)")
    parser.add_argument("--systems", default="keyword,hybrid")
    parser.add_argument("--against", default=None, metavar="TAG", help="compare with this run")
    parser.add_argument(
        "--dir",
        type=Path,
        default=Path(tempfile.gettempdir()) / "memdir-agentmem-tune",
        help="where the runs are written (default: %(default)s)",
    )
    args, passed = parser.parse_known_args()
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    args.dir.mkdir(parents=True, exist_ok=True)
    outs = {memory: args.dir / f"{args.tag}-{memory}.json" for memory in MEMORIES}
    runs = []
    for memory, out in outs.items():
        command = [
            sys.executable,
            str(HERE / "run.py"),
            "--memory",
            memory,
            "--split",
            "tune",
            "--systems",
            ",".join(systems),
            "--out",
            str(out),
            *passed,
        ]
        runs.append(
            (
                memory,
                subprocess.Popen(
                    command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
                ),
            )
        )
    failed = False
    for memory, run in runs:
        _, err = run.communicate()
        if run.returncode:
            failed = True
            print(f"error: run.py on the {memory}'s memory failed:\n{err.strip()}", file=sys.stderr)
    if failed:
        return 1
    print(_line(args.tag, outs, systems))
    if args.against:
        for memory, out in outs.items():
            before = args.dir / f"{args.against}-{memory}.json"
            if not before.exists():
                print(
                    f"error: no run {args.against!r} of the {memory}'s memory in {args.dir}",
                    file=sys.stderr,
                )
                return 1
            shown = subprocess.run(
                [
                    sys.executable,
                    str(HERE / "diff.py"),
                    str(before),
                    str(out),
                    "--systems",
                    ",".join(systems),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            print(f"== {memory}")
            print(shown.stdout.rstrip())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
