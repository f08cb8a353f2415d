"""Capture quality and cost: the 10 LoCoMo conversations replayed through the capture pipeline.

    python bench/capture.py [--limit N_CONVERSATIONS] [--context-tokens 2048] [--mode keyword]
                            [--no-final-flush]

Each conversation is replayed session by session into its own empty workspace exactly as
``memdir replay`` does (:func:`memdir.sessions.replay.replay`): every turn added to a Session,
the flush when ``should_flush`` says so against a ``--context-tokens`` window, a final flush
at each session's end (unless ``--no-final-flush``), then the session-memory hook, all with
the offline extractive fallback (no model). Then:

(a) **Evidence present**: the share of LoCoMo evidence turns (unique per conversation) whose
    content is in the written memory. A turn's *key words* are its lowercased word tokens
    (letters and digits) of 3+ characters, minus a short stop list and the speakers' names; the
    turn is *present* when one written line (of a daily file or a session-memory file) holds at
    least 60% of them (all of them for a turn with fewer than 3). Turns with no key word at
    all (``"Wow!"``) are left out and counted.
(b) **Search recall** of the LoCoMo questions (those with evidence) against the written memory
    only: a question is a hit at k when one of the top k results' line ranges holds a line
    derived from one of its evidence turns. A written line is *derived* from the source turn
    (among the messages the note covered) that shares the most of the line's key words, at
    least half of them. Next to it, the same questions against the raw transcripts, written
    as daily files one ``Speaker: text`` line per turn (``bench/locomo.py --view daily``),
    where each line is its turn. R@k is the share of questions that are hits.
(c) **Cost**: flush and hook time per run (p50, p95, mean) and per session, and the memory
    written per 1,000 messages (lines, by kind, and KB).

Caveat: the raw transcripts are chunked as one file per day, so their chunks hold more turns
than the written notes' and a hit is easier there; both sides use the same search settings.

A model set in the environment (``MEMDIR_LLM_PROVIDER``, ``MEMDIR_LLM_MODEL``…) writes the notes
instead of the fallback. Writes ``bench/results/capture[-<mode>][-nofinal].json``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from common import (
    JsonDict,
    data_dir,
    environment,
    latency_summary,
    print_table,
    write_results,
)
from locomo import CATEGORIES, Conversation, load_locomo, write_daily_workspace

KS = (5, 10)
PRESENT_SHARE = 0.6
DERIVED_SHARE = 0.5
STOP = set(
    [
        "the",
        "and",
        "for",
        "are",
        "but",
        "not",
        "you",
        "your",
        "yours",
        "with",
        "that",
        "this",
        "have",
        "has",
        "had",
        "was",
        "were",
        "will",
        "would",
        "can",
        "could",
        "should",
        "just",
        "what",
        "when",
        "where",
        "who",
        "whom",
        "which",
        "why",
        "how",
        "all",
        "any",
        "too",
        "very",
        "its",
        "it's",
        "i'm",
        "im",
        "i've",
        "ive",
        "i'd",
        "you're",
        "youre",
        "that's",
        "thats",
        "there",
        "their",
        "they",
        "them",
        "then",
        "than",
        "into",
        "from",
        "about",
        "been",
        "being",
        "did",
        "does",
        "doing",
        "don't",
        "dont",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "her",
        "him",
        "his",
        "some",
        "such",
        "only",
        "also",
        "more",
        "most",
        "other",
        "off",
        "once",
        "here",
        "hey",
        "yeah",
        "yes",
        "wow",
        "really",
        "thanks",
        "thank",
        "much",
        "like",
        "got",
        "get",
        "one",
        "lot",
        "going",
        "know",
        "think",
        "so",
        "because",
    ]
)
WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)
PREFIX = re.compile(r"^\s*(?:[-*]\s+)?(?:(?:user|assistant):\s*)?")


def key_words(text: str, names: Iterable[str] = ()) -> set[str]:
    skip = STOP | {n.lower() for n in names}
    return {w for w in (m.group(0).lower() for m in WORD.finditer(text)) if w not in skip}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="benchmark data folder (default ../shared/bench)")
    parser.add_argument("--limit", type=int, default=0, help="only the first N conversations")
    parser.add_argument("--context-tokens", type=int, default=2048)
    parser.add_argument("--mode", default="keyword", choices=("keyword", "hybrid", "vector"))
    parser.add_argument("--no-final-flush", action="store_true")
    return parser


def overrides(mode: str) -> JsonDict:
    base: JsonDict = {"timezone": "UTC", "search.mode": mode}
    if mode == "keyword":
        base["embedding.provider"] = "none"
    return base


def search_ranges(mem: object, question: str, k: int) -> list[tuple[str, int, int]]:
    response = mem.search(question, max_results=k, min_score=0.0, refresh=False)  # type: ignore[attr-defined]
    return [(r.path, r.start_line, r.end_line) for r in response.results]


def hit_at(
    ranges: Sequence[tuple[str, int, int]], lines: dict[str, dict[int, set[str]]], wanted: set[str]
) -> dict[int, bool]:
    out = {}
    for k in KS:
        found = False
        for path, start, end in ranges[:k]:
            by_line = lines.get(path, {})
            if any(by_line.get(n, set()) & wanted for n in range(start, end + 1)):
                found = True
                break
        out[k] = found
    return out


def run_conversation(
    conv: Conversation, sessions: list, args: argparse.Namespace, root: Path
) -> JsonDict:  # type: ignore[type-arg]
    from memdir import Memory
    from memdir.sessions.replay import ReplayReport, replay

    names = {t.line.split(":", 1)[0] for t in conv.turns}
    turn_text = {t.dia_id: t.line.split(":", 1)[1] if ":" in t.line else t.line for t in conv.turns}
    ws = root / conv.sample_id
    ws.mkdir(parents=True)
    started = time.perf_counter()
    with Memory(ws, overrides=overrides(args.mode)) as mem:
        report = replay(
            mem,
            sessions,
            context_tokens=args.context_tokens,
            final_flush=not args.no_final_flush,
            report=ReplayReport(conv.sample_id, "locomo"),
        )
        replay_seconds = time.perf_counter() - started
        # written line -> source turns
        derived: dict[str, dict[int, set[str]]] = {}
        written_lines: list[str] = []
        for item in report.written:
            text = (ws / item.path).read_text(encoding="utf-8").splitlines()
            sources = {s: key_words(turn_text.get(s, ""), names) for s in item.sources}
            for n in range(item.start_line, item.end_line + 1):
                line = PREFIX.sub("", text[n - 1]) if n - 1 < len(text) else ""
                words = key_words(line, names)
                if not words:
                    continue
                written_lines.append(line)
                best, share = "", 0.0
                for source, sw in sources.items():
                    got = len(words & sw) / len(words)
                    if got > share:
                        best, share = source, got
                if best and share >= DERIVED_SHARE:
                    derived.setdefault(item.path, {}).setdefault(n, set()).add(best)
        line_words = [key_words(line, names) for line in written_lines]
        evidence = sorted({e for q in conv.questions for e in q.evidence})
        present = 0
        no_words = 0
        for dia_id in evidence:
            want = key_words(turn_text[dia_id], names)
            if not want:
                no_words += 1
                continue
            need = len(want) if len(want) < 3 else PRESENT_SHARE * len(want)
            if any(len(want & lw) >= need for lw in line_words):
                present += 1
        mem.refresh()
        memory_hits = [
            (q, hit_at(search_ranges(mem, q.text, max(KS)), derived, set(q.evidence)))
            for q in conv.questions
            if q.evidence
        ]
        files = {w.path for w in report.written}
        written_bytes = sum((ws / f).stat().st_size for f in files)
        written_count = sum(w.end_line - w.start_line + 1 for w in report.written)
    raw = root / f"{conv.sample_id}-raw"
    raw.mkdir()
    layout = write_daily_workspace(raw, conv)
    raw_lines: dict[str, dict[int, set[str]]] = {}
    for dia_id, (path, line) in layout.location.items():
        raw_lines.setdefault(path, {})[line] = {dia_id}
    with Memory(raw, overrides=overrides(args.mode)) as mem:
        mem.refresh()
        raw_hits = [
            hit_at(search_ranges(mem, q.text, max(KS)), raw_lines, set(q.evidence))
            for q in conv.questions
            if q.evidence
        ]
    return {
        "conversation": conv.sample_id,
        "sessions": report.sessions,
        "messages": report.messages,
        "flushes": report.flushes,
        "files": len(files),
        "lines_written": written_count,
        "lines_by_kind": {
            kind: sum(w.end_line - w.start_line + 1 for w in report.written if w.kind == kind)
            for kind in ("flush", "session-memory")
        },
        "bytes_written": written_bytes,
        "evidence_turns": len(evidence),
        "evidence_without_key_words": no_words,
        "evidence_present": present,
        "questions": len(memory_hits),
        "memory_hits": {k: sum(h[k] for _, h in memory_hits) for k in KS},
        "raw_hits": {k: sum(h[k] for h in raw_hits) for k in KS},
        "by_category": _by_category(memory_hits, raw_hits),
        "flush_seconds": report.flush_seconds,
        "hook_seconds": report.hook_seconds,
        "replay_seconds": round(replay_seconds, 3),
        "fallback": report.fallback,
        "model": report.model,
    }


def _by_category(memory_hits: list, raw_hits: list) -> JsonDict:  # type: ignore[type-arg]
    out: JsonDict = {}
    for (q, mh), rh in zip(memory_hits, raw_hits, strict=True):
        name = CATEGORIES.get(q.category, str(q.category))
        row = out.setdefault(name, {"questions": 0, "memory_R@10": 0, "raw_R@10": 0})
        row["questions"] += 1
        row["memory_R@10"] += mh[10]
        row["raw_R@10"] += rh[10]
    return out


def main() -> None:
    args = build_parser().parse_args()
    from memdir.sessions.replay import load_recording

    source = data_dir(args.data) / "locomo" / "locomo10.json"
    conversations, _ = load_locomo(source)
    _, sessions = load_recording(source)
    if args.limit:
        conversations = conversations[: args.limit]
    rows = []
    with tempfile.TemporaryDirectory(prefix="memdir-capture-") as tmp:
        for conv in conversations:
            mine = [s for s in sessions if s.conversation == conv.sample_id]
            row = run_conversation(conv, mine, args, Path(tmp))
            rows.append(row)
            print(
                f"{conv.sample_id}: {row['messages']} messages, {row['flushes']} flushes, "
                f"evidence present {row['evidence_present']}/{row['evidence_turns']}, "
                f"R@10 memory {row['memory_hits'][10]}/{row['questions']} "
                f"raw {row['raw_hits'][10]}/{row['questions']}",
                file=sys.stderr,
            )
    total = lambda key: sum(r[key] for r in rows)  # noqa: E731
    evidence = total("evidence_turns") - total("evidence_without_key_words")
    questions = total("questions")
    messages = total("messages")
    flush_s = [s for r in rows for s in r["flush_seconds"]]
    hook_s = [s for r in rows for s in r["hook_seconds"]]
    categories: JsonDict = {}
    for r in rows:
        for name, c in r["by_category"].items():
            row = categories.setdefault(name, {"questions": 0, "memory_R@10": 0, "raw_R@10": 0})
            for key in row:
                row[key] += c[key]
    summary: JsonDict = {
        "conversations": len(rows),
        "sessions": total("sessions"),
        "messages": messages,
        "flushes": total("flushes"),
        "evidence_turns": total("evidence_turns"),
        "evidence_without_key_words": total("evidence_without_key_words"),
        "evidence_present_pct": round(100 * total("evidence_present") / max(evidence, 1), 1),
        "questions": questions,
        "memory": {
            f"R@{k}": round(100 * sum(r["memory_hits"][k] for r in rows) / questions, 1) for k in KS
        },
        "raw_transcripts": {
            f"R@{k}": round(100 * sum(r["raw_hits"][k] for r in rows) / questions, 1) for k in KS
        },
        "by_category_R@10": {
            name: {
                "questions": c["questions"],
                "memory": round(100 * c["memory_R@10"] / c["questions"], 1),
                "raw": round(100 * c["raw_R@10"] / c["questions"], 1),
            }
            for name, c in categories.items()
        },
        "flush_per_run": latency_summary(flush_s),
        "hook_per_run": latency_summary(hook_s),
        "flush_seconds_per_session": round(sum(flush_s) / max(total("sessions"), 1), 4),
        "hook_seconds_per_session": round(sum(hook_s) / max(total("sessions"), 1), 4),
        "lines_by_kind_per_1000_messages": {
            kind: round(1000 * sum(r["lines_by_kind"].get(kind, 0) for r in rows) / messages, 1)
            for kind in ("flush", "session-memory")
        },
        "lines_per_1000_messages": round(1000 * total("lines_written") / messages, 1),
        "kb_per_1000_messages": round(total("bytes_written") / messages, 1),
        "fallback": all(r["fallback"] for r in rows),
        "model": rows[0]["model"] if rows else "",
    }
    print_table(
        ["", "R@5", "R@10"],
        [
            ["written memory", summary["memory"]["R@5"], summary["memory"]["R@10"]],
            [
                "raw transcripts",
                summary["raw_transcripts"]["R@5"],
                summary["raw_transcripts"]["R@10"],
            ],
        ],
        digits=1,
    )
    print(
        f"evidence present: {summary['evidence_present_pct']}% of {evidence} turns; "
        f"{summary['lines_per_1000_messages']} lines, {summary['kb_per_1000_messages']} KB "
        f"per 1,000 messages; per session: flushes {summary['flush_seconds_per_session']} s, "
        f"hook {summary['hook_seconds_per_session']} s"
    )
    name = "capture" + ("" if args.mode == "keyword" else f"-{args.mode}")
    name += "-nofinal" if args.no_final_flush else ""
    write_results(
        Path(__file__).parent / "results" / f"{name}.json",
        {
            "benchmark": "capture",
            "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
            "definitions": {
                "present": f"one written line holds >= {PRESENT_SHARE:.0%} of the evidence turn's key "
                "words (3+ letter tokens minus stop words and speaker names; all of them under 3)",
                "derived": f"a written line maps to the covered source turn sharing the most, and "
                f">= {DERIVED_SHARE:.0%}, of the line's key words",
                "hit": "a top-k result's line range holds a line derived from an evidence turn",
            },
            "environment": environment(),
            "summary": summary,
            "per_conversation": rows,
        },
    )


if __name__ == "__main__":
    main()
