"""LoCoMo-10 evidence retrieval, one memdir store per conversation.

    python bench/locomo.py --view turns [--turn-date line|none] [--mode …] [--limit N_CONVERSATIONS]
    python bench/locomo.py --view daily [--mode …] [--limit N_CONVERSATIONS]

turns: every dialogue turn is its own file ``memory/turns/D<s>_<n>.md`` holding the session date
line (unless ``--turn-date none``) and ``Speaker: text``; image turns get the BLIP caption as
``[shares <caption>]``, as the BEIR export of LoCoMo does. Metric: recall of a question's
evidence turns in the top k unique turns (k = 5, 10, 25, 50), averaged over questions with
evidence, overall and per category.

daily: every session is appended to ``memory/YYYY-MM-DD.md`` (its date): a ``# YYYY-MM-DD``
heading, then per session a ``## <time>`` line and one ``Speaker: text`` line per turn, indexed
with default chunking. Metric: share of evidence turns whose line lies inside a returned chunk,
taking results in rank order until the next chunk would push the total past a budget of
500 / 1,000 / 2,000 tokens. A chunk costs len(chunk text)/4 tokens, where the chunk text is
the full text of its line range in the file (start_line..end_line, joined by newlines), not the
possibly truncated snippet.

Writes ``bench/results/locomo-<view>[-nodate][-<mode>].json``. Published turn-level rows
(R@5/10/25/50): DRAGON 56.7/66.2/76.7/82.7; FTS5 BM25 (porter) 49.1/57.6/68.1/74.0.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from common import (
    JsonDict,
    Store,
    base_parser,
    data_dir,
    environment,
    kept_at_floor,
    latency_summary,
    mean,
    print_table,
    results_path,
    settings,
    store_overrides,
    unique,
    warn_if_degraded,
    write_files,
    write_per_query,
    write_results,
)

NAME = "locomo"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
TURN_KS = (5, 10, 25, 50)
BUDGETS = (500, 1000, 2000)
CHARS_PER_TOKEN = 4
DATE_FORMAT = "%I:%M %p on %d %B, %Y"  # "1:56 pm on 8 May, 2023"
LOOSE_ID = re.compile(r"D:?(\d+):(\d+)")
FTS5_BASELINE = {5: 49.1, 10: 57.6, 25: 68.1, 50: 74.0}


# --------------------------------------------------------------------------- data


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    session: int
    when: dt.datetime
    when_text: str  # as LoCoMo writes it: "1:56 pm on 8 May, 2023"
    line: str  # "Speaker: text [shares <caption>]"


@dataclass(frozen=True, slots=True)
class Question:
    qid: str  # locomo_<conversation index>_qa<question index>, as the audit and BEIR files use
    text: str
    category: int
    evidence: tuple[str, ...]  # valid turn ids after repair


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def turn_line(raw: Mapping[str, object]) -> str:
    line = f"{raw['speaker']}: {raw['text']}"
    caption = raw.get("blip_caption")
    return f"{line} [shares {caption}]" if caption else line


def repair_evidence(raw: Sequence[str], known: set[str], tally: Counter[str]) -> tuple[str, ...]:
    """Normalise evidence ids, counting every problem in ``tally``.

    Seen in the data: several ids in one string ("D8:6; D9:17", "D9:1 D4:4 D4:6"), a stray
    colon ("D:11:26"), a zero-padded turn ("D30:05"), a bare "D", and ids of turns that do not
    exist. Repairable ones are repaired; the rest are dropped.
    """
    out: list[str] = []
    for entry in raw:
        tally["entries"] += 1
        found = [f"D{int(s)}:{int(n)}" for s, n in LOOSE_ID.findall(entry)]
        if found == [entry.strip()]:
            if entry.strip() in known:
                out.append(entry.strip())
            else:
                tally["nonexistent_turn_dropped"] += 1
            continue
        tally["malformed"] += 1
        if not found:
            tally["malformed_unparseable_dropped"] += 1
        if len(found) > 1:
            tally["malformed_several_ids"] += 1
        for dia_id in found:
            if dia_id in known:
                tally["repaired_ids"] += 1
                out.append(dia_id)
            else:
                tally["nonexistent_turn_dropped"] += 1
    return tuple(unique(out))


def load_locomo(path: Path) -> tuple[list[Conversation], Counter[str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    tally: Counter[str] = Counter()
    conversations = []
    for ci, sample in enumerate(data):
        conv = sample["conversation"]
        turns: list[Turn] = []
        numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k))
        for n in numbers:
            when_text = conv[f"session_{n}_date_time"]
            when = dt.datetime.strptime(when_text, DATE_FORMAT)
            turns.extend(
                Turn(t["dia_id"], n, when, when_text, turn_line(t)) for t in conv[f"session_{n}"]
            )
        known = {t.dia_id for t in turns}
        questions = []
        for qi, qa in enumerate(sample["qa"]):
            evidence = repair_evidence(qa.get("evidence", []), known, tally)
            if not evidence:
                tally["questions_without_evidence"] += 1
            questions.append(
                Question(f"locomo_{ci}_qa{qi}", qa["question"], int(qa["category"]), evidence)
            )
        conversations.append(Conversation(sample["sample_id"], tuple(turns), tuple(questions)))
    return conversations, tally


def load_audit(path: Path, conversations: Sequence[Conversation]) -> dict[str, JsonDict]:
    """Audited questions by id, after checking each id points at the same question text."""
    by_id = {q.qid: q for c in conversations for q in c.questions}
    audit: dict[str, JsonDict] = {}
    for entry in json.loads(path.read_text(encoding="utf-8")):
        question = by_id.get(entry["question_id"])
        if question is None or question.text.strip() != entry["question"].strip():
            raise SystemExit(f"error: audit entry {entry['question_id']} does not match the data")
        audit[entry["question_id"]] = entry
    return audit


# --------------------------------------------------------------------------- workspaces


def turn_path(dia_id: str) -> str:
    return f"memory/turns/{dia_id.replace(':', '_')}.md"


def write_turn_workspace(root: Path, conv: Conversation, with_date: bool) -> dict[str, str]:
    """One file per turn; returns {relative path: turn id}."""
    files = {
        turn_path(t.dia_id): (f"{t.when_text}\n\n{t.line}\n" if with_date else f"{t.line}\n")
        for t in conv.turns
    }
    write_files(root, files)
    return {turn_path(t.dia_id): t.dia_id for t in conv.turns}


@dataclass(frozen=True, slots=True)
class DailyLayout:
    lines: dict[str, list[str]]  # relative path → file lines
    location: dict[str, tuple[str, int]]  # turn id → (relative path, 1-based line)


def write_daily_workspace(root: Path, conv: Conversation) -> DailyLayout:
    lines: dict[str, list[str]] = {}
    location: dict[str, tuple[str, int]] = {}
    current_session = -1
    for turn in conv.turns:
        rel = f"memory/{turn.when.date().isoformat()}.md"
        body = lines.setdefault(rel, [f"# {turn.when.date().isoformat()}"])
        if turn.session != current_session:
            current_session = turn.session
            body.extend(["", f"## {turn.when.strftime('%-I:%M %p').lower()}"])
        body.append(turn.line)
        location[turn.dia_id] = (rel, len(body))
    write_files(root, {rel: "\n".join(body) + "\n" for rel, body in lines.items()})
    return DailyLayout(lines, location)


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True, slots=True)
class Scored:
    qid: str
    category: int
    scores: dict[str, float]  # metric → recall in [0, 1]
    seconds: float
    cpu_seconds: float
    extra: JsonDict


def eval_turns(
    store: Store, conv: Conversation, path_to_turn: Mapping[str, str], floor: float
) -> list[Scored]:
    out = []
    for q in conv.questions:
        if not q.evidence:
            continue
        hits, seconds = store.timed_search(q.text, max(TURN_KS))
        ranked = unique(path_to_turn[h.path] for h in hits if h.path in path_to_turn)
        keep = kept_at_floor(
            [h.score for h in hits], store.last_best_score, floor, store.last_floor_share
        )
        kept = unique(
            path_to_turn[h.path]
            for h, k in zip(hits, keep, strict=True)
            if k and h.path in path_to_turn
        )
        wanted = set(q.evidence)
        scores = {f"R@{k}": len(wanted & set(ranked[:k])) / len(wanted) for k in TURN_KS}
        extra: JsonDict = {
            "top5": ranked[:5],
            "floor_R@5": len(wanted & set(kept[:5])) / len(wanted),
            "floor_R@10": len(wanted & set(kept[:10])) / len(wanted),
            "floor_empty": not kept,
        }
        out.append(Scored(q.qid, q.category, scores, seconds, store.last_cpu_seconds, extra))
    return out


def chunk_text(layout: DailyLayout, path: str, start: int, end: int) -> str:
    return "\n".join(layout.lines.get(path, [])[start - 1 : end])


def eval_daily(store: Store, conv: Conversation, layout: DailyLayout) -> list[Scored]:
    out = []
    for q in conv.questions:
        if not q.evidence:
            continue
        hits, seconds = store.timed_search(q.text, 50)
        spans = [(h.path, h.start_line, h.end_line) for h in hits]
        costs = [len(chunk_text(layout, *span)) / CHARS_PER_TOKEN for span in spans]
        scores: dict[str, float] = {}
        used: dict[str, int] = {}
        for budget in BUDGETS:
            total = 0.0
            taken = 0
            for cost in costs:
                if total + cost > budget:
                    break  # the budget stops at the first result that would exceed it
                total += cost
                taken += 1
            found = sum(
                any(
                    p == layout.location[e][0] and s <= layout.location[e][1] <= t
                    for p, s, t in spans[:taken]
                )
                for e in q.evidence
            )
            scores[f"B@{budget}"] = found / len(q.evidence)
            used[f"chunks@{budget}"] = taken
        within = used[f"chunks@{BUDGETS[-1]}"]
        truncated = sum(
            1
            for h, c in zip(hits[:within], costs[:within], strict=True)
            if len(h.snippet) < c * CHARS_PER_TOKEN
        )
        extra = {**used, "snippets_truncated": truncated}
        out.append(Scored(q.qid, q.category, scores, seconds, store.last_cpu_seconds, extra))
    return out


def aggregate(
    results: Iterable[Scored], keep: Callable[[Scored], bool] = lambda r: True
) -> JsonDict:
    """Mean recall (in %) overall and per category, with question counts."""
    chosen = [r for r in results if keep(r)]
    metrics = list(chosen[0].scores) if chosen else []

    def summary(rows: Sequence[Scored]) -> JsonDict:
        return {
            "n": len(rows),
            **{m: round(100 * mean([r.scores[m] for r in rows]), 1) for m in metrics},
        }

    return {
        "overall": summary(chosen),
        "per_category": {
            f"{c} {name}": summary([r for r in chosen if r.category == c])
            for c, name in CATEGORIES.items()
        },
    }


def print_aggregate(title: str, agg: JsonDict, metrics: Sequence[str]) -> None:
    print(f"\n{title}")
    rows = [["overall", agg["overall"]["n"], *[agg["overall"][m] for m in metrics]]]
    rows += [[cat, s["n"], *[s[m] for m in metrics]] for cat, s in agg["per_category"].items()]
    print_table(["questions", "n", *metrics], rows, digits=1)


def published_turn_rows(anchors: JsonDict) -> JsonDict:
    """DRAGON (overall and per category, from anchors.json) and the FTS5 baseline, in %."""
    dragon = anchors["locomo_paper_table3_rag_gpt35_dragon"]["dialog"]
    names = {"multi": 1, "temporal": 2, "open": 3, "single": 4, "adversarial": 5}
    per_category = {
        f"{c} {CATEGORIES[c]}": {f"R@{k}": dragon[str(k)][short] for k in TURN_KS}
        for short, c in sorted(names.items(), key=lambda item: item[1])
    }
    return {
        "DRAGON (LoCoMo paper, Table 3)": {
            "overall": {f"R@{k}": dragon[str(k)]["overall"] for k in TURN_KS},
            "per_category": per_category,
        },
        "FTS5 BM25 porter, per conversation (data curator)": {
            "overall": {f"R@{k}": v for k, v in FTS5_BASELINE.items()},
        },
    }


def print_published(figures: JsonDict, published: JsonDict, metrics: Sequence[str]) -> None:
    print("\ncompared with published rows (%)")
    rows = [["memdir (this run)", *[figures["all"]["overall"][m] for m in metrics]]]
    rows += [[label, *[vals["overall"][m] for m in metrics]] for label, vals in published.items()]
    print_table(["system", *metrics], rows, digits=1)
    dragon = next(v for v in published.values() if "per_category" in v)["per_category"]
    print("\nper category: memdir / DRAGON (%)")
    rows = [
        [
            cat,
            *[
                f"{figures['all']['per_category'][cat][m]:.1f} / {dragon[cat][m]:.1f}"
                for m in metrics
            ],
        ]
        for cat in dragon
    ]
    print_table(["category", *metrics], rows)


# --------------------------------------------------------------------------- main


def main() -> None:
    parser = base_parser(__doc__ or NAME)
    parser.add_argument("--view", choices=("turns", "daily"), default="turns")
    parser.add_argument(
        "--turn-date",
        choices=("line", "none"),
        default="line",
        help="turns view: write the session date line into each turn file (default) or not",
    )
    args = parser.parse_args()
    root = data_dir(args.data) / "locomo"
    conversations, evidence_tally = load_locomo(root / "locomo10.json")
    audit = load_audit(root / "locomo_audit_errors.json", conversations)
    anchors = json.loads((root.parent / "anchors.json").read_text(encoding="utf-8"))
    if args.limit is not None:
        conversations = conversations[: args.limit]

    name = f"{NAME}-{args.view}" + (
        "-nodate" if args.view == "turns" and args.turn_date == "none" else ""
    )
    results: list[Scored] = []
    index_seconds = 0.0
    chunks = 0
    modes: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for conv in conversations:
        with tempfile.TemporaryDirectory(prefix=f"memdir-locomo-{conv.sample_id}-") as tmp:
            workspace = Path(tmp)
            if args.view == "turns":
                path_to_turn = write_turn_workspace(workspace, conv, args.turn_date == "line")
            else:
                layout = write_daily_workspace(workspace, conv)
            with Store(workspace, store_overrides(args), args.mode, refresh=args.refresh) as store:
                sync = store.sync()
                floor = float(store.config_value("search.min_score"))
                index_seconds += sync.seconds
                chunks += store.chunk_count()
                if args.view == "turns":
                    conv_results = eval_turns(store, conv, path_to_turn, floor)
                else:
                    conv_results = eval_daily(store, conv, layout)
                modes.update(store.effective_modes)
                warnings.update(store.warnings)
        results.extend(conv_results)
        print(f"{conv.sample_id}: {len(conv.turns)} turns, {len(conv_results)} questions")

    warn_if_degraded(args.mode, modes)
    metrics = list(results[0].scores)
    audited = set(audit)
    figures: JsonDict = {
        "conversations": len(conversations),
        "questions_scored": len(results),
        "all": aggregate(results),
        "audit_excluded": aggregate(results, lambda r: r.qid not in audited),
        "latency": latency_summary([r.seconds for r in results]),
        "latency_cpu": latency_summary([r.cpu_seconds for r in results]),
        "index": {"seconds": round(index_seconds, 3), "chunks": chunks},
        "evidence_ids": dict(evidence_tally),
        "effective_modes": dict(modes),
        "warnings": dict(warnings),
    }
    if args.view == "turns":
        figures["at_default_min_score"] = {
            "min_score": floor,
            "R@5": round(100 * mean([r.extra["floor_R@5"] for r in results]), 1),
            "R@10": round(100 * mean([r.extra["floor_R@10"] for r in results]), 1),
            "questions_without_hits": sum(r.extra["floor_empty"] for r in results),
        }
    if args.view == "daily":
        figures["mean_chunks_used"] = {
            key: round(mean([r.extra[key] for r in results]), 2)
            for key in results[0].extra
            if key.startswith("chunks@")
        }
        figures["snippets_truncated_share"] = round(
            sum(r.extra["snippets_truncated"] for r in results)
            / max(1, sum(r.extra["chunks@2000"] for r in results)),
            3,
        )
    published: JsonDict = {}
    if args.view == "turns":
        published = published_turn_rows(anchors)
        figures["published"] = published
    layout_note = (
        "memory/turns/D<s>_<n>.md: "
        + ("'<date line>\\n\\nSpeaker: text'" if args.turn_date == "line" else "'Speaker: text'")
        if args.view == "turns"
        else "memory/YYYY-MM-DD.md: '# YYYY-MM-DD', per session '## h:mm pm', one 'Speaker: text' line per turn"
    )
    payload = {
        "benchmark": name,
        "figures": figures,
        "settings": settings(
            args,
            layout=layout_note,
            overrides=store_overrides(args),
            budget_cost="len(full chunk text of start_line..end_line)/4; stop at first chunk over budget",
        ),
        "environment": environment(),
    }
    write_per_query(
        results_path(name, args).stem,
        ({"qid": r.qid, "category": r.category, **r.scores, **r.extra} for r in results),
    )

    print(f"\nLoCoMo {args.view} ({args.mode}): {len(results)} questions with evidence")
    print(f"evidence ids: {dict(evidence_tally)}")
    print_aggregate("all questions (%)", figures["all"], metrics)
    print_aggregate(
        f"audit-listed questions excluded ({len(audited)} listed) (%)",
        figures["audit_excluded"],
        metrics,
    )
    if published:
        print_published(figures, published, metrics)
    lat = figures["latency"]
    print(
        f"\nquery latency p50 {lat['p50_ms']:.2f} ms, p95 {lat['p95_ms']:.2f} ms; index {index_seconds:.1f} s"
    )
    write_results(results_path(name, args), payload)


if __name__ == "__main__":
    main()
