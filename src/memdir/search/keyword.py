"""Keyword search: FTS5 BM25 over the tokenised chunk text."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from memdir.chunking import embed_input
from memdir.dates import is_holiday, named_days, part_of_day
from memdir.index import ChunkRow, KeywordRow
from memdir.index.backend import IndexBackend
from memdir.search.mentions import naming_chunks
from memdir.search.spellings import (
    bridges_for,
    case_spellings,
    periods_as_written,
    quantities_as_written,
    respellings,
    roles_as_named,
    runs_as_names,
    snake_terms,
    spaced_codes,
    written_apart,
)
from memdir.text import (
    asked_kinds,
    bilingual,
    blank_spans,
    bridge_term,
    fts_match,
    fts_query_terms,
    is_cjk_gram,
    is_katakana_word,
    literal_spans,
    loanwords,
    match_text,
    named_words,
    term_matcher,
    term_surfaces,
    variants,
)
from memdir.text.casing import word_runs
from memdir.text.glossary import glossary_bridges
from memdir.text.scripts import term_writings

__all__ = [
    "ABSENT_WEIGHT",
    "PRESENCE_WEIGHT",
    "bm25_rank_to_score",
    "keyword_candidates",
    "keyword_search",
]


def bm25_rank_to_score(rank: float) -> float:
    """Map FTS5's bm25 rank (negative; lower is better) to a score in (0, 1], higher is better.

    ``r / (1 + r)`` for ``r = -rank``, as OpenClaw does (spec §6.3): monotonic in relevance,
    0.5 at ``r = 1``, about 0.99 at ``r = 100``. A non-finite rank scores 0.001.
    """
    if not math.isfinite(rank):
        return 1 / 1000
    if rank < 0:
        r = -rank
        return r / (1 + r)
    return 1 / (1 + rank)


ABSENT_WEIGHT = 0.5
"""How much a query term that no chunk holds counts against every match, as a share of its
IDF. At full weight one unknown word (a name memory never saw, a word of the question that
notes put otherwise) sank the note that holds everything else the question names under the
score floor; at zero, a question about something memory never mentions scored as high as its
few common words allow. Measured on the tuning half of ``bench/agentmem``."""

PRESENCE_WEIGHT = 0.5
"""The share of the keyword score that comes from which query terms a chunk holds (their IDF
share); the rest is BM25's share (:func:`coverage_score`), which adds how often and how
densely. BM25 alone scored a long note ~0.1 for the one word of all memory it holds."""

IDENTIFIER_WEIGHT = 2.0
"""An identifier (``OPS-1234``, ``max_inflight``, ``0x80AB``, ``p99``) names one thing exactly:
its IDF counts this many times, in the presence share and in BM25's alike (the MATCH expression
holds its phrase this many times, and FTS5's bm25 sums over phrases). Counted once in BM25, a
long note naming ``x509`` once lost "x509 的负责人是谁" to short notes about other things' 负责人,
whose three terms (负责, 负, 责) each hold the common word again."""

CJK_UNIGRAM_WEIGHT = 0.5
"""A single CJK character of the question counts this share of its IDF: its bigrams already
carry the word (告, 警 and 告警), and alone it matches unrelated words (目 in 项目 and 目前)."""

HEADING_BONUS = 0.3
"""How far a chunk whose heading path holds the query's terms moves towards a score of 1: an
entry titled ``### 08:30 - OPS-1324`` is about OPS-1324, one that mentions it in passing is not."""


NAMING_SHARE = 0.5
"""How much of a day the question names a chunk holds that names the day in its text without
being dated it, when some chunk is dated it (:attr:`QueryProfile.aside`), as a share of what a
chunk dated it holds: the log of Aug 3 answers "what did I do on Aug 3?" before the plan made
on Aug 1. bench/agentmem/days.py and plans.py: at 0.75, hybrid lost the day's log from the
first three for 8 more of 633 questions on the engineer's memory; at 0.5, for none, and the
plans were as often among the first three (22 of 83 missed at either, 15 of 74 on the
designer's)."""


def term_weight(term: str) -> float:
    """How much a query term counts, as a multiple of its IDF."""
    if " " in term or (_has_digit(term) and not term.isdigit()) or "_" in term:
        return IDENTIFIER_WEIGHT
    if len(term) == 1 and not term.isascii():
        return CJK_UNIGRAM_WEIGHT
    return 1.0


def is_identifier_term(term: str) -> bool:
    """Whether a query term is an identifier (:data:`IDENTIFIER_WEIGHT`)."""
    return term_weight(term) == IDENTIFIER_WEIGHT


_BM25_COPIES = int(IDENTIFIER_WEIGHT)
assert _BM25_COPIES == IDENTIFIER_WEIGHT, "BM25 counts an identifier a whole number of times"


def _has_digit(term: str) -> bool:
    return any(c.isdigit() for c in term)


def keyword_candidates(
    index: IndexBackend,
    profile: QueryProfile,
    limit: int,
    *,
    sources: list[str] | None = None,
    also: Sequence[KeywordRow] = (),
) -> list[KeywordRow]:
    """The chunks :func:`keyword_search` scores for a query of ``profile``: FTS5's best
    ``limit`` by BM25 for its MATCH expression, then the chunks of the days it names, newest
    first (:meth:`QueryProfile.day_rows`), then ``also``, each once. A caller that scores the
    same query by two profiles of it (hybrid search fallen back to keyword search alone:
    :meth:`QueryProfile.alone`, which keeps the terms and days) reads the index once."""
    rows = index.keyword(profile.match, limit, sources=sources) if profile.match else []
    seen = {row.chunk.id for row in rows}
    for row in [*profile.day_rows(index, limit, sources), *also]:
        if row.chunk.id not in seen:
            seen.add(row.chunk.id)
            rows.append(row)
    return rows


def keyword_search(
    index: IndexBackend,
    query: str,
    limit: int,
    *,
    sources: list[str] | None = None,
    stopwords: frozenset[str] = frozenset(),
    profile: QueryProfile | None = None,
    bridges: bool = True,
    bodies: dict[int, str] | None = None,
    also: Sequence[KeywordRow] = (),
    candidates: Sequence[KeywordRow] | None = None,
) -> list[tuple[KeywordRow, float]]:
    """Up to ``limit`` chunks matching any query term, best first, with their 0–1 scores.

    The candidates are FTS5's best by BM25 (:func:`keyword_candidates`); each is then scored
    by the weighted IDF share of the query's terms it holds (:func:`memdir.text.term_matcher`:
    any English inflection of a word, an identifier's words in order) blended with its BM25
    share, moved up when its heading names them, and the list is ordered by score.
    ``profile`` is :func:`query_profile` of the query, when the caller already has it.
    ``bodies`` (chunk id → :func:`match_body`) receives the text each candidate was matched
    in, for the caller's own rules to read instead of folding it again. ``also`` are chunks
    to score besides FTS5's best (the notes about a person a question asks about: a long
    table holding the name once is no BM25 candidate beside the many short entries naming
    them). ``candidates``, when given, are the chunks to score instead of reading them:
    :func:`keyword_candidates` of the query's terms and days and of the same ``also``.
    """
    if profile is None:
        profile = query_profile(index, query, stopwords=stopwords, bridges=bridges)
    if profile is None:
        return []
    terms, mass, bm25_mass = profile.terms, profile.mass, profile.bm25_mass
    if candidates is None:
        candidates = keyword_candidates(index, profile, limit, sources=sources, also=also)
    rows = list(candidates)
    if not rows:
        return []
    holding = _Holding(profile)
    scored = []
    for position, row in enumerate(rows):
        if len(terms) == 1 and not profile.days and not also:
            share, rank = (1.0 if mass else 0.0), row.rank  # FTS5 matched the one term
        else:
            body = match_body(row.chunk) if terms else ""
            if bodies is not None and terms:
                bodies[row.chunk.id] = body
            share, day_rank = holding.share(row.chunk, body)
            rank = row.rank - day_rank
        score = PRESENCE_WEIGHT * min(1.0, share) + (1 - PRESENCE_WEIGHT) * coverage_score(
            rank, bm25_mass
        )
        scored.append((holding.headed(row.chunk, score), -position, row))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    wanted = {row.chunk.id for row in also}
    return [
        (row, score)
        for n, (score, _, row) in enumerate(scored)
        if n < limit or row.chunk.id in wanted  # ``also`` are kept whatever their rank
    ]


class _Holding:
    """What a chunk holds of a query (:class:`QueryProfile`): its terms, its days."""

    def __init__(self, profile: QueryProfile) -> None:
        self.profile = profile
        # a character of a bigram held through a bridge is held with it: a note writing
        # "computer" holds 电 and 脑 of 电脑, one writing "Ken" 石 and 田 of 石田 (the characters
        # weighed against it while the bigram counted as held; bench/agentmem/NOTES.md)
        grams = {g: ws for g, ws in profile.bridges.items() if len(g) == 2 and is_cjk_gram(g)}
        self.holds = [
            term_holder(
                t, profile.bridges.get(t) or [w for g, ws in grams.items() if t in g for w in ws]
            )
            for t in profile.terms
        ]
        self.naming = {row.chunk.id for row in profile.naming}

    def _weight(self, text: str) -> float:
        weight = self.profile.weights
        return sum(
            weight[t] for t, h in zip(self.profile.terms, self.holds, strict=True) if h(text)
        )

    def share(self, chunk: ChunkRow, body: str) -> tuple[float, float]:
        """The share of the query's weight ``chunk`` holds (its match ``body``: the terms, and
        the day the query names as a term), and what that day adds to its BM25, as a term held
        once in a chunk of average length."""
        p = self.profile
        share, day = self._weight(body), 0.0
        if chunk.date in p.days:
            day = 1.0
        elif chunk.id in self.naming:
            day = NAMING_SHARE if chunk.id in p.aside else 1.0
        share += p.day_weight * day
        return (share / p.mass if p.mass else 0.0), p.day_bm25 * day

    def headed(self, chunk: ChunkRow, score: float) -> float:
        """``score`` moved up by :data:`HEADING_BONUS` as far as the heading path of ``chunk``
        names the query's terms."""
        if not HEADING_BONUS or not self.profile.mass:
            return score
        named = self._weight(match_text(heading_text(chunk)))
        return score + HEADING_BONUS * min(1.0, named / self.profile.mass) * (1 - score)


def unpooled_scores(
    profile: QueryProfile, chunks: Sequence[ChunkRow], bodies: dict[int, str] | None = None
) -> dict[int, float]:
    """The keyword scores of ``chunks`` that keyword search's BM25 pool left out (the vector
    half found them): the share of the query they hold, as :func:`keyword_search` counts it,
    and no BM25 share (one outside the pool has little; FTS5 gives none without the pool).
    Without it such a chunk scored as if it held no word of the question, so its hybrid score,
    and whether it cleared the floor, changed with the pool's size (``max_results``).
    ``bodies`` receives the text each was matched in, as in :func:`keyword_search`."""
    if not profile.mass or not profile.terms:
        return {}
    holding = _Holding(profile)
    out = {}
    for chunk in chunks:
        body = match_body(chunk)
        if bodies is not None:
            bodies[chunk.id] = body
        share, _ = holding.share(chunk, body)
        out[chunk.id] = holding.headed(chunk, PRESENCE_WEIGHT * min(1.0, share))
    return out


@dataclass(frozen=True, slots=True)
class QueryProfile:
    """A query's terms and what memory holds of them."""

    match: str
    terms: list[str]
    weights: dict[str, float]
    """Each term's weight: its IDF times :func:`term_weight`."""
    mass: float
    """What a chunk holding every term would hold: the weights of the terms memory has, plus
    ABSENT_WEIGHT of those it has nowhere, but for the word a question names the kind of its
    answer by (:func:`memdir.text.asked_kinds`: train in "Which train does Mo take?", where
    the notes write 高铁)."""
    bm25_mass: float
    holds_identifier: bool
    """Whether memory holds an identifier of the query (``OPS-1234``, ``max_inflight``)."""
    lacks_a_name: bool
    """Whether the query names something memory holds nowhere, not even through a bridge (a
    word of :func:`memdir.text.named_words`: PayPal, Consul; or an identifier: Q2,
    ``RELAY_E_QUOTA_EXCEEDED``). For a word, only while memory holds another Latin-script
    word of the query as it is: memory is written in the script of the name and never uses it
    (a memory written in Chinese may write PayPal otherwise). A code (``OPS-1234``,
    ``0x80AB``, ``RELAY_E_QUOTA_EXCEEDED``; not ``2-point`` or ``African-Americans``) is written
    alike in every script, so one memory lacks is lacked whatever else the question holds:
    ``RELAY_E_QUOTA_EXCEEDED 对应哪个错误码？`` was answered from the table of the other error
    codes (bench/agentmem, engineer's tuning half: hybrid +1 negative answered with nothing,
    no other question moved on either tuning half)."""
    bridges: dict[str, list[str]]
    """Words of the other language memory holds that may stand for a term (lunch → 午饭):
    a chunk holding one holds the term."""
    absent_share: float
    """The weight of the terms memory has nowhere, as a share of all; 0 when memory has none
    of them (a question in a language memory is not written in names nothing it lacks, it
    only uses other words). Each absent term counts as much as its lack tells
    (:func:`_telling`): in full in the writing memory uses most, a tenth where memory writes
    a tenth as many lines in its writing; the word naming the kind of the answer not at all
    (see :attr:`mass`)."""
    told_mass: float | None = None
    """:attr:`mass` with each term memory has nowhere counted as much as its lack tells in a
    memory this small (:func:`_small`); ``None``: :attr:`mass`. What keyword search scores by
    when it is the whole search (:meth:`alone`)."""
    absent: tuple[str, ...] = ()
    """The terms memory holds nowhere, not even through a bridge, in the query's order: the
    words a search can tell the asker no note uses (a CJK bigram that is an edge between two
    words is no term)."""
    days: tuple[str, ...] = ()
    """The days (``YYYY-MM-DD``) the query names in words (``Aug 3``, ``8月3日``, ``9/8（火）``,
    yesterday, each day of last week, 上周, September or 9月; not ISO dates, which notes
    write as the query does and FTS5 matches) when some chunk is dated one of them, or names
    one in its text (:attr:`naming`; :func:`memdir.dates.named_days`); a day or month
    named without a year is in the year of the newest such day memory has a note of. Their
    words are no terms; days no chunk is dated or names are searched as their words. A
    month's words are no terms either: "in November" of a question that asks about a push
    planned for November, in a note written in October, loses that note a place
    (bench/agentmem, the engineer's tuning half, hybrid 3rd → 6th), but "what did I do in
    August?" is answered from August, not from the notes that say "August"."""
    day_weight: float = 0.0
    """What a chunk dated one of :attr:`days` holds of the query, as a term's weight: the
    IDF of the chunks so dated, times :data:`IDENTIFIER_WEIGHT` (a day names one thing
    exactly, as an identifier does)."""
    day_bm25: float = 0.0
    """BM25's share of :attr:`day_weight`: what a term held once by a chunk of average length
    adds to its BM25, FTS5's IDF of the chunks so dated (as :attr:`bm25_mass` counts it)."""
    naming: tuple[KeywordRow, ...] = ()
    """The chunks not dated one of :attr:`days` whose text names one (a plan in the log of
    the day it was made: ``下周二（9/15）上 prod``; :func:`memdir.search.mentions.naming_chunks`):
    they hold the day as the chunks dated it do. A day no chunk is dated is one of
    :attr:`days` when a chunk names it."""
    aside: frozenset[int] = frozenset()
    """Those of :attr:`naming` that name a day some chunk is dated (its log answers first):
    they hold :data:`NAMING_SHARE` of it; the others, naming a day no chunk is dated, all."""
    hours: tuple[int, int] | None = None
    """The hours (from, to) of the part of :attr:`days` the query names (上午, yesterday
    afternoon, 下午3点: :func:`memdir.dates.part_of_day`); its words are no terms either.
    ``None`` when it names none, or no day."""

    @property
    def held(self) -> list[str]:
        """The :attr:`terms` memory holds (not :attr:`absent`), in order."""
        return [t for t in self.terms if t not in self.absent]

    def holder(self, term: str) -> Callable[[str], bool]:
        """Whether a text holds ``term`` as written or through one of its :attr:`bridges`
        (bill421 through the notes' BILL-421)."""
        return term_holder(term, self.bridges.get(term, ()))

    def alone(self) -> QueryProfile:
        """This profile as keyword search scores by it when it is the whole search (keyword
        mode, or hybrid fallen back to it): its :attr:`mass` is :attr:`told_mass`. In hybrid
        search the absent-term penalty counts a lacked word as much as its lack tells, and the
        keyword half keeps the full mass its fusion weights were set with. Keyword search alone
        has no such penalty: counting every lacked word in full, it answered nothing for most
        true matches in a memory of a few notes, which lacks most words of any question
        (``bench/agentmem/small.py --mode keyword``: see :data:`TELLING_LINES`)."""
        if self.told_mass is None or self.told_mass == self.mass:
            return self
        return replace(self, mass=self.told_mass)

    def day_rows(
        self, index: IndexBackend, limit: int, sources: Sequence[str] | None = None
    ) -> list[KeywordRow]:
        """The newest ``limit`` chunks dated one of :attr:`days`, then :attr:`naming`; of
        ``sources`` only when given. Keyword and vector search both take them as candidates:
        the daily log of Aug 3 holds no word of "what did I do on Aug 3?"."""
        if not self.days:
            return []
        src = list(sources) if sources else None
        rows = index.dated(self.days, limit, sources=src)[1]
        return rows + [row for row in self.naming if not src or row.chunk.source in src]


def query_profile(
    index: IndexBackend,
    query: str,
    *,
    stopwords: frozenset[str] = frozenset(),
    bridges: bool = True,
    today: date | None = None,
) -> QueryProfile | None:
    """The terms of ``query`` weighed against the index; ``None`` when it has no term.

    The days it names in words (:attr:`QueryProfile.days`) are counted from ``today`` too when
    it is given (yesterday, 昨天, last Friday: :func:`memdir.dates.named_days`).

    A CJK bigram that memory never holds while it holds both its characters is left out of
    the masses: in a question it is mostly two words' edges (上聊 in 1:1 上聊了什么), not a
    word memory lacks. When memory lacks the characters too, only the bigram counts as absent
    (进展, not 进展 + 进 + 展). Weights use :func:`presence_idf`; ``bm25_mass`` stays FTS5's.

    With ``bridges``, a term may also be held through words of the other language that memory
    holds (lunch → 午饭, 电脑 → computer, Tang Ning → 唐宁; :mod:`memdir.text.bilingual`;
    release → リリース, パッケージ → package: :mod:`memdir.text.loanwords`, a loanword counted
    as the phrase of its grams and then read in up to :data:`LOANWORD_PROBE` chunks):
    they join the MATCH expression, a chunk holding one holds the term, and a term memory holds
    only that way is not absent. A bigram that is an edge between two words gets none.

    With or without ``bridges``, a code is held through the other way it is spelled
    (:func:`respellings`: ``bill421`` through the notes' ``BILL-421``, ``1.13.2`` through
    ``v1.13.2``) and scores as that spelling would; a word and a number typed apart
    (``hnm 147``) add their phrase as a code when memory writes it joined only
    (:func:`memdir.search.spellings.spaced_codes`); an amount (30 seconds, 三十秒, ``30s``) is
    one term, held through each way memory writes it
    (:func:`memdir.search.spellings.quantities_as_written`).
    """
    spans: dict[tuple[int, int], list[str]] = {}  # the days each span of the query names
    for a, b, d in named_days(query, today, question=True):
        if not _ISO_DAY.fullmatch(query[a:b]):
            spans.setdefault((a, b), []).append(d)
    days: list[tuple[int, int, list[str]]] = []
    dated = 0  # the chunks dated a day named in words
    naming: dict[int, KeywordRow] = {}  # the chunks that name such a day in their text
    aside: set[int] = set()  # … a day some chunk is dated
    for (a, b), named in spans.items():
        if any(d.startswith("--") for d in named):
            # Aug 3, September: in the year of the newest such day memory has a note of
            newest = index.dated([d for d in named if d.startswith("--")], 1)[1]
            if newest and newest[0].chunk.date:
                named = _in_year(named, newest[0].chunk.date[:4])
        count = index.dated(named, 0)[0]
        # the notes naming a day: of one day, or of days no note is dated (next week); a
        # week of logs is answered by its logs (looking for the notes naming each of its days
        # cost "what did I do last week?" 10 ms, and put no log higher in days.py)
        looked = not count or len(named) == 1  # so the days held are known: all or none
        held = set(named) if count else set()
        found = (
            {row.chunk.id: row for row in naming_chunks(index, named, held=held)} if looked else {}
        )
        written = max((row.chunk.date for row in found.values() if row.chunk.date), default="")
        if written and any(d.startswith("--") for d in named):
            # no note is dated such a day in any year: in the year of the newest naming it
            named = _in_year(named, written[:4])
        if count or found:
            days.append((a, b, named))
            dated += count
            naming.update(found)
            if count:
                aside.update(found)
    hours = None
    if days:  # the words of a day are no terms: "3" of "Aug 3" is no number the notes hold
        cut = [(a, b) for a, b, _ in days if not is_holiday(query[a:b])]  # 国庆: notes say it
        if part := part_of_day(query):  # nor are 上午 or the afternoon of it (notes write 10:30)
            cut += part.spans
            hours = part.hours
        query = blank_spans(query, cut)
    day_keys = tuple(dict.fromkeys(d for _, _, named in days for d in named))
    if len(days) > 1:  # two spans may name the same day
        dated = index.dated(list(day_keys), 0)[0]
    naming = {i: row for i, row in naming.items() if row.chunk.date not in day_keys}
    dated += len(naming)
    query, amounts = quantities_as_written(index, periods_as_written(index, query))
    query, holders = roles_as_named(index, query)
    terms = fts_query_terms(query, stopwords=stopwords, alone=not day_keys)
    if not terms and not day_keys:
        return None
    if spaced := spaced_codes(query, terms):
        # BILL 421, hnm 147, int 32: a code typed as two words, which memory holds joined
        # (BILL-421, int32), is that code too; the words stay terms. A name and a number the
        # notes write apart (PG 16, of notes writing PG 13 → 16 as well) stay words alone
        joined = {p: p.replace(" ", "") for p in spaced}
        _, held_as = index.term_dfs([*spaced, *joined.values()])
        terms += [
            p
            for p in spaced
            if (held_as[p] or held_as[joined[p]]) and not (held_as[p] and written_apart(index, p))
        ]
    grams = [t for t in terms if len(t) == 2 and is_cjk_gram(t)]
    chars = [g[0] for g in grams] + [g[1] for g in grams]
    # a word the question writes between backticks is code: it weighs as an identifier, and
    # is no bridge (`main` is no 主要)
    quoted = _quoted_words(query)
    coded = {t for t in terms if t in quoted or is_identifier_term(t)}
    glossed = glossary_bridges(query, terms) if bridges else {}  # the words of software work
    offered = bridges_for(index, query, terms, quoted, glossed, holders) if bridges else {}
    respelled = respellings(terms, quoted)
    # an amount (30s) through the other ways memory writes it (30 秒, 30 seconds)
    respelled.update((t, ws) for t, ws in amounts.items() if t in terms and t not in quoted)
    for term, spelled in [*respelled.items(), *case_spellings(query, terms, quoted).items()]:
        offered[term] = [*spelled, *offered.get(term, ())]
    pieces = _pieces(terms)  # an identifier's words
    # a bridge as FTS5 holds it: a katakana loanword is the phrase of its grams
    form = {w: bridge_term(w) for words in offered.values() for w in words}
    phrases = {p for w, p in form.items() if p != w}
    loan_grams = {g for p in phrases for g in p.split()}
    runs = [r for r in word_runs(query) if all(w in terms and w not in quoted for w in r)]
    snakes = snake_terms(terms, quoted)
    # max replicas, max_replicas: maxReplicas, or max_replicas as the index's one word
    run_words = ["".join(r) for r in runs] + [t.replace("_", "") for t in snakes]
    wanted = [*terms, *chars, *pieces, *(p for p in form.values() if p not in phrases), *loan_grams]
    total, dfs = index.term_dfs(list(dict.fromkeys([*wanted, *run_words])))
    # a phrase is counted (a MATCH each) only when memory holds all its grams: in a memory
    # without katakana, no English word's loanword costs a query
    held_phrases = [p for p in phrases if all(dfs[g] for g in p.split())]
    dfs.update(index.term_dfs(held_phrases)[1] if held_phrases else {})
    for w, as_held in form.items():
        df = dfs.get(as_held, 0)
        loanword = df and as_held != w and is_katakana_word(w)
        dfs[w] = _loanword_df(index, w, as_held, df) if loanword else df
    named, joined = runs_as_names(index, runs, terms, dfs, snakes)
    for term, words in joined.items():  # max replicas, of notes writing maxReplicas
        offered[term] = [*words, *offered.get(term, ())]
        form.update((w, w) for w in words)
    if named:  # atlas users daily, which memory writes atlas_users_daily only: that name too
        terms += named
        coded.update(named)
        dfs.update(index.term_dfs(named)[1])
    bridged = {
        t: held[:BRIDGES_PER_TERM]
        for t, words in offered.items()
        if (held := [w for w in words if dfs[w] and w not in terms and w not in stopwords])
    }
    # CJK bigrams memory holds nowhere: not one the glossary says memory writes another way
    # (压测 for the notes' load test, 设定 of 設定 for their config), a word of software work,
    # no edge between two. (A dictionary's bridge is no such sign: 安排 of 怎么安排的 held
    # through "set" and "plan" lost 现在 standup 是怎么安排的？ its answer.)
    lacked = {g for g in grams if dfs[g] == 0 and not (g in glossed and g in bridged)}
    lacked_chars = {c for g in lacked for c in g}
    edges = _dictionary_edges(query, lacked, grams) if bridges else set()
    weights: dict[str, float] = {}
    for t in terms:
        if t in lacked and ((dfs[t[0]] and dfs[t[1]]) or t in edges):
            continue  # an edge between two words, not a word memory lacks
        if dfs[t] == 0 and len(t) == 1 and t in lacked_chars:
            continue  # the word memory lacks counts once, as its bigram, not thrice
        # a term held only through a bridge is as rare as its most common bridge
        df = max([dfs[t], *(dfs[w] for w in bridged.get(t, ()))])
        weights[t] = presence_idf(total, df) * (IDENTIFIER_WEIGHT if t in coded else term_weight(t))
    kept = [t for t in terms if t in weights]
    bridged = {t: bridged[t] for t in kept if t in bridged}
    held_by = {t: dfs[t] > 0 or t in bridged for t in kept}
    held = sum(weights[t] for t in kept if held_by[t])
    missing = [t for t in kept if not held_by[t]]
    told, lines = _told(index, query, missing)
    absent = sum(weights[t] for t in told)
    lacked_weight = sum(weights[t] * _telling(lines, t) for t in told)
    day_weight = presence_idf(total, dated) * IDENTIFIER_WEIGHT if dated else 0.0
    day_bm25 = fts5_idf(total, dated) * _BM25_COPIES if dated else 0.0
    held += day_weight
    # BM25 sums over the phrases of the MATCH expression, so an identifier written there
    # IDENTIFIER_WEIGHT times weighs as much in BM25's share as in the presence share
    # a code memory holds only as it spells it (bill421: BILL-421) counts as that spelling
    # would; one it writes as asked too (PG 16, and pg16 in a file name) as written
    spelled = {
        t: [w for w in ws if w in respelled.get(t, ())]
        for t, ws in bridged.items()
        if t in coded and not dfs[t]
    }
    match = fts_match(
        list(dict.fromkeys([*kept, *(form[w] for ws in bridged.values() for w in ws)]))
        + [
            w
            for t in kept
            if t in coded
            for w in [t, *spelled.get(t, ())]
            for _ in range(_BM25_COPIES - 1)
        ]
    )
    if match is None and not day_keys:
        return None
    return QueryProfile(
        match=match or "",
        terms=kept,
        weights=weights,
        mass=held + ABSENT_WEIGHT * absent,
        bm25_mass=sum(
            fts5_idf(total, max([dfs[t], *(dfs[w] for w in spelled.get(t, ()))]))
            * (_BM25_COPIES if t in coded else 1)
            for t in terms
        )
        + day_bm25,
        holds_identifier=any(held_by[t] and is_identifier_term(t) for t in kept),
        lacks_a_name=_lacks_a_name(query, kept, held_by, dfs),
        bridges=bridged,
        absent_share=lacked_weight / (held + lacked_weight) if held > 0 else 0.0,
        told_mass=held + ABSENT_WEIGHT * sum(weights[t] * _small(lines, t) for t in told),
        absent=tuple(missing),
        days=day_keys,
        day_weight=day_weight,
        day_bm25=day_bm25,
        naming=tuple(naming.values()),
        aside=frozenset(aside & naming.keys()),
        hours=hours,
    )


_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _in_year(days: list[str], year: str) -> list[str]:
    """``days``, each day without a year (``--MM-DD``) placed in ``year``."""
    return [f"{year}-{d[2:]}" if d.startswith("--") else d for d in days]


TELLING_LINES = 200
"""The lines a writing must fill before a word memory lacks in it counts in full in the absent
share (:func:`_telling`): below that, as much as memory has written. A new memory lacks most
words of any question, and the absent-term penalty, set on memories of hundreds of chunks,
answered nothing for true matches there. ``bench/agentmem/small.py`` asks each question of a
tuning half of a memory made of its answer's notes alone, or with 4 other notes: true matches
kept by the floor (hybrid) went .593 → .826 (a median of 6 chunks) and .728 → .778 (24) on the
engineer's memory, .619 → .952 and .814 → .953 on the designer's; the cost is questions about
what such a memory never mentions answered from its closest note (with nothing .800 → .600 and
.867 → .867; .833 → .333 and .667 → .500). Both full memories write more than this in their
main writing, so nothing there moved (bench/agentmem/NOTES.md).

Keyword search alone (:meth:`QueryProfile.alone`) counts a lacked word by memory's size the
same way, down to :data:`LEAST_TOLD` (:func:`_small`), not by its writing's share: true
matches kept went .575 → .613 and .633 → .696 on the engineer's memory, .419 → .628 and .628 →
.721 on the designer's; negatives answered with nothing 1.000 → .933 and 1.000 → .933,
1.000 → .833 and .833 → .833 (the first numbers with 0 other notes, the second with 4)."""


def _told(index: IndexBackend, query: str, missing: list[str]) -> tuple[list[str], dict[str, int]]:
    """The terms of ``missing`` (those memory lacks) that count against a note, and the lines
    memory writes in each writing (:meth:`~memdir.index.backend.IndexBackend.script_lines`,
    read only when one of them has a writing). All but the word a question names the kind of
    its answer by (:func:`memdir.text.asked_kinds`, which train): the notes name an instance
    (高铁), so lacking the word says little; it is still a word memory lacks."""
    kinds = asked_kinds(query) if missing else set()
    told = [t for t in missing if t not in kinds]
    return told, index.script_lines() if any(term_writings(t) for t in told) else {}


def _size(lines: dict[str, int]) -> float:
    """How much a lack tells in a memory this size, from 0 to 1: the ``lines`` of the writing
    memory uses most against :data:`TELLING_LINES` (1 for an empty count: nothing to judge by).
    The part :func:`_telling` and :func:`_small` share."""
    most = max(lines.values(), default=0)
    return min(1.0, most / TELLING_LINES) if most else 1.0


def _telling(lines: dict[str, int], term: str) -> float:
    """How much it tells that memory lacks ``term``, from 0 to 1: the ``lines`` memory writes in
    the term's writings (:func:`memdir.text.scripts.term_writings`) against those of the
    writing it uses most. A fact memory holds is written in one of its languages; an English
    word no note uses says the fact is missing where most notes are in English, and next to
    nothing where most are in Japanese, which writes the same fact in Japanese words (the
    residence permit that "expire" asks about is 在留期限 there). Nor does it tell much in
    a memory of a few notes, which lacks most words of any question: that share is scaled by
    memory's size (:func:`_size`). Digits and symbols tell in full
    (:meth:`~memdir.index.backend.IndexBackend.script_lines` is read only when a lacked term
    has a writing)."""
    writings = term_writings(term)
    most = max(lines.values(), default=0)
    if not writings or not most:
        return 1.0
    return min(1.0, sum(lines.get(w, 0) for w in writings) / most * _size(lines))


LEAST_TOLD = 0.25
"""The least share of its weight a word memory lacks keeps in keyword search alone, however
small memory is (:func:`_small`). Keyword search alone has no judge of meaning behind it: with
no such floor, one word of a memory of three notes answered a question whose three other words
it lacks ("quokkas kangaroos wombats noodles" → "Lunch was noodles."). ``bench/agentmem/small.py
--mode keyword``, true matches kept / questions about what memory never mentions answered with
nothing, engineer's and designer's tuning halves with 0 other notes (4 other notes changed
little): none .725 / .867 and .767 / .667; .15 .675 / .933 and .628 / .833; .25 .613 /
.933 and .628 / .833; .35 .588 / 1.000 and .581 / .833; .5 .588 / 1.000 and .442 / 1.000."""


def _small(lines: dict[str, int], term: str) -> float:
    """How much it tells that memory lacks ``term`` in keyword search alone, from
    :data:`LEAST_TOLD` to 1: memory's size (:func:`_size`), the part of :func:`_telling` that
    says how small memory is. Not the share of the term's writing: keyword search alone has no
    judge of meaning behind it, and with that share an XQuAD-zh question asked of LoCoMo's
    English memory lacked nothing that told, so one word it held (a number, a bridge) answered
    it (``bench/floor.py``: 2.7 → 22.5 % of such questions answered). Digits and symbols tell
    in full."""
    if not term_writings(term):
        return 1.0
    return max(LEAST_TOLD, _size(lines))


def _lacks_a_name(
    query: str, terms: list[str], held_by: dict[str, bool], dfs: dict[str, int]
) -> bool:
    names = named_words(query)
    lacked = {
        t
        for t in terms
        if not held_by[t] and (t in names or (is_identifier_term(t) and _unknown(t, dfs)))
    }
    if not lacked:
        return False
    if code_terms(query, lacked):
        return True  # a code is written alike in every script
    # memory writes the name's script: it holds another Latin-script word of the query as it is
    return any(dfs[t] > 0 and t.isascii() and not t.isdigit() for t in terms if t not in lacked)


def as_seen(
    profile: QueryProfile, index: IndexBackend, query: str, hidden: Collection[str]
) -> QueryProfile:
    """``profile`` as a caller sees memory who may not see the notes that alone hold the terms
    ``hidden`` (behind an agent's scope or a path filter): those terms are lacked too, in
    :attr:`~QueryProfile.absent` and its share, and a name or identifier among them is a name
    memory lacks (:attr:`~QueryProfile.lacks_a_name`) and no held identifier. Otherwise a
    question about what only a hidden note mentions would be answered from the visible notes
    on meaning alone, where it finds nothing when that note does not exist; and whether it is
    answered would tell the caller that some note it may not see holds the word. The terms'
    weights, the BM25 shares and the masses (:attr:`~QueryProfile.mass`,
    :attr:`~QueryProfile.told_mass`) are left as they are: the keyword scores were divided by
    them before the hidden terms were known, and nothing reads them after."""
    lacked = {t for t in profile.terms if t in hidden and t not in profile.absent}
    if not lacked:
        return profile
    missing = [t for t in profile.terms if t in lacked or t in profile.absent]
    held = sum(profile.weights[t] for t in profile.terms if t not in missing)
    held += profile.day_weight
    told, lines = _told(index, query, missing)
    lacked_weight = sum(profile.weights[t] * _telling(lines, t) for t in told)
    _, dfs = index.term_dfs(list(dict.fromkeys([*profile.terms, *_pieces(profile.terms)])))
    dfs = {**dfs, **dict.fromkeys(lacked, 0)}
    held_by = {t: t not in missing for t in profile.terms}
    return replace(
        profile,
        absent=tuple(missing),
        absent_share=lacked_weight / (held + lacked_weight) if held > 0 else 0.0,
        holds_identifier=any(held_by[t] and is_identifier_term(t) for t in profile.terms),
        lacks_a_name=profile.lacks_a_name or _lacks_a_name(query, profile.terms, held_by, dfs),
    )


def _pieces(terms: Iterable[str]) -> list[str]:
    """The words of the identifiers among ``terms`` (``ops 1234`` → ops, 1234)."""
    return [w for t in terms if " " in t for w in t.split()]


_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th|s)")
_CODE_JOIN = re.compile(r"[^\W\d_][.=:@#][^\W_]|[^\W_][.=:@#][^\W\d_]|\w/\w[^/\s]*/\w|\w/\w+\.\w")


def is_code(written: str) -> bool:
    """Whether an identifier, as the query writes it, is a code, written alike in notes of
    every language: ``RELAY_E_QUOTA_EXCEEDED``, ``0x80AB``, ``v1.13.2``, ``OPS-1234``, ``X.25``,
    ``qc-tokens.wxss``, ``deploy/relay/values.yaml``, ``max_tokens=8192``; not a hyphenated
    compound or a score (``on-call``, ``Shanghai-date``, ``interleukin-2``, ``2-point``,
    ``24-10``), a ratio or a unit (``1/2``, ``nmol/liter``) or an ordinal (``3rd``, ``1700s``),
    which a note in another language, or another paper, writes in its own words."""
    if "_" in written or _CODE_JOIN.search(written):
        return True
    words = [w for w in re.split(r"[\W_]+", written) if w]
    for word in words:
        if not _ORDINAL.fullmatch(word) and _has_digit(word) and any(c.isalpha() for c in word):
            return True
    # a ticket or a host: OPS-1234, SHP-2, INV-KUMO-2611, ch-atlas-01 (not interleukin-2)
    return (
        len(words) > 1
        and words[0].isalpha()
        and any(w.isdigit() and (words[0].isupper() or len(w) > 1) for w in words[1:])
    )


def code_terms(query: str, terms: Iterable[str]) -> set[str]:
    """The identifier terms among ``terms`` that ``query`` writes as codes (:func:`is_code`)."""
    ids = [t for t in terms if is_identifier_term(t)]
    if not ids:
        return set()
    return {
        t for t, written in zip(ids, term_surfaces(query, ids), strict=True) if is_code(written)
    }


def _unknown(identifier: str, dfs: dict[str, int]) -> bool:
    """Whether memory knows nothing of an identifier it does not hold as written: it holds
    none of its words that mix letters and digits. ``Rad53-dependent`` and ``NOX2-independent``
    are written otherwise in notes that hold Rad53 and NOX2, and name nothing memory lacks;
    OPS-9999 is unknown though memory holds "ops" and "9999" apart."""
    words = identifier.split()
    mixed = [w for w in words if _has_digit(w) and any(c.isalpha() for c in w)]
    return len(words) < 2 or not any(dfs.get(w, 0) for w in mixed)


BRIDGES_PER_TERM = 4
"""At most this many words of the other language stand for one query term (the dictionary's
most specific first, among those memory holds): 2, 4 and 8 measured the same on the tuning
half of bench/agentmem."""


def _quoted_words(query: str) -> frozenset[str]:
    """The query terms that are words the question writes between backticks, alone
    (`` `main` ``, `` `--check` ``): code, meant as written (:func:`literal_spans`). An
    identifier's phrase (`` `relay-workers` `` → ``relay workers``) is one already."""
    return frozenset(
        t for span in literal_spans(query) for t in fts_query_terms(span) if " " not in t
    )


def _dictionary_edges(query: str, lacked: set[str], grams: list[str]) -> set[str]:
    """The bigrams of ``lacked`` that the dictionary says are no word, next to one it says is
    (新电 beside 电脑, 产编 between 资产 and 编号): edges between two words of the question,
    even where memory lacks their characters too (a Chinese question about English notes).
    Not one inside a longer word of the question (终奖 of 年终奖)."""
    if not lacked:  # nothing to judge: neither the dictionary nor the query scan is needed
        return set()
    words = {g for g in grams if bilingual.is_word(g)}
    query = variants.fold(query)  # in the characters of the grams (年終獎 → 年终奖)
    longer = {
        query[i : i + n]
        for n in (3, 4)
        for i in range(len(query) - n + 1)
        if bilingual.is_word(query[i : i + n])
    }
    return {
        g
        for g in lacked
        if g not in words
        and not any(g in w for w in longer)
        and any(w != g and (w[1] == g[0] or w[0] == g[1]) for w in words)
    }


LOANWORD_PROBE = 50
"""How many of the chunks holding a katakana bridge's grams in a row are read, at most, to count
those that write it as a word of its own (:func:`memdir.text.loanwords.holds`)."""


def _loanword_df(index: IndexBackend, word: str, phrase: str, df: int) -> int:
    """How many chunks write the loanword ``word`` as a word (ラン, not the ラン of プラン): FTS5
    finds its grams in a row (``df`` chunks), which a longer loanword holds too; the first
    :data:`LOANWORD_PROBE` are read, and ``df`` is scaled by the share that hold it."""
    rows = index.keyword(fts_match([phrase]) or "", LOANWORD_PROBE, ranked=False)
    if not rows:
        return 0
    holding = sum(1 for row in rows if loanwords.holds(match_body(row.chunk), word))
    return holding if len(rows) >= df else round(df * holding / len(rows))


def _bridge_matcher(word: str) -> Callable[[str], bool]:
    if is_katakana_word(word):  # a loanword: a word of its own, not a part of one
        return lambda text: loanwords.holds(text, word)
    return term_matcher(word)


def term_holder(term: str, bridges: Sequence[str] = ()) -> Callable[[str], bool]:
    """Whether a text holds ``term`` or one of its bridges."""
    own = term_matcher(term)
    if not bridges:
        return own
    others = [_bridge_matcher(w) for w in bridges]
    return lambda text: own(text) or any(h(text) for h in others)


def match_body(chunk: ChunkRow) -> str:
    """A chunk's heading path and text as :func:`memdir.text.term_matcher` reads them: what a
    query term must be found in for the chunk to hold it."""
    return match_text(embed_input(chunk.context, chunk.text))


def heading_text(chunk: ChunkRow) -> str:
    """A chunk's heading path and, when it starts with one, its own heading line."""
    first = chunk.text.split("\n", 1)[0]
    own = first if first.lstrip().startswith("#") else ""
    return f"{chunk.context}\n{own}".strip()


def fts5_idf(total: int, df: int) -> float:
    """The IDF FTS5's bm25() uses: ``ln((N − n + 0.5) / (n + 0.5))``, floored at 1e-6."""
    idf = math.log((total - df + 0.5) / (df + 0.5)) if total else 0.0
    return max(idf, 1e-6)


def presence_idf(total: int, df: int) -> float:
    """How much holding a term says, for the presence share: ``ln(1 + (N − n + 0.5) / (n + 0.5))``.

    The smoothed IDF of Lucene's BM25: about FTS5's for a rare term, but never the 1e-6 floor
    for a term in half the chunks or more. In a memory of a few notes every term is in half of
    them, so with FTS5's IDF the note holding the question's ticket weighed nothing against a
    word of the question memory lacks, and keyword search printed "No matches." for it.
    """
    if not total:
        return 0.0
    return math.log1p((total - df + 0.5) / (df + 0.5))


def coverage_score(rank: float, idf_mass: float) -> float:
    """A chunk's BM25 as a share of the query's total IDF: how much of what the query asks
    about the chunk contains, in [0, 1].

    A chunk that holds every query term about as often as an average chunk scores about 1; one
    that holds only the common half of the query scores far less; and a term that appears
    nowhere in memory (a name memory has never seen) keeps its full weight in the denominator,
    so a query about something memory never mentions scores low. This is calibrated across
    corpus sizes, unlike ``r / (1 + r)`` (spec §6.3), which tends to 1 for any match in a large
    corpus and to 0 in a small one. The order is BM25's: only a per-query constant differs.
    """
    if not math.isfinite(rank) or idf_mass <= 0:
        return 0.0
    share = max(0.0, -rank) / idf_mass
    if share <= _KNEE:
        return share
    # Above the knee the share (which can pass 1 for short chunks that repeat the terms) is
    # squashed smoothly towards 1, never reaching it, so BM25's order survives: a hard cap
    # at 1 tied the best chunks and cost 1.5 points of SciFact nDCG@10.
    return _KNEE + (1 - _KNEE) * (1 - math.exp(-(share - _KNEE) / (1 - _KNEE)))


_KNEE = 0.8
