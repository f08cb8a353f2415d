"""The realistic agent-memory benchmark: a hand-written bilingual workspace, graded questions.

    python bench/agentmem/run.py [--memory engineer|designer] [--split tune|test|all]
                                 [--provider local|none] [--set KEY=VALUE]
                                 [--constant MODULE.NAME=VALUE]
                                 [--systems keyword,vector,hybrid,fts5,grep] [--show-misses SYSTEM]

The workspace (``bench/agentmem/workspace/``) is an engineer's agent memory in English, Chinese,
Japanese and a mix of them: daily logs of timed entries, ``MEMORY.md`` with stale and appended
facts, slug files, project, people and meeting notes. ``questions.jsonl`` holds the graded
questions in six types (exact identifier, paraphrase, latest state, cross-lingual, multi-hop,
negative) with gold line ranges (``check.py`` verifies them) and a fixed split: tune on
``tune``, report ``test``. ``--memory designer`` runs on a second memory in another style
(``designer/``: a product designer's bullet-list logs in Japanese, Chinese and English, tables,
front matter), with its own tuning half and a test half that nothing up to its arrival was
tuned on (see ``designer/README.md``).

Systems, all in the same run: memdir keyword / vector / hybrid (through the public API, at the
configured score floor, and again without it), plain FTS5 (``unicode61`` over 400-token
windows, query words OR-ed, no CJK handling) and a naive grep (lines ranked by how many of the
query's words they contain). Metrics per system, type and language: hit@1 (the first result
overlaps a gold range), R@5 (share of gold groups overlapped by the first five), MRR@10,
negatives answered with nothing, and for memdir the share of true matches the floor keeps and
the median number of lines a hit cites. Writes ``bench/results/agentmem[-designer]-<split>.json``
(or ``--out``), with each system's rank of the first gold hit per question: ``diff.py``
compares two such files question by question.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from check import MEMORIES, TYPES, add_memory_option, check, load, results_name  # noqa: E402

from common import (  # noqa: E402
    RESULTS_DIR,
    Store,
    environment,
    parse_overrides,
    print_table,
    set_constants,
    write_results,
)

SYSTEMS = ("keyword", "vector", "hybrid", "fts5", "grep")
K = 10


@dataclass(frozen=True, slots=True)
class Ranged:
    path: str
    start: int
    end: int


# --------------------------------------------------------------------------- metrics


def _overlaps(hit: Ranged, gold: dict[str, Any]) -> bool:
    return hit.path == gold["path"] and hit.start <= gold["end"] and gold["start"] <= hit.end


def _group_rank(hits: Sequence[Ranged], group: Sequence[dict[str, Any]]) -> int | None:
    """1-based rank of the first hit overlapping any alternative of the group."""
    for rank, hit in enumerate(hits, start=1):
        if any(_overlaps(hit, g) for g in group):
            return rank
    return None


def score_question(q: dict[str, Any], hits: Sequence[Ranged]) -> dict[str, Any]:
    hits = list(hits)[:K]
    if q["type"] == "negative":
        return {"negative": True, "empty": not hits, "returned": len(hits)}
    ranks = [_group_rank(hits, group) for group in q["gold"]]
    found = [r for r in ranks if r is not None]
    first = min(found) if found else None
    width = None
    if first is not None:
        hit = hits[first - 1]
        width = hit.end - hit.start + 1
    stale_first = None
    if q["type"] == "latest" and q.get("stale"):
        stale = _group_rank(hits, q["stale"])
        stale_first = stale is not None and (first is None or stale < first)
    return {
        "negative": False,
        "hit1": first == 1,
        "r5": sum(1 for r in ranks if r is not None and r <= 5) / len(ranks),
        "mrr10": 1.0 / first if first is not None else 0.0,
        "empty": not hits,
        "width": width,
        "stale_first": stale_first,
    }


def per_question(
    questions: Sequence[dict[str, Any]], ranked: Sequence[Sequence[Ranged]]
) -> dict[str, int | None]:
    """Per question id: the rank of the first result overlapping a gold range (``None`` when
    none of the first K does); for a negative question, how many results it got (0: empty).
    What ``diff.py`` compares between two runs."""
    out: dict[str, int | None] = {}
    for q, hits in zip(questions, ranked, strict=True):
        hits = list(hits)[:K]
        if q["type"] == "negative":
            out[q["id"]] = len(hits)
            continue
        found = [r for g in q["gold"] if (r := _group_rank(hits, g)) is not None]
        out[q["id"]] = min(found) if found else None
    return out


def summarise(scored: Sequence[dict[str, Any]]) -> dict[str, Any]:
    pos = [s for s in scored if not s["negative"]]
    neg = [s for s in scored if s["negative"]]
    widths = [s["width"] for s in pos if s["width"] is not None]
    out: dict[str, Any] = {"questions": len(scored)}
    if pos:
        out.update(
            hit1=statistics.fmean(float(s["hit1"]) for s in pos),
            r5=statistics.fmean(s["r5"] for s in pos),
            mrr10=statistics.fmean(s["mrr10"] for s in pos),
            answered=statistics.fmean(0.0 if s["empty"] else 1.0 for s in pos),
            median_width=statistics.median(widths) if widths else None,
        )
    if neg:
        out["negatives_empty"] = statistics.fmean(float(s["empty"]) for s in neg)
    stale = [s["stale_first"] for s in pos if s.get("stale_first") is not None]
    if stale:
        out["stale_first"] = statistics.fmean(float(x) for x in stale)
    return out


# --------------------------------------------------------------------------- baselines


def _files(root: Path) -> dict[str, list[str]]:
    out = {}
    for path in sorted(root.rglob("*.md")):
        if any(part.startswith(".") for part in path.relative_to(root).parts):
            continue
        out[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8").splitlines()
    return out


def _windows(lines: list[str], chars: int = 1600, overlap: int = 320) -> list[tuple[int, int]]:
    """Line ranges of ~400-token windows with ~80 tokens of overlap, as a plain indexer cuts."""
    out: list[tuple[int, int]] = []
    start = 0
    while start < len(lines):
        size, end = 0, start
        while end < len(lines) and (end == start or size + len(lines[end]) + 1 <= chars):
            size += len(lines[end]) + 1
            end += 1
        out.append((start + 1, end))
        if end >= len(lines):
            break
        back, kept = end, 0
        while back > start + 1 and kept < overlap:
            back -= 1
            kept += len(lines[back]) + 1
        start = max(back, start + 1)
    return out


class PlainFts:
    """FTS5 with its default tokenizer over plain windows; query words quoted and OR-ed."""

    def __init__(self, files: dict[str, list[str]]) -> None:
        self.db = sqlite3.connect(":memory:")
        self.db.execute(
            "CREATE VIRTUAL TABLE t USING fts5(body, path UNINDEXED, s UNINDEXED, e UNINDEXED)"
        )
        for path, lines in files.items():
            for start, end in _windows(lines):
                body = "\n".join(lines[start - 1 : end])
                self.db.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (body, path, start, end))

    def search(self, query: str) -> list[Ranged]:
        words = list(dict.fromkeys(re.findall(r"\w+", query.lower())))
        if not words:
            return []
        match = " OR ".join('"' + w.replace('"', '""') + '"' for w in words)
        rows = self.db.execute(
            "SELECT path, s, e FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, K)
        ).fetchall()
        return [Ranged(p, int(s), int(e)) for p, s, e in rows]


class NaiveGrep:
    """Each line scored by how many distinct query words it contains (case-insensitive)."""

    def __init__(self, files: dict[str, list[str]]) -> None:
        self.lines = [
            (p, n, line.lower()) for p, ls in files.items() for n, line in enumerate(ls, 1)
        ]

    def search(self, query: str) -> list[Ranged]:
        words = [w for w in dict.fromkeys(re.findall(r"\w+", query.lower())) if len(w) > 1]
        scored = []
        for path, n, line in self.lines:
            count = sum(1 for w in words if w in line)
            if count:
                scored.append((-count, path, n))
        scored.sort()
        return [Ranged(p, n, n) for _, p, n in scored[:K]]


# --------------------------------------------------------------------------- runs


def run_system(
    questions: Sequence[dict[str, Any]], search: Callable[[str], list[Ranged]]
) -> tuple[list[dict[str, Any]], list[list[Ranged]], float]:
    scored, ranked = [], []
    started = time.perf_counter()
    for q in questions:
        hits = search(q["question"])
        ranked.append(hits)
        scored.append(score_question(q, hits))
    return scored, ranked, (time.perf_counter() - started) / max(1, len(questions))


def breakdown(
    questions: Sequence[dict[str, Any]], scored: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    out: dict[str, Any] = {"all": summarise(scored)}
    for key in ("type", "lang"):
        groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for q, s in zip(questions, scored, strict=True):
            groups[q[key]].append(s)
        out[f"by_{key}"] = {name: summarise(items) for name, items in sorted(groups.items())}
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_memory_option(parser)
    parser.add_argument("--split", choices=("tune", "test", "all"), default="tune")
    parser.add_argument("--provider", default="local", help="embedding.provider for vector/hybrid")
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument(
        "--constant",
        action="append",
        default=[],
        metavar="MODULE.NAME=VALUE",
        help="measure another value of a search constant, e.g."
        " --constant search.keyword.HEADING_BONUS=0.2 (repeatable; bench/common.set_constants)",
    )
    parser.add_argument("--show-misses", default=None, metavar="SYSTEM")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    constants = set_constants(args.constant)
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = sorted(set(systems) - set(SYSTEMS))
    if unknown:
        raise SystemExit(f"error: unknown --systems {unknown}; use {', '.join(SYSTEMS)}")

    workspace, questions_file = MEMORIES[args.memory]
    questions = load(questions_file)
    defects = check(questions, workspace)
    if defects:
        print("\n".join(defects[:20]))
        raise SystemExit(f"error: {len(defects)} defects in {questions_file}; run check.py")
    if args.split != "all":
        questions = [q for q in questions if q["split"] == args.split]
    files = _files(workspace)
    print(f"{len(questions)} questions ({args.split}), {len(files)} files")

    results: dict[str, Any] = {}
    ranked_by: dict[str, list[list[Ranged]]] = {}
    with tempfile.TemporaryDirectory(prefix="memdir-agentmem-") as tmp:
        root = Path(tmp) / "workspace"
        shutil.copytree(workspace, root)
        memdir_modes = [s for s in systems if s in ("keyword", "vector", "hybrid")]
        if memdir_modes:
            needs_vectors = any(m != "keyword" for m in memdir_modes)
            overrides: dict[str, Any] = {
                "embedding.provider": args.provider if needs_vectors else "none"
            }
            overrides.update(parse_overrides(args.set))
            with Store(root, overrides, "hybrid", refresh=False) as store:
                sync = store.sync()
                print(
                    f"indexed {sync.files_indexed} files, {sync.chunks_written} chunks in {sync.seconds:.1f}s"
                )
                floor = float(store.config_value("search.min_score"))
                for mode in memdir_modes:
                    store.mode = mode

                    def search(query: str, min_score: float, mode: str = mode) -> list[Ranged]:
                        raw = store._mem.search(
                            query, max_results=K, min_score=min_score, mode=mode, refresh=False
                        )
                        return [Ranged(h.path, h.start_line, h.end_line) for h in raw.results]

                    scored, ranked, per_q = run_system(questions, lambda q: search(q, floor))
                    bare, bare_ranked, _ = run_system(questions, lambda q: search(q, 0.0))
                    entry = breakdown(questions, scored)
                    entry["no_floor"] = breakdown(questions, bare)
                    entry["kept"] = _kept(questions, ranked, bare_ranked)
                    entry["ms_per_query"] = round(per_q * 1000, 2)
                    entry["per_question"] = per_question(questions, ranked)
                    entry["no_floor"]["per_question"] = per_question(questions, bare_ranked)
                    results[mode] = entry
                    ranked_by[mode] = ranked
                    ranked_by[f"{mode}-nofloor"] = bare_ranked
                chunks = store.chunk_count()
        for name, cls in (("fts5", PlainFts), ("grep", NaiveGrep)):
            if name in systems:
                engine = cls(files)
                scored, ranked, per_q = run_system(questions, engine.search)
                results[name] = breakdown(questions, scored)
                results[name]["ms_per_query"] = round(per_q * 1000, 2)
                results[name]["per_question"] = per_question(questions, ranked)
                ranked_by[name] = ranked

    _print(results, systems)
    if args.show_misses:
        _misses(questions, ranked_by.get(args.show_misses, []))
    out = args.out or RESULTS_DIR / f"{results_name(args.memory)}-{args.split}.json"
    write_results(
        out,
        {
            "benchmark": "agentmem",
            "memory": args.memory,
            "split": args.split,
            "questions": len(questions),
            "files": len(files),
            "memdir_chunks": chunks if memdir_modes else None,
            "settings": {
                "provider": args.provider,
                "set": args.set,
                "constants": constants,
                "k": K,
            },
            "environment": environment(),
            "results": results,
        },
    )
    return 0


def _kept(
    questions: Sequence[dict[str, Any]],
    floored: Sequence[list[Ranged]],
    bare: Sequence[list[Ranged]],
) -> float | None:
    """Of the questions whose gold is in the top K without a floor, the share still answered
    with a gold range at the floor."""
    had = kept = 0
    for q, f, b in zip(questions, floored, bare, strict=True):
        if q["type"] == "negative":
            continue
        if any(_group_rank(b, g) is not None for g in q["gold"]):
            had += 1
            kept += any(_group_rank(f, g) is not None for g in q["gold"])
    return kept / had if had else None


def _print(results: dict[str, Any], systems: Sequence[str]) -> None:
    rows = []
    for name in systems:
        a = results[name]["all"]
        rows.append(
            [
                name,
                a.get("hit1"),
                a.get("r5"),
                a.get("mrr10"),
                a.get("negatives_empty"),
                results[name].get("kept", "-"),
                a.get("median_width"),
            ]
        )
    print()
    print_table(["system", "hit@1", "R@5", "MRR@10", "neg empty", "kept", "lines"], rows)
    print()
    print_table(
        ["R@5 by type", *TYPES[:-1]],
        [[n, *[results[n]["by_type"].get(t, {}).get("r5") for t in TYPES[:-1]]] for n in systems],
    )
    langs = sorted({lang for n in systems for lang in results[n]["by_lang"]})
    print()
    print_table(
        ["hit@1 by lang", *langs],
        [
            [n, *[results[n]["by_lang"].get(lang, {}).get("hit1") for lang in langs]]
            for n in systems
        ],
    )
    print()
    print_table(
        ["no floor", "hit@1", "R@5", "MRR@10", "neg empty"],
        [
            [
                n,
                *[
                    results[n]["no_floor"]["all"].get(k)
                    for k in ("hit1", "r5", "mrr10", "negatives_empty")
                ],
            ]
            for n in systems
            if "no_floor" in results[n]
        ],
    )


def _misses(questions: Sequence[dict[str, Any]], ranked: Sequence[list[Ranged]]) -> None:
    for q, hits in zip(questions, ranked, strict=True):
        s = score_question(q, hits)
        if s["negative"]:
            if not s["empty"]:
                print(f"NEG {q['id']} {q['question']!r}: {len(hits)} results, first {hits[0]}")
            continue
        if not s["hit1"]:
            gold = "; ".join(
                f"{g['path']}:{g['start']}-{g['end']}" for grp in q["gold"] for g in grp
            )
            got = "; ".join(f"{h.path}:{h.start}-{h.end}" for h in hits[:3])
            print(
                f"MISS {q['id']} [{q['type']}/{q['lang']}] {q['question']!r}\n   gold {gold}\n   got  {got}"
            )


if __name__ == "__main__":
    sys.exit(main())
