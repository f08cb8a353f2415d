"""Lossless context (issue #13): compaction cost, lcm_grep latency, context assembly per turn,
and how often lcm_grep finds a LoCoMo question's evidence turn after compaction.

    python bench/lcm.py [--messages 100000] [--window 4096] [--limit N_CONVERSATIONS]

All offline, with the extractive fallback as the summariser (no model):

(a) **Compaction cost**: the 10 LoCoMo conversations (5,882 turns, ``Speaker: text``) each
    replayed turn by turn into its own store through a ``--window`` token window (4,096 by
    default; every other ``context.*`` setting at its default), ``compact()`` after every turn
    as a live session does. Reported per 1,000 messages: seconds (ingest and compaction
    together) and store size (the SQLite file after a checkpoint), plus summaries written.
(b) **lcm_grep at scale**: one conversation of ``--messages`` messages (LoCoMo's turns cycled,
    each copy tagged with its round so no two messages are equal), ingested in batches of 500
    and compacted through a 32k window. Then 1,000 text-mode greps (the keywords of LoCoMo
    questions, scope both, recency and relevance alternately, limit 20; reported together and
    per sort) and 100 regex greps over messages; p50/p95 of :meth:`LosslessContext.grep`
    (what the tool handler runs).
(c) **Assembly per turn** on that store: 300 turns of one new message, ``compact()`` (mostly
    a no-op under the trigger) and ``assemble()``; p50/p95 of the turn and of the assembly.
(d) **Evidence found**: after (a), each conversation compacted to the end (``compact(force)``
    until nothing is left but the fresh tail); for every question with evidence, lcm_grep of
    its keywords (``memdir.text.fts_query_terms`` minus stop words; every keyword, else any,
    ranked by BM25; scope messages, sort relevance): the share of questions with an evidence
    turn among the first 1 / 5 / 10 / 25 results, overall and by category. For comparison,
    LoCoMo turn retrieval by ``memory_search`` is in ``bench/results/locomo-turns.json``.

Writes ``bench/results/lcm.json`` (``--limit``: ``bench/.cache/results/``).
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import CACHE_DIR, RESULTS_DIR, data_dir, environment, latency_summary, write_results
from locomo import CATEGORIES, Conversation, load_locomo
from memdir.config import load_config
from memdir.context.compaction import ContextSettings
from memdir.context.lcm import LosslessContext
from memdir.context.store import NewMessage
from memdir.text import fts_query_terms
from memdir.text.stopwords import STOP_WORDS

KS = (1, 5, 10, 25)
T0 = 1_700_000_000_000


def _messages(conv: Conversation, tag: str = "") -> list[NewMessage]:
    speakers: list[str] = []
    out = []
    for i, turn in enumerate(conv.turns):
        speaker = turn.line.split(":", 1)[0]
        if speaker not in speakers:
            speakers.append(speaker)
        role = "user" if speakers.index(speaker) == 0 else "assistant"
        ms = int(turn.when.timestamp() * 1000) + i * 1000
        out.append(NewMessage(role, f"{tag}{turn.line}", ms, f"{tag}{turn.dia_id}"))
    return out


def _open(root: Path, window: int) -> LosslessContext:
    root.mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    config = load_config(root, overrides={"embedding.provider": "none", "llm.provider": "none"})
    settings = ContextSettings.from_config(config, window_tokens=window)
    return LosslessContext(config, settings=settings)


def _size(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.stat().st_size


def compaction_cost(convs: list[Conversation], window: int, tmp: Path) -> tuple[dict, list]:
    totals = {"messages": 0, "seconds": 0.0, "bytes": 0, "summaries": 0, "compactions": 0}
    stores = []
    for n, conv in enumerate(convs):
        lcm = _open(tmp / f"conv{n}", window)
        working = lcm.working(conv.sample_id)
        started = time.perf_counter()
        for message in _messages(conv):
            working.extend([message])
            totals["compactions"] += working.compact().compacted
        totals["seconds"] += time.perf_counter() - started
        totals["messages"] += len(conv.turns)
        totals["summaries"] += sum(lcm.store.depth_counts(conv.sample_id).values())
        assert lcm.store.check(conv.sample_id) == []
        totals["bytes"] += _size(lcm.path)
        stores.append((conv, lcm))
        print(f"  {conv.sample_id}: {len(conv.turns)} turns", file=sys.stderr)
    per = 1000 / totals["messages"]
    return {
        "window_tokens": window,
        **totals,
        "seconds_per_1000": round(totals["seconds"] * per, 3),
        "store_kb_per_1000": round(totals["bytes"] * per / 1024, 1),
        "summaries_per_1000": round(totals["summaries"] * per, 1),
    }, stores


def keywords(question: str) -> str:
    return " ".join(fts_query_terms(question, stopwords=STOP_WORDS))


def evidence_found(stores: list) -> dict:
    hits: dict[str, dict[int, list[int]]] = defaultdict(lambda: {k: [] for k in KS})
    how: dict[str, int] = defaultdict(int)
    for conv, lcm in stores:
        working = lcm.working(conv.sample_id)
        while working.compact(force=True).compacted:
            pass
        for q in conv.questions:
            if not q.evidence:
                continue
            pattern = keywords(q.text)
            ranked: list[str] = []
            if pattern:
                found = lcm.grep(
                    pattern,
                    session=conv.sample_id,
                    scope="messages",
                    sort="relevance",
                    limit=max(KS),
                )
                how[found["matched"]] += 1
                ids = [h["id"] for h in found["results"]]
                rows = lcm.store.messages_by_id(ids)
                ranked = [rows[i].ext_id for i in ids]
            for k in KS:
                hit = int(bool(set(ranked[:k]) & set(q.evidence)))
                hits["all"][k].append(hit)
                hits[CATEGORIES[q.category]][k].append(hit)
        raw = sum(1 for i in lcm.store.items(conv.sample_id) if i.is_message)
        print(f"  {conv.sample_id}: compacted, {raw} raw messages left in context", file=sys.stderr)
    return {
        "questions": len(hits["all"][1]),
        "matched_by": dict(how),
        "recall": {
            name: {f"R@{k}": round(100 * sum(v) / len(v), 1) for k, v in by_k.items()}
            for name, by_k in hits.items()
        },
    }


def scale(convs: list[Conversation], n: int, tmp: Path, rng: random.Random) -> dict:
    lcm = _open(tmp / "scale", 32_768)
    working = lcm.working("big")
    base = [m for conv in convs for m in _messages(conv)]
    batch: list[NewMessage] = []
    started = time.perf_counter()
    for i in range(n):
        m = base[i % len(base)]
        tag = f"r{i // len(base)} "
        batch.append(NewMessage(m.role, tag + m.content, T0 + i * 1000, str(i)))
        if len(batch) == 500:
            working.extend(batch)
            batch.clear()
            working.compact()
    if batch:
        working.extend(batch)
    while working.compact().compacted:
        pass
    ingest = time.perf_counter() - started
    assert lcm.store.check("big") == []
    questions = [keywords(q.text) for conv in convs for q in conv.questions]
    questions = [q for q in questions if q]
    rng.shuffle(questions)
    text_times: dict[str, list[float]] = {"recency": [], "relevance": []}
    regex_times = []
    for i, pattern in enumerate(questions[:1000]):
        sort = ("recency", "relevance")[i % 2]
        t = time.perf_counter()
        lcm.grep(pattern, session="big", sort=sort, limit=20)
        text_times[sort].append(time.perf_counter() - t)
    words = [w for w in " ".join(questions).split() if len(w) > 4][:100]
    for word in words:
        t = time.perf_counter()
        lcm.grep(rf"\b{word}\w*", session="big", mode="regex", scope="messages", limit=20)
        regex_times.append(time.perf_counter() - t)
    turn_times, assemble_times = [], []
    for i in range(300):
        t = time.perf_counter()
        working.add("user" if i % 2 == 0 else "assistant", f"turn {i}: {base[i].content}")
        working.compact()
        a = time.perf_counter()
        assembly = working.assemble()
        done = time.perf_counter()
        assert assembly.tokens <= lcm.settings.window_tokens
        turn_times.append(done - t)
        assemble_times.append(done - a)
    items = lcm.store.items("big")
    out = {
        "messages": len(lcm.store.messages("big")),
        "ingest_and_compaction_s": round(ingest, 1),
        "store_mb": round(_size(lcm.path) / 1e6, 1),
        "summaries_by_depth": lcm.store.depth_counts("big"),
        "context_items": len(items),
        "grep_text": latency_summary(text_times["recency"] + text_times["relevance"]),
        "grep_text_recency": latency_summary(text_times["recency"]),
        "grep_text_relevance": latency_summary(text_times["relevance"]),
        "grep_regex": latency_summary(regex_times),
        "turn": latency_summary(turn_times),
        "assemble": latency_summary(assemble_times),
    }
    lcm.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--window", type=int, default=4096)
    parser.add_argument("--limit", type=int, default=None, help="conversations (quick run)")
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    convs, _ = load_locomo(data_dir(args.data) / "locomo" / "locomo10.json")
    if args.limit:
        convs = convs[: args.limit]
    rng = random.Random(13)
    with tempfile.TemporaryDirectory(prefix="memdir-lcm-bench-") as tmp:
        print("(a) compaction cost", file=sys.stderr)
        cost, stores = compaction_cost(convs, args.window, Path(tmp))
        print("(d) evidence found after full compaction", file=sys.stderr)
        found = evidence_found(stores)
        for _, lcm in stores:
            lcm.close()
        print(f"(b, c) {args.messages} messages: grep and assembly", file=sys.stderr)
        big = scale(convs, args.messages, Path(tmp), rng)
    figures = {"compaction": cost, "evidence": found, "scale": big}
    print(
        f"compaction: {cost['seconds_per_1000']} s and {cost['store_kb_per_1000']} KB per 1,000 messages"
    )
    print(f"evidence found: {found['recall']['all']}")
    print(
        f"{big['messages']} messages: grep text p50 / p95 {big['grep_text']['p50_ms']} / "
        f"{big['grep_text']['p95_ms']} ms (recency {big['grep_text_recency']['p50_ms']} / "
        f"{big['grep_text_recency']['p95_ms']}, relevance {big['grep_text_relevance']['p50_ms']}"
        f" / {big['grep_text_relevance']['p95_ms']}), regex p50 {big['grep_regex']['p50_ms']} ms; "
        f"assembly p50 {big['assemble']['p50_ms']} ms, turn p50 {big['turn']['p50_ms']} ms"
    )
    out = args.out or (
        (CACHE_DIR / "results" / f"lcm-limit{args.limit}.json")
        if args.limit
        else RESULTS_DIR / "lcm.json"
    )
    write_results(
        out,
        {
            "figures": figures,
            "settings": vars(args) | {"data": str(args.data)},
            "environment": environment(),
        },
    )


if __name__ == "__main__":
    main()
